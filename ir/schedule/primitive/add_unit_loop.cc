// add_unit_loop (see add_unit_loop.h).
#include "ir/schedule/primitive/add_unit_loop.h"

#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

namespace {

absl::StatusOr<Var> Wrap(ScheduleState* state, const StmtNode* target) {
  Var u = MakeVar("u", DataType::Int(32));
  TESSEL_ASSIGN_OR_RETURN(Stmt loop, MakeFor(u, IntImm(u->dtype, 0), IntImm(u->dtype, 1),
                                             ForKind::kSerial, GetRef(target)));
  state->Replace(ReplaceStmts(state->func(), {{target, loop}}));
  return u;
}

}  // namespace

absl::StatusOr<Var> AddUnitLoop(ScheduleState* state, const std::string& block) {
  TESSEL_ASSIGN_OR_RETURN(int s, state->BlockSRef(block));
  return Wrap(state, state->index().at(s).stmt);
}

absl::StatusOr<Var> AddUnitLoop(ScheduleState* state, const Var& loop) {
  TESSEL_ASSIGN_OR_RETURN(int s, state->LoopSRef(loop));
  return Wrap(state, state->index().at(s).stmt);
}

TESSEL_REGISTER_PRIMITIVE(primitive::AddUnitLoop);

}  // namespace tessel::ir::schedule
