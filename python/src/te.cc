// The compute DSL for Python: tensors, compute with Python lambdas, reductions,
// reducers of your own, and CreatePrimFunc (tessel/te.py documents the public
// functions; this file converts and calls ir/te).
//
//   >>> A = te.placeholder((64, 32), "f32", name="A")
//   >>> k = te.reduce_axis(32, name="k")
//   >>> S = te.compute((64,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="S")
//   >>> f = te.create_prim_func([A, S])
//
// fcompute is a Python callable that C++ calls once with one Var per output
// dimension. An exception it raises is caught before it can unwind through C++,
// the compute fails, and the very same exception is re-raised to the caller.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/reducer.h"
#include "ir/te/tensor.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

namespace te = ir::te;

// A reduction returned by te.sum & co: only valid as the whole compute body.
struct Reduction {
  te::ComputeBody body;
};

// A reducer built by te.comm_reducer for particular dtypes.
struct Reducer {
  te::CommReducer reducer;
};

std::vector<ir::Expr> ShapeFromPy(py::handle shape) {
  std::vector<ir::Expr> dims;
  if (py::isinstance<py::int_>(shape) || py::isinstance<ir::ExprNode>(shape)) {
    dims.push_back(ExprFromPy(shape));
    return dims;
  }
  if (!py::isinstance<py::sequence>(shape) || py::isinstance<py::str>(shape)) {
    Throw(ErrorKind::kArgument, absl::StrCat("a shape is a tuple of ints and integer expressions, got ",
                                             py::repr(shape).cast<std::string>()));
  }
  for (py::handle d : shape) {
    if (py::isinstance<py::bool_>(d) || py::isinstance<py::float_>(d)) {
      Throw(ErrorKind::kArgument, absl::StrCat("a shape extent is an int or an integer expression, got ",
                                               py::repr(d).cast<std::string>()));
    }
    // Plain ints become i32 constants as in C++ (te::Dim).
    dims.push_back(py::isinstance<py::int_>(d) ? ExprFromPy(d, ir::DataType::Int(32)) : ExprFromPy(d));
  }
  return dims;
}

std::vector<ir::IterVar> AxesFromPy(py::handle axis) {
  std::vector<ir::IterVar> axes;
  if (py::isinstance<ir::IterVar>(axis)) {
    axes.push_back(axis.cast<ir::IterVar>());
    return axes;
  }
  if (axis.is_none() || !py::isinstance<py::sequence>(axis)) {
    Throw(ErrorKind::kArgument, absl::StrCat("axis is a reduce axis (te.reduce_axis) or a list of them, got ",
                                             py::repr(axis).cast<std::string>()));
  }
  for (py::handle a : axis) {
    if (!py::isinstance<ir::IterVar>(a)) {
      Throw(ErrorKind::kArgument, absl::StrCat("axis is a reduce axis (te.reduce_axis) or a list of them, got ",
                                               py::repr(a).cast<std::string>()));
    }
    axes.push_back(a.cast<ir::IterVar>());
  }
  return axes;
}

std::vector<ir::Expr> ExprsFromPy(py::handle values) {
  std::vector<ir::Expr> out;
  if (py::isinstance<py::tuple>(values) || py::isinstance<py::list>(values)) {
    for (py::handle v : values) out.push_back(ExprFromPy(v));
  } else {
    out.push_back(ExprFromPy(values));
  }
  return out;
}

ir::Expr ConditionFromPy(py::handle where) {
  return where.is_none() ? ir::Expr() : ExprFromPy(where, ir::DataType::Bool());
}

// What fcompute returned, as a compute body. `tuple` is set for a tuple or list.
te::ComputeBody BodyFromPy(py::handle r, bool* tuple) {
  if (py::isinstance<Reduction>(r)) {
    const te::ComputeBody& body = r.cast<const Reduction&>().body;
    *tuple = body.values().size() > 1;
    return body;
  }
  if (py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r)) {
    *tuple = true;
    std::vector<ir::Expr> values;
    for (py::handle v : r) {
      if (py::isinstance<Reduction>(v)) {
        return te::ComputeBody(absl::InvalidArgumentError(
            "a reduction must be the whole body; for several reduced outputs use a reducer "
            "over tuples (te.comm_reducer)"));
      }
      values.push_back(ExprFromPy(v));
    }
    return te::ComputeBody::Tuple(std::move(values));
  }
  *tuple = false;
  return te::ComputeBody(ExprFromPy(r));
}

py::object Compute(py::object shape, py::function fcompute, const std::string& name,
                   const std::string& tag, py::object attrs, std::vector<std::string> axis_names,
                   std::vector<std::string> output_names) {
  te::ComputeOptions opts{.tag = tag,
                          .attrs = AttrsFromPy(attrs),
                          .axis_names = std::move(axis_names),
                          .output_names = std::move(output_names)};
  bool tuple = false;
  te::IndexedFCompute fc{-1, [&](const std::vector<ir::Var>& vars) -> te::ComputeBody {
                           try {
                             py::tuple args(vars.size());
                             for (size_t i = 0; i < vars.size(); ++i) args[i] = py::cast(vars[i]);
                             return BodyFromPy(fcompute(*args), &tuple);
                           } catch (py::error_already_set& e) {
                             return te::ComputeBody(PythonErrorStatus(e, "fcompute raised"));
                           } catch (const Error& e) {
                             return te::ComputeBody(absl::InvalidArgumentError(e.message));
                           } catch (const std::exception& e) {
                             return te::ComputeBody(absl::InternalError(e.what()));
                           }
                         }};
  ClearStashedPythonError();
  absl::StatusOr<std::vector<te::Tensor>> out =
      te::ComputeMulti(ShapeFromPy(shape), fc, name, std::move(opts));
  if (!out.ok()) {
    RethrowStashedPythonError();  // The lambda's own exception, unchanged.
    ThrowStatus(ErrorKind::kIR, out.status());
  }
  if (tuple) return py::cast(*out);
  return py::cast(out->front());
}

te::ComputeBody BuiltinReduction(const std::string& kind, py::object source, py::object axis,
                                 py::object where) {
  ir::Expr src = ExprFromPy(source);
  std::vector<ir::IterVar> axes = AxesFromPy(axis);
  ir::Expr cond = ConditionFromPy(where);
  if (kind == "sum") return te::ReduceSum(src, axes, cond);
  if (kind == "prod") return te::ReduceProd(src, axes, cond);
  if (kind == "max") return te::ReduceMax(src, axes, cond);
  if (kind == "min") return te::ReduceMin(src, axes, cond);
  Throw(ErrorKind::kArgument, absl::StrCat("unknown reduction '", kind, "'"));
}

// A reducer whose combiner is a Python function of two tuples of Vars.
Reducer MakeReducer(const std::string& name, py::list dtypes, py::function combine,
                    py::object identity) {
  std::vector<ir::DataType> types;
  for (py::handle d : dtypes) types.push_back(DtypeFromPy(d));
  std::vector<ir::Expr> ids;
  py::list id_list = py::isinstance<py::list>(identity) || py::isinstance<py::tuple>(identity)
                         ? py::list(identity)
                         : py::list(py::make_tuple(identity));
  if (id_list.size() != types.size()) {
    Throw(ErrorKind::kIR, absl::StrCat("reducer '", name, "': ", id_list.size(),
                                       " identities for ", types.size(), " values"));
  }
  for (size_t i = 0; i < types.size(); ++i) ids.push_back(ExprFromPy(id_list[i], types[i]));
  auto combiner = [&](const std::vector<ir::Var>& acc,
                      const std::vector<ir::Var>& x) -> std::vector<ir::Expr> {
    try {
      py::object r = acc.size() == 1 ? combine(acc[0], x[0]) : combine(py::cast(acc), py::cast(x));
      return ExprsFromPy(r);
    } catch (py::error_already_set& e) {
      (void)PythonErrorStatus(e, "the combiner raised");  // Stashed; re-raised below.
      return {};
    } catch (const Error&) {
      return {};
    } catch (const std::exception&) {
      return {};
    }
  };
  ClearStashedPythonError();
  absl::StatusOr<te::CommReducer> r = te::MakeCommReducer(name, types, combiner, std::move(ids));
  if (!r.ok()) {
    RethrowStashedPythonError();
    ThrowStatus(ErrorKind::kIR, r.status());
  }
  return Reducer{*std::move(r)};
}

// A scalar number or bool dtype (what MinValue/MaxValue accept).
ir::DataType ScalarDtype(py::handle h) {
  ir::DataType t = DtypeFromPy(h);
  if (!t.is_scalar() || t.is_handle() || t.is_void()) {
    Throw(ErrorKind::kArgument, absl::StrCat("expected a scalar number dtype, got ", t.ToString()));
  }
  return t;
}

std::vector<te::FuncArg> FuncArgsFromPy(py::handle args) {
  std::vector<te::FuncArg> out;
  for (py::handle a : args) {
    if (py::isinstance<te::Tensor>(a)) {
      out.emplace_back(a.cast<te::Tensor>());
    } else if (py::isinstance<ir::VarNode>(a)) {
      out.emplace_back(a.cast<ir::Var>());
    } else {
      Throw(ErrorKind::kArgument,
            absl::StrCat("create_prim_func takes tensors and scalar Vars, got ",
                         py::repr(a).cast<std::string>()));
    }
  }
  return out;
}

}  // namespace

void BindTE(py::module_& m) {
  py::class_<te::Tensor>(m, "Tensor",
                         "A tensor of the compute DSL: a placeholder or the output of a compute. "
                         "Index it (A[i, j]) to read an element in another compute.")
      .def_property_readonly("name", &te::Tensor::name, "The name (of its buffer and block).")
      .def_property_readonly("dtype", [](const te::Tensor& t) { return t.dtype().ToString(); },
                             "The element dtype, e.g. 'f32'.")
      .def_property_readonly("shape",
                             [](const te::Tensor& t) {
                               py::tuple out(t.shape().size());
                               for (size_t i = 0; i < t.shape().size(); ++i) {
                                 const auto* imm = ir::dyn_cast<ir::IntImmNode>(t.shape()[i]);
                                 out[i] = imm ? py::object(py::int_(imm->value)) : py::cast(t.shape()[i]);
                               }
                               return out;
                             },
                             "Extents: ints where constant, expressions otherwise.")
      .def_property_readonly("ndim", &te::Tensor::ndim, "The number of dimensions.")
      .def_property_readonly("tag", [](const te::Tensor& t) { return t.op()->tag; },
                             "The op family, e.g. 'elemwise', 'reduce', 'conv2d'.")
      .def_property_readonly("op_name", [](const te::Tensor& t) { return t.op()->name; },
                             "The name of the operation (the compute) that makes it.")
      .def_property_readonly("is_placeholder",
                             [](const te::Tensor& t) { return t.op()->kind == te::OpKind::kPlaceholder; },
                             "True for an input made by te.placeholder.")
      .def_property_readonly("inputs", [](const te::Tensor& t) { return t.op()->inputs; },
                             "The tensors the operation reads, in order of first use.")
      .def_property_readonly("buffer", [](const te::Tensor& t) { return t.buffer(); },
                             "The Buffer its elements live in (copied fresh into functions).")
      .def("same_as", &te::Tensor::same_as, py::arg("other"),
           "True when both are the same output of the same operation.")
      // __getitem__ alone would make Python iterate a tensor forever (A[0], A[1], ...).
      .def("__iter__",
           [](const te::Tensor& t) -> py::object {
             throw py::type_error(absl::StrCat("tensor '", t.name(),
                                               "' is not iterable; index it: A[i, j]"));
           })
      .def("__getitem__",
           [](const te::Tensor& t, py::object index) {
             std::vector<ir::Expr> idx;
             if (py::isinstance<py::tuple>(index)) {
               for (py::handle i : index) idx.push_back(ExprFromPy(i));
             } else {
               idx.push_back(ExprFromPy(index));
             }
             return t(idx);
           })
      .def("__repr__", [](const te::Tensor& t) {
        std::vector<std::string> dims;
        for (const ir::Expr& d : t.shape()) dims.push_back(ir::PrintExpr(d));
        return absl::StrCat("Tensor(", t.name(), ": ", t.dtype().ToString(), "[",
                            absl::StrJoin(dims, ", "), "])");
      });

  py::class_<Reduction>(m, "Reduction",
                        "A reduction (te.sum, te.max, ...): the whole body of a compute.")
      .def("__repr__", [](const Reduction& r) {
        std::vector<std::string> src;
        for (const ir::Expr& e : r.body.values()) src.push_back(ir::PrintExpr(e));
        return absl::StrCat("Reduction(", r.body.reducer() ? r.body.reducer()->name : "?", ": ",
                            absl::StrJoin(src, ", "), ")");
      });
  py::class_<Reducer>(m, "_Reducer");

  m.def(
      "placeholder",
      [](py::object shape, py::object dtype, const std::string& name) {
        return Unwrap(te::Placeholder(ShapeFromPy(shape), DtypeFromPy(dtype), name), ErrorKind::kIR);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("name"));
  m.def("size_var", &te::SizeVar, py::arg("name"));
  m.def(
      "reduce_axis",
      [](py::object dom, const std::string& name) {
        if (py::isinstance<py::tuple>(dom) || py::isinstance<py::list>(dom)) {
          if (py::len(dom) != 2) {
            Throw(ErrorKind::kArgument, "a reduce axis domain is an extent or a (begin, end) pair");
          }
          py::sequence s = dom.cast<py::sequence>();
          return te::ReduceAxis(ExprFromPy(s[0], ir::DataType::Int(32)),
                                ExprFromPy(s[1], ir::DataType::Int(32)), name);
        }
        return te::ReduceAxis(ExprFromPy(dom, ir::DataType::Int(32)), name);
      },
      py::arg("dom"), py::arg("name"));
  m.def("compute", &Compute, py::arg("shape"), py::arg("fcompute"), py::arg("name"),
        py::arg("tag") = "", py::arg("attrs") = py::none(),
        py::arg("axis_names") = std::vector<std::string>{},
        py::arg("output_names") = std::vector<std::string>{});
  m.def(
      "reduce",
      [](const std::string& kind, py::object source, py::object axis, py::object where) {
        return Reduction{BuiltinReduction(kind, source, axis, where)};
      },
      py::arg("kind"), py::arg("source"), py::arg("axis"), py::arg("where") = py::none());
  m.def("make_reducer", &MakeReducer, py::arg("name"), py::arg("dtypes"), py::arg("combine"),
        py::arg("identity"));
  m.def(
      "reduce_with",
      [](const Reducer& r, py::object source, py::object axis, py::object where) {
        return Reduction{te::ComputeBody::Reduction(r.reducer, ExprsFromPy(source),
                                                    AxesFromPy(axis), ConditionFromPy(where))};
      },
      py::arg("reducer"), py::arg("source"), py::arg("axis"), py::arg("where") = py::none());
  m.def(
      "create_prim_func",
      [](py::object args, const std::string& name) {
        return Unwrap(te::CreatePrimFunc(FuncArgsFromPy(args), name), ErrorKind::kIR);
      },
      py::arg("args"), py::arg("name") = "main");
  m.def(
      "create_module",
      [](py::object args, const std::string& name) {
        return Unwrap(te::CreateModule(FuncArgsFromPy(args), name), ErrorKind::kIR);
      },
      py::arg("args"), py::arg("name") = "main");
  m.def(
      "min_value",
      [](py::object dtype) { return Unwrap(te::MinValue(ScalarDtype(dtype)), ErrorKind::kArgument); },
      py::arg("dtype"));
  m.def(
      "max_value",
      [](py::object dtype) { return Unwrap(te::MaxValue(ScalarDtype(dtype)), ErrorKind::kArgument); },
      py::arg("dtype"));
}

}  // namespace tessel::python
