// oneDNN's 2-D convolution behind the packed convention (dispatch_runtime.h):
// any layout of data, weights and output expressed by strides, stride,
// dilation, asymmetric padding, groups (depthwise included), the epilogue as
// post-ops; the primitive created once per arguments and threads, and cached.
//
//   conv2d NCHW 1x64x56x56, 64 filters 3x3, pad 1, then + bias[c] and relu
//     -> convolution_forward(src 1x64x56x56, weights 64x64x3x3, dst 1x64x56x56,
//                            post-ops {binary_add(bias: 1 x 64 x 1 x 1), eltwise_relu})
//
// oneDNN picks its own (blocked) layouts for the convolution; where the
// caller's differ, the call reorders the data and weights into them and the
// result back (the weights on every call: they may change between calls).
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/onednn_support.h"
#include "dispatch/runtime/shim_args.h"

namespace tessel::dispatch::shim {
namespace {

constexpr int kFixedArgs = 34;

struct ConvPrim {
  dnnl::convolution_forward conv;
  dnnl::memory::desc src, weights, dst;                 // The caller's layouts.
  dnnl::memory::desc conv_src, conv_weights, conv_dst;  // The convolution's.
  // Reorders between the two, created once; empty where the layouts agree.
  std::optional<dnnl::reorder> to_src, to_weights, from_dst;
  PostOpList posts;
};

std::optional<dnnl::reorder> ReorderIfNeeded(const dnnl::memory::desc& from,
                                             const dnnl::memory::desc& to) {
  if (from == to) return std::nullopt;
  return dnnl::reorder(dnnl::reorder::primitive_desc(Engine(), from, Engine(), to));
}

// Scratch for a reordered operand: per thread and operand, grown as needed, so a
// repeated call neither allocates nor faults pages in.
void* Scratch(int which, size_t bytes) {
  thread_local std::vector<char> buffers[3];
  if (buffers[which].size() < bytes) buffers[which].resize(bytes);
  return buffers[which].data();
}

// `user` in the layout of `r`'s destination, through the cached reorder.
dnnl::memory Into(const dnnl::memory& user, const std::optional<dnnl::reorder>& r,
                  const dnnl::memory::desc& want, int which, dnnl::stream& s) {
  if (!r) return user;
  dnnl::memory out(want, Engine(), Scratch(which, want.get_size()));
  r->execute(s, const_cast<dnnl::memory&>(user), out);
  return out;
}

std::shared_ptr<const void> Create(const int64_t* a, int64_t posts) {
  const int64_t n = a[0], c = a[1], h = a[2], w = a[3], oc = a[4], kh = a[5], kw = a[6];
  const int64_t oh = a[7], ow = a[8], g = a[9];
  auto p = std::make_shared<ConvPrim>();
  p->src = BroadcastDesc({n, c, h, w}, {a[19], a[20], a[21], a[22]});
  if (g == 1) {
    p->weights = BroadcastDesc({oc, c, kh, kw}, {a[24], a[25], a[26], a[27]});
  } else {  // goihw: the group stride is (oc / g) output channels.
    p->weights =
        BroadcastDesc({g, oc / g, c / g, kh, kw}, {a[24] * (oc / g), a[24], a[25], a[26], a[27]});
  }
  p->dst = BroadcastDesc({n, oc, oh, ow}, {a[29], a[30], a[31], a[32]});
  p->posts = ParsePostOps(a + kFixedArgs, posts, {n, oc, oh, ow});
  dnnl::primitive_attr attr;
  attr.set_post_ops(p->posts.ops);
  auto any = [](const dnnl::memory::desc& d) {
    return dnnl::memory::desc(d.dims(), dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::any);
  };
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct, any(p->src),
                                       any(p->weights), any(p->dst), {a[10], a[11]},
                                       {a[12] - 1, a[13] - 1}, {a[14], a[15]}, {a[16], a[17]});
  dnnl::convolution_forward::primitive_desc pd(desc, attr, Engine());
  p->conv_src = pd.src_desc();
  p->conv_weights = pd.weights_desc();
  p->conv_dst = pd.dst_desc();
  p->conv = dnnl::convolution_forward(pd);
  p->to_src = ReorderIfNeeded(p->src, p->conv_src);
  p->to_weights = ReorderIfNeeded(p->weights, p->conv_weights);
  p->from_dst = ReorderIfNeeded(p->conv_dst, p->dst);
  return p;
}

}  // namespace
}  // namespace tessel::dispatch::shim

using namespace tessel::dispatch::shim;  // NOLINT: the C entry point below.

extern "C" int32_t tessel_onednn_conv2d(const int64_t* a, int32_t n) {
  if (std::string p = CheckPostOpArgs("tessel_onednn_conv2d", a, n, kFixedArgs, 4); !p.empty()) {
    return Fail(p);
  }
  const int64_t posts = a[kFixedArgs - 1];
  const int slots = PostOpSlots(4);
  for (int d = 0; d < 14; ++d) {
    if (a[d] < 1) {
      return Fail("tessel_onednn_conv2d: extents, groups, strides and dilations must be positive");
    }
  }
  if (a[4] % a[9] != 0 || a[1] % a[9] != 0) {
    return Fail("tessel_onednn_conv2d: the groups do not divide the channels");
  }
  if (a[14] < 0 || a[15] < 0 || a[16] < 0 || a[17] < 0) {
    return Fail("tessel_onednn_conv2d: negative padding");
  }
  if (a[18] == 0 || a[23] == 0 || a[28] == 0) return Fail("tessel_onednn_conv2d: a null buffer");
  const std::vector<int64_t> key =
      CacheKey(PrimitiveKind::kConv2d, a, n, {18, 23, 28}, kFixedArgs, 4, UseTesselThreads());
  return Guarded("tessel_onednn_conv2d", [&]() -> int32_t {
    auto prim =
        std::static_pointer_cast<const ConvPrim>(Cached(key, [&] { return Create(a, posts); }));
    dnnl::stream& stream = ThreadStream();
    dnnl::memory user_dst(prim->dst, Engine(), Ptr<void>(a[28]));
    // A blocked result cannot take binary post-op operands in the caller's layout
    // unless oneDNN broadcasts them; it does (their descriptors are plain), so only
    // the result itself is reordered back.
    dnnl::memory dst = prim->from_dst ? dnnl::memory(prim->conv_dst, Engine(),
                                                     Scratch(2, prim->conv_dst.get_size()))
                                      : user_dst;
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, Into(dnnl::memory(prim->src, Engine(), Ptr<void>(a[18])), prim->to_src,
                            prim->conv_src, 0, stream)},
        {DNNL_ARG_WEIGHTS, Into(dnnl::memory(prim->weights, Engine(), Ptr<void>(a[23])),
                                prim->to_weights, prim->conv_weights, 1, stream)},
        {DNNL_ARG_DST, dst}};
    if (std::string w = BindPostOpOperands(prim->posts, a + kFixedArgs, slots, &args); !w.empty()) {
      return Fail("tessel_onednn_conv2d: " + w);
    }
    prim->conv.execute(stream, args);
    if (prim->from_dst) prim->from_dst->execute(stream, dst, user_dst);
    stream.wait();
    return 0;
  });
}
