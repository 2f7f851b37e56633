// loop_partition (see loop_partition.h).
#include "ir/schedule/primitive/loop_partition.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/fresh_copy.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// The first statement under the loop that allocates a buffer (a block with
// alloc_buffers, an Allocate, a DeclBuffer): the copies would share it.
class FirstAllocation : public IRVisitor {
 public:
  const Node* found = nullptr;
  void VisitBlock(const BlockNode* op) override {
    if (found == nullptr && !op->alloc_buffers.empty()) found = op;
    IRVisitor::VisitBlock(op);
  }
  void VisitAllocate(const AllocateNode* op) override {
    if (found == nullptr) found = op;
    IRVisitor::VisitAllocate(op);
  }
  void VisitDeclBuffer(const DeclBufferNode* op) override {
    if (found == nullptr) found = op;
    IRVisitor::VisitDeclBuffer(op);
  }
};

}  // namespace

absl::StatusOr<std::vector<Var>> LoopPartition(ScheduleState* state, const Var& loop,
                                               const std::vector<std::optional<int64_t>>& factors) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->LoopSRef(loop));
  const ForNode* f = state->index().loop(sref);
  const std::string what = DescribeLoop(f);
  if (factors.size() < 2) {
    return state->ArgError(
        f, absl::StrCat("loop_partition needs at least two factors, got ", factors.size()));
  }
  std::optional<int64_t> extent = arith::AsConstInt(f->extent);
  if (!extent) {
    return state->Error(f, absl::StrCat(what,
                                        " has no constant extent; partition a loop whose "
                                        "extent is a constant"));
  }
  int inferred = -1;
  int64_t sum = 0;
  for (size_t k = 0; k < factors.size(); ++k) {
    if (!factors[k]) {
      if (inferred >= 0) return state->ArgError(f, "at most one factor may be None (inferred)");
      inferred = static_cast<int>(k);
    } else if (*factors[k] <= 0) {
      return state->ArgError(
          f, absl::StrCat("factor ", k, " is ", *factors[k], "; factors must be positive"));
    } else if (__builtin_add_overflow(sum, *factors[k], &sum) || sum > *extent) {
      return state->ArgError(
          f, absl::StrCat("the factors add up to more than the extent ", *extent, " of ", what));
    }
  }
  std::vector<int64_t> extents;
  for (const std::optional<int64_t>& k : factors) extents.push_back(k.value_or(*extent - sum));
  if (inferred >= 0 && extents[inferred] < 1) {
    return state->ArgError(f, absl::StrCat("the given factors already cover the extent ", *extent,
                                           " of ", what, "; the inferred piece would be empty"));
  }
  if (inferred < 0 && sum != *extent) {
    return state->ArgError(f, absl::StrCat("the factors add up to ", sum, ", not to the extent ",
                                           *extent, " of ", what));
  }
  if (f->for_kind != ForKind::kSerial || !f->thread_tag.empty()) {
    return state->Error(f, absl::StrCat(what, " is ", ForKindName(f->for_kind),
                                        "; partition only serial loops (set the kind after)"));
  }
  FirstAllocation alloc;
  alloc.VisitStmt(f->body);
  if (alloc.found != nullptr) {
    return state->Error(alloc.found,
                        absl::StrCat("the body of ", what,
                                     " allocates a buffer, which the pieces would share; "
                                     "partition before staging through a buffer"));
  }

  // Names the copies' blocks <name>_<k>, unique in the function and among themselves.
  std::set<std::string> taken;
  const DataType t = f->loop_var->dtype;
  std::vector<Var> vars;
  std::vector<Stmt> pieces;
  int64_t offset = 0;
  for (size_t k = 0; k < extents.size(); ++k) {
    Var v = MakeVar(absl::StrCat(f->loop_var->name, "_", k), t);
    auto rename = [&](const std::string& name) {
      std::string fresh = UniqueBlockName(state->index(), absl::StrCat(name, "_", k));
      for (int n = 1; taken.count(fresh) > 0; ++n) fresh = absl::StrCat(name, "_", k, "_", n);
      taken.insert(fresh);
      return fresh;
    };
    // AddE drops a 0 and folds constants.
    Expr at = arith::AddE(arith::AddE(f->min, v), IntImm(t, offset));
    TESSEL_ASSIGN_OR_RETURN(Stmt body, FreshCopy(f->body, {{f->loop_var.get(), at}}, rename));
    TESSEL_ASSIGN_OR_RETURN(Stmt piece, MakeFor(v, IntImm(t, 0), IntImm(t, extents[k]),
                                                ForKind::kSerial, body, "", f->annotations));
    vars.push_back(v);
    pieces.push_back(piece);
    offset += extents[k];
  }
  state->Replace(FlattenSeqs(ReplaceStmts(state->func(), {{f, Seq(std::move(pieces))}})));
  return vars;
}

TESSEL_REGISTER_PRIMITIVE(primitive::LoopPartition);

}  // namespace tessel::ir::schedule
