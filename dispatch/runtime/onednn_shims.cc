// oneDNN behind the packed convention (dispatch_runtime.h): a matmul with its
// epilogue as post-ops, the primitive created once per (shapes, strides,
// post-ops, threads) and cached.
//
//   C[b, m, n] = relu(A[b] @ B[b] + bias[n])    -> matmul primitive, attr post-ops
//                                                  {binary_add(bias: 1 x 1 x N), eltwise_relu}
//
// Creating a primitive costs ~0.7 ms; the cache makes a repeated call cost a hash
// lookup and a few memory objects. oneDNN (Debian's build) runs on OpenMP: the
// calling thread's OpenMP count is set to tessel's thread count before each call.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/shim_args.h"
#include "oneapi/dnnl/dnnl.hpp"

extern "C" void omp_set_num_threads(int num_threads);

namespace tessel::dispatch::shim {
namespace {

constexpr int kFixedArgs = 17;
constexpr int kPostOpSlots = 7;
constexpr int kMaxPostOps = 8;

struct Prim {
  dnnl::matmul matmul;
  dnnl::memory::desc a, b, c;
  std::vector<dnnl::memory::desc> operands;  // One per binary post-op, in order.
};

struct KeyHash {
  size_t operator()(const std::vector<int64_t>& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

struct Cache {
  std::mutex mu;
  std::unordered_map<std::vector<int64_t>, std::shared_ptr<const Prim>, KeyHash> prims;
  std::atomic<int64_t> created{0}, hits{0};
};

Cache& GetCache() {
  static Cache* c = new Cache();  // Never destroyed: calls may come during exit.
  return *c;
}

const dnnl::engine& Engine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

dnnl::memory::desc Desc(int64_t batch, int64_t rows, int64_t cols, int64_t bs, int64_t rs,
                        int64_t cs) {
  using dnnl::memory;
  // A broadcast (stride 0) dimension has extent 1 for oneDNN.
  memory::dims dims = {bs == 0 ? 1 : batch, rs == 0 ? 1 : rows, cs == 0 ? 1 : cols};
  memory::dims strides = {bs, rs, cs};
  for (int d = 2; d >= 0; --d) {  // Innermost first: a size-1 dimension's stride from the next.
    if (dims[d] == 1) strides[d] = d == 2 ? 1 : dims[d + 1] * strides[d + 1];
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

bool EltwiseOf(int64_t kind, dnnl::algorithm* alg) {
  switch (kind) {
    case kTesselPostRelu:
      *alg = dnnl::algorithm::eltwise_relu;
      return true;
    case kTesselPostGeluErf:
      *alg = dnnl::algorithm::eltwise_gelu_erf;
      return true;
    case kTesselPostGeluTanh:
      *alg = dnnl::algorithm::eltwise_gelu_tanh;
      return true;
    case kTesselPostSigmoid:
      *alg = dnnl::algorithm::eltwise_logistic;
      return true;
    case kTesselPostSilu:
      *alg = dnnl::algorithm::eltwise_swish;
      return true;
    case kTesselPostLinear:
      *alg = dnnl::algorithm::eltwise_linear;
      return true;
    case kTesselPostTanh:
      *alg = dnnl::algorithm::eltwise_tanh;
      return true;
    default:
      return false;
  }
}

std::shared_ptr<const Prim> Create(const int64_t* a, int64_t posts) {
  const int64_t batch = a[0], m = a[1], n = a[2], k = a[3];
  auto p = std::make_shared<Prim>();
  p->a = Desc(batch, m, k, a[5], a[6], a[7]);
  p->b = Desc(batch, k, n, a[9], a[10], a[11]);
  p->c = Desc(batch, m, n, a[13], a[14], a[15]);
  dnnl::post_ops ops;
  for (int64_t i = 0; i < posts; ++i) {
    const int64_t* q = a + kFixedArgs + i * kPostOpSlots;
    dnnl::algorithm alg;
    if (q[0] == kTesselPostAdd || q[0] == kTesselPostMul) {
      dnnl::memory::desc d = Desc(batch, m, n, q[4], q[5], q[6]);
      ops.append_binary(
          q[0] == kTesselPostAdd ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, d);
      p->operands.push_back(d);
    } else if (EltwiseOf(q[0], &alg)) {
      float alpha = F32(q[1]), beta = F32(q[2]);
      if (q[0] == kTesselPostSilu) alpha = 1.0f;
      ops.append_eltwise(1.0f, alg, alpha, beta);
    } else {
      throw std::invalid_argument("unknown post-op kind " + std::to_string(q[0]));
    }
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  dnnl::matmul::desc desc(p->a, p->b, p->c);
  dnnl::matmul::primitive_desc pd(desc, attr, Engine());
  p->matmul = dnnl::matmul(pd);
  return p;
}

}  // namespace
}  // namespace tessel::dispatch::shim

using namespace tessel::dispatch::shim;  // NOLINT: the C entry points below.

extern "C" int32_t tessel_onednn_matmul(const int64_t* a, int32_t n) {
  if (n < kFixedArgs) return Fail(CountProblem("tessel_onednn_matmul", n, kFixedArgs));
  const int64_t posts = a[16];
  if (posts < 0 || posts > kMaxPostOps) {
    return Fail("tessel_onednn_matmul: " + std::to_string(posts) + " post-ops (0 to 8)");
  }
  const int32_t want = kFixedArgs + static_cast<int32_t>(posts) * kPostOpSlots;
  if (std::string p = CountProblem("tessel_onednn_matmul", n, want); !p.empty()) return Fail(p);
  for (int d = 0; d < 4; ++d) {
    if (a[d] < 1) return Fail("tessel_onednn_matmul: batch, M, N, K must be positive");
  }
  if (a[4] == 0 || a[8] == 0 || a[12] == 0) return Fail("tessel_onednn_matmul: a null buffer");
  const int threads = tessel_get_num_threads();
  // The key: every argument but the addresses, and the thread count.
  std::vector<int64_t> key(a, a + n);
  key[4] = key[8] = key[12] = 0;
  for (int64_t i = 0; i < posts; ++i) key[kFixedArgs + i * kPostOpSlots + 3] = 0;
  key.push_back(threads);
  Cache& cache = GetCache();
  std::shared_ptr<const Prim> prim;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.prims.find(key);
    if (it != cache.prims.end()) prim = it->second;
  }
  omp_set_num_threads(threads);
  try {
    if (prim == nullptr) {
      prim = Create(a, posts);
      cache.created.fetch_add(1);
      std::lock_guard<std::mutex> lock(cache.mu);
      cache.prims.emplace(key, prim);
    } else {
      cache.hits.fetch_add(1);
    }
    const dnnl::engine& eng = Engine();
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(prim->a, eng, Ptr<void>(a[4]))},
        {DNNL_ARG_WEIGHTS, dnnl::memory(prim->b, eng, Ptr<void>(a[8]))},
        {DNNL_ARG_DST, dnnl::memory(prim->c, eng, Ptr<void>(a[12]))}};
    size_t operand = 0;
    for (int64_t i = 0; i < posts; ++i) {
      const int64_t* q = a + kFixedArgs + i * kPostOpSlots;
      if (q[0] != kTesselPostAdd && q[0] != kTesselPostMul) continue;
      if (q[3] == 0)
        return Fail("tessel_onednn_matmul: post-op " + std::to_string(i) + ": a null operand");
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1,
                   dnnl::memory(prim->operands[operand++], eng, Ptr<void>(q[3])));
    }
    thread_local dnnl::stream* stream = new dnnl::stream(eng);
    prim->matmul.execute(*stream, args);
    stream->wait();
  } catch (const dnnl::error& e) {
    return Fail(std::string("tessel_onednn_matmul: oneDNN: ") + e.what());
  } catch (const std::exception& e) {
    return Fail(std::string("tessel_onednn_matmul: ") + e.what());
  }
  return 0;
}

extern "C" int64_t tessel_onednn_primitives_created(void) { return GetCache().created.load(); }
extern "C" int64_t tessel_onednn_cache_hits(void) { return GetCache().hits.load(); }
