// parallel, vectorize, unroll, bind (see loop_kind.h).
#include "ir/schedule/primitive/loop_kind.h"

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/printer.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/loop_independence.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

absl::StatusOr<const ForNode*> SerialLoop(const ScheduleState& state, const Var& loop,
                                          const std::string& kind) {
  TESSEL_ASSIGN_OR_RETURN(int s, state.LoopSRef(loop));
  const ForNode* f = state.index().loop(s);
  if (f->for_kind != ForKind::kSerial) {
    return state.Error(f, absl::StrCat(DescribeLoop(f), " is already ", LoopKindWord(f),
                                       "; only a serial loop can be made ", kind));
  }
  return f;
}

absl::Status SetKind(ScheduleState* state, const ForNode* f, ForKind kind, std::string tag) {
  auto n = MakeNode<ForNode>(*f);
  n->for_kind = kind;
  n->thread_tag = std::move(tag);
  state->Replace(ReplaceStmts(state->func(), {{f, Stmt(std::move(n))}}));
  return absl::OkStatus();
}

absl::Status ParallelLike(ScheduleState* state, const Var& loop, ForKind kind,
                          const std::string& word, const std::string& tag) {
  TESSEL_ASSIGN_OR_RETURN(const ForNode* f, SerialLoop(*state, loop, word));
  std::optional<LoopDependence> dep =
      FindLoopDependence(state->index(), state->index().FindStmt(f), kind, word, tag);
  if (dep) return state->Error(dep->at, dep->why);
  return SetKind(state, f, kind, tag);
}

class FindThreadLoop : public IRVisitor {
 public:
  explicit FindThreadLoop(const std::string& tag) : tag_(tag) {}
  const ForNode* found = nullptr;
  void VisitFor(const ForNode* op) override {
    if (found == nullptr && op->for_kind == ForKind::kThreadBinding && op->thread_tag == tag_) {
      found = op;
    }
    IRVisitor::VisitFor(op);
  }

 private:
  const std::string& tag_;
};

}  // namespace

absl::Status Parallel(ScheduleState* state, const Var& loop) {
  return ParallelLike(state, loop, ForKind::kParallel, "parallel", "");
}

absl::Status Vectorize(ScheduleState* state, const Var& loop) {
  // Vector lanes are fixed when the code is compiled (the verifier's rule):
  // a tail-clipped extent such as min(4 * v + 3, 5) - 4 * v + 1 has none.
  TESSEL_ASSIGN_OR_RETURN(int s, state->LoopSRef(loop));
  const ForNode* f = state->index().loop(s);
  if (!arith::AsConstInt(f->extent)) {
    return state->Error(f, absl::StrCat(DescribeLoop(f), " has extent ", PrintExpr(f->extent),
                                        ", which is not a constant; a vectorized loop's lanes "
                                        "are fixed at compile time"));
  }
  return ParallelLike(state, loop, ForKind::kVectorized, "vectorized", "");
}

absl::Status Unroll(ScheduleState* state, const Var& loop) {
  TESSEL_ASSIGN_OR_RETURN(const ForNode* f, SerialLoop(*state, loop, "unrolled"));
  return SetKind(state, f, ForKind::kUnrolled, "");
}

absl::Status Bind(ScheduleState* state, const Var& loop, const std::string& thread_axis) {
  TESSEL_ASSIGN_OR_RETURN(int s, state->LoopSRef(loop));
  const ForNode* f = state->index().loop(s);
  if (!IsThreadTag(thread_axis)) {
    return state->ArgError(f, absl::StrCat("unknown thread axis '", thread_axis,
                                           "'; use blockIdx.x/y/z, threadIdx.x/y/z or vthread"));
  }
  const std::string word = absl::StrCat("bound to ", thread_axis);
  for (int p = state->index().at(s).parent; p >= 0; p = state->index().at(p).parent) {
    const ForNode* outer = state->index().loop(p);
    if (outer != nullptr && outer->for_kind == ForKind::kThreadBinding &&
        outer->thread_tag == thread_axis) {
      return state->Error(outer, absl::StrCat(DescribeLoop(outer), " around ", DescribeLoop(f),
                                              " is already bound to ", thread_axis,
                                              "; an axis can be bound only once on a path"));
    }
  }
  FindThreadLoop inner(thread_axis);
  inner.VisitStmt(f->body);
  if (inner.found != nullptr) {
    return state->Error(inner.found,
                        absl::StrCat(DescribeLoop(inner.found), " inside ", DescribeLoop(f),
                                     " is already bound to ", thread_axis,
                                     "; an axis can be bound only once on a path"));
  }
  return ParallelLike(state, loop, ForKind::kThreadBinding, word, thread_axis);
}

TESSEL_REGISTER_PRIMITIVE(primitive::Parallel);
TESSEL_REGISTER_PRIMITIVE(primitive::Vectorize);
TESSEL_REGISTER_PRIMITIVE(primitive::Unroll);
TESSEL_REGISTER_PRIMITIVE(primitive::Bind);

}  // namespace tessel::ir::schedule
