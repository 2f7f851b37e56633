// thread-sync: inside GPU kernels, a barrier (sync_threads()) wherever a thread may
// read or overwrite shared memory that another thread of its block touched since
// the last barrier -- the order that blocks implied before remove-blocks.
//
//   for tx in 0..64 thread("threadIdx.x") {   for tx in 0..64 thread("threadIdx.x") {
//     for k0 in 0..16 {                         for k0 in 0..16 {
//       S[tx] = A[k0 * 64 + tx]                   S[tx] = A[k0 * 64 + tx]
//       C[tx] = C[tx] + S[63 - tx]      ->        evaluate sync_threads()  (read after write)
//     }                                           C[tx] = C[tx] + S[63 - tx]
//   }                                             evaluate sync_threads()  (k0 + 1 overwrites)
//                                               } }
//
// Within a sequence, the accesses since the last barrier are kept; a statement
// whose shared accesses conflict with them (same buffer, one a store, not provably
// the same thread's element: equal indices that use a threadIdx variable) gets a
// barrier before it. A loop whose last accesses conflict with its first ones gets
// one at the end of its body. Barriers are never put under control flow that
// differs between threads (an if or loop bound using threadIdx or a value derived
// from it): such a statement is treated as one access set, and the barrier goes
// around it. Existing barriers are kept and counted, so running twice adds none.
// Global memory is not synchronised: different blocks cannot be, and kernels that
// share global data across threads get their order from the kernel split.
#ifndef TESSEL_PASSES_LOWERING_THREAD_SYNC_H_
#define TESSEL_PASSES_LOWERING_THREAD_SYNC_H_

#include "ir/function.h"

namespace tessel::passes::lowering {

// `func` with the barriers its kernels need; `inserted` (optional) counts them.
ir::PrimFunc InsertThreadSync(const ir::PrimFunc& func, int* inserted = nullptr);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_THREAD_SYNC_H_
