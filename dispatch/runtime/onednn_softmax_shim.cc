// oneDNN's softmax (softmax_v2: softmax_accurate or softmax_log) behind the packed
// convention (dispatch_runtime.h), any axis of up to 6 dimensions in any layout,
// the primitive created once per (shape, strides, axis, algorithm, threads) and
// cached (onednn_support.h).
//
//   Y = softmax(X, axis 1), X and Y f32[128, 1000] row-major
//     -> softmax_v2_forward(forward_inference, softmax_accurate, src {128, 1000}
//        strides {1000, 1}, dst likewise, axis 1)
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/onednn_support.h"
#include "dispatch/runtime/shim_args.h"

namespace tessel::dispatch::shim {
namespace {

constexpr int kMaxDims = 6;
constexpr int kArgs = 3 + 3 * kMaxDims + 2;  // ndim, axis, log; dims; src, strides; dst, strides
constexpr int kSrc = 3 + kMaxDims, kDst = kSrc + 1 + kMaxDims;

struct SoftmaxPrim {
  dnnl::softmax_v2_forward softmax;
  dnnl::memory::desc src, dst;
};

std::shared_ptr<const void> Create(const int64_t* a) {
  const int ndim = static_cast<int>(a[0]);
  std::vector<int64_t> dims(a + 3, a + 3 + ndim);
  auto p = std::make_shared<SoftmaxPrim>();
  p->src = dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                              std::vector<int64_t>(a + kSrc + 1, a + kSrc + 1 + ndim));
  p->dst = dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                              std::vector<int64_t>(a + kDst + 1, a + kDst + 1 + ndim));
  const auto alg = a[2] ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
  dnnl::softmax_v2_forward::primitive_desc pd(
      dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference, alg, p->src, p->dst,
                                     static_cast<int>(a[1])),
      Engine());
  p->softmax = dnnl::softmax_v2_forward(pd);
  return p;
}

}  // namespace
}  // namespace tessel::dispatch::shim

using namespace tessel::dispatch::shim;  // NOLINT: the C entry point below.

extern "C" int32_t tessel_onednn_softmax(const int64_t* a, int32_t n) {
  if (std::string p = CountProblem("tessel_onednn_softmax", n, kArgs); !p.empty()) return Fail(p);
  const int64_t ndim = a[0];
  if (ndim < 1 || ndim > kMaxDims) {
    return Fail("tessel_onednn_softmax: 1 to 6 dimensions, given " + std::to_string(ndim));
  }
  if (a[1] < 0 || a[1] >= ndim) {
    return Fail("tessel_onednn_softmax: axis " + std::to_string(a[1]) + " of " +
                std::to_string(ndim) + " dimensions");
  }
  if (a[2] != 0 && a[2] != 1) return Fail("tessel_onednn_softmax: algorithm must be 0 or 1");
  for (int d = 0; d < ndim; ++d) {
    if (a[3 + d] < 1) return Fail("tessel_onednn_softmax: extents must be positive");
  }
  if (a[kSrc] == 0 || a[kDst] == 0) return Fail("tessel_onednn_softmax: a null buffer");
  for (bool out : {false, true}) {
    const int at = out ? kDst : kSrc;
    if (std::string p = StrideProblem("tessel_onednn_softmax", out ? "dst" : "src", a + 3,
                                      a + at + 1, static_cast<int>(ndim), out);
        !p.empty()) {
      return Fail(p);
    }
  }
  const std::vector<int64_t> key =
      PlainCacheKey(PrimitiveKind::kSoftmax, a, n, {kSrc, kDst}, UseTesselThreads());
  return Guarded("tessel_onednn_softmax", [&]() -> int32_t {
    auto prim = std::static_pointer_cast<const SoftmaxPrim>(Cached(key, [&] { return Create(a); }));
    prim->softmax.execute(ThreadStream(),
                          {{DNNL_ARG_SRC, dnnl::memory(prim->src, Engine(), Ptr<void>(a[kSrc]))},
                           {DNNL_ARG_DST, dnnl::memory(prim->dst, Engine(), Ptr<void>(a[kDst]))}});
    ThreadStream().wait();
    return 0;
  });
}
