// oneDNN's 2-D pooling (pooling_v2: max, average with padding included or
// excluded; stride, dilation, asymmetric padding) behind the packed convention
// (dispatch_runtime.h), in any plain layout given by strides, the primitive
// created once per (shapes, strides, parameters, threads) and cached
// (onednn_support.h).
//
//   max_pool2d(X: f32[1, 64, 112, 112], 3, 2, 1) -> pooling_v2_forward(forward_inference,
//       pooling_max, src {1, 64, 112, 112}, dst {1, 64, 56, 56}, strides {2, 2},
//       kernel {3, 3}, dilation {0, 0} (oneDNN counts the gaps), pads {1, 1} / {0, 0})
#include <string>
#include <vector>

#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/onednn_support.h"
#include "dispatch/runtime/shim_args.h"

namespace tessel::dispatch::shim {
namespace {

constexpr int kSrc = 17, kDst = 22, kArgs = 27;

struct PoolPrim {
  dnnl::pooling_v2_forward pool;
  dnnl::memory::desc src, dst;
};

std::shared_ptr<const void> Create(const int64_t* a) {
  auto p = std::make_shared<PoolPrim>();
  const dnnl::memory::dims in = {a[1], a[2], a[3], a[4]}, out = {a[1], a[2], a[5], a[6]};
  p->src = dnnl::memory::desc(in, dnnl::memory::data_type::f32,
                              dnnl::memory::dims(a + kSrc + 1, a + kSrc + 5));
  p->dst = dnnl::memory::desc(out, dnnl::memory::data_type::f32,
                              dnnl::memory::dims(a + kDst + 1, a + kDst + 5));
  const dnnl::algorithm alg = a[0] == 0   ? dnnl::algorithm::pooling_max
                              : a[0] == 1 ? dnnl::algorithm::pooling_avg_include_padding
                                          : dnnl::algorithm::pooling_avg_exclude_padding;
  dnnl::pooling_v2_forward::primitive_desc pd(
      dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_inference, alg, p->src, p->dst,
                                     {a[9], a[10]}, {a[7], a[8]}, {a[11] - 1, a[12] - 1},
                                     {a[13], a[14]}, {a[15], a[16]}),
      Engine());
  p->pool = dnnl::pooling_v2_forward(pd);
  return p;
}

}  // namespace
}  // namespace tessel::dispatch::shim

using namespace tessel::dispatch::shim;  // NOLINT: the C entry point below.

extern "C" int32_t tessel_onednn_pool2d(const int64_t* a, int32_t n) {
  constexpr const char* kName = "tessel_onednn_pool2d";
  if (std::string p = CountProblem(kName, n, kArgs); !p.empty()) return Fail(p);
  if (a[0] < 0 || a[0] > 2) return Fail(std::string(kName) + ": algorithm must be 0, 1 or 2");
  for (int i = 1; i <= 12; ++i) {
    if (a[i] < 1) {
      return Fail(std::string(kName) + ": shapes, kernel, strides and dilations must be positive");
    }
  }
  for (int i = 13; i <= 16; ++i) {
    if (a[i] < 0) return Fail(std::string(kName) + ": padding must be non-negative");
  }
  if (a[kSrc] == 0 || a[kDst] == 0) return Fail(std::string(kName) + ": a null buffer");
  const int64_t in[4] = {a[1], a[2], a[3], a[4]}, out[4] = {a[1], a[2], a[5], a[6]};
  if (std::string p = StrideProblem(kName, "src", in, a + kSrc + 1, 4, false); !p.empty()) {
    return Fail(p);
  }
  if (std::string p = StrideProblem(kName, "dst", out, a + kDst + 1, 4, true); !p.empty()) {
    return Fail(p);
  }
  const std::vector<int64_t> key =
      PlainCacheKey(PrimitiveKind::kPool2d, a, n, {kSrc, kDst}, UseTesselThreads());
  return Guarded(kName, [&]() -> int32_t {
    auto prim = std::static_pointer_cast<const PoolPrim>(Cached(key, [&] { return Create(a); }));
    prim->pool.execute(ThreadStream(),
                       {{DNNL_ARG_SRC, dnnl::memory(prim->src, Engine(), Ptr<void>(a[kSrc]))},
                        {DNNL_ARG_DST, dnnl::memory(prim->dst, Engine(), Ptr<void>(a[kDst]))}});
    ThreadStream().wait();
    return 0;
  });
}
