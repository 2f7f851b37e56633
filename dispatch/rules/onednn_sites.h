// The parts of the `onednn` rule (rules/onednn.cc), one file per library op:
// each finds its sites in a function's stages and emits the shim call.
#ifndef TESSEL_DISPATCH_RULES_ONEDNN_SITES_H_
#define TESSEL_DISPATCH_RULES_ONEDNN_SITES_H_

#include "dispatch/matmul_rewrite.h"

namespace tessel::dispatch {

SiteMatcher OneDnnMatmulSites();  // rules/onednn_matmul.cc
SiteMatcher OneDnnConv2dSites();  // rules/onednn_conv2d.cc
SiteMatcher OneDnnSoftmaxSites();  // rules/onednn_softmax.cc
SiteMatcher OneDnnLayerNormSites();  // rules/onednn_layer_norm.cc
SiteMatcher OneDnnPool2dSites();     // rules/onednn_pool2d.cc

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_RULES_ONEDNN_SITES_H_
