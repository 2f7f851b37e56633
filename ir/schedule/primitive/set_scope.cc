// set_scope (see set_scope.h).
#include "ir/schedule/primitive/set_scope.h"

#include "absl/strings/str_cat.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"

namespace tessel::ir::schedule {

bool IsParamBuffer(const PrimFunc& func, const BufferNode* buffer) {
  for (const Param& p : func->params) {
    if (p.is_buffer() && p.buffer.get() == buffer) return true;
  }
  return false;
}

absl::Status SetScope(ScheduleState* state, const std::string& block, int64_t buffer_index,
                      const std::string& storage_scope) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  const BlockNode* blk = state->index().block(sref);
  TESSEL_ASSIGN_OR_RETURN(Buffer buffer, BufferAtIndex(*state, blk, buffer_index, true));
  if (std::string why = CheckStorageScope(storage_scope); !why.empty()) {
    return state->ArgError(blk, why);
  }
  if (IsParamBuffer(state->func(), buffer.get())) {
    return state->Error(blk, absl::StrCat("buffer ", buffer->name,
                                          " is a parameter of the function; only a buffer the "
                                          "function allocates can change its scope"));
  }
  if (buffer->scope == storage_scope) return absl::OkStatus();
  Buffer moved = CacheBuffer(buffer, buffer->name, storage_scope);
  auto f = MakeNode<PrimFuncNode>(*state->func());
  f->body = ReplaceBuffers(f->body, {{buffer.get(), moved}});
  state->Replace(PrimFunc(std::move(f)));
  return absl::OkStatus();
}

TESSEL_REGISTER_PRIMITIVE(primitive::SetScope);

}  // namespace tessel::ir::schedule
