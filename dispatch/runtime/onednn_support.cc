#include "dispatch/runtime/onednn_support.h"

#include <atomic>
#include <mutex>
#include <stdexcept>

#include "dispatch/runtime/dispatch_runtime.h"
#include "dispatch/runtime/shim_args.h"

extern "C" void omp_set_num_threads(int num_threads);

namespace tessel::dispatch::shim {
namespace {

struct KeyHash {
  size_t operator()(const std::vector<int64_t>& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

struct Cache {
  std::mutex mu;
  std::unordered_map<std::vector<int64_t>, std::shared_ptr<const void>, KeyHash> prims;
  std::atomic<int64_t> created{0}, hits{0};
};

Cache& GetCache() {
  static Cache* c = new Cache();  // Never destroyed: calls may come during exit.
  return *c;
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

bool IsBinary(int64_t kind) { return kind == kTesselPostAdd || kind == kTesselPostMul; }

}  // namespace

const dnnl::engine& Engine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream* stream = new dnnl::stream(Engine());
  return *stream;
}

std::shared_ptr<const void> Cached(const std::vector<int64_t>& key,
                                   const std::function<std::shared_ptr<const void>()>& create) {
  Cache& cache = GetCache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.prims.find(key);
    if (it != cache.prims.end()) {
      cache.hits.fetch_add(1);
      return it->second;
    }
  }
  std::shared_ptr<const void> made = create();
  cache.created.fetch_add(1);
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.prims.emplace(key, std::move(made)).first->second;
}

dnnl::memory::desc BroadcastDesc(std::vector<int64_t> dims, std::vector<int64_t> strides) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (strides[d] == 0) dims[d] = 1;
  }
  // A size-1 dimension's stride is derived innermost first; its value is never used.
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] == 1) strides[d] = d + 1 == dims.size() ? 1 : dims[d + 1] * strides[d + 1];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

PostOpList ParsePostOps(const int64_t* q, int64_t count, const std::vector<int64_t>& dims) {
  PostOpList out;
  const int slots = PostOpSlots(dims.size());
  for (int64_t i = 0; i < count; ++i, q += slots) {
    dnnl::algorithm alg;
    if (IsBinary(q[0])) {
      dnnl::memory::desc d = BroadcastDesc(dims, std::vector<int64_t>(q + 4, q + 4 + dims.size()));
      out.ops.append_binary(
          q[0] == kTesselPostAdd ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, d);
      out.operands.push_back(d);
      out.binary_index.push_back(static_cast<int>(i));
    } else if (EltwiseOf(q[0], &alg)) {
      float alpha = F32(q[1]), beta = F32(q[2]);
      if (q[0] == kTesselPostSilu) alpha = 1.0f;  // swish(x) = x sigmoid(alpha x)
      out.ops.append_eltwise(1.0f, alg, alpha, beta);
    } else {
      throw std::invalid_argument("unknown post-op kind " + std::to_string(q[0]));
    }
  }
  return out;
}

std::string BindPostOpOperands(const PostOpList& posts, const int64_t* q, int slots,
                               std::unordered_map<int, dnnl::memory>* args) {
  for (size_t k = 0; k < posts.operands.size(); ++k) {
    const int i = posts.binary_index[k];
    const int64_t address = q[i * slots + 3];
    if (address == 0) return "post-op " + std::to_string(i) + ": a null operand";
    args->emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1,
                  dnnl::memory(posts.operands[k], Engine(), Ptr<void>(address)));
  }
  return "";
}

std::string CheckPostOpArgs(const char* name, const int64_t* a, int32_t n, int fixed, size_t rank) {
  if (n < fixed) return CountProblem(name, n, fixed);
  const int64_t posts = a[fixed - 1];
  if (posts < 0 || posts > 8)
    return std::string(name) + ": " + std::to_string(posts) + " post-ops (0 to 8)";
  return CountProblem(name, n, fixed + static_cast<int32_t>(posts) * PostOpSlots(rank));
}

std::vector<int64_t> CacheKey(PrimitiveKind kind, const int64_t* a, int32_t n,
                              std::initializer_list<int> addresses, int fixed, size_t rank,
                              int threads) {
  std::vector<int64_t> key = PlainCacheKey(kind, a, n, addresses, threads);
  const int slots = PostOpSlots(rank);
  for (int64_t i = 0; i < a[fixed - 1]; ++i) key[1 + fixed + i * slots + 3] = 0;
  return key;
}

std::vector<int64_t> PlainCacheKey(PrimitiveKind kind, const int64_t* a, int32_t n,
                                   std::initializer_list<int> addresses, int threads) {
  std::vector<int64_t> key;
  key.reserve(static_cast<size_t>(n) + 2);
  key.push_back(static_cast<int64_t>(kind));
  key.insert(key.end(), a, a + n);
  for (int i : addresses) key[1 + i] = 0;
  key.push_back(threads);
  return key;
}

int32_t Guarded(const char* shim, const std::function<int32_t()>& body) {
  try {
    return body();
  } catch (const dnnl::error& e) {
    return Fail(std::string(shim) + ": oneDNN: " + e.what());
  } catch (const std::exception& e) {
    return Fail(std::string(shim) + ": " + e.what());
  }
}

int UseTesselThreads() {
  const int threads = tessel_get_num_threads();
  omp_set_num_threads(threads);
  return threads;
}

}  // namespace tessel::dispatch::shim

extern "C" int64_t tessel_onednn_primitives_created(void) {
  return tessel::dispatch::shim::GetCache().created.load();
}
extern "C" int64_t tessel_onednn_cache_hits(void) {
  return tessel::dispatch::shim::GetCache().hits.load();
}
