// The IR's node fields for Python, read-only, and the walks a Python pass or
// dispatch rule needs to look inside a function and rewrite it without printing
// and re-parsing (TVM's stmt_functor):
//
//   def count_loads(func):
//       n = 0
//       def visit(node):
//           nonlocal n
//           n += isinstance(node, tessel.ir.BufferLoad)
//       tessel.ir.post_order_visit(func.body, visit)
//
//   body = tessel.ir.transform(func.body, lambda n: ... or None)   # None keeps n
//   func = func.with_body(tessel.ir.Evaluate(tessel.ir.call_packed("f", [A, 3])))
//
// Every node class is a subclass of Expr or Stmt; pybind11 hands back the most
// derived one. Rewrites are checked: a callback returning a node of the wrong
// category is an ArgumentError, and with_body verifies the new function.
#include "absl/strings/str_cat.h"
#include "common.h"
#include "ir/fallible_mutator.h"
#include "ir/printer.h"
#include "ir/substitute.h"
#include "ir/verifier.h"
#include "ir/visitor.h"

namespace tessel::python {
namespace {

const char* CalleeName(ir::CallNode::Callee c) {
  switch (c) {
    case ir::CallNode::Callee::kIntrinsic:
      return "intrinsic";
    case ir::CallNode::Callee::kExtern:
      return "extern";
    case ir::CallNode::Callee::kPacked:
      return "packed";
    case ir::CallNode::Callee::kAddressOf:
      return "address_of";
    case ir::CallNode::Callee::kSyncThreads:
      return "sync_threads";
    case ir::CallNode::Callee::kThreadReduce:
      return "thread_reduce";
    case ir::CallNode::Callee::kWarpMma:
      return "warp_mma";
  }
  return "?";
}

py::list Regions(const std::vector<ir::BufferRegion>& regions) {
  py::list out;
  for (const ir::BufferRegion& r : regions) {
    py::list ranges;
    for (const ir::Range& range : r.region) ranges.append(py::make_tuple(range.min, range.extent));
    out.append(py::make_tuple(r.buffer, ranges));
  }
  return out;
}

// Calls `fn` on every expression and statement, children first.
class PyVisitor : public ir::IRVisitor {
 public:
  explicit PyVisitor(py::function fn) : fn_(std::move(fn)) {}

#define TESSEL_CALL_AFTER(Visit, Node, Base) \
  void Visit(const ir::Node* op) override {  \
    IRVisitor::Visit(op);                    \
    fn_(ir::GetRef<ir::Base>(op));           \
  }
  TESSEL_CALL_AFTER(VisitVar, VarNode, ExprNode)
  TESSEL_CALL_AFTER(VisitIntImm, IntImmNode, ExprNode)
  TESSEL_CALL_AFTER(VisitFloatImm, FloatImmNode, ExprNode)
  TESSEL_CALL_AFTER(VisitBinary, BinaryNode, ExprNode)
  TESSEL_CALL_AFTER(VisitNot, NotNode, ExprNode)
  TESSEL_CALL_AFTER(VisitSelect, SelectNode, ExprNode)
  TESSEL_CALL_AFTER(VisitCast, CastNode, ExprNode)
  TESSEL_CALL_AFTER(VisitBufferLoad, BufferLoadNode, ExprNode)
  TESSEL_CALL_AFTER(VisitRamp, RampNode, ExprNode)
  TESSEL_CALL_AFTER(VisitBroadcast, BroadcastNode, ExprNode)
  TESSEL_CALL_AFTER(VisitCall, CallNode, ExprNode)
  TESSEL_CALL_AFTER(VisitBufferStore, BufferStoreNode, StmtNode)
  TESSEL_CALL_AFTER(VisitFor, ForNode, StmtNode)
  TESSEL_CALL_AFTER(VisitIfThenElse, IfThenElseNode, StmtNode)
  TESSEL_CALL_AFTER(VisitLetStmt, LetStmtNode, StmtNode)
  TESSEL_CALL_AFTER(VisitSeqStmt, SeqStmtNode, StmtNode)
  TESSEL_CALL_AFTER(VisitEvaluate, EvaluateNode, StmtNode)
  TESSEL_CALL_AFTER(VisitAllocate, AllocateNode, StmtNode)
  TESSEL_CALL_AFTER(VisitDeclBuffer, DeclBufferNode, StmtNode)
  TESSEL_CALL_AFTER(VisitBlock, BlockNode, StmtNode)
  TESSEL_CALL_AFTER(VisitBlockRealize, BlockRealizeNode, StmtNode)
#undef TESSEL_CALL_AFTER

 private:
  py::function fn_;
};

// A post-order rewrite: each node with rewritten children is offered to `fn`,
// whose non-None result replaces it.
class PyTransformer : public ir::FallibleMutator<> {
 public:
  explicit PyTransformer(py::function fn) : fn_(std::move(fn)) {}

  ir::Expr Offer(const ir::Expr& e) {
    py::object r = fn_(e);
    if (r.is_none()) return e;
    if (!py::isinstance<ir::ExprNode>(r)) {
      Throw(ErrorKind::kArgument,
            absl::StrCat("transform: the callback replaced the expression ", ir::PrintExpr(e),
                         " with ", py::repr(r).cast<std::string>(),
                         "; an expression is replaced by an Expr"));
    }
    return r.cast<ir::Expr>();
  }
  ir::Stmt Offer(const ir::Stmt& s) {
    py::object r = fn_(s);
    if (r.is_none()) return s;
    bool block = ir::isa<ir::BlockNode>(s);
    if (!py::isinstance<ir::StmtNode>(r) || (block && !py::isinstance<ir::BlockNode>(r))) {
      Throw(ErrorKind::kArgument,
            absl::StrCat("transform: the callback replaced a ", ir::NodeKindName(s->kind()),
                         " with ", py::repr(r).cast<std::string>(), "; ",
                         block ? "a Block is replaced by a Block" : "a statement by a Stmt"));
    }
    return r.cast<ir::Stmt>();
  }

#define TESSEL_OFFER_EXPR(Visit, Node) \
  ir::Expr Visit(const ir::Node* op) override { return Offer(IRMutator::Visit(op)); }
#define TESSEL_OFFER_STMT(Visit, Node) \
  ir::Stmt Visit(const ir::Node* op) override { return Offer(IRMutator::Visit(op)); }
  TESSEL_OFFER_EXPR(VisitVar, VarNode)
  TESSEL_OFFER_EXPR(VisitIntImm, IntImmNode)
  TESSEL_OFFER_EXPR(VisitFloatImm, FloatImmNode)
  TESSEL_OFFER_EXPR(VisitBinary, BinaryNode)
  TESSEL_OFFER_EXPR(VisitNot, NotNode)
  TESSEL_OFFER_EXPR(VisitSelect, SelectNode)
  TESSEL_OFFER_EXPR(VisitCast, CastNode)
  TESSEL_OFFER_EXPR(VisitBufferLoad, BufferLoadNode)
  TESSEL_OFFER_EXPR(VisitRamp, RampNode)
  TESSEL_OFFER_EXPR(VisitBroadcast, BroadcastNode)
  TESSEL_OFFER_EXPR(VisitCall, CallNode)
  TESSEL_OFFER_STMT(VisitBufferStore, BufferStoreNode)
  TESSEL_OFFER_STMT(VisitFor, ForNode)
  TESSEL_OFFER_STMT(VisitIfThenElse, IfThenElseNode)
  TESSEL_OFFER_STMT(VisitLetStmt, LetStmtNode)
  TESSEL_OFFER_STMT(VisitSeqStmt, SeqStmtNode)
  TESSEL_OFFER_STMT(VisitEvaluate, EvaluateNode)
  TESSEL_OFFER_STMT(VisitAllocate, AllocateNode)
  TESSEL_OFFER_STMT(VisitDeclBuffer, DeclBufferNode)
  TESSEL_OFFER_STMT(VisitBlock, BlockNode)
  TESSEL_OFFER_STMT(VisitBlockRealize, BlockRealizeNode)
#undef TESSEL_OFFER_EXPR
#undef TESSEL_OFFER_STMT

 private:
  py::function fn_;
};

// An argument of call_packed: an Expr, a Buffer (its first element's address),
// or a Python int (i64) or float (f32).
ir::Expr PackedArg(py::handle h) {
  if (py::isinstance<ir::BufferNode>(h)) return ir::AddressOf(h.cast<ir::Buffer>());
  if (py::isinstance<ir::ExprNode>(h)) return h.cast<ir::Expr>();
  if (py::isinstance<py::bool_>(h)) {
    Throw(ErrorKind::kArgument, "call_packed: a bool argument; pass an int or an Expr");
  }
  if (py::isinstance<py::int_>(h)) {
    return Unwrap(ir::MakeIntImm(ir::DataType::Int(64), h.cast<int64_t>()), ErrorKind::kArgument);
  }
  if (py::isinstance<py::float_>(h)) {
    return Unwrap(ir::MakeFloatImm(ir::DataType::Float(32), h.cast<double>()),
                  ErrorKind::kArgument);
  }
  Throw(ErrorKind::kArgument, absl::StrCat("call_packed: an argument is an Expr, a Buffer, an int "
                                           "or a float, got ",
                                           py::repr(h).cast<std::string>()));
}

}  // namespace

void BindIRNodes(py::module_& m) {
  using ir::Expr;
  using ir::Stmt;
  py::class_<ir::BinaryNode, ir::ExprNode, ir::Ref<ir::BinaryNode>>(
      m, "BinaryOp", "a op b: arithmetic, comparison, and/or (`op` says which).")
      .def_property_readonly(
          "op", [](const ir::BinaryNode& n) { return ir::NodeKindName(n.kind()); },
          "'Add', 'Sub', 'Mul', 'Div', 'Mod', 'FloorDiv', 'FloorMod', 'Min', "
          "'Max', 'EQ', 'NE', 'LT', 'LE', 'GT', 'GE', 'And' or 'Or'.")
      .def_property_readonly("a", [](const ir::BinaryNode& n) { return n.a; },
                             "The left operand.")
      .def_property_readonly("b", [](const ir::BinaryNode& n) { return n.b; },
                             "The right operand.");
  py::class_<ir::NotNode, ir::ExprNode, ir::Ref<ir::NotNode>>(m, "Not", "not a.")
      .def_property_readonly("a", [](const ir::NotNode& n) { return n.a; },
                             "The operand.");
  py::class_<ir::SelectNode, ir::ExprNode, ir::Ref<ir::SelectNode>>(m, "Select",
                                                                    "select(condition, t, f).")
      .def_property_readonly("condition", [](const ir::SelectNode& n) { return n.condition; },
                             "The bool condition.")
      .def_property_readonly("true_value", [](const ir::SelectNode& n) { return n.true_value; },
                             "The value where it holds.")
      .def_property_readonly("false_value", [](const ir::SelectNode& n) { return n.false_value; },
                             "The value where it does not.");
  py::class_<ir::CastNode, ir::ExprNode, ir::Ref<ir::CastNode>>(m, "Cast", "dtype(value).")
      .def_property_readonly("value", [](const ir::CastNode& n) { return n.value; },
                             "The value converted to this dtype.");
  py::class_<ir::BufferLoadNode, ir::ExprNode, ir::Ref<ir::BufferLoadNode>>(m, "BufferLoad",
                                                                            "buffer[indices].")
      .def_property_readonly("buffer", [](const ir::BufferLoadNode& n) { return n.buffer; },
                             "The buffer read.")
      .def_property_readonly("indices", [](const ir::BufferLoadNode& n) { return n.indices; },
                             "One index per dimension.");
  py::class_<ir::RampNode, ir::ExprNode, ir::Ref<ir::RampNode>>(m, "Ramp",
                                                                "ramp(base, stride, lanes).")
      .def_property_readonly("base", [](const ir::RampNode& n) { return n.base; },
                             "The first lane.")
      .def_property_readonly("stride", [](const ir::RampNode& n) { return n.stride; },
                             "The step between lanes.")
      .def_property_readonly("lanes", [](const ir::RampNode& n) { return n.lanes; },
                             "How many lanes.");
  py::class_<ir::BroadcastNode, ir::ExprNode, ir::Ref<ir::BroadcastNode>>(
      m, "Broadcast", "broadcast(value, lanes).")
      .def_property_readonly("value", [](const ir::BroadcastNode& n) { return n.value; },
                             "The scalar repeated.")
      .def_property_readonly("lanes", [](const ir::BroadcastNode& n) { return n.lanes; },
                             "How many lanes.");
  py::class_<ir::CallNode, ir::ExprNode, ir::Ref<ir::CallNode>>(
      m, "Call", "An intrinsic (exp(x)), an extern or packed call (@f(...)), or address_of(A[i]).")
      .def_property_readonly(
          "callee", [](const ir::CallNode& n) { return CalleeName(n.callee); },
          "'intrinsic', 'extern', 'packed' or 'address_of'.")
      .def_property_readonly("name", [](const ir::CallNode& n) { return n.name; },
                             "The intrinsic or symbol name ('address_of' for address_of).")
      .def_property_readonly("args", [](const ir::CallNode& n) { return n.args; },
                             "The arguments.");

  py::class_<ir::BufferStoreNode, ir::StmtNode, ir::Ref<ir::BufferStoreNode>>(
      m, "BufferStore", "buffer[indices] = value.")
      .def_property_readonly("buffer", [](const ir::BufferStoreNode& n) { return n.buffer; },
                             "The buffer written.")
      .def_property_readonly("value", [](const ir::BufferStoreNode& n) { return n.value; },
                             "The value stored.")
      .def_property_readonly("indices", [](const ir::BufferStoreNode& n) { return n.indices; },
                             "One index per dimension.");
  py::class_<ir::ForNode, ir::StmtNode, ir::Ref<ir::ForNode>>(m, "For", "A loop.")
      .def_property_readonly("loop_var", [](const ir::ForNode& n) { return n.loop_var; },
                             "The loop variable.")
      .def_property_readonly("min", [](const ir::ForNode& n) { return n.min; },
                             "The first value.")
      .def_property_readonly("extent", [](const ir::ForNode& n) { return n.extent; },
                             "How many iterations.")
      .def_property_readonly(
          "for_kind", [](const ir::ForNode& n) { return ir::ForKindName(n.for_kind); },
          "'serial', 'parallel', 'vectorized', 'unrolled' or 'thread'.")
      .def_property_readonly("thread_tag", [](const ir::ForNode& n) { return n.thread_tag; },
                             "The thread axis of a 'thread' loop ('' otherwise).")
      .def_property_readonly("annotations",
                             [](const ir::ForNode& n) { return AttrsToPy(n.annotations); },
                             "Annotations (a dict).")
      .def_property_readonly("body", [](const ir::ForNode& n) { return n.body; },
                             "The loop body.");
  py::class_<ir::IfThenElseNode, ir::StmtNode, ir::Ref<ir::IfThenElseNode>>(m, "IfThenElse",
                                                                            "if / else.")
      .def_property_readonly("condition", [](const ir::IfThenElseNode& n) { return n.condition; },
                             "The bool condition.")
      .def_property_readonly("then_case", [](const ir::IfThenElseNode& n) { return n.then_case; },
                             "Run where it holds.")
      .def_property_readonly("else_case", [](const ir::IfThenElseNode& n) { return n.else_case; },
                             "Run where it does not (None when absent).");
  py::class_<ir::LetStmtNode, ir::StmtNode, ir::Ref<ir::LetStmtNode>>(m, "LetStmt",
                                                                      "let var = value.")
      .def_property_readonly("var", [](const ir::LetStmtNode& n) { return n.var; },
                             "The variable bound.")
      .def_property_readonly("value", [](const ir::LetStmtNode& n) { return n.value; },
                             "Its value.")
      .def_property_readonly("body", [](const ir::LetStmtNode& n) { return n.body; },
                             "Where it is bound.");
  py::class_<ir::SeqStmtNode, ir::StmtNode, ir::Ref<ir::SeqStmtNode>>(m, "SeqStmt",
                                                                      "Statements in order.")
      .def(py::init([](const std::vector<Stmt>& seq) {
             Stmt s = Unwrap(ir::MakeSeqStmt(seq), ErrorKind::kArgument);
             return ir::Ref<ir::SeqStmtNode>(
                 const_cast<ir::SeqStmtNode*>(ir::cast<ir::SeqStmtNode>(s)));
           }),
           py::arg("seq"))
      .def_property_readonly("seq", [](const ir::SeqStmtNode& n) { return n.seq; },
                             "The statements, in order.");
  py::class_<ir::EvaluateNode, ir::StmtNode, ir::Ref<ir::EvaluateNode>>(
      m, "Evaluate", "An expression run for its effect: a packed or extern call.")
      .def(py::init([](const Expr& value) {
             Stmt s = Unwrap(ir::MakeEvaluate(value), ErrorKind::kArgument);
             return ir::Ref<ir::EvaluateNode>(
                 const_cast<ir::EvaluateNode*>(ir::cast<ir::EvaluateNode>(s)));
           }),
           py::arg("value"))
      .def_property_readonly("value", [](const ir::EvaluateNode& n) { return n.value; },
                             "The expression run.");
  py::class_<ir::AllocateNode, ir::StmtNode, ir::Ref<ir::AllocateNode>>(m, "Allocate",
                                                                        "Storage for a buffer.")
      .def_property_readonly("buffer", [](const ir::AllocateNode& n) { return n.buffer; },
                             "The buffer given storage.")
      .def_property_readonly("body", [](const ir::AllocateNode& n) { return n.body; },
                             "Where it is bound.");
  py::class_<ir::DeclBufferNode, ir::StmtNode, ir::Ref<ir::DeclBufferNode>>(
      m, "DeclBuffer", "Another view of a buffer's storage.")
      .def_property_readonly("buffer", [](const ir::DeclBufferNode& n) { return n.buffer; },
                             "The view.")
      .def_property_readonly("source", [](const ir::DeclBufferNode& n) { return n.source; },
                             "The buffer whose storage it views.")
      .def_property_readonly("body", [](const ir::DeclBufferNode& n) { return n.body; },
                             "Where it is bound.");
  py::class_<ir::BlockNode, ir::StmtNode, ir::Ref<ir::BlockNode>>(m, "Block", "A block.")
      .def_property_readonly("name", [](const ir::BlockNode& n) { return n.name; },
                             "The name, unique in its function.")
      .def_property_readonly("iter_vars", [](const ir::BlockNode& n) { return n.iter_vars; },
                             "Its iter vars (IterVar).")
      .def_property_readonly(
          "reads", [](const ir::BlockNode& n) { return Regions(n.reads); },
          "[(buffer, [(min, extent), ...]), ...]")
      .def_property_readonly("writes", [](const ir::BlockNode& n) { return Regions(n.writes); },
                             "[(buffer, [(min, extent), ...]), ...]")
      .def_property_readonly("init", [](const ir::BlockNode& n) { return n.init; },
                             "The init statement of a reduction (None when absent).")
      .def_property_readonly("body", [](const ir::BlockNode& n) { return n.body; },
                             "The body.")
      .def_property_readonly("alloc_buffers",
                             [](const ir::BlockNode& n) { return n.alloc_buffers; },
                             "Buffers the block allocates.")
      .def_property_readonly("annotations",
                             [](const ir::BlockNode& n) { return AttrsToPy(n.annotations); },
                             "Annotations (a dict).");
  py::class_<ir::BlockRealizeNode, ir::StmtNode, ir::Ref<ir::BlockRealizeNode>>(
      m, "BlockRealize", "A block with its iter vars bound.")
      .def_property_readonly("iter_values",
                             [](const ir::BlockRealizeNode& n) { return n.iter_values; },
                             "The value bound to each iter var.")
      .def_property_readonly("predicate", [](const ir::BlockRealizeNode& n) { return n.predicate; },
                             "Where the block runs.")
      .def_property_readonly("block", [](const ir::BlockRealizeNode& n) { return n.block; },
                             "The block.");

  m.def(
      "post_order_visit",
      [](py::object node, py::function fn) {
        PyVisitor v(fn);
        if (py::isinstance<ir::PrimFuncNode>(node)) {
          v.VisitStmt(node.cast<ir::PrimFunc>()->body);
        } else if (py::isinstance<ir::StmtNode>(node)) {
          v.VisitStmt(node.cast<Stmt>());
        } else if (py::isinstance<ir::ExprNode>(node)) {
          v.VisitExpr(node.cast<Expr>());
        } else {
          Throw(ErrorKind::kArgument, "post_order_visit: takes a PrimFunc, Stmt or Expr");
        }
      },
      py::arg("node"), py::arg("fn"));
  m.def(
      "ir_transform",
      [](py::object node, py::function fn) -> py::object {
        PyTransformer t(fn);
        if (py::isinstance<ir::StmtNode>(node)) return py::cast(t.VisitStmt(node.cast<Stmt>()));
        if (py::isinstance<ir::ExprNode>(node)) return py::cast(t.VisitExpr(node.cast<Expr>()));
        Throw(ErrorKind::kArgument, "transform: takes a Stmt or an Expr");
      },
      py::arg("node"), py::arg("fn"));
  m.def(
      "ir_substitute",
      [](py::object node, py::dict mapping) -> py::object {
        ir::VarMap map;
        for (auto [k, v] : mapping) {
          map[CastArg<ir::Var>(k, "substitute: a key is a Var").get()] =
              CastArg<Expr>(v, "substitute: a value is an Expr");
        }
        if (py::isinstance<ir::StmtNode>(node))
          return py::cast(ir::Substitute(node.cast<Stmt>(), map));
        if (py::isinstance<ir::ExprNode>(node))
          return py::cast(ir::Substitute(node.cast<Expr>(), map));
        Throw(ErrorKind::kArgument, "substitute: takes a Stmt or an Expr");
      },
      py::arg("node"), py::arg("mapping"));
  m.def(
      "call_packed",
      [](const std::string& name, py::list args) {
        std::vector<Expr> exprs;
        for (py::handle a : args) exprs.push_back(PackedArg(a));
        return Unwrap(ir::MakeCall(ir::DataType::Int(32), ir::CallNode::Callee::kPacked, name,
                                   std::move(exprs)),
                      ErrorKind::kArgument);
      },
      py::arg("name"), py::arg("args"));
  m.def(
      "address_of",
      [](const ir::Buffer& buffer, std::optional<std::vector<Expr>> indices) {
        if (!indices) return ir::AddressOf(buffer);
        Expr load = Unwrap(ir::MakeBufferLoad(buffer, *indices), ErrorKind::kArgument);
        return Unwrap(ir::MakeCall(ir::DataType::Handle(), ir::CallNode::Callee::kAddressOf,
                                   "address_of", {load}),
                      ErrorKind::kArgument);
      },
      py::arg("buffer"), py::arg("indices") = py::none());
  auto prim_func =
      py::reinterpret_borrow<py::class_<ir::PrimFuncNode, ir::Node, ir::Ref<ir::PrimFuncNode>>>(
          m.attr("PrimFunc"));
  prim_func.def(
      "with_body",
      [](const ir::PrimFunc& f, const Stmt& body, py::object attrs) {
        auto out = ir::MakeNode<ir::PrimFuncNode>(*f);
        out->body = body;
        if (!attrs.is_none()) out->attrs = AttrsFromPy(attrs);
        ir::PrimFunc func(std::move(out));
        Check(ir::VerifyFunction(func, "with_body"), ErrorKind::kIR);
        return func;
      },
      py::arg("body"), py::arg("attrs") = py::none(),
      "This function with another body (and attrs, when given), verified: an IRError names "
      "what does not check.");
}

}  // namespace tessel::python
