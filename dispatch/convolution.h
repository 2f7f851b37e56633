// Matching a 2-D convolution by meaning: a sum of products whose data index
// reads a window (`oh * s + ry * d` along H and W), whose weight index is four
// plain iterators, in any layout (NCHW, NHWC, OIHW, HWIO: the roles come from
// which iterators index which dimension, strides from the buffers), with groups
// read from the channel index (`(oc // (O/g)) * (C/g) + rc`), and the zero
// padding of a pad stage in front of it read off by evaluating that stage.
//
//   conv2d_pad[n, c, h, w] = select(h >= 1 && h < 57 && ..., data[n, c, h - 1, w - 1], 0)
//   conv2d[n, oc, oh, ow] += conv2d_pad[n, rc, oh + ry, ow + rx] * kernel[oc, rc, ry, rx]
//   MatchConv2d -> {src data (n, c, h, w strides 200704, 3136, 56, 1), 64 filters 3x3,
//                   stride 1, dilation 1, padding 1 on each side, groups 1}
#ifndef TESSEL_DISPATCH_CONVOLUTION_H_
#define TESSEL_DISPATCH_CONVOLUTION_H_

#include <array>
#include <string>
#include <variant>
#include <vector>

#include "dispatch/stages.h"

namespace tessel::dispatch {

struct Conv2d {
  int64_t n = 1, c = 1, h = 1, w = 1;  // The input, unpadded.
  int64_t oc = 1, kh = 1, kw = 1, oh = 1, ow = 1, groups = 1;
  std::array<int64_t, 2> stride = {1, 1}, dilation = {1, 1}, pad_lo = {0, 0}, pad_hi = {0, 0};
  ir::Buffer src;                           // The unpadded input.
  std::array<int64_t, 4> src_strides = {};  // (n, c, h, w), elements.
  ir::Buffer weights;
  std::array<int64_t, 4> weight_strides = {};  // (o, i, kh, kw)
  ir::Buffer dst;                              // The accumulator the block writes.
  std::vector<int> out_dims;                   // Per dimension of dst: 0 n, 1 c, 2 h, 3 w.
  int pad_stage = -1;                          // The stage that pads src, when one does.
  std::string ToString()
      const;  // "1x64x56x56, 64 filters 3x3, stride 1, dilation 1, pad 1 1 1 1, groups 1"
};

// The convolution stage `s` of `list` computes, or why it is none. A pad stage
// right before it is absorbed when only the convolution reads its output.
std::variant<Conv2d, std::string> MatchConv2d(const ir::PrimFunc& func, const StageList& list,
                                              size_t s);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_CONVOLUTION_H_
