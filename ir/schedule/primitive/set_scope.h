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
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_SET_SCOPE_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_SET_SCOPE_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status SetScope(ScheduleState* state, const std::string& block, int64_t buffer_index,
                      const std::string& storage_scope);

// True when `buffer` is a parameter of `func` (not allocated inside it).
bool IsParamBuffer(const PrimFunc& func, const BufferNode* buffer);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.set_scope(...): Moves the block's write buffer `buffer_index` (allocated in the function)
// into `storage_scope`.
struct SetScope {
  using Self = SetScope;
  BlockRV block;
  int64_t buffer_index = 0;
  std::string storage_scope;

  static constexpr PrimitiveInfo kInfo{.name = "set_scope",
                                       .doc =
                                           "Moves the block's write buffer `buffer_index` "
                                           "(allocated in the function) into `storage_scope`."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(buffer_index), TESSEL_ARG(storage_scope)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block, int64_t buffer_index,
                            const std::string& storage_scope) {
    return schedule::SetScope(ctx.state(), block, buffer_index, storage_scope);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_SET_SCOPE_H_
