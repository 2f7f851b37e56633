// Units for Conv2D and the pools: NCHW and NHWC, strides, symmetric and
// asymmetric padding, dilation, groups and depthwise -- each against a direct
// C++ convolution / pooling that reads zero (or skips) outside the input.
//
//   Conv2D(data: f32[2, 4, 9, 8], kernel: f32[6, 2, 3, 2], {.strides = {2},
//          .padding = {1}, .dilation = {2}, .groups = 2})   vs  the loops below
#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/te/ops/nn/conv2d.h"
#include "ir/te/ops/pool.h"
#include "tests/unit/te_test_util.h"

namespace tessel::ir::te {
namespace {

using ::testing::HasSubstr;
using namespace ::tessel::ir::te::testing;  // NOLINT
using ops::Layout;

struct ConvCase {
  const char* what;
  Layout layout;
  int64_t n, c, h, w, o, kh, kw;
  std::vector<int> strides, padding, dilation;
  int groups;
};

// (top, left, bottom, right) from the op's 1-, 2- or 4-value form.
std::vector<int64_t> Pads(const std::vector<int>& p) {
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  return {p[0], p[1], p[2], p[3]};
}

TEST(TeConv2DTest, MatchesDirectConvolution) {
  const ConvCase cases[] = {
      {"nchw plain", Layout::kNCHW, 1, 3, 7, 6, 4, 3, 3, {1}, {0}, {1}, 1},
      {"nchw stride/pad/dilation/groups", Layout::kNCHW, 2, 4, 9, 8, 6, 3, 2, {2}, {1}, {2}, 2},
      {"nchw depthwise asymmetric", Layout::kNCHW, 1, 3, 6, 7, 6, 3, 3, {2, 1}, {0, 1, 2, 1}, {1}, 3},
      {"nhwc pad/stride", Layout::kNHWC, 1, 3, 8, 7, 5, 3, 3, {2}, {1}, {1}, 1},
      {"nhwc depthwise dilated", Layout::kNHWC, 2, 4, 7, 7, 4, 3, 3, {1}, {2}, {2}, 4},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.what);
    const bool nchw = c.layout == Layout::kNCHW;
    const int64_t cg = c.c / c.groups;
    Tensor data = nchw ? Input("data", {c.n, c.c, c.h, c.w}) : Input("data", {c.n, c.h, c.w, c.c});
    Tensor kernel = nchw ? Input("kernel", {c.o, cg, c.kh, c.kw}) : Input("kernel", {c.kh, c.kw, cg, c.o});
    Tensor out = Must(ops::Conv2D(data, kernel, {.strides = c.strides, .padding = c.padding,
                                                 .dilation = c.dilation, .groups = c.groups,
                                                 .layout = c.layout}));
    TeRun r = MustRun({data, kernel, out});
    const std::vector<int64_t> pad = Pads(c.padding);
    const int64_t sh = c.strides[0], sw = c.strides.size() > 1 ? c.strides[1] : sh;
    const int64_t dh = c.dilation[0], dw = c.dilation.size() > 1 ? c.dilation[1] : dh;
    const int64_t oh = (c.h + pad[0] + pad[2] - dh * (c.kh - 1) - 1) / sh + 1;
    const int64_t ow = (c.w + pad[1] + pad[3] - dw * (c.kw - 1) - 1) / sw + 1;
    ASSERT_EQ(r.Shape(2)[nchw ? 2 : 1], oh);
    ASSERT_EQ(r.Shape(2)[nchw ? 3 : 2], ow);
    ExpectAll(r, 2, [&](const std::vector<int64_t>& i) {
      int64_t n = i[0], o = nchw ? i[1] : i[3], y = nchw ? i[2] : i[1], x = nchw ? i[3] : i[2];
      int64_t group = o / (c.o / c.groups);
      double s = 0;
      for (int64_t rc = 0; rc < cg; ++rc) {
        for (int64_t ky = 0; ky < c.kh; ++ky) {
          for (int64_t kx = 0; kx < c.kw; ++kx) {
            int64_t hy = y * sh - pad[0] + ky * dh, wx = x * sw - pad[1] + kx * dw;
            if (hy < 0 || hy >= c.h || wx < 0 || wx >= c.w) continue;
            int64_t ch = group * cg + rc;
            double v = nchw ? r.At(0, {n, ch, hy, wx}) : r.At(0, {n, hy, wx, ch});
            double k = nchw ? r.At(1, {o, rc, ky, kx}) : r.At(1, {ky, kx, rc, o});
            s += v * k;
          }
        }
      }
      return s;
    });
  }
}

TEST(TeConv2DTest, PaddingIsItsOwnBlock) {
  Tensor data = Input("data", {1, 2, 5, 5}), kernel = Input("kernel", {2, 2, 3, 3});
  Tensor out = Must(ops::Conv2D(data, kernel, {.padding = {1}, .name = "conv"}));
  ASSERT_EQ(out.op()->inputs.size(), 2u);
  EXPECT_EQ(out.op()->inputs[0].name(), "conv_pad");
  EXPECT_EQ(ops::ShapeString(out.op()->inputs[0].shape()), "[1, 2, 7, 7]");
  Tensor nopad = Must(ops::Conv2D(data, kernel));
  EXPECT_EQ(nopad.op()->inputs[0].name(), "data");
}

TEST(TeConv2DTest, RefusesInconsistentShapes) {
  Tensor data = Input("data", {1, 4, 8, 8});
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {6, 3, 3, 3}))),
              HasSubstr("conv2d: kernel 'k' [6, 3, 3, 3] (OIHW) expects [3] channels per group, but "
                        "data 'data' [1, 4, 8, 8] (NCHW) has [4] channels in 1 group"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {6, 2, 3, 3}), {.groups = 3})),
              HasSubstr("conv2d: 4 input and 6 output channels are not divisible by 3 groups"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {6, 2, 3, 3}), {.groups = 0})),
              HasSubstr("groups 0 is not >= 1"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {2, 4, 9, 3}))),
              HasSubstr("conv2d: the window (extent [9]) is larger than the padded input ([8])"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {2, 4, 3, 3}), {.padding = {1, 2, 3}})),
              HasSubstr("padding has 3 values; expected 1, 2 or 4"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {2, 4, 3, 3}), {.strides = {0}})),
              HasSubstr("conv2d: strides 0 is not >= 1"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {2, 4, 3, 3}), {.padding = {-1}})),
              HasSubstr("conv2d: negative padding -1"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(Input("d3", {4, 8, 8}), Input("k", {2, 4, 3, 3}))),
              HasSubstr("conv2d: tensor 'd3' has rank 3 (shape [4, 8, 8]), expected rank 4"));
  EXPECT_THAT(ErrorOf(ops::Conv2D(data, Input("k", {2, 4, 3, 3}, kI32))),
              HasSubstr("conv2d: operand types differ"));
  Var c = SizeVar("c");
  EXPECT_THAT(ErrorOf(ops::Conv2D(Input("ds", {1, c, 8, 8}), Input("k", {4, 2, 3, 3}), {.groups = 2})),
              HasSubstr("conv2d: grouped convolution needs constant channel counts"));
  Tensor flags = Input("b", {1, 1, 4, 4}, DataType::Bool());
  EXPECT_THAT(ErrorOf(ops::Conv2D(flags, Input("kb", {1, 1, 3, 3}, DataType::Bool()))),
              HasSubstr("conv2d: cannot convolve bool into bool"));
  // Symbolic channels are fine without groups when data and kernel agree.
  Tensor ds = Input("ds", {1, c, 8, 8});
  EXPECT_TRUE(ops::Conv2D(ds, Input("kc", {2, c, 3, 3})).ok());
  EXPECT_THAT(ErrorOf(ops::Conv2D(ds, Input("kd", {2, 4, 3, 3}))), HasSubstr("expects [4] channels per group"));
}

struct PoolCase {
  const char* what;
  Layout layout;
  std::vector<int> kernel, strides, padding, dilation;
  bool include_pad;
};

TEST(TePoolTest, MaxAndAveragePoolingMatchDirectLoops) {
  const PoolCase cases[] = {
      {"plain 2x2/2", Layout::kNCHW, {2}, {2}, {0}, {1}, true},
      {"3x3/2 pad 1", Layout::kNCHW, {3}, {2}, {1}, {1}, true},
      {"3x3/2 pad 1 exclude pad", Layout::kNCHW, {3}, {2}, {1}, {1}, false},
      {"asymmetric, dilated, nhwc", Layout::kNHWC, {3, 2}, {1, 2}, {0, 1, 2, 1}, {2, 1}, false},
      {"nhwc include pad", Layout::kNHWC, {3, 3}, {2, 1}, {1, 2}, {1}, true},
  };
  const int64_t n = 2, ch = 3, h = 9, w = 7;
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(c.what);
    const bool nchw = c.layout == Layout::kNCHW;
    Tensor x = nchw ? Input("x", {n, ch, h, w}) : Input("x", {n, h, w, ch});
    ops::Pool2DOptions o{.kernel = c.kernel, .strides = c.strides, .padding = c.padding,
                         .dilation = c.dilation, .layout = c.layout,
                         .count_include_pad = c.include_pad};
    Tensor mx = Must(ops::MaxPool2D(x, o)), avg = Must(ops::AvgPool2D(x, o));
    TeRun r = MustRun({x, mx, avg});
    const std::vector<int64_t> pad = Pads(c.padding);
    const int64_t kh = c.kernel[0], kw = c.kernel.size() > 1 ? c.kernel[1] : kh;
    const int64_t sh = c.strides[0], sw = c.strides.size() > 1 ? c.strides[1] : sh;
    const int64_t dh = c.dilation[0], dw = c.dilation.size() > 1 ? c.dilation[1] : dh;
    auto window = [&](const std::vector<int64_t>& i, bool want_max) {
      int64_t b = i[0], cc = nchw ? i[1] : i[3], y = nchw ? i[2] : i[1], xx = nchw ? i[3] : i[2];
      double best = -std::numeric_limits<double>::infinity(), sum = 0;
      int64_t count = 0;
      for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx) {
          int64_t hy = y * sh - pad[0] + ky * dh, wx = xx * sw - pad[1] + kx * dw;
          if (hy < 0 || hy >= h || wx < 0 || wx >= w) continue;
          double v = nchw ? r.At(0, {b, cc, hy, wx}) : r.At(0, {b, hy, wx, cc});
          best = std::max(best, v);
          sum += v;
          ++count;
        }
      }
      if (want_max) return best;
      return sum / static_cast<double>(c.include_pad ? kh * kw : count);
    };
    ExpectAll(r, 1, [&](const std::vector<int64_t>& i) { return window(i, true); });
    ExpectAll(r, 2, [&](const std::vector<int64_t>& i) { return window(i, false); });
  }
}

TEST(TePoolTest, RefusesBadWindows) {
  Tensor x = Input("x", {1, 2, 6, 6});
  EXPECT_THAT(ErrorOf(ops::MaxPool2D(x, {})), HasSubstr("max_pool2d: kernel has 0 values; expected 1 or 2"));
  EXPECT_THAT(ErrorOf(ops::MaxPool2D(x, {.kernel = {2}, .padding = {2}})),
              HasSubstr("max_pool2d: padding 2 leaves windows with no input"));
  EXPECT_THAT(ErrorOf(ops::AvgPool2D(x, {.kernel = {7}})),
              HasSubstr("avg_pool2d: the window (extent [7]) is larger than the padded input ([6])"));
  EXPECT_THAT(ErrorOf(ops::AvgPool2D(Input("i", {1, 2, 6, 6}, kI32), {.kernel = {2}})),
              HasSubstr("avg_pool2d: tensor 'i' has type i32, expected a float type"));
  EXPECT_THAT(ErrorOf(ops::MaxPool2D(Input("r3", {2, 6, 6}), {.kernel = {2}})),
              HasSubstr("max_pool2d: tensor 'r3' has rank 3"));
  EXPECT_THAT(ErrorOf(ops::MaxPool2D(x, {.kernel = {2}, .dilation = {0}})),
              HasSubstr("dilation 0 is not >= 1"));
  EXPECT_THAT(ErrorOf(ops::MaxPool2D(Input("fb", {1, 1, 4, 4}, DataType::Bool()), {.kernel = {2}})),
              HasSubstr("max_pool2d: tensor 'fb' has type bool, expected numbers"));
  // Integers pool too (max only).
  Tensor xi = Input("xi", {1, 1, 4, 4}, kI32);
  Tensor m = Must(ops::MaxPool2D(xi, {.kernel = {2}, .strides = {2}}));
  TeRun r = MustRun({xi, m});
  ExpectAll(r, 1, [&](const std::vector<int64_t>& i) {
    return std::max({r.At(0, {0, 0, 2 * i[2], 2 * i[3]}), r.At(0, {0, 0, 2 * i[2] + 1, 2 * i[3]}),
                     r.At(0, {0, 0, 2 * i[2], 2 * i[3] + 1}), r.At(0, {0, 0, 2 * i[2] + 1, 2 * i[3] + 1})});
  });
}

}  // namespace
}  // namespace tessel::ir::te
