// Structural equality of statements, blocks, functions and modules: the part of
// the checker (structural_equal_checker.h) above expressions. Scoping follows
// structural_equal.cc: a binder is recorded on entry and restored on exit.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/structural_equal_checker.h"

namespace tessel::ir::structural_equal_internal {

bool EqualChecker::BlockEq(const BlockNode* a, const BlockNode* b) {
  if (a->name != b->name) return FieldMismatch("name", "block names differ", a->name, b->name);
  if (!Lengths("iter_vars", a->iter_vars.size(), b->iter_vars.size())) return false;
  // Domains belong to the enclosing scope: compared before the iter vars are bound.
  for (size_t i = 0; i < a->iter_vars.size(); ++i) {
    const IterVar& x = a->iter_vars[i];
    const IterVar& y = b->iter_vars[i];
    if (!E(x.dom.min, y.dom.min)) return Up(absl::StrCat("iter_vars[", i, "].dom.min"));
    if (!E(x.dom.extent, y.dom.extent)) return Up(absl::StrCat("iter_vars[", i, "].dom.extent"));
    if (x.kind != y.kind) {
      return FieldMismatch(absl::StrCat("iter_vars[", i, "].kind"), "iter kinds differ",
                           IterKindName(x.kind), IterKindName(y.kind));
    }
  }
  size_t mark = Mark();
  for (size_t i = 0; i < a->iter_vars.size(); ++i) {
    if (!BindVar(a->iter_vars[i].var, b->iter_vars[i].var)) {
      return Up(absl::StrCat("iter_vars[", i, "].var"));
    }
  }
  if (!Lengths("alloc_buffers", a->alloc_buffers.size(), b->alloc_buffers.size())) return false;
  for (size_t i = 0; i < a->alloc_buffers.size(); ++i) {
    if (!BufferDef(a->alloc_buffers[i], b->alloc_buffers[i], false)) {
      return Up(absl::StrCat("alloc_buffers[", i, "]"));
    }
  }
  if (!Regions("reads", a->reads, b->reads)) return false;
  if (!Regions("writes", a->writes, b->writes)) return false;
  if (!S(a->init, b->init)) return Up("init");
  if (!S(a->body, b->body)) return Up("body");
  if (!AttrsEq("annotations", a->annotations, b->annotations)) return false;
  Restore(mark);
  return true;
}

bool EqualChecker::S(const Stmt& ra, const Stmt& rb) {
  const StmtNode* a = ra.get();
  const StmtNode* b = rb.get();
  if (!Roots(a, b)) return false;
  if (a == nullptr) return true;
  if (a->kind() != b->kind()) return KindMismatch(a, b);
  switch (a->kind()) {
    case NodeKind::kBufferStore: {
      const auto* x = static_cast<const BufferStoreNode*>(a);
      const auto* y = static_cast<const BufferStoreNode*>(b);
      if (!BufferUse(x->buffer, y->buffer)) return Up("buffer");
      if (!E(x->value, y->value)) return Up("value");
      return Exprs("indices", x->indices, y->indices);
    }
    case NodeKind::kFor: {
      const auto* x = static_cast<const ForNode*>(a);
      const auto* y = static_cast<const ForNode*>(b);
      if (!E(x->min, y->min)) return Up("min");
      if (!E(x->extent, y->extent)) return Up("extent");
      size_t mark = Mark();
      if (!BindVar(x->loop_var, y->loop_var)) return Up("loop_var");
      if (x->for_kind != y->for_kind) {
        return FieldMismatch("for_kind", "loop kinds differ", ForKindName(x->for_kind),
                             ForKindName(y->for_kind));
      }
      if (x->thread_tag != y->thread_tag) {
        return FieldMismatch("thread_tag", "thread tags differ", x->thread_tag, y->thread_tag);
      }
      if (!AttrsEq("annotations", x->annotations, y->annotations)) return false;
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kIfThenElse: {
      const auto* x = static_cast<const IfThenElseNode*>(a);
      const auto* y = static_cast<const IfThenElseNode*>(b);
      if (!E(x->condition, y->condition)) return Up("condition");
      if (!S(x->then_case, y->then_case)) return Up("then_case");
      return S(x->else_case, y->else_case) || Up("else_case");
    }
    case NodeKind::kLetStmt: {
      const auto* x = static_cast<const LetStmtNode*>(a);
      const auto* y = static_cast<const LetStmtNode*>(b);
      if (!E(x->value, y->value)) return Up("value");
      size_t mark = Mark();
      if (!BindVar(x->var, y->var)) return Up("var");
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kSeqStmt: {
      const auto& x = static_cast<const SeqStmtNode*>(a)->seq;
      const auto& y = static_cast<const SeqStmtNode*>(b)->seq;
      if (!Lengths("seq", x.size(), y.size())) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!S(x[i], y[i])) return Up(absl::StrCat("seq[", i, "]"));
      }
      return true;
    }
    case NodeKind::kEvaluate:
      return E(static_cast<const EvaluateNode*>(a)->value,
               static_cast<const EvaluateNode*>(b)->value) ||
             Up("value");
    case NodeKind::kAllocate: {
      const auto* x = static_cast<const AllocateNode*>(a);
      const auto* y = static_cast<const AllocateNode*>(b);
      size_t mark = Mark();
      if (!BufferDef(x->buffer, y->buffer, false)) return Up("buffer");
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kDeclBuffer: {
      const auto* x = static_cast<const DeclBufferNode*>(a);
      const auto* y = static_cast<const DeclBufferNode*>(b);
      if (!BufferUse(x->source, y->source)) return Up("source");
      size_t mark = Mark();
      if (!BufferDef(x->buffer, y->buffer, false)) return Up("buffer");
      if (!S(x->body, y->body)) return Up("body");
      Restore(mark);
      return true;
    }
    case NodeKind::kBlock:
      return BlockEq(static_cast<const BlockNode*>(a), static_cast<const BlockNode*>(b));
    case NodeKind::kBlockRealize: {
      const auto* x = static_cast<const BlockRealizeNode*>(a);
      const auto* y = static_cast<const BlockRealizeNode*>(b);
      if (!Exprs("iter_values", x->iter_values, y->iter_values)) return false;
      if (!E(x->predicate, y->predicate)) return Up("predicate");
      if (!Roots(x->block.get(), y->block.get())) return Up("block");
      if (x->block && !BlockEq(x->block.get(), y->block.get())) {
        return Up(x->block->name == y->block->name ? absl::StrCat("block[", x->block->name, "]")
                                                   : std::string("block"));
      }
      return true;
    }
    default:
      return Mismatch("unknown statement kind", a, b);
  }
}

bool EqualChecker::Func(const PrimFuncNode* a, const PrimFuncNode* b) {
  if (!Lengths("params", a->params.size(), b->params.size())) return false;
  size_t mark = Mark();
  // Scalar parameters first, so that a buffer's shape may name any of them
  // wherever it sits in the list; then buffers, whose shapes may define new vars.
  for (size_t i = 0; i < a->params.size(); ++i) {
    const Param& x = a->params[i];
    const Param& y = b->params[i];
    if (x.is_buffer() != y.is_buffer()) {
      auto describe = [](const Param& p) {
        return p.is_buffer() ? BufferText(p.buffer.get())
                             : (p.var ? absl::StrCat("var ", p.var->name) : "(absent)");
      };
      return FieldMismatch(absl::StrCat("params[", i, "]"), "parameter kinds differ",
                           describe(x), describe(y));
    }
    if (!x.is_buffer() && !BindVar(x.var, y.var)) return Up(absl::StrCat("params[", i, "]"));
  }
  for (size_t i = 0; i < a->params.size(); ++i) {
    if (a->params[i].is_buffer() && !BufferDef(a->params[i].buffer, b->params[i].buffer, true)) {
      return Up(absl::StrCat("params[", i, "]"));
    }
  }
  if (!AttrsEq("attrs", a->attrs, b->attrs)) return false;
  if (!S(a->body, b->body)) return Up("body");
  Restore(mark);
  return true;
}

bool EqualChecker::Graph(const GraphFuncNode* a, const GraphFuncNode* b) {
  size_t mark = Mark();
  if (!Lengths("params", a->params.size(), b->params.size())) return false;
  for (size_t i = 0; i < a->params.size(); ++i) {
    if (!BufferDef(a->params[i], b->params[i], true)) return Up(absl::StrCat("params[", i, "]"));
  }
  if (!Lengths("bindings", a->bindings.size(), b->bindings.size())) return false;
  for (size_t i = 0; i < a->bindings.size(); ++i) {
    const GraphBinding& x = a->bindings[i];
    const GraphBinding& y = b->bindings[i];
    std::string at = absl::StrCat("bindings[", i, "]");
    if (x.call.kind != y.call.kind || x.call.callee != y.call.callee) {
      return FieldMismatch(at, "callees differ",
                           absl::StrCat(GraphCallKindName(x.call.kind), " ", x.call.callee),
                           absl::StrCat(GraphCallKindName(y.call.kind), " ", y.call.callee));
    }
    if (!Lengths("args", x.call.args.size(), y.call.args.size())) return Up(at);
    for (size_t k = 0; k < x.call.args.size(); ++k) {
      if (!BufferUse(x.call.args[k], y.call.args[k])) return Up(absl::StrCat(at, ".args[", k, "]"));
    }
    if (!AttrsEq("attrs", x.call.attrs, y.call.attrs)) return Up(at);
    if (!Lengths("outputs", x.outputs.size(), y.outputs.size())) return Up(at);
    for (size_t k = 0; k < x.outputs.size(); ++k) {
      if (!BufferDef(x.outputs[k], y.outputs[k], false))
        return Up(absl::StrCat(at, ".outputs[", k, "]"));
    }
  }
  if (!Lengths("results", a->results.size(), b->results.size())) return false;
  for (size_t i = 0; i < a->results.size(); ++i) {
    if (!BufferUse(a->results[i], b->results[i])) return Up(absl::StrCat("results[", i, "]"));
  }
  if (!AttrsEq("attrs", a->attrs, b->attrs)) return false;
  Restore(mark);
  return true;
}

bool EqualChecker::Module(const IRModuleNode* a, const IRModuleNode* b) {
  if (a->functions.size() != b->functions.size()) {
    auto names = [](const IRModuleNode* m) {
      return absl::StrCat(m->functions.size(), " functions (",
                          absl::StrJoin(m->functions, ", ",
                                        [](std::string* out, const auto& f) { out->append(f.first); }),
                          ")");
    };
    return FieldMismatch("functions", "function counts differ", names(a), names(b));
  }
  // Functions compare in order: the order is part of the module (it is printed).
  for (size_t i = 0; i < a->functions.size(); ++i) {
    const auto& [na, fa] = a->functions[i];
    const auto& [nb, fb] = b->functions[i];
    if (na != nb) {
      return FieldMismatch(absl::StrCat("functions[", i, "]"), "function names differ", na, nb);
    }
    if (!Roots(fa.get(), fb.get()) || (fa && !Func(fa.get(), fb.get()))) {
      return Up(absl::StrCat("func[", na, "]"));
    }
  }
  if (a->graph_functions.size() != b->graph_functions.size()) {
    return FieldMismatch("graph_functions", "graph function counts differ",
                         absl::StrCat(a->graph_functions.size()),
                         absl::StrCat(b->graph_functions.size()));
  }
  for (size_t i = 0; i < a->graph_functions.size(); ++i) {
    const auto& [na, ga] = a->graph_functions[i];
    const auto& [nb, gb] = b->graph_functions[i];
    if (na != nb) {
      return FieldMismatch(absl::StrCat("graph_functions[", i, "]"), "function names differ", na,
                           nb);
    }
    if (!Roots(ga.get(), gb.get()) || (ga && !Graph(ga.get(), gb.get()))) {
      return Up(absl::StrCat("graph[", na, "]"));
    }
  }
  if (a->constants.size() != b->constants.size()) {
    return FieldMismatch("constants", "constant counts differ", absl::StrCat(a->constants.size()),
                         absl::StrCat(b->constants.size()));
  }
  for (size_t i = 0; i < a->constants.size(); ++i) {
    const auto& [na, ca] = a->constants[i];
    const auto& [nb, cb] = b->constants[i];
    const std::string at = absl::StrCat("constants[", i, "]");
    if (na != nb) return FieldMismatch(at, "constant names differ", na, nb);
    if (ca.dtype() != cb.dtype() || ca.shape() != cb.shape()) {
      return FieldMismatch(at, absl::StrCat("constant '", na, "': types differ"),
                           TensorTypeText(ca.dtype(), ca.shape()),
                           TensorTypeText(cb.dtype(), cb.shape()));
    }
    if (ca.byte_size() > 0 && std::memcmp(ca.data(), cb.data(), ca.byte_size()) != 0) {
      return FieldMismatch(at, absl::StrCat("constant '", na, "': data differ"), "", "");
    }
  }
  return AttrsEq("attrs", a->attrs, b->attrs);
}
}  // namespace tessel::ir::structural_equal_internal
