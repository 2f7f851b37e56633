// What the oneDNN shims share (internal to libtessel_dispatch_runtime): the CPU
// engine, a primitive cache keyed by the call's arguments minus its addresses
// plus the thread count, memory descriptors that broadcast along zero strides,
// and the post-ops of dispatch_runtime.h as oneDNN attributes.
//
//   PostOpList posts = ParsePostOps(args + kFixed, count, {n, c, h, w});
//   std::shared_ptr<const void> p = Cached(key, [&] { return Create(...); });
#ifndef TESSEL_DISPATCH_RUNTIME_ONEDNN_SUPPORT_H_
#define TESSEL_DISPATCH_RUNTIME_ONEDNN_SUPPORT_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

namespace tessel::dispatch::shim {

const dnnl::engine& Engine();
// A stream of the calling thread on Engine().
dnnl::stream& ThreadStream();

// The primitive for `key`, made by `create` on a miss (outside the lock; two
// threads missing at once both create, one is kept). Counts creations and hits.
std::shared_ptr<const void> Cached(const std::vector<int64_t>& key,
                                   const std::function<std::shared_ptr<const void>()>& create);

// An f32 descriptor of `dims` with element `strides`; a stride of 0 broadcasts,
// which oneDNN writes as an extent of 1.
dnnl::memory::desc BroadcastDesc(std::vector<int64_t> dims, std::vector<int64_t> strides);

// The post-ops of a call: `count` of them at `q`, `slots` int64 each (kind, alpha,
// beta, operand, then one stride per dimension of `dims`, the output's).
struct PostOpList {
  dnnl::post_ops ops;
  std::vector<dnnl::memory::desc> operands;  // One per binary post-op, in order.
  std::vector<int> binary_index;             // The post-op index of each operand.
};
PostOpList ParsePostOps(const int64_t* q, int64_t count, const std::vector<int64_t>& dims);
inline int PostOpSlots(size_t rank) { return 4 + static_cast<int>(rank); }

// The arguments of a shim with `fixed` leading slots, the last of them the
// post-op count: "" when the count (0 to 8) and the total agree, else the problem
// ("<name>: takes 24 arguments, got 17").
std::string CheckPostOpArgs(const char* name, const int64_t* a, int32_t n, int fixed, size_t rank);

// Which shim a cache key belongs to: keys of different shims never compare equal.
enum class PrimitiveKind : int64_t { kMatmul = 1, kConv2d, kSoftmax, kLayerNorm, kPool2d };

// The primitive cache key of a call: its kind, its arguments with the addresses (at
// `addresses` and each post-op's operand) zeroed, and the thread count.
std::vector<int64_t> CacheKey(PrimitiveKind kind, const int64_t* a, int32_t n,
                              std::initializer_list<int> addresses, int fixed, size_t rank,
                              int threads);
// The same for a shim without post-ops.
std::vector<int64_t> PlainCacheKey(PrimitiveKind kind, const int64_t* a, int32_t n,
                                   std::initializer_list<int> addresses, int threads);

// Adds the operands of the binary post-ops to `args`; "" or what is wrong.
std::string BindPostOpOperands(const PostOpList& posts, const int64_t* q, int slots,
                               std::unordered_map<int, dnnl::memory>* args);

// Runs `body` (which returns 0 or a Fail), turning a oneDNN error or another
// exception into Fail("<shim>: oneDNN: ...") instead of letting it cross the C ABI.
int32_t Guarded(const char* shim, const std::function<int32_t()>& body);

// Sets OpenMP's thread count (oneDNN's) for this thread to tessel's; returns it.
int UseTesselThreads();

}  // namespace tessel::dispatch::shim

#endif  // TESSEL_DISPATCH_RUNTIME_ONEDNN_SUPPORT_H_
