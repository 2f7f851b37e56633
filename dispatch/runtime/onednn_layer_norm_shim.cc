// oneDNN's layer normalisation (forward inference: the statistics computed per
// call) behind the packed convention (dispatch_runtime.h), over the last axis of
// 2 to 6 dimensions in any layout shared by source and destination, with gamma
// (use_scale) and beta (use_shift) each optional; the primitive created once per
// (shape, strides, flags, eps, threads) and cached (onednn_support.h).
//
//   Y = layer_norm(X: f32[128, 768], G, B, eps 1e-5)
//     -> layer_normalization_forward(forward_inference, data {128, 768} strides {768, 1},
//        1e-5, use_scale | use_shift), SCALE = G, SHIFT = B
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/onednn_support.h"
#include "dispatch/runtime/shim_args.h"

namespace tessel::dispatch::shim {
namespace {

constexpr int kMaxDims = 6;
constexpr int kSrc = 3 + kMaxDims, kDst = kSrc + 1 + kMaxDims, kGamma = kDst + 1,
              kBeta = kGamma + 1, kArgs = kBeta + 1;

struct LayerNormPrim {
  dnnl::layer_normalization_forward norm;
  dnnl::memory::desc data, vector;
};

std::shared_ptr<const void> Create(const int64_t* a) {
  const int ndim = static_cast<int>(a[0]);
  std::vector<int64_t> dims(a + 3, a + 3 + ndim);
  auto p = std::make_shared<LayerNormPrim>();
  p->data = dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                               std::vector<int64_t>(a + kSrc + 1, a + kSrc + 1 + ndim));
  p->vector =
      dnnl::memory::desc({dims.back()}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  auto flags = dnnl::normalization_flags::none;
  if (a[1] & 1) flags |= dnnl::normalization_flags::use_scale;
  if (a[1] & 2) flags |= dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd(
      dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, p->data,
                                              F32(a[2]), flags),
      Engine());
  p->norm = dnnl::layer_normalization_forward(pd);
  return p;
}

}  // namespace
}  // namespace tessel::dispatch::shim

using namespace tessel::dispatch::shim;  // NOLINT: the C entry point below.

extern "C" int32_t tessel_onednn_layer_norm(const int64_t* a, int32_t n) {
  constexpr const char* kName = "tessel_onednn_layer_norm";
  if (std::string p = CountProblem(kName, n, kArgs); !p.empty()) return Fail(p);
  const int64_t ndim = a[0];
  if (ndim < 2 || ndim > kMaxDims) {
    return Fail(std::string(kName) + ": 2 to 6 dimensions, given " + std::to_string(ndim));
  }
  if (a[1] < 0 || a[1] > 3) return Fail(std::string(kName) + ": flags must be 0 to 3");
  const float eps = F32(a[2]);
  if (!(eps >= 0.0f)) return Fail(std::string(kName) + ": eps must be non-negative");
  for (int d = 0; d < ndim; ++d) {
    if (a[3 + d] < 1) return Fail(std::string(kName) + ": extents must be positive");
  }
  if (a[kSrc] == 0 || a[kDst] == 0 || ((a[1] & 1) && a[kGamma] == 0) ||
      ((a[1] & 2) && a[kBeta] == 0)) {
    return Fail(std::string(kName) + ": a null buffer");
  }
  if (std::string p =
          StrideProblem(kName, "data", a + 3, a + kSrc + 1, static_cast<int>(ndim), true);
      !p.empty()) {
    return Fail(p);
  }
  const std::vector<int64_t> key = PlainCacheKey(PrimitiveKind::kLayerNorm, a, n,
                                                 {kSrc, kDst, kGamma, kBeta}, UseTesselThreads());
  return Guarded(kName, [&]() -> int32_t {
    auto prim =
        std::static_pointer_cast<const LayerNormPrim>(Cached(key, [&] { return Create(a); }));
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(prim->data, Engine(), Ptr<void>(a[kSrc]))},
        {DNNL_ARG_DST, dnnl::memory(prim->data, Engine(), Ptr<void>(a[kDst]))}};
    if (a[1] & 1) {
      args.emplace(DNNL_ARG_SCALE, dnnl::memory(prim->vector, Engine(), Ptr<void>(a[kGamma])));
    }
    if (a[1] & 2) {
      args.emplace(DNNL_ARG_SHIFT, dnnl::memory(prim->vector, Engine(), Ptr<void>(a[kBeta])));
    }
    prim->norm.execute(ThreadStream(), args);
    ThreadStream().wait();
    return 0;
  });
}
