// set_scope: moves a buffer a block writes into another storage scope.
//
// set_scope(block=T, buffer_index=0, storage_scope="shared") on
//
//   block root() { alloc_buffer T: f32[64]
//     for i { block T(vi = i) { writes(T[vi]) T[vi] = A[vi] * 2.0f32 } }
//     for i { block D(vi = i) { reads(T[vi]) D[vi] = T[vi] + 1.0f32 } } }
// gives
//   block root() { alloc_buffer T: f32[64] scope "shared"  ... (every use the same buffer) }
//
// The buffer is replaced everywhere in the function by one that differs only in
// its scope. Rules: the index names a buffer the block writes; the scope is
// known; the buffer is allocated in the function (a parameter's memory belongs
// to the caller).
#ifndef TESSEL_IR_SCHEDULE_SET_SCOPE_H_
#define TESSEL_IR_SCHEDULE_SET_SCOPE_H_

#include <string>

#include "absl/status/status.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status SetScope(ScheduleState* state, const std::string& block, int64_t buffer_index,
                      const std::string& storage_scope);

// True when `buffer` is a parameter of `func` (not allocated inside it).
bool IsParamBuffer(const PrimFunc& func, const BufferNode* buffer);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_SET_SCOPE_H_
