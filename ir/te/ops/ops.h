// The operator library in one include.
//
//   #include "ir/te/ops/ops.h"
//   namespace ops = tessel::ir::te::ops;
//   Tensor y = *ops::Relu(*ops::Dense(x, w, b));
//
// Each op returns absl::StatusOr: a shape or dtype its rules refuse is an error
// naming the op and the tensors, never an abort. The headers below state each
// op's shape and dtype rules.
#ifndef TESSEL_IR_TE_OPS_OPS_H_
#define TESSEL_IR_TE_OPS_OPS_H_

#include "ir/te/ops/attention.h"
#include "ir/te/ops/broadcast.h"
#include "ir/te/ops/elementwise.h"
#include "ir/te/ops/matmul.h"
#include "ir/te/ops/nn/conv2d.h"
#include "ir/te/ops/norm.h"
#include "ir/te/ops/pool.h"
#include "ir/te/ops/reduce.h"
#include "ir/te/ops/softmax.h"
#include "ir/te/ops/transform.h"

#endif  // TESSEL_IR_TE_OPS_OPS_H_
