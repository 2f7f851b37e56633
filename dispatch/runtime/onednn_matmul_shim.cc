// oneDNN's matmul behind the packed convention (dispatch_runtime.h), with its
// epilogue as post-ops, the primitive created once per (shapes, strides,
// post-ops, threads) and cached (onednn_support.h).
//
//   C[b, m, n] = relu(A[b] @ B[b] + bias[n])    -> matmul primitive, attr post-ops
//                                                  {binary_add(bias: 1 x 1 x N), eltwise_relu}
//
// Creating a primitive costs ~0.7 ms; the cache makes a repeated call cost a hash
// lookup and a few memory objects.
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/onednn_support.h"
#include "dispatch/runtime/shim_args.h"

namespace tessel::dispatch::shim {
namespace {

constexpr int kFixedArgs = 17;

struct MatmulPrim {
  dnnl::matmul matmul;
  dnnl::memory::desc a, b, c;
  PostOpList posts;
};

std::shared_ptr<const void> Create(const int64_t* a, int64_t posts) {
  const int64_t batch = a[0], m = a[1], n = a[2], k = a[3];
  auto p = std::make_shared<MatmulPrim>();
  p->a = BroadcastDesc({batch, m, k}, {a[5], a[6], a[7]});
  p->b = BroadcastDesc({batch, k, n}, {a[9], a[10], a[11]});
  p->c = BroadcastDesc({batch, m, n}, {a[13], a[14], a[15]});
  p->posts = ParsePostOps(a + kFixedArgs, posts, {batch, m, n});
  dnnl::primitive_attr attr;
  attr.set_post_ops(p->posts.ops);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a, p->b, p->c), attr, Engine());
  p->matmul = dnnl::matmul(pd);
  return p;
}

}  // namespace
}  // namespace tessel::dispatch::shim

using namespace tessel::dispatch::shim;  // NOLINT: the C entry point below.

extern "C" int32_t tessel_onednn_matmul(const int64_t* a, int32_t n) {
  if (std::string p = CheckPostOpArgs("tessel_onednn_matmul", a, n, kFixedArgs, 3); !p.empty()) {
    return Fail(p);
  }
  const int64_t posts = a[kFixedArgs - 1];
  const int slots = PostOpSlots(3);
  for (int d = 0; d < 4; ++d) {
    if (a[d] < 1) return Fail("tessel_onednn_matmul: batch, M, N, K must be positive");
  }
  if (a[4] == 0 || a[8] == 0 || a[12] == 0) return Fail("tessel_onednn_matmul: a null buffer");
  const std::vector<int64_t> key =
      CacheKey(PrimitiveKind::kMatmul, a, n, {4, 8, 12}, kFixedArgs, 3, UseTesselThreads());
  return Guarded("tessel_onednn_matmul", [&]() -> int32_t {
    auto prim =
        std::static_pointer_cast<const MatmulPrim>(Cached(key, [&] { return Create(a, posts); }));
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(prim->a, Engine(), Ptr<void>(a[4]))},
        {DNNL_ARG_WEIGHTS, dnnl::memory(prim->b, Engine(), Ptr<void>(a[8]))},
        {DNNL_ARG_DST, dnnl::memory(prim->c, Engine(), Ptr<void>(a[12]))}};
    if (std::string w = BindPostOpOperands(prim->posts, a + kFixedArgs, slots, &args); !w.empty()) {
      return Fail("tessel_onednn_matmul: " + w);
    }
    prim->matmul.execute(ThreadStream(), args);
    ThreadStream().wait();
    return 0;
  });
}
