// Recognising 2-D max and average pooling by what the blocks compute, in any
// layout: a reduction over two window iterators whose output is indexed by four
// plain iterators, reading the input at two passed-through dimensions and two
// windows `o * stride + r * dilation - pad`, the out-of-bounds taps skipped (an
// `if` found equivalent to the bounds by evaluation). Average pooling is that sum
// followed by a stage dividing it by the window area (padding included) or by the
// count of taps inside (padding excluded), probed at the output's corners.
//
//   P[n, c, oh, ow] = max over rh, rw of X[n, c, oh * 2 - 1 + rh, ow * 2 - 1 + rw]
//     (X: f32[1, 64, 112, 112], P: f32[1, 64, 56, 56], taps outside X skipped)
//     -> {max, kernel 3x3, stride 2, pad 1/1 (low), 0/0 (high), stages {s}}
#ifndef TESSEL_DISPATCH_POOLING_H_
#define TESSEL_DISPATCH_POOLING_H_

#include <array>
#include <string>
#include <variant>
#include <vector>

#include "dispatch/stages.h"

namespace tessel::dispatch {

struct Pool2d {
  enum Kind { kMax = 0, kAvgIncludePad = 1, kAvgExcludePad = 2 } kind = kMax;
  ir::Buffer src, dst;
  // Logical dimensions (N, C, H, W): the passed-through ones in the input's order,
  // then the windows; the element strides of each in src and dst.
  std::array<int64_t, 4> in{}, out{}, src_strides{}, dst_strides{};
  std::array<int64_t, 2> kernel{}, stride{}, dilation{}, pad_lo{}, pad_hi{};
  std::vector<size_t> stages;                  // The sum (or max), then the division.
  std::vector<const ir::BufferNode*> dropped;  // The sum of an average.
  std::string ToString() const;                // "max_pool 3x3 stride 2x2 pad 1,1/0,0"
};

// The pooling whose reduction is stage `s`, or why there is none.
std::variant<Pool2d, std::string> MatchPool2d(const ir::PrimFunc& func, const StageList& list,
                                              size_t s);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_POOLING_H_
