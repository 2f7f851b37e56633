// The well-formedness verifier (ir/verifier.h): one walk over a function that
// tracks which variables and buffers are bound where, and reports the first
// rule broken, naming the node and printing it.
//
//   for i in range(0, 128) {
//     block C(vi: spatial[0, 128] = i) {
//       C[i] = 0.0f32          // error: block 'C' reads loop variable 'i' directly
//     }
//   }
//   -> "verify: function 'f': block 'C': variable 'i' is bound by a loop outside
//       block 'C'; a block sees enclosing loops only through its iter var bindings
//         in expression: i
//         in statement: C[i] = 0.0f32"
//
// Scoping rules (after TensorIR's SSA and block-isolation rules):
// - every Var object is bound exactly once in its function: by a scalar parameter,
//   as a symbolic shape variable (a bare Var in a parameter buffer's shape,
//   strides or offset), by a For, a LetStmt or a block iter var;
// - a block with iter vars sees only its own iter vars, what is bound inside it,
//   parameters and shape variables; enclosing loops reach it through its
//   bindings. A block without iter vars (a root block) is transparent.
// Node-level typing is re-checked by re-running the checked factories
// (ir/verify_recheck.h), children before parents, so the innermost fault is the
// one reported.
#include "ir/verifier.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/verify_recheck.h"
#include "ir/verify_walk.h"

namespace tessel::ir {

namespace {

constexpr size_t kMaxSnippet = 240;  // Longest line of IR quoted in a message.

std::string Clip(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // Truncate in place and append: GCC 12 reports a false -Warray-bounds on
  // `substr(...) + " ..."` (its bug 105329).
  bool clipped = false;
  if (size_t nl = text.find('\n'); nl != std::string::npos) {
    text.resize(nl);
    clipped = true;
  }
  if (text.size() > kMaxSnippet) {
    text.resize(kMaxSnippet);
    clipped = true;
  }
  if (clipped) text.append(" ...");
  return text;
}

}  // namespace

const char* FunctionVerifier::BinderName(Binder b) {
  switch (b) {
    case Binder::kParam: return "a parameter";
    case Binder::kShape: return "a parameter buffer's shape";
    case Binder::kLoop: return "a loop";
    case Binder::kLet: return "a let";
    case Binder::kIterVar: return "a block iter var";
  }
  return "?";
}

std::string FunctionVerifier::ShowExpr(const Expr& e) {
  if (!IsComplete(e)) return absl::StrCat("<", NodeKindName(e->kind()), " with missing operands>");
  return Clip(PrintExpr(e));
}

std::string FunctionVerifier::ShowStmt(const StmtNode* s) {
  Stmt ref = GetRef(s);
  if (!IsComplete(ref)) return absl::StrCat("<", NodeKindName(s->kind()), " with missing parts>");
  // A compound statement prints over many lines; its first line names it.
  return Clip(PrintStmt(ref));
}

absl::Status FunctionVerifier::Fail(const std::string& problem, const ExprNode* at) const {
  std::string msg = absl::StrCat("verify: function '", name_, "': ");
  if (!blocks_.empty()) absl::StrAppend(&msg, "block '", blocks_.back()->name, "': ");
  absl::StrAppend(&msg, problem);
  // Quote the failing expression unless it is a leaf, which says little by itself.
  const ExprNode* shown = at;
  if (shown == nullptr || isa<VarNode>(shown) || isa<IntImmNode>(shown) ||
      isa<FloatImmNode>(shown)) {
    shown = root_expr_ ? root_expr_ : at;
  }
  if (shown != nullptr) absl::StrAppend(&msg, "\n  in expression: ", ShowExpr(GetRef(shown)));
  if (stmt_ != nullptr) absl::StrAppend(&msg, "\n  in statement: ", ShowStmt(stmt_));
  return absl::InvalidArgumentError(msg);
}

// ---- Variables and buffers ------------------------------------------------------------

absl::Status FunctionVerifier::BindVar(const Var& var, Binder binder, const ForNode* loop) {
  if (!var) return Fail(absl::StrCat("a variable bound by ", BinderName(binder), " is missing"));
  if (auto it = visible_.find(var.get()); it != visible_.end()) {
    return Fail(absl::StrCat("variable '", var->name, "' is bound by ", BinderName(binder),
                             " inside the scope of ", BinderName(it->second.binder),
                             " that already binds it; variables in scope must be unique"));
  }
  auto [it, fresh] = bound_.emplace(var.get(), binder);
  if (!fresh) {
    return Fail(absl::StrCat("variable '", var->name, "' is bound by ", BinderName(binder),
                             " here and already by ", BinderName(it->second),
                             " elsewhere; every variable is bound exactly once in a function"));
  }
  visible_[var.get()] = VarBinding{binder, static_cast<int>(scoped_blocks_.size()), loop};
  return absl::OkStatus();
}

void FunctionVerifier::UnbindVar(const Var& var) { visible_.erase(var.get()); }

absl::Status FunctionVerifier::CheckVarUse(const VarNode* v) {
  auto it = visible_.find(v);
  if (it == visible_.end()) {
    if (bound_.contains(v)) {
      return Fail(absl::StrCat("variable '", v->name, "' is used outside the scope of ",
                               BinderName(bound_.at(v)), " that binds it"),
                  v);
    }
    return Fail(absl::StrCat("variable '", v->name,
                             "' is not defined here: it is not a parameter, a shape variable, or "
                             "bound by an enclosing loop, let or block"),
                v);
  }
  const VarBinding& b = it->second;
  bool local = b.binder == Binder::kLoop || b.binder == Binder::kLet || b.binder == Binder::kIterVar;
  if (local && b.block_level != static_cast<int>(scoped_blocks_.size())) {
    return Fail(absl::StrCat("variable '", v->name, "' is bound by ", BinderName(b.binder),
                             " outside block '", scoped_blocks_.back()->name,
                             "'; a block sees enclosing loops only through its iter var bindings"),
                v);
  }
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckBufferDef(const Buffer& buffer, const char* binder) {
  if (!buffer) return Fail(absl::StrCat("a buffer bound by ", binder, " is missing"));
  if (absl::Status s = RecheckBuffer(*buffer); !s.ok()) return Fail(std::string(s.message()));
  if (!bound_buffers_.insert(buffer.get()).second) {
    return Fail(absl::StrCat("buffer '", buffer->name, "' is bound again by ", binder,
                             "; every buffer is bound exactly once in a function"));
  }
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckBufferShape(const Buffer& buffer) {
  auto check = [&](const Expr& e, const char* what) -> absl::Status {
    if (absl::Status s = CheckRootExpr(e); !s.ok()) return s;
    if (std::optional<Int> c = ConstInt(e); c && *c < 0) {
      return Fail(absl::StrCat("buffer '", buffer->name, "' has negative ", what, " ",
                               static_cast<int64_t>(*c)));
    }
    return absl::OkStatus();
  };
  for (const Expr& e : buffer->shape) {
    if (absl::Status s = check(e, "extent"); !s.ok()) return s;
  }
  // A size no machine holds would wrap when lowering flattens it (to one element).
  int64_t bytes = std::max(buffer->dtype.bytes(), 1);
  for (const Expr& e : buffer->shape) {
    std::optional<Int> c = ConstInt(e);
    if (!c) continue;
    if (*c > std::numeric_limits<int64_t>::max() ||
        __builtin_mul_overflow(bytes, static_cast<int64_t>(*c), &bytes)) {
      std::vector<std::string> extents;
      for (const Expr& x : buffer->shape) extents.push_back(PrintExpr(x));
      return Fail(absl::StrCat("buffer '", buffer->name, "' (", buffer->dtype.ToString(), "[",
                               absl::StrJoin(extents, ", "),
                               "]) holds more bytes than an i64 can count"));
    }
  }
  for (const Expr& e : buffer->strides) {
    if (absl::Status s = CheckRootExpr(e); !s.ok()) return s;
  }
  return check(buffer->elem_offset, "element offset");
}

absl::Status FunctionVerifier::CheckAttrs(const Attrs& attrs, const std::string& owner) {
  for (const auto& [key, value] : attrs) {
    if (AttrNesting(value) > kMaxAttrNesting) {
      return Fail(absl::StrCat(owner, " attribute '", key, "' nests lists more than ",
                               kMaxAttrNesting, " deep, deeper than .tsl text reads back"));
    }
  }
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckBufferUse(const Buffer& buffer, const std::string& what,
                                              const ExprNode* at) {
  if (visible_buffers_.contains(buffer.get())) return absl::OkStatus();
  if (bound_buffers_.contains(buffer.get())) {
    return Fail(absl::StrCat(what, " uses buffer '", buffer->name,
                             "' outside the scope that binds it"),
                at);
  }
  return Fail(absl::StrCat(what, " uses buffer '", buffer->name,
                           "', which is not bound: not a parameter, nor bound by an enclosing "
                           "Allocate, DeclBuffer or block alloc_buffers"),
              at);
}

// ---- Constants and bounds ---------------------------------------------------------------

std::optional<FunctionVerifier::Int> FunctionVerifier::ConstInt(const Expr& e) {
  const auto* imm = dyn_cast<IntImmNode>(e);
  if (imm == nullptr || !imm->dtype.is_integer()) return std::nullopt;
  // u64 values are stored by their bit pattern.
  if (imm->dtype.is_uint() && imm->dtype.bits() == 64) return static_cast<Int>(static_cast<uint64_t>(imm->value));
  return static_cast<Int>(imm->value);
}

std::string FunctionVerifier::IntText(Int v) {
  if (v >= 0 && v <= static_cast<Int>(UINT64_MAX)) return absl::StrCat(static_cast<uint64_t>(v));
  return absl::StrCat(static_cast<int64_t>(v));
}

absl::Status FunctionVerifier::CheckConstIndices(const Buffer& buffer,
                                                 const std::vector<Expr>& indices,
                                                 const char* what) {
  for (size_t d = 0; d < indices.size() && d < buffer->shape.size(); ++d) {
    std::optional<Int> extent = ConstInt(buffer->shape[d]);
    if (!extent) continue;
    // The smallest and largest index the access touches, when constant.
    std::optional<Int> lo, hi;
    const Expr& index = indices[d];
    if (std::optional<Int> c = ConstInt(index)) {
      lo = hi = c;
    } else if (const auto* ramp = dyn_cast<RampNode>(index)) {
      std::optional<Int> base = ConstInt(ramp->base), stride = ConstInt(ramp->stride);
      if (base && stride) {
        Int last = *base + *stride * (ramp->lanes - 1);
        lo = std::min(*base, last);
        hi = std::max(*base, last);
      }
    } else if (const auto* bc = dyn_cast<BroadcastNode>(index)) {
      if (std::optional<Int> c = ConstInt(bc->value)) lo = hi = c;
    }
    if (!lo) {
      if (absl::Status s = CheckAffineIndex(buffer, d, index, *extent, what); !s.ok()) return s;
      continue;
    }
    if (*lo < 0 || *hi >= *extent) {
      Int bad = *lo < 0 ? *lo : *hi;
      return Fail(absl::StrCat(what, " of buffer '", buffer->name, "': index ", IntText(bad),
                               " in dimension ", d, " is outside [0, ", IntText(*extent), ")"),
                  index.get());
    }
  }
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckRegion(const BufferRegion& region, const char* what) {
  if (absl::Status s = CheckBufferUse(region.buffer, absl::StrCat("the ", what, " region")); !s.ok()) {
    return s;
  }
  for (size_t d = 0; d < region.region.size(); ++d) {
    const Range& r = region.region[d];
    if (absl::Status s = CheckRootExpr(r.min); !s.ok()) return s;
    if (absl::Status s = CheckRootExpr(r.extent); !s.ok()) return s;
    std::optional<Int> min = ConstInt(r.min), extent = ConstInt(r.extent);
    std::optional<Int> size = ConstInt(region.buffer->shape[d]);
    if (extent && *extent < 0) {
      return Fail(absl::StrCat(what, " region of buffer '", region.buffer->name, "' has negative extent ",
                               IntText(*extent), " in dimension ", d));
    }
    if (min && extent && size && (*min < 0 || *min + *extent > *size)) {
      return Fail(absl::StrCat(what, " region of buffer '", region.buffer->name, "' covers [",
                               IntText(*min), ", ", IntText(*min + *extent), ") in dimension ", d,
                               ", outside the buffer's [0, ", IntText(*size), ")"));
    }
  }
  return absl::OkStatus();
}

// ---- Expressions ----------------------------------------------------------------------

absl::Status FunctionVerifier::CheckRootExpr(const Expr& e) {
  // A missing top-level expression is reported by its statement's factory re-check.
  if (!e) return absl::OkStatus();
  root_expr_ = e.get();
  absl::Status s = CheckExpr(e);
  root_expr_ = nullptr;
  return s;
}

absl::Status FunctionVerifier::CheckExprs(const std::vector<Expr>& es) {
  for (const Expr& e : es) {
    if (absl::Status s = CheckExpr(e); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status FunctionVerifier::CheckExpr(const Expr& e) {
  if (!e) return absl::OkStatus();
  const ExprNode* n = e.get();
  // Children first, so that the innermost fault is the one reported.
  absl::Status children;
  switch (n->kind()) {
    case NodeKind::kVar:
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
      break;
    case NodeKind::kNot:
      children = CheckExpr(cast<NotNode>(n)->a);
      break;
    case NodeKind::kSelect: {
      const auto* op = cast<SelectNode>(n);
      children = CheckExprs({op->condition, op->true_value, op->false_value});
      break;
    }
    case NodeKind::kCast:
      children = CheckExpr(cast<CastNode>(n)->value);
      break;
    case NodeKind::kBufferLoad:
      children = CheckExprs(cast<BufferLoadNode>(n)->indices);
      break;
    case NodeKind::kRamp: {
      const auto* op = cast<RampNode>(n);
      children = CheckExprs({op->base, op->stride});
      break;
    }
    case NodeKind::kBroadcast:
      children = CheckExpr(cast<BroadcastNode>(n)->value);
      break;
    case NodeKind::kCall: {
      const auto* op = cast<CallNode>(n);
      if (op->callee == CallNode::Callee::kAddressOf) {
        return Fail("address_of(...) is only an argument of a packed call (@f(...): packed)", n);
      }
      if (op->callee == CallNode::Callee::kThreadReduce ||
          op->callee == CallNode::Callee::kWarpMma) {
        const auto* store = stmt_ != nullptr && stmt_->kind() == NodeKind::kBufferStore
                                ? static_cast<const BufferStoreNode*>(stmt_)
                                : nullptr;
        if (store == nullptr || store->value.get() != n) {
          return Fail(absl::StrCat(op->name, "(...) is a collective: the whole value of a store, ",
                                   op->callee == CallNode::Callee::kWarpMma
                                       ? "e.g. D[ramp(0, 1, 4)] = mma_m16n8k16(a, b, c)"
                                       : absl::StrCat("e.g. red[0] = ", op->name, "(red[0])")),
                      n);
        }
        children = CheckExprs(op->args);
        break;
      }
      if (op->callee == CallNode::Callee::kSyncThreads) {
        if (n != root_expr_ || stmt_ == nullptr || stmt_->kind() != NodeKind::kEvaluate) {
          return Fail("sync_threads() is a statement of its own, not part of an expression", n);
        }
        break;
      }
      if (op->callee != CallNode::Callee::kPacked) {
        children = CheckExprs(op->args);
        break;
      }
      if (n != root_expr_ || stmt_ == nullptr || stmt_->kind() != NodeKind::kEvaluate) {
        return Fail(absl::StrCat("the packed call @", op->name,
                                 " is a statement of its own, not part of an expression"),
                    n);
      }
      for (const Expr& a : op->args) {
        const auto* addr = dyn_cast<CallNode>(a.get());
        if (addr != nullptr && addr->callee == CallNode::Callee::kAddressOf) {
          children = CheckExprs(addr->args);
          if (children.ok()) {
            if (absl::Status s = RecheckExprNode(*addr); !s.ok())
              return Fail(std::string(s.message()), addr);
          }
        } else {
          children = CheckExpr(a);
        }
        if (!children.ok()) break;
      }
      break;
    }
    default:
      if (const auto* op = dyn_cast<BinaryNode>(n)) {
        children = CheckExpr(op->a);
        // The right operand of && and || may not be evaluated.
        const bool lazy = n->kind() == NodeKind::kAnd || n->kind() == NodeKind::kOr;
        guard_depth_ += lazy ? 1 : 0;
        if (children.ok()) children = CheckExpr(op->b);
        guard_depth_ -= lazy ? 1 : 0;
      }
      break;
  }
  if (!children.ok()) return children;
  if (absl::Status s = RecheckExprNode(*n); !s.ok()) return Fail(std::string(s.message()), n);
  if (const auto* v = dyn_cast<VarNode>(n)) return CheckVarUse(v);
  if (const auto* load = dyn_cast<BufferLoadNode>(n)) {
    if (absl::Status s = CheckBufferUse(load->buffer, "a load", load); !s.ok()) return s;
    return CheckConstIndices(load->buffer, load->indices, "load");
  }
  return absl::OkStatus();
}

// ---- Function and module --------------------------------------------------------------

absl::Status FunctionVerifier::Verify(const PrimFunc& func) {
  if (!func) return Fail("the function is missing");
  if (absl::Status s = MakePrimFuncChecked(func->params, func->body, func->attrs).status(); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  if (absl::Status s = CheckAttrs(func->attrs, "the function's"); !s.ok()) return s;
  // Scalar parameters first: a buffer's shape may name them.
  for (const Param& p : func->params) {
    if (p.is_buffer()) continue;
    if (absl::Status s = RecheckExprNode(*p.var); !s.ok()) return Fail(std::string(s.message()));
    if (!p.var->dtype.is_scalar()) {
      return Fail(absl::StrCat("parameter '", p.var->name, "' has vector type ",
                               p.var->dtype.ToString(), "; scalar parameters are scalars"));
    }
    if (absl::Status s = BindVar(p.var, Binder::kParam); !s.ok()) return s;
  }
  for (const Param& p : func->params) {
    if (!p.is_buffer()) continue;
    if (absl::Status s = CheckBufferDef(p.buffer, "a parameter"); !s.ok()) return s;
    visible_buffers_.insert(p.buffer.get());
  }
  // A bare Var in a parameter buffer's shape, strides or offset that nothing else
  // binds is a symbolic shape variable, its value taken from the argument.
  for (const Param& p : func->params) {
    if (!p.is_buffer()) continue;
    std::vector<Expr> fields = p.buffer->shape;
    fields.insert(fields.end(), p.buffer->strides.begin(), p.buffer->strides.end());
    fields.push_back(p.buffer->elem_offset);
    for (const Expr& e : fields) {
      const auto* v = dyn_cast<VarNode>(e);
      if (v == nullptr || visible_.contains(v)) continue;
      if (absl::Status s = BindVar(GetRef(v), Binder::kShape); !s.ok()) return s;
    }
  }
  for (const Param& p : func->params) {
    if (!p.is_buffer()) continue;
    if (absl::Status s = CheckBufferShape(p.buffer); !s.ok()) return s;
  }
  return CheckStmt(func->body);
}

absl::Status VerifyFunction(const PrimFunc& func, const std::string& name) {
  FunctionVerifier verifier(name);
  return verifier.Verify(func);
}

absl::Status VerifyModule(const IRModule& mod) {
  if (!mod) return absl::InvalidArgumentError("verify: the module is missing");
  // MakeIRModuleChecked guarantees these, but a module can be built directly.
  absl::flat_hash_set<std::string> names;
  auto check_name = [&](const std::string& name) -> absl::Status {
    if (name.empty()) return absl::InvalidArgumentError("verify: a function has an empty name");
    if (!names.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("verify: function '", name, "' is defined twice in the module"));
    }
    return absl::OkStatus();
  };
  for (const auto& [name, func] : mod->functions) TESSEL_RETURN_IF_ERROR(check_name(name));
  for (const auto& [name, func] : mod->graph_functions) TESSEL_RETURN_IF_ERROR(check_name(name));
  for (const auto& [name, func] : mod->functions) {
    if (absl::Status s = VerifyFunction(func, name); !s.ok()) return s;
  }
  for (const auto& [name, func] : mod->graph_functions) {
    TESSEL_RETURN_IF_ERROR(VerifyGraphFunction(mod, func, name));
  }
  return absl::OkStatus();
}

}  // namespace tessel::ir
