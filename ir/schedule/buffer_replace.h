// Replacing buffers in a statement: every load, store and declared region of a
// buffer named in the map moves to its replacement (the cache stages redirect a
// block to its cache, set_scope swaps a buffer for one in another scope).
//
//   // block C(...) { reads(A[vi, vk], C[vi, vj]) writes(C[vi, vj])
//   //                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] }
//   Stmt s = ReplaceBuffers(block, {{C.get(), C_local}});
//   //     block C(...) { reads(A[vi, vk], C_local[vi, vj]) writes(C_local[vi, vj])
//   //                    C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj] }
//
// Allocations (alloc_buffers, Allocate) of a mapped buffer are replaced too, so
// the new buffer is defined where the old one was. Untouched subtrees stay shared.
#ifndef TESSEL_IR_SCHEDULE_BUFFER_REPLACE_H_
#define TESSEL_IR_SCHEDULE_BUFFER_REPLACE_H_

#include "absl/container/flat_hash_map.h"
#include "ir/function.h"

namespace tessel::ir::schedule {

using BufferMap = absl::flat_hash_map<const BufferNode*, Buffer>;

Stmt ReplaceBuffers(const Stmt& s, const BufferMap& map);
Expr ReplaceBuffers(const Expr& e, const BufferMap& map);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_BUFFER_REPLACE_H_
