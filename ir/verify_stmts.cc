// The verifier's walk over statements and blocks (see ir/verify_walk.h).
//
//   for i in range(0, 130) {
//     block C(vi: spatial[0, 128] = i) { ... }
//   }
//   -> "verify: function 'f': block 'C': iter var 'vi' is bound to loop 'i' over
//       [0, 130), outside its domain [0, 128)"
//
// Each statement's expressions are checked first (children before parents), then
// the statement's own factory re-check, then the rules that need context, and
// last its nested statements with its bindings in scope.
#include <algorithm>
#include <array>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/thread_axis.h"
#include "ir/verify_recheck.h"
#include "ir/verify_regions.h"
#include "ir/verify_walk.h"
#include "ir/visitor.h"

namespace tessel::ir {
namespace {

// What a block binding reads: buffers, variables, extern calls.
class BindingScan : public IRVisitor {
 public:
  const BufferLoadNode* load = nullptr;
  const CallNode* extern_call = nullptr;
  std::vector<const VarNode*> vars;

  void VisitBufferLoad(const BufferLoadNode* op) override {
    if (load == nullptr) load = op;
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitCall(const CallNode* op) override {
    if (extern_call == nullptr && op->callee == CallNode::Callee::kExtern) extern_call = op;
    IRVisitor::VisitCall(op);
  }
  void VisitVar(const VarNode* op) override { vars.push_back(op); }
};

}  // namespace

absl::Status FunctionVerifier::Recheck(const StmtNode* s) {
  if (absl::Status st = RecheckStmtNode(*s); !st.ok()) return Fail(std::string(st.message()));
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckStmt(const Stmt& s) {
  // A missing statement is reported by its parent's factory re-check.
  if (!s) return absl::OkStatus();
  const StmtNode* saved = stmt_;
  stmt_ = s.get();
  absl::Status st = CheckStmtNode(s.get());
  stmt_ = saved;
  return st;
}

absl::Status FunctionVerifier::CheckStmtNode(const StmtNode* s) {
  switch (s->kind()) {
    case NodeKind::kBufferStore:
      return CheckBufferStore(cast<BufferStoreNode>(s));
    case NodeKind::kFor:
      return CheckFor(cast<ForNode>(s));
    case NodeKind::kIfThenElse: {
      const auto* op = cast<IfThenElseNode>(s);
      if (absl::Status st = CheckRootExpr(op->condition); !st.ok()) return st;
      if (absl::Status st = Recheck(op); !st.ok()) return st;
      ++guard_depth_;
      absl::Status st = CheckStmt(op->then_case);
      if (st.ok()) st = CheckStmt(op->else_case);
      --guard_depth_;
      return st;
    }
    case NodeKind::kLetStmt: {
      const auto* op = cast<LetStmtNode>(s);
      if (absl::Status st = CheckRootExpr(op->value); !st.ok()) return st;
      if (absl::Status st = Recheck(op); !st.ok()) return st;
      if (absl::Status st = BindVar(op->var, Binder::kLet); !st.ok()) return st;
      if (absl::Status st = CheckStmt(op->body); !st.ok()) return st;
      UnbindVar(op->var);
      return absl::OkStatus();
    }
    case NodeKind::kSeqStmt: {
      const auto* op = cast<SeqStmtNode>(s);
      if (absl::Status st = Recheck(op); !st.ok()) return st;
      for (const Stmt& c : op->seq) {
        if (absl::Status st = CheckStmt(c); !st.ok()) return st;
      }
      return absl::OkStatus();
    }
    case NodeKind::kEvaluate: {
      const auto* op = cast<EvaluateNode>(s);
      if (absl::Status st = CheckRootExpr(op->value); !st.ok()) return st;
      return Recheck(op);
    }
    case NodeKind::kAllocate:
      return CheckAllocate(cast<AllocateNode>(s));
    case NodeKind::kDeclBuffer:
      return CheckDeclBuffer(cast<DeclBufferNode>(s));
    case NodeKind::kBlock: {
      const auto* op = cast<BlockNode>(s);
      if (absl::Status st = Recheck(op); !st.ok()) return st;
      return Fail(absl::StrCat("block '", op->name,
                               "' stands alone; a block appears only inside the BlockRealize "
                               "that binds its iter vars"));
    }
    case NodeKind::kBlockRealize:
      return CheckBlockRealize(cast<BlockRealizeNode>(s));
    default:
      return Recheck(s);
  }
}

absl::Status FunctionVerifier::CheckBufferStore(const BufferStoreNode* op) {
  if (absl::Status st = CheckRootExpr(op->value); !st.ok()) return st;
  for (const Expr& i : op->indices) {
    if (absl::Status st = CheckRootExpr(i); !st.ok()) return st;
  }
  if (absl::Status st = Recheck(op); !st.ok()) return st;
  if (absl::Status st = CheckBufferUse(op->buffer, "a store"); !st.ok()) return st;
  return CheckConstIndices(op->buffer, op->indices, "store");
}

absl::Status FunctionVerifier::CheckFor(const ForNode* op) {
  if (absl::Status st = CheckRootExpr(op->min); !st.ok()) return st;
  if (absl::Status st = CheckRootExpr(op->extent); !st.ok()) return st;
  if (absl::Status st = Recheck(op); !st.ok()) return st;
  const std::string& name = op->loop_var->name;
  if (absl::Status st = CheckAttrs(op->annotations, absl::StrCat("loop '", name, "'"));
      !st.ok()) {
    return st;
  }
  std::optional<Int> extent = ConstInt(op->extent);
  // A zero-trip loop is legal (it does nothing); a negative extent is a mistake.
  if (extent && *extent < 0) {
    return Fail(absl::StrCat("loop '", name, "' has negative extent ", IntText(*extent)));
  }
  if (op->for_kind == ForKind::kVectorized && !extent) {
    return Fail(absl::StrCat("loop '", name,
                             "' is vectorized but its extent is not a constant; vector lanes are "
                             "fixed at compile time"));
  }
  if (op->for_kind == ForKind::kThreadBinding) {
    if (!IsThreadTag(op->thread_tag)) {
      return Fail(absl::StrCat("loop '", name, "' is bound to unknown thread tag '",
                               op->thread_tag, "' (known: ", absl::StrJoin(kThreadTags, ", "), ")"));
    }
    // One hardware index cannot drive two nested loops; virtual threads can nest.
    if (!absl::StartsWith(op->thread_tag, "vthread")) {
      for (const ForNode* outer : thread_loops_) {
        if (outer->thread_tag == op->thread_tag) {
          return Fail(absl::StrCat("loop '", name, "' is bound to ", op->thread_tag,
                                   " inside loop '", outer->loop_var->name,
                                   "', which is bound to it already"));
        }
      }
    }
  }
  if (absl::Status st = BindVar(op->loop_var, Binder::kLoop, op); !st.ok()) return st;
  if (op->for_kind == ForKind::kThreadBinding) thread_loops_.push_back(op);
  const bool zero_trip = extent && *extent == 0;
  guard_depth_ += zero_trip ? 1 : 0;
  absl::Status body = CheckStmt(op->body);
  guard_depth_ -= zero_trip ? 1 : 0;
  if (!body.ok()) return body;
  if (op->for_kind == ForKind::kThreadBinding) thread_loops_.pop_back();
  UnbindVar(op->loop_var);
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckAllocate(const AllocateNode* op) {
  if (absl::Status st = Recheck(op); !st.ok()) return st;
  if (absl::Status st = CheckBufferDef(op->buffer, "an Allocate"); !st.ok()) return st;
  if (absl::Status st = CheckBufferShape(op->buffer); !st.ok()) return st;
  visible_buffers_.insert(op->buffer.get());
  if (absl::Status st = CheckStmt(op->body); !st.ok()) return st;
  visible_buffers_.erase(op->buffer.get());
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckDeclBuffer(const DeclBufferNode* op) {
  if (absl::Status st = Recheck(op); !st.ok()) return st;
  std::string what = absl::StrCat("the DeclBuffer of '", op->buffer->name, "'");
  if (absl::Status st = CheckBufferUse(op->source, what); !st.ok()) return st;
  if (absl::Status st = CheckBufferDef(op->buffer, "a DeclBuffer"); !st.ok()) return st;
  if (absl::Status st = CheckBufferShape(op->buffer); !st.ok()) return st;
  visible_buffers_.insert(op->buffer.get());
  if (absl::Status st = CheckStmt(op->body); !st.ok()) return st;
  visible_buffers_.erase(op->buffer.get());
  return absl::OkStatus();
}

// ---- Blocks ------------------------------------------------------------------------------

absl::Status FunctionVerifier::CheckBlockRealize(const BlockRealizeNode* op) {
  if (!op->block) return Recheck(op);  // Reports the missing block.
  const BlockNode* block = op->block.get();
  // The block's factory first: the BlockRealize factory reads the block's iter vars.
  if (absl::Status st = Recheck(block); !st.ok()) return st;
  blocks_.push_back(block);
  if (!block_names_.insert(block->name).second) {
    return Fail(absl::StrCat("another block of this function is also named '", block->name,
                             "'; block names are unique in a function"));
  }
  // Bindings and predicate are evaluated outside the block, where the loops are.
  for (const Expr& v : op->iter_values) {
    if (absl::Status st = CheckRootExpr(v); !st.ok()) return st;
  }
  if (absl::Status st = CheckRootExpr(op->predicate); !st.ok()) return st;
  if (absl::Status st = Recheck(op); !st.ok()) return st;
  for (size_t i = 0; i < op->iter_values.size(); ++i) {
    if (absl::Status st = CheckBinding(block->iter_vars[i], op->iter_values[i], op); !st.ok()) {
      return st;
    }
  }
  if (block->init) {
    bool has_reduce = std::any_of(block->iter_vars.begin(), block->iter_vars.end(),
                                  [](const IterVar& iv) { return iv.kind == IterKind::kReduce; });
    if (!has_reduce) {
      return Fail("the block has an init but no reduce iter var; init starts a reduction");
    }
  }
  for (size_t i = 0; i < op->iter_values.size(); ++i) {
    if (block->iter_vars[i].kind != IterKind::kOpaque) {
      iter_values_[block->iter_vars[i].var.get()] = op->iter_values[i];
    }
  }
  const auto* always = dyn_cast<IntImmNode>(op->predicate);
  const bool guarded = always == nullptr || always->value != 1;
  guard_depth_ += guarded ? 1 : 0;
  absl::Status inside = CheckBlockInside(block);
  guard_depth_ -= guarded ? 1 : 0;
  for (const IterVar& iv : block->iter_vars) iter_values_.erase(iv.var.get());
  if (!inside.ok()) return inside;
  blocks_.pop_back();
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckBinding(const IterVar& iv, const Expr& value,
                                            const BlockRealizeNode* realize) {
  const std::string& name = iv.var->name;
  const char* kind = IterKindName(iv.kind);
  if (iv.kind != IterKind::kOpaque) {
    BindingScan scan;
    scan.VisitExpr(value);
    const std::string rule =
        "; spatial and reduce iter vars are bound to expressions of loop variables (use an "
        "opaque iter var otherwise)";
    if (scan.load != nullptr) {
      return Fail(absl::StrCat("iter var '", name, "' is ", kind, " but its binding reads buffer '",
                               scan.load->buffer->name, "'", rule),
                  value.get());
    }
    if (scan.extern_call != nullptr) {
      return Fail(absl::StrCat("iter var '", name, "' is ", kind, " but its binding calls '",
                               scan.extern_call->name, "'", rule),
                  value.get());
    }
    for (const VarNode* v : scan.vars) {
      // Every variable here was found visible when the binding was checked.
      if (visible_.at(v).binder == Binder::kLet) {
        return Fail(absl::StrCat("iter var '", name, "' is ", kind, " but its binding uses '",
                                 v->name, "', which is bound by a let", rule),
                    value.get());
      }
    }
  }
  std::optional<Int> dom_min = ConstInt(iv.dom.min), dom_extent = ConstInt(iv.dom.extent);
  // A negative domain is reported with the block's inside (CheckBlockInside).
  if (!dom_min || !dom_extent || *dom_extent < 0) return absl::OkStatus();
  auto domain = [&] {
    return absl::StrCat("[", IntText(*dom_min), ", ", IntText(*dom_min + *dom_extent), ")");
  };
  if (std::optional<Int> c = ConstInt(value)) {
    if (*c < *dom_min || *c >= *dom_min + *dom_extent) {
      return Fail(absl::StrCat("iter var '", name, "' is bound to ", IntText(*c),
                               ", outside its domain ", domain()),
                  value.get());
    }
    return absl::OkStatus();
  }
  // A binding that is exactly an unguarded loop variable takes every value of
  // the loop's range, so that range must lie inside the domain.
  const auto* v = dyn_cast<VarNode>(value);
  const auto* always = dyn_cast<IntImmNode>(realize->predicate);
  if (v == nullptr || always == nullptr || always->value != 1) return absl::OkStatus();
  const VarBinding& b = visible_.at(v);
  if (b.binder != Binder::kLoop) return absl::OkStatus();
  std::optional<Int> lo = ConstInt(b.loop->min), n = ConstInt(b.loop->extent);
  if (!lo || !n || *n <= 0) return absl::OkStatus();
  if (*lo < *dom_min || *lo + *n > *dom_min + *dom_extent) {
    return Fail(absl::StrCat("iter var '", name, "' is bound to loop '", v->name, "' over [",
                             IntText(*lo), ", ", IntText(*lo + *n), "), outside its domain ",
                             domain()),
                value.get());
  }
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckBlockInside(const BlockNode* block) {
  // A block with iter vars is a closed scope: what it sees of its surroundings
  // comes through its bindings (see CheckVarUse).
  if (absl::Status st = CheckAttrs(block->annotations, absl::StrCat("block '", block->name, "'"));
      !st.ok()) {
    return st;
  }
  bool scoped = !block->iter_vars.empty();
  if (scoped) scoped_blocks_.push_back(block);
  for (const IterVar& iv : block->iter_vars) {
    if (absl::Status st = CheckRootExpr(iv.dom.min); !st.ok()) return st;
    if (absl::Status st = CheckRootExpr(iv.dom.extent); !st.ok()) return st;
    if (std::optional<Int> n = ConstInt(iv.dom.extent); n && *n < 0) {
      return Fail(absl::StrCat("iter var '", iv.var->name, "' has negative domain extent ",
                               IntText(*n)));
    }
  }
  for (const IterVar& iv : block->iter_vars) {
    if (absl::Status st = BindVar(iv.var, Binder::kIterVar); !st.ok()) return st;
  }
  for (const Buffer& b : block->alloc_buffers) {
    if (absl::Status st = CheckBufferDef(b, "the block's alloc_buffers"); !st.ok()) return st;
    if (absl::Status st = CheckBufferShape(b); !st.ok()) return st;
    visible_buffers_.insert(b.get());
  }
  for (const BufferRegion& r : block->reads) {
    if (absl::Status st = CheckRegion(r, "read"); !st.ok()) return st;
  }
  for (const BufferRegion& r : block->writes) {
    if (absl::Status st = CheckRegion(r, "write"); !st.ok()) return st;
  }
  ++guard_depth_;  // The init runs on the first reduce iteration only.
  absl::Status init = CheckStmt(block->init);
  --guard_depth_;
  if (!init.ok()) return init;
  if (absl::Status st = CheckStmt(block->body); !st.ok()) return st;
  // Last, on a block whose inside is well formed: its accesses lie in its
  // declared regions (ir/verify_regions.h).
  if (std::optional<RegionEscape> escape = FindRegionEscape(*block)) {
    stmt_ = escape->stmt;
    return Fail(escape->problem, escape->load);
  }
  for (const IterVar& iv : block->iter_vars) UnbindVar(iv.var);
  for (const Buffer& b : block->alloc_buffers) visible_buffers_.erase(b.get());
  if (scoped) scoped_blocks_.pop_back();
  return absl::OkStatus();
}

}  // namespace tessel::ir
