// Re-running the checked factories on already built nodes (see verify_recheck.h).
//
//   BinaryNode(kAdd, f32, x:f32, y:i32)  ->  MakeBinary(kAdd, x, y) refuses:
//                                            "Add: operand types differ (f32 vs i32)"
//   FloatImmNode(f16, 0.1)               ->  MakeFloatImm rounds 0.1 to f16, the
//                                            values differ: "not exactly representable"
#include "ir/verify_recheck.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace tessel::ir {
namespace {

absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

// OK when the factory accepted the operands and produced the node's own dtype.
absl::Status SameType(const ExprNode& node, const absl::StatusOr<Expr>& made) {
  if (!made.ok()) return made.status();
  if ((*made)->dtype != node.dtype) {
    return Invalid(absl::StrCat(NodeKindName(node.kind()), " has type ", node.dtype.ToString(),
                                " but its operands make it ", (*made)->dtype.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RecheckExprNode(const ExprNode& e) {
  switch (e.kind()) {
    case NodeKind::kVar: {
      const auto& v = static_cast<const VarNode&>(e);
      if (v.dtype.is_void() || v.dtype.lanes() == 0) {
        return Invalid(absl::StrCat("variable '", v.name, "' has no type"));
      }
      return absl::OkStatus();
    }
    case NodeKind::kIntImm: {
      const auto& n = static_cast<const IntImmNode&>(e);
      return SameType(e, MakeIntImm(n.dtype, n.value));
    }
    case NodeKind::kFloatImm: {
      const auto& n = static_cast<const FloatImmNode&>(e);
      absl::StatusOr<Expr> made = MakeFloatImm(n.dtype, n.value);
      if (absl::Status s = SameType(e, made); !s.ok()) return s;
      double rounded = static_cast<const FloatImmNode&>(**made).value;
      bool same = rounded == n.value || (std::isnan(rounded) && std::isnan(n.value));
      if (!same) {
        return Invalid(absl::StrCat("FloatImm: value ", n.value, " is not exactly representable in ",
                                    n.dtype.ToString(), " (nearest is ", rounded, ")"));
      }
      return absl::OkStatus();
    }
    case NodeKind::kNot:
      return SameType(e, MakeNot(static_cast<const NotNode&>(e).a));
    case NodeKind::kSelect: {
      const auto& n = static_cast<const SelectNode&>(e);
      return SameType(e, MakeSelect(n.condition, n.true_value, n.false_value));
    }
    case NodeKind::kCast: {
      const auto& n = static_cast<const CastNode&>(e);
      return SameType(e, MakeCast(n.dtype, n.value));
    }
    case NodeKind::kBufferLoad: {
      const auto& n = static_cast<const BufferLoadNode&>(e);
      return SameType(e, MakeBufferLoad(n.buffer, n.indices));
    }
    case NodeKind::kRamp: {
      const auto& n = static_cast<const RampNode&>(e);
      return SameType(e, MakeRamp(n.base, n.stride, n.lanes));
    }
    case NodeKind::kBroadcast: {
      const auto& n = static_cast<const BroadcastNode&>(e);
      return SameType(e, MakeBroadcast(n.value, n.lanes));
    }
    case NodeKind::kCall: {
      const auto& n = static_cast<const CallNode&>(e);
      return SameType(e, MakeCall(n.dtype, n.callee, n.name, n.args));
    }
    default:
      if (isa<BinaryNode>(&e)) {
        const auto& n = static_cast<const BinaryNode&>(e);
        return SameType(e, MakeBinary(n.kind(), n.a, n.b));
      }
      return Invalid(absl::StrCat("node of kind ", NodeKindName(e.kind()),
                                  " is not an expression"));
  }
}

absl::Status RecheckStmtNode(const StmtNode& s) {
  switch (s.kind()) {
    case NodeKind::kBufferStore: {
      const auto& n = static_cast<const BufferStoreNode&>(s);
      return MakeBufferStore(n.buffer, n.value, n.indices).status();
    }
    case NodeKind::kFor: {
      const auto& n = static_cast<const ForNode&>(s);
      return MakeFor(n.loop_var, n.min, n.extent, n.for_kind, n.body, n.thread_tag, n.annotations)
          .status();
    }
    case NodeKind::kIfThenElse: {
      const auto& n = static_cast<const IfThenElseNode&>(s);
      return MakeIfThenElse(n.condition, n.then_case, n.else_case).status();
    }
    case NodeKind::kLetStmt: {
      const auto& n = static_cast<const LetStmtNode&>(s);
      return MakeLetStmt(n.var, n.value, n.body).status();
    }
    case NodeKind::kSeqStmt:
      return MakeSeqStmt(static_cast<const SeqStmtNode&>(s).seq).status();
    case NodeKind::kEvaluate:
      return MakeEvaluate(static_cast<const EvaluateNode&>(s).value).status();
    case NodeKind::kAllocate: {
      const auto& n = static_cast<const AllocateNode&>(s);
      return MakeAllocate(n.buffer, n.body).status();
    }
    case NodeKind::kDeclBuffer: {
      const auto& n = static_cast<const DeclBufferNode&>(s);
      return MakeDeclBuffer(n.buffer, n.source, n.body).status();
    }
    case NodeKind::kBlock: {
      const auto& n = static_cast<const BlockNode&>(s);
      return MakeBlock(n.name, n.iter_vars, n.reads, n.writes, n.body, n.init, n.alloc_buffers,
                       n.annotations)
          .status();
    }
    case NodeKind::kBlockRealize: {
      const auto& n = static_cast<const BlockRealizeNode&>(s);
      // The factory fills in a missing predicate; a built node must carry one.
      if (!n.predicate) {
        return Invalid(absl::StrCat("BlockRealize of '", n.block ? n.block->name : "?",
                                    "': predicate is missing"));
      }
      return MakeBlockRealize(n.iter_values, n.predicate, n.block).status();
    }
    default:
      return Invalid(absl::StrCat("node of kind ", NodeKindName(s.kind()), " is not a statement"));
  }
}

absl::Status RecheckBuffer(const BufferNode& b) {
  // The factory fills in a missing offset; a built buffer must carry one.
  if (!b.elem_offset) {
    return Invalid(absl::StrCat("Buffer '", b.name, "': the element offset is missing"));
  }
  return MakeBufferChecked(b.name, b.dtype, b.shape, b.strides, b.elem_offset, b.scope,
                           b.alignment)
      .status();
}

// ---- Completeness -----------------------------------------------------------------

namespace {

bool AllComplete(const std::vector<Expr>& es) {
  for (const Expr& e : es) {
    if (!IsComplete(e)) return false;
  }
  return true;
}

bool BufferComplete(const Buffer& b) {
  return b && AllComplete(b->shape) && AllComplete(b->strides) && IsComplete(b->elem_offset);
}

bool RegionComplete(const BufferRegion& r) {
  if (!BufferComplete(r.buffer)) return false;
  for (const Range& range : r.region) {
    if (!IsComplete(range.min) || !IsComplete(range.extent)) return false;
  }
  return true;
}

}  // namespace

bool IsComplete(const Expr& e) {
  if (!e) return false;
  switch (e->kind()) {
    case NodeKind::kVar:
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
      return true;
    case NodeKind::kNot:
      return IsComplete(cast<NotNode>(e)->a);
    case NodeKind::kSelect: {
      const auto* n = cast<SelectNode>(e);
      return IsComplete(n->condition) && IsComplete(n->true_value) && IsComplete(n->false_value);
    }
    case NodeKind::kCast:
      return IsComplete(cast<CastNode>(e)->value);
    case NodeKind::kBufferLoad: {
      const auto* n = cast<BufferLoadNode>(e);
      return n->buffer && AllComplete(n->indices);
    }
    case NodeKind::kRamp: {
      const auto* n = cast<RampNode>(e);
      return IsComplete(n->base) && IsComplete(n->stride);
    }
    case NodeKind::kBroadcast:
      return IsComplete(cast<BroadcastNode>(e)->value);
    case NodeKind::kCall:
      return AllComplete(cast<CallNode>(e)->args);
    default:
      if (const auto* n = dyn_cast<BinaryNode>(e)) return IsComplete(n->a) && IsComplete(n->b);
      return false;
  }
}

bool IsComplete(const Stmt& s) {
  if (!s) return false;
  switch (s->kind()) {
    case NodeKind::kBufferStore: {
      const auto* n = cast<BufferStoreNode>(s);
      return n->buffer && IsComplete(n->value) && AllComplete(n->indices);
    }
    case NodeKind::kFor: {
      const auto* n = cast<ForNode>(s);
      return n->loop_var && IsComplete(n->min) && IsComplete(n->extent) && IsComplete(n->body);
    }
    case NodeKind::kIfThenElse: {
      const auto* n = cast<IfThenElseNode>(s);
      return IsComplete(n->condition) && IsComplete(n->then_case) &&
             (!n->else_case || IsComplete(n->else_case));
    }
    case NodeKind::kLetStmt: {
      const auto* n = cast<LetStmtNode>(s);
      return n->var && IsComplete(n->value) && IsComplete(n->body);
    }
    case NodeKind::kSeqStmt:
      for (const Stmt& c : cast<SeqStmtNode>(s)->seq) {
        if (!IsComplete(c)) return false;
      }
      return true;
    case NodeKind::kEvaluate:
      return IsComplete(cast<EvaluateNode>(s)->value);
    case NodeKind::kAllocate: {
      const auto* n = cast<AllocateNode>(s);
      return BufferComplete(n->buffer) && IsComplete(n->body);
    }
    case NodeKind::kDeclBuffer: {
      const auto* n = cast<DeclBufferNode>(s);
      return BufferComplete(n->buffer) && n->source && IsComplete(n->body);
    }
    case NodeKind::kBlock: {
      const auto* n = cast<BlockNode>(s);
      for (const IterVar& iv : n->iter_vars) {
        if (!iv.var || !IsComplete(iv.dom.min) || !IsComplete(iv.dom.extent)) return false;
      }
      for (const BufferRegion& r : n->reads) {
        if (!RegionComplete(r)) return false;
      }
      for (const BufferRegion& r : n->writes) {
        if (!RegionComplete(r)) return false;
      }
      for (const Buffer& b : n->alloc_buffers) {
        if (!BufferComplete(b)) return false;
      }
      return (!n->init || IsComplete(n->init)) && IsComplete(n->body);
    }
    case NodeKind::kBlockRealize: {
      const auto* n = cast<BlockRealizeNode>(s);
      return AllComplete(n->iter_values) && IsComplete(n->predicate) && IsComplete(n->block);
    }
    default:
      return false;
  }
}

}  // namespace tessel::ir
