// Python classes for the IR: expressions (with operators), statements,
// buffers, PrimFunc and IRModule, plus parse/load, structural equality and
// hash, and the verifier.
//
//   >>> mod = tessel.parse(open("matmul.tsl").read())
//   >>> f = mod["matmul"]
//   >>> print(f)                          # .tsl text
//   >>> i = tessel.Var("i", "i32")
//   >>> e = i * 4 + 1                     # Expr: (i * 4) + 1, i32
//   >>> tessel.structural_equal(mod, tessel.parse(str(mod)))
//   True
//
// Everything is immutable: with_attr/with_function return new objects and leave
// the receiver as it was, as the C++ API does.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/buffer.h"
#include "ir/function.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/stmt.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "ir/verifier.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

using ir::NodeKind;

bool IsExprLike(py::handle h) {
  return py::isinstance<ir::ExprNode>(h) || py::isinstance<ir::IterVar>(h) ||
         py::isinstance<py::int_>(h) || py::isinstance<py::float_>(h) ||
         py::isinstance(h, py::module_::import("numpy").attr("generic"));
}

py::object NotImplemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

// `self <op> other` (or `other <op> self` when reflected). A plain number takes
// the expression's dtype; an operand that is not an expression gives
// NotImplemented so that Python can try the other side.
py::object BinaryOp(NodeKind kind, py::handle self, py::handle other, bool reflected) {
  if (!IsExprLike(other)) return NotImplemented();
  ir::Expr a = ExprFromPy(self);
  ir::Expr b = ExprFromPy(other, a->dtype);
  if (reflected) std::swap(a, b);
  if (kind == NodeKind::kDiv && a->dtype.is_integer()) {
    Throw(ErrorKind::kIR, absl::StrCat("'/' on ", a->dtype.ToString(),
                                       " expressions is ambiguous: use '//' (floor division, as "
                                       "Python) or tessel.te.truncdiv (C division)"));
  }
  return py::cast(Unwrap(ir::MakeBinary(kind, a, b), ErrorKind::kIR));
}

ir::Expr Zero(ir::DataType t) {
  if (t.is_float()) return Unwrap(ir::MakeFloatImm(t, 0.0), ErrorKind::kIR);
  return Unwrap(ir::MakeIntImm(t, 0), ErrorKind::kIR);
}

// The operators of expressions, also given to IterVar (whose variable they use).
template <typename Class>
void DefineOperators(Class& cls) {
  struct Op {
    const char* name;
    NodeKind kind;
    bool reflected;
  };
  static constexpr Op kOps[] = {
      {"__add__", NodeKind::kAdd, false},           {"__radd__", NodeKind::kAdd, true},
      {"__sub__", NodeKind::kSub, false},           {"__rsub__", NodeKind::kSub, true},
      {"__mul__", NodeKind::kMul, false},           {"__rmul__", NodeKind::kMul, true},
      {"__truediv__", NodeKind::kDiv, false},       {"__rtruediv__", NodeKind::kDiv, true},
      {"__floordiv__", NodeKind::kFloorDiv, false}, {"__rfloordiv__", NodeKind::kFloorDiv, true},
      {"__mod__", NodeKind::kFloorMod, false},      {"__rmod__", NodeKind::kFloorMod, true},
      {"__lt__", NodeKind::kLT, false},             {"__le__", NodeKind::kLE, false},
      {"__gt__", NodeKind::kGT, false},             {"__ge__", NodeKind::kGE, false},
      {"__eq__", NodeKind::kEQ, false},             {"__ne__", NodeKind::kNE, false},
      {"__and__", NodeKind::kAnd, false},           {"__rand__", NodeKind::kAnd, true},
      {"__or__", NodeKind::kOr, false},             {"__ror__", NodeKind::kOr, true},
  };
  for (const Op& op : kOps) {
    cls.def(op.name, [op](py::object self, py::object other) {
      return BinaryOp(op.kind, self, other, op.reflected);
    });
  }
  cls.def("__neg__", [](py::object self) {
    ir::Expr a = ExprFromPy(self);
    return Unwrap(ir::MakeBinary(NodeKind::kSub, Zero(a->dtype), a), ErrorKind::kIR);
  });
  cls.def("__invert__", [](py::object self) {
    return Unwrap(ir::MakeNot(ExprFromPy(self)), ErrorKind::kIR);
  });
  cls.def("__abs__", [](py::object self) {
    ir::Expr a = ExprFromPy(self);
    return Unwrap(ir::MakeCall(a->dtype, ir::CallNode::Callee::kIntrinsic, "fabs", {a}),
                  ErrorKind::kIR);
  });
  cls.def("__pow__", [](py::object self, py::object other) -> py::object {
    if (!IsExprLike(other)) return NotImplemented();
    ir::Expr a = ExprFromPy(self);
    ir::Expr b = ExprFromPy(other, a->dtype);
    return py::cast(
        Unwrap(ir::MakeCall(a->dtype, ir::CallNode::Callee::kIntrinsic, "pow", {a, b}),
               ErrorKind::kIR));
  });
  cls.def("__bool__", [](py::object) -> bool {
    throw py::type_error(
        "a tessel expression has no truth value: `a == b` and `a < b` build expressions. "
        "Combine conditions with & | ~, and compare nodes with a.same_as(b) or "
        "tessel.structural_equal(a, b)");
  });
  // Expressions hash by identity (== builds an expression, it does not compare).
  cls.def("__hash__", [](py::object self) {
    return std::hash<const void*>()(ExprFromPy(self).get());
  });
  cls.def("astype", [](py::object self, py::object dtype) {
    return Unwrap(ir::MakeCast(DtypeFromPy(dtype), ExprFromPy(self)), ErrorKind::kIR);
  }, py::arg("dtype"), "This expression converted to `dtype` (a Cast; C-like conversion rules).");
}

// A shape as Python values: constant extents as ints, others as expressions.
py::tuple ShapeToPy(const std::vector<ir::Expr>& shape) {
  py::tuple out(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (const auto* imm = ir::dyn_cast<ir::IntImmNode>(shape[i])) {
      out[i] = py::int_(imm->value);
    } else {
      out[i] = py::cast(shape[i]);
    }
  }
  return out;
}

ir::PrimFunc FuncWithAttrs(const ir::PrimFunc& f, ir::Attrs attrs) {
  auto n = ir::MakeNode<ir::PrimFuncNode>(*f);
  n->attrs = std::move(attrs);
  return ir::PrimFunc(std::move(n));
}

// The name a PrimFunc prints under when it is not inside a module.
std::string DefaultName(const ir::PrimFunc& f) { return "main"; }

// Which of the four comparable IR kinds `h` is, as a tag for dispatch.
enum class Kind { kModule, kFunc, kStmt, kExpr, kOther };
Kind KindOf(py::handle h) {
  if (py::isinstance<ir::IRModuleNode>(h)) return Kind::kModule;
  if (py::isinstance<ir::PrimFuncNode>(h)) return Kind::kFunc;
  if (py::isinstance<ir::StmtNode>(h)) return Kind::kStmt;
  if (py::isinstance<ir::ExprNode>(h)) return Kind::kExpr;
  return Kind::kOther;
}
const char* KindName(Kind k) {
  switch (k) {
    case Kind::kModule: return "IRModule";
    case Kind::kFunc: return "PrimFunc";
    case Kind::kStmt: return "Stmt";
    case Kind::kExpr: return "Expr";
    case Kind::kOther: break;
  }
  return "not IR";
}

Kind CheckComparable(py::handle a, py::handle b, const char* what) {
  Kind ka = KindOf(a);
  if (ka == Kind::kOther) {
    Throw(ErrorKind::kArgument, absl::StrCat(what, " takes IRModule, PrimFunc, Stmt or Expr, got ",
                                             py::repr(a).cast<std::string>()));
  }
  if (!b.is_none() && KindOf(b) == Kind::kOther) {
    Throw(ErrorKind::kArgument, absl::StrCat(what, " takes IRModule, PrimFunc, Stmt or Expr, got ",
                                             py::repr(b).cast<std::string>()));
  }
  return ka;
}

absl::Status AssertEqual(py::handle a, py::handle b, bool map_free_vars) {
  Kind k = CheckComparable(a, b, "assert_structural_equal");
  Kind kb = KindOf(b);
  if (k != kb) {
    return absl::InvalidArgumentError(
        absl::StrCat("mismatch at root: a ", KindName(k), " vs a ", KindName(kb)));
  }
  ir::StructuralEqualOptions opts{.map_free_vars = map_free_vars};
  switch (k) {
    case Kind::kModule:
      return ir::AssertStructuralEqual(a.cast<ir::IRModule>(), b.cast<ir::IRModule>(), opts);
    case Kind::kFunc:
      return ir::AssertStructuralEqual(a.cast<ir::PrimFunc>(), b.cast<ir::PrimFunc>(), opts);
    case Kind::kStmt:
      return ir::AssertStructuralEqual(a.cast<ir::Stmt>(), b.cast<ir::Stmt>(), opts);
    default:
      return ir::AssertStructuralEqual(a.cast<ir::Expr>(), b.cast<ir::Expr>(), opts);
  }
}

}  // namespace

ir::IRModule ParseText(const std::string& text, const std::string& filename) {
  return Unwrap(ir::ParseModule(text, filename), ErrorKind::kParse);
}

void BindIR(py::module_& m) {
  // ---- Node base and expressions ---------------------------------------------
  py::class_<ir::Node, ir::Ref<ir::Node>>(m, "Node", "Base of every IR node (immutable).")
      .def_property_readonly(
          "kind", [](const ir::Node& n) { return std::string(ir::NodeKindName(n.kind())); },
          "The node kind, e.g. 'Add', 'For', 'PrimFunc'.")
      .def(
          "same_as",
          [](const ir::Node& n, py::object other) {
            return py::isinstance<ir::Node>(other) && &other.cast<const ir::Node&>() == &n;
          },
          py::arg("other"), "True when both are the very same node (identity, not structure).");

  py::class_<ir::IterVar> iter_var(m, "IterVar",
                                   "An iteration variable with a domain: a reduce axis of a "
                                   "compute, or a block's iter var. Usable as its variable.");
  iter_var
      .def_property_readonly("var", [](const ir::IterVar& v) { return v.var; }, "The variable.")
      .def_property_readonly(
          "dom", [](const ir::IterVar& v) { return py::make_tuple(v.dom.min, v.dom.extent); },
          "(min, extent) of the domain.")
      .def_property_readonly(
          "kind", [](const ir::IterVar& v) { return std::string(ir::IterKindName(v.kind)); },
          "'spatial', 'reduce' or 'opaque'.")
      .def_property_readonly("name", [](const ir::IterVar& v) { return v.var->name; },
                             "The variable's name.")
      .def_property_readonly("dtype", [](const ir::IterVar& v) { return v.var->dtype.ToString(); },
                             "The variable's dtype.")
      .def("__repr__", [](const ir::IterVar& v) {
        return absl::StrCat("IterVar(", v.var->name, ": ", ir::IterKindName(v.kind), "[",
                            ir::PrintExpr(v.dom.min), ", ",
                            ir::PrintExpr(ir::Add(v.dom.min, v.dom.extent)), "])");
      });
  DefineOperators(iter_var);

  py::class_<ir::ExprNode, ir::Node, ir::Ref<ir::ExprNode>> expr(
      m, "Expr", "An expression. Operators build new expressions: + - * / // % < <= > >= == != & | ~.");
  expr.def_property_readonly("dtype", [](const ir::ExprNode& e) { return e.dtype.ToString(); },
                             "The element type, e.g. 'f32', 'i32', 'bool', 'f32x8'.")
      .def("__str__", [](const ir::Expr& e) { return ir::PrintExpr(e); })
      .def("__repr__", [](const ir::Expr& e) { return ir::PrintExpr(e); });
  DefineOperators(expr);

  py::class_<ir::VarNode, ir::ExprNode, ir::Ref<ir::VarNode>>(m, "Var", "A variable.")
      .def(py::init([](std::string name, py::object dtype) {
             ir::DataType t = DtypeFromPy(dtype);
             if (!t.is_scalar() || t.is_void()) {
               Throw(ErrorKind::kArgument, absl::StrCat("a variable has a scalar dtype, got ",
                                                        t.ToString()));
             }
             ir::Var v = ir::MakeVar(std::move(name), t);
             return ir::Ref<ir::VarNode>(const_cast<ir::VarNode*>(v.get()));
           }),
           py::arg("name"), py::arg("dtype") = "i32",
           "A new variable. Two variables with the same name are still different variables.")
      .def_property_readonly("name", [](const ir::VarNode& v) { return v.name; },
                             "The name (not its identity: see same_as).");

  py::class_<ir::IntImmNode, ir::ExprNode, ir::Ref<ir::IntImmNode>>(m, "IntImm",
                                                                    "An integer or bool constant.")
      .def_property_readonly("value", [](const ir::IntImmNode& n) -> py::object {
        if (n.dtype.is_bool()) return py::bool_(n.value != 0);
        if (n.dtype.is_uint() && n.dtype.bits() == 64) return py::int_(static_cast<uint64_t>(n.value));
        return py::int_(n.value);
      }, "The value: an int, or a bool for bool constants.");
  py::class_<ir::FloatImmNode, ir::ExprNode, ir::Ref<ir::FloatImmNode>>(m, "FloatImm",
                                                                        "A float constant.")
      .def_property_readonly("value", [](const ir::FloatImmNode& n) { return n.value; },
                             "The value (exactly representable in the dtype).");

  // ---- Statements and buffers -------------------------------------------------
  py::class_<ir::StmtNode, ir::Node, ir::Ref<ir::StmtNode>>(m, "Stmt", "A statement.")
      .def("__str__", [](const ir::Stmt& s) { return ir::PrintStmt(s); })
      .def("__repr__", [](const ir::Stmt& s) {
        return absl::StrCat("<tessel.Stmt ", ir::NodeKindName(s->kind()), ">");
      });

  py::class_<ir::BufferNode, ir::Node, ir::Ref<ir::BufferNode>>(
      m, "Buffer", "A typed, shaped view of memory: what loads and stores address.")
      .def_property_readonly("name", [](const ir::BufferNode& b) { return b.name; }, "The name.")
      .def_property_readonly("dtype", [](const ir::BufferNode& b) { return b.dtype.ToString(); },
                             "The element dtype, e.g. 'f32'.")
      .def_property_readonly("shape", [](const ir::BufferNode& b) { return ShapeToPy(b.shape); },
                             "Extents: ints where constant, expressions otherwise.")
      .def_property_readonly("strides", [](const ir::BufferNode& b) { return ShapeToPy(b.strides); },
                             "Empty for compact row-major.")
      .def_property_readonly("elem_offset", [](const ir::BufferNode& b) { return b.elem_offset; },
                             "The offset of element 0, in elements (an expression).")
      .def_property_readonly("scope", [](const ir::BufferNode& b) { return b.scope; },
                             "'global', 'local' or 'shared'.")
      .def_property_readonly("ndim", [](const ir::BufferNode& b) { return b.ndim(); },
                             "The number of dimensions.")
      .def("__repr__", [](const ir::BufferNode& b) {
        std::vector<std::string> dims;
        for (const ir::Expr& d : b.shape) dims.push_back(ir::PrintExpr(d));
        return absl::StrCat("Buffer(", b.name, ": ", b.dtype.ToString(), "[",
                            absl::StrJoin(dims, ", "), "])");
      });

  // ---- PrimFunc and IRModule ---------------------------------------------------
  py::class_<ir::PrimFuncNode, ir::Node, ir::Ref<ir::PrimFuncNode>>(
      m, "PrimFunc", "A tensor program: buffer and scalar parameters and a body. str() is .tsl.")
      .def_property_readonly(
          "params",
          [](const ir::PrimFuncNode& f) {
            py::list out;
            for (const ir::Param& p : f.params) {
              out.append(p.is_buffer() ? py::cast(p.buffer) : py::cast(p.var));
            }
            return out;
          },
          "The parameters in order: Buffer objects and Var objects (scalars).")
      .def_property_readonly("body", [](const ir::PrimFuncNode& f) { return f.body; },
                             "The body statement.")
      .def_property_readonly("attrs", [](const ir::PrimFuncNode& f) { return AttrsToPy(f.attrs); },
                             "A copy of the function attributes as a dict.")
      .def(
          "with_attr",
          [](const ir::PrimFunc& f, const std::string& key, py::object value) {
            ir::Attrs attrs = f->attrs;
            attrs[key] = AttrFromPy(value);
            return FuncWithAttrs(f, std::move(attrs));
          },
          py::arg("key"), py::arg("value"), "A copy with attribute `key` set to `value`.")
      .def(
          "without_attr",
          [](const ir::PrimFunc& f, const std::string& key) {
            ir::Attrs attrs = f->attrs;
            if (attrs.erase(key) == 0) return f;
            return FuncWithAttrs(f, std::move(attrs));
          },
          py::arg("key"), "A copy without attribute `key` (this function if it has none).")
      .def(
          "script", [](const ir::PrimFunc& f, const std::string& name) { return ir::PrintFunction(f, name); },
          py::arg("name") = "main", "The function as .tsl text, named `name`.")
      .def("__str__", [](const ir::PrimFunc& f) { return ir::PrintFunction(f, DefaultName(f)); })
      .def("__repr__", [](const ir::PrimFuncNode& f) {
        std::vector<std::string> names;
        for (const ir::Param& p : f.params) names.push_back(p.name());
        return absl::StrCat("<tessel.PrimFunc(", absl::StrJoin(names, ", "), ")>");
      })
      .def(py::pickle(
          [](const ir::PrimFunc& f) { return ir::PrintModule(ir::MakeIRModule({{"main", f}})); },
          [](const std::string& text) {
            ir::PrimFunc f = ParseText(text, "<pickle>")->Lookup("main");
            return ir::Ref<ir::PrimFuncNode>(const_cast<ir::PrimFuncNode*>(f.get()));
          }));

  BindIRModule(m);

  // ---- Text, equality, hash, verifier -------------------------------------------
  m.def("parse", &ParseText, py::arg("text"), py::arg("filename") = "<input>");
  m.def("load", [](const std::string& path) {
    absl::StatusOr<ir::IRModule> mod = ir::LoadModule(path);
    if (mod.status().code() == absl::StatusCode::kNotFound) {
      PyErr_SetString(PyExc_FileNotFoundError, std::string(mod.status().message()).c_str());
      throw py::error_already_set();
    }
    return Unwrap(std::move(mod), ErrorKind::kParse);
  }, py::arg("path"));
  m.def(
      "structural_equal",
      [](py::object a, py::object b, bool map_free_vars) {
        Kind k = CheckComparable(a, b, "structural_equal");
        if (k != KindOf(b)) return false;
        return AssertEqual(a, b, map_free_vars).ok();
      },
      py::arg("a"), py::arg("b"), py::arg("map_free_vars") = false);
  m.def(
      "assert_structural_equal",
      [](py::object a, py::object b, bool map_free_vars) {
        Check(AssertEqual(a, b, map_free_vars), ErrorKind::kMismatch);
      },
      py::arg("a"), py::arg("b"), py::arg("map_free_vars") = false);
  m.def(
      "structural_hash",
      [](py::object x, bool map_free_vars) -> uint64_t {
        switch (CheckComparable(x, py::none(), "structural_hash")) {
          case Kind::kModule: return ir::StructuralHash(x.cast<ir::IRModule>(), map_free_vars);
          case Kind::kFunc: return ir::StructuralHash(x.cast<ir::PrimFunc>(), map_free_vars);
          case Kind::kStmt: return ir::StructuralHash(x.cast<ir::Stmt>(), map_free_vars);
          default: return ir::StructuralHash(x.cast<ir::Expr>(), map_free_vars);
        }
      },
      py::arg("x"), py::arg("map_free_vars") = false);
  m.def(
      "verify",
      [](py::object x, const std::string& name) {
        if (py::isinstance<ir::IRModuleNode>(x)) {
          Check(ir::VerifyModule(x.cast<ir::IRModule>()), ErrorKind::kIR);
        } else if (py::isinstance<ir::PrimFuncNode>(x)) {
          Check(ir::VerifyFunction(x.cast<ir::PrimFunc>(), name), ErrorKind::kIR);
        } else {
          Throw(ErrorKind::kArgument, absl::StrCat("verify takes an IRModule or a PrimFunc, got ",
                                                   py::repr(x).cast<std::string>()));
        }
      },
      py::arg("x"), py::arg("name") = "main");

  // ---- Expression builders (tessel.te wraps them with docs) ----------------------
  m.def(
      "_binary",
      [](const std::string& op, py::object a, py::object b) {
        static const std::pair<const char*, NodeKind> kNames[] = {
            {"add", NodeKind::kAdd},           {"sub", NodeKind::kSub},
            {"mul", NodeKind::kMul},           {"div", NodeKind::kDiv},
            {"mod", NodeKind::kMod},           {"floordiv", NodeKind::kFloorDiv},
            {"floormod", NodeKind::kFloorMod}, {"min", NodeKind::kMin},
            {"max", NodeKind::kMax},           {"and", NodeKind::kAnd},
            {"or", NodeKind::kOr},
        };
        for (const auto& [name, kind] : kNames) {
          if (op != name) continue;
          // One side may be a plain number; it takes the other side's dtype.
          bool a_expr = py::isinstance<ir::ExprNode>(a) || py::isinstance<ir::IterVar>(a);
          ir::Expr ea = a_expr ? ExprFromPy(a) : ir::Expr();
          ir::Expr eb = ExprFromPy(b, a_expr ? ea->dtype : ir::DataType::Void());
          if (!a_expr) ea = ExprFromPy(a, eb->dtype);
          return Unwrap(ir::MakeBinary(kind, ea, eb), ErrorKind::kIR);
        }
        Throw(ErrorKind::kArgument, absl::StrCat("unknown binary operator '", op, "'"));
      },
      py::arg("op"), py::arg("a"), py::arg("b"));
  m.def(
      "_select",
      [](py::object c, py::object t, py::object f) {
        bool t_expr = py::isinstance<ir::ExprNode>(t) || py::isinstance<ir::IterVar>(t);
        ir::Expr et = t_expr ? ExprFromPy(t) : ir::Expr();
        ir::Expr ef = ExprFromPy(f, t_expr ? et->dtype : ir::DataType::Void());
        if (!t_expr) et = ExprFromPy(t, ef->dtype);
        return Unwrap(ir::MakeSelect(ExprFromPy(c, ir::DataType::Bool()), et, ef), ErrorKind::kIR);
      },
      py::arg("cond"), py::arg("true_value"), py::arg("false_value"));
  m.def(
      "_cast",
      [](py::object dtype, py::object v) {
        return Unwrap(ir::MakeCast(DtypeFromPy(dtype), ExprFromPy(v)), ErrorKind::kIR);
      },
      py::arg("dtype"), py::arg("value"));
  m.def(
      "_call_intrinsic",
      [](const std::string& name, py::list args) {
        std::vector<ir::Expr> exprs;
        ir::DataType t;
        for (py::handle a : args) {
          exprs.push_back(exprs.empty() ? ExprFromPy(a) : ExprFromPy(a, t));
          if (exprs.size() == 1) t = exprs[0]->dtype;
        }
        if (exprs.empty()) Throw(ErrorKind::kArgument, absl::StrCat(name, " needs arguments"));
        return Unwrap(ir::MakeCall(t, ir::CallNode::Callee::kIntrinsic, name, std::move(exprs)),
                      ErrorKind::kIR);
      },
      py::arg("name"), py::arg("args"));
  m.def(
      "_const",
      [](py::object value, py::object dtype) {
        if (dtype.is_none()) return ExprFromPy(value);
        ir::DataType t = DtypeFromPy(dtype);
        if (py::isinstance<ir::ExprNode>(value)) {
          Throw(ErrorKind::kArgument, "const takes a number, not an expression");
        }
        return ExprFromPy(value, t);
      },
      py::arg("value"), py::arg("dtype") = py::none());
}

}  // namespace tessel::python
