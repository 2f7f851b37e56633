// The operator library (ir/te/ops) for Python, as `_core.op_<name>`; tessel/ops.py
// gives them their public names, defaults and documentation.
//
//   >>> C = tessel.ops.matmul(A, B, transpose_b=True)     # -> _core.op_matmul
//   >>> y = tessel.ops.softmax(x, axis=-1)
//
// The named workloads (ir/te/workloads.h) are here too, for tessel/workloads.py.
//
// Every op returns a Tensor or raises tessel.IRError with the op's message
// (shape and dtype rules are checked in C++ and never abort).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/te/ops/ops.h"
#include "ir/te/workloads.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

namespace te = ir::te;
namespace ops = ir::te::ops;

ops::Operand OperandFromPy(py::handle h) {
  if (py::isinstance<te::Tensor>(h)) return ops::Operand(h.cast<te::Tensor>());
  if (py::isinstance<ir::ExprNode>(h) || py::isinstance<ir::IterVar>(h)) {
    return ops::Operand(ExprFromPy(h));
  }
  if (py::isinstance<py::float_>(h)) return ops::Operand(h.cast<double>());
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) {
    try {
      return ops::Operand(h.cast<int>());
    } catch (const py::cast_error&) {
      Throw(ErrorKind::kArgument, absl::StrCat("the integer ", py::repr(h).cast<std::string>(),
                                               " does not fit in an i32 operand"));
    }
  }
  Throw(ErrorKind::kArgument, absl::StrCat("an operand is a Tensor, an expression or a number, got ",
                                           py::repr(h).cast<std::string>()));
}

// None means "the inputs' dtype" (DataType::Void in C++).
ir::DataType OutDtype(py::handle h) { return h.is_none() ? ir::DataType::Void() : DtypeFromPy(h); }

ops::Layout LayoutFromPy(const std::string& layout) {
  if (layout == "NCHW") return ops::Layout::kNCHW;
  if (layout == "NHWC") return ops::Layout::kNHWC;
  Throw(ErrorKind::kArgument, absl::StrCat("layout is 'NCHW' or 'NHWC', got '", layout, "'"));
}

// An optional tensor argument: None is an undefined Tensor (the op leaves it out).
te::Tensor OptionalTensor(py::handle h) {
  return h.is_none() ? te::Tensor() : h.cast<te::Tensor>();
}

template <typename F>
te::Tensor Run(F&& f) {
  return Unwrap(f(), ErrorKind::kIR);
}

using Unary = absl::StatusOr<te::Tensor> (*)(const te::Tensor&, std::string);
using Binary = absl::StatusOr<te::Tensor> (*)(const ops::Operand&, const ops::Operand&, std::string);
using Reduce = absl::StatusOr<te::Tensor> (*)(const te::Tensor&, const std::vector<int>&, bool,
                                              std::string);

}  // namespace

void BindOps(py::module_& m) {
  static constexpr std::pair<const char*, Unary> kUnary[] = {
      {"op_relu", &ops::Relu},       {"op_neg", &ops::Neg},         {"op_abs", &ops::Abs},
      {"op_exp", &ops::Exp},         {"op_log", &ops::Log},         {"op_sqrt", &ops::Sqrt},
      {"op_rsqrt", &ops::Rsqrt},     {"op_tanh", &ops::Tanh},       {"op_erf", &ops::Erf},
      {"op_sigmoid", &ops::Sigmoid}, {"op_silu", &ops::Silu},
  };
  for (const auto& [name, fn] : kUnary) {
    m.def(name, [fn = fn](const te::Tensor& x, std::string name) { return Run([&] { return fn(x, name); }); },
          py::arg("x"), py::arg("name"));
  }
  static constexpr std::pair<const char*, Binary> kBinary[] = {
      {"op_add", &ops::Add},         {"op_subtract", &ops::Sub},    {"op_multiply", &ops::Mul},
      {"op_divide", &ops::Div},      {"op_maximum", &ops::Maximum}, {"op_minimum", &ops::Minimum},
      {"op_power", &ops::Power},
  };
  for (const auto& [name, fn] : kBinary) {
    m.def(name, [fn = fn](py::object a, py::object b, std::string name) {
      return Run([&] { return fn(OperandFromPy(a), OperandFromPy(b), name); });
    }, py::arg("a"), py::arg("b"), py::arg("name"));
  }
  static constexpr std::pair<const char*, Reduce> kReduce[] = {
      {"op_sum", &ops::Sum}, {"op_prod", &ops::Prod}, {"op_max", &ops::Max},
      {"op_min", &ops::Min}, {"op_mean", &ops::Mean},
  };
  for (const auto& [name, fn] : kReduce) {
    m.def(name, [fn = fn](const te::Tensor& x, std::vector<int> axes, bool keepdims, std::string name) {
      return Run([&] { return fn(x, axes, keepdims, name); });
    }, py::arg("x"), py::arg("axes"), py::arg("keepdims"), py::arg("name"));
  }

  m.def("op_gelu", [](const te::Tensor& x, const std::string& approximate, std::string name) {
    ops::GeluForm form = ops::GeluForm::kErf;
    if (approximate == "tanh") {
      form = ops::GeluForm::kTanh;
    } else if (approximate != "none" && approximate != "erf") {
      Throw(ErrorKind::kArgument,
            absl::StrCat("gelu: approximate is 'none' (erf) or 'tanh', got '", approximate, "'"));
    }
    return Run([&] { return ops::Gelu(x, form, name); });
  }, py::arg("x"), py::arg("approximate"), py::arg("name"));
  m.def("op_cast", [](const te::Tensor& x, py::object dtype, std::string name) {
    return Run([&] { return ops::Cast(x, DtypeFromPy(dtype), name); });
  }, py::arg("x"), py::arg("dtype"), py::arg("name"));
  m.def("op_where", [](py::object c, py::object a, py::object b, std::string name) {
    return Run([&] { return ops::Where(OperandFromPy(c), OperandFromPy(a), OperandFromPy(b), name); });
  }, py::arg("condition"), py::arg("a"), py::arg("b"), py::arg("name"));
  m.def("op_broadcast_to", [](const te::Tensor& x, py::object shape, std::string name) {
    std::vector<ir::Expr> dims;
    for (py::handle d : shape) {
      dims.push_back(py::isinstance<py::int_>(d) ? ExprFromPy(d, ir::DataType::Int(32)) : ExprFromPy(d));
    }
    return Run([&] { return ops::BroadcastTo(x, dims, name); });
  }, py::arg("x"), py::arg("shape"), py::arg("name"));

  // Matrix products.
  m.def("op_matmul", [](const te::Tensor& a, const te::Tensor& b, bool ta, bool tb, py::object out,
                        std::string name) {
    return Run([&] {
      return ops::Matmul(a, b, {.transpose_a = ta, .transpose_b = tb, .out_dtype = OutDtype(out),
                                .name = name});
    });
  }, py::arg("a"), py::arg("b"), py::arg("transpose_a"), py::arg("transpose_b"),
     py::arg("out_dtype"), py::arg("name"));
  m.def("op_batch_matmul", [](const te::Tensor& a, const te::Tensor& b, bool ta, bool tb,
                              py::object out, std::string name) {
    return Run([&] {
      return ops::BatchMatmul(a, b, {.transpose_a = ta, .transpose_b = tb,
                                     .out_dtype = OutDtype(out), .name = name});
    });
  }, py::arg("a"), py::arg("b"), py::arg("transpose_a"), py::arg("transpose_b"),
     py::arg("out_dtype"), py::arg("name"));
  m.def("op_dense", [](const te::Tensor& x, const te::Tensor& w, py::object bias, py::object out,
                       std::string name) {
    return Run([&] { return ops::Dense(x, w, OptionalTensor(bias), OutDtype(out), name); });
  }, py::arg("x"), py::arg("weight"), py::arg("bias"), py::arg("out_dtype"), py::arg("name"));
  m.def("op_gemv", [](const te::Tensor& a, const te::Tensor& x, py::object out, std::string name) {
    return Run([&] { return ops::Gemv(a, x, OutDtype(out), name); });
  }, py::arg("a"), py::arg("x"), py::arg("out_dtype"), py::arg("name"));

  // Convolution and pooling.
  m.def("op_conv2d", [](const te::Tensor& data, const te::Tensor& kernel, std::vector<int> strides,
                        std::vector<int> padding, std::vector<int> dilation, int groups,
                        const std::string& layout, py::object out, std::string name) {
    ops::Conv2DOptions o{.strides = std::move(strides), .padding = std::move(padding),
                         .dilation = std::move(dilation), .groups = groups,
                         .layout = LayoutFromPy(layout), .out_dtype = OutDtype(out),
                         .name = std::move(name)};
    return Run([&] { return ops::Conv2D(data, kernel, o); });
  }, py::arg("data"), py::arg("kernel"), py::arg("strides"), py::arg("padding"),
     py::arg("dilation"), py::arg("groups"), py::arg("layout"), py::arg("out_dtype"), py::arg("name"));
  static constexpr std::pair<const char*, bool> kPools[] = {{"op_max_pool2d", true},
                                                           {"op_avg_pool2d", false}};
  for (const auto& [pool_name, is_max] : kPools) {
    m.def(pool_name,
          [max = is_max](
              const te::Tensor& x, std::vector<int> kernel, std::vector<int> strides,
              std::vector<int> padding, std::vector<int> dilation, const std::string& layout,
              bool count_include_pad, std::string name) {
            ops::Pool2DOptions o{.kernel = std::move(kernel), .strides = std::move(strides),
                                 .padding = std::move(padding), .dilation = std::move(dilation),
                                 .layout = LayoutFromPy(layout),
                                 .count_include_pad = count_include_pad, .name = std::move(name)};
            return Run([&] { return max ? ops::MaxPool2D(x, o) : ops::AvgPool2D(x, o); });
          },
          py::arg("x"), py::arg("kernel"), py::arg("strides"), py::arg("padding"),
          py::arg("dilation"), py::arg("layout"), py::arg("count_include_pad"), py::arg("name"));
  }

  // Reductions with an index result, softmax, norms.
  m.def("op_argmax", [](const te::Tensor& x, int axis, bool keepdims, std::string name) {
    return Run([&] { return ops::ArgMax(x, axis, keepdims, name); });
  }, py::arg("x"), py::arg("axis"), py::arg("keepdims"), py::arg("name"));
  m.def("op_argmin", [](const te::Tensor& x, int axis, bool keepdims, std::string name) {
    return Run([&] { return ops::ArgMin(x, axis, keepdims, name); });
  }, py::arg("x"), py::arg("axis"), py::arg("keepdims"), py::arg("name"));
  m.def("op_softmax", [](const te::Tensor& x, int axis, std::string name) {
    return Run([&] { return ops::Softmax(x, axis, name); });
  }, py::arg("x"), py::arg("axis"), py::arg("name"));
  m.def("op_log_softmax", [](const te::Tensor& x, int axis, std::string name) {
    return Run([&] { return ops::LogSoftmax(x, axis, name); });
  }, py::arg("x"), py::arg("axis"), py::arg("name"));
  m.def("op_layer_norm", [](const te::Tensor& x, py::object gamma, py::object beta,
                            std::vector<int> axes, double eps, std::string name) {
    return Run([&] {
      return ops::LayerNorm(x, OptionalTensor(gamma), OptionalTensor(beta), axes, eps, name);
    });
  }, py::arg("x"), py::arg("gamma"), py::arg("beta"), py::arg("axes"), py::arg("eps"),
     py::arg("name"));
  m.def("op_rms_norm", [](const te::Tensor& x, py::object weight, std::vector<int> axes,
                          double eps, std::string name) {
    return Run([&] { return ops::RmsNorm(x, OptionalTensor(weight), axes, eps, name); });
  }, py::arg("x"), py::arg("weight"), py::arg("axes"), py::arg("eps"), py::arg("name"));
  m.def("op_l2_normalize", [](const te::Tensor& x, int axis, double eps, std::string name) {
    return Run([&] { return ops::L2Normalize(x, axis, eps, name); });
  }, py::arg("x"), py::arg("axis"), py::arg("eps"), py::arg("name"));

  // Layout transforms and attention.
  m.def("op_transpose", [](const te::Tensor& x, std::vector<int> perm, std::string name) {
    return Run([&] { return ops::Transpose(x, perm, name); });
  }, py::arg("x"), py::arg("axes"), py::arg("name"));
  m.def("op_reshape", [](const te::Tensor& x, std::vector<int64_t> shape, std::string name) {
    return Run([&] { return ops::Reshape(x, shape, name); });
  }, py::arg("x"), py::arg("shape"), py::arg("name"));
  m.def("op_pad", [](const te::Tensor& x, std::vector<int64_t> before, std::vector<int64_t> after,
                     double value, std::string name) {
    return Run([&] { return ops::Pad(x, before, after, value, name); });
  }, py::arg("x"), py::arg("before"), py::arg("after"), py::arg("value"), py::arg("name"));
  m.def("op_concat", [](std::vector<te::Tensor> xs, int axis, std::string name) {
    return Run([&] { return ops::Concat(xs, axis, name); });
  }, py::arg("xs"), py::arg("axis"), py::arg("name"));
  m.def("op_attention", [](const te::Tensor& q, const te::Tensor& k, const te::Tensor& v,
                           double scale, bool causal, std::string name) {
    return Run([&] {
      return ops::Attention(q, k, v, {.scale = scale, .causal = causal, .name = std::move(name)});
    });
  }, py::arg("q"), py::arg("k"), py::arg("v"), py::arg("scale"), py::arg("causal"), py::arg("name"));

  // Workloads.
  m.def("workload_names", [](bool small_only) {
    std::vector<std::string> names;
    for (const te::Workload& w : te::AllWorkloads()) {
      if (!small_only || w.small) names.push_back(w.name);
    }
    return names;
  }, py::arg("small_only"));
  m.def("workload_info", [](const std::string& name) {
    const te::Workload* w = te::FindWorkload(name);
    if (w == nullptr) {
      Unwrap(te::BuildWorkload(name), ErrorKind::kArgument);  // Its message lists the names.
      Throw(ErrorKind::kArgument, absl::StrCat("no workload '", name, "'"));
    }
    return py::make_tuple(w->name, w->description, w->flops, w->bytes, w->small);
  }, py::arg("name"));
  m.def("workload_build", [](const std::string& name) {
    if (te::FindWorkload(name) == nullptr) {
      Unwrap(te::BuildWorkload(name), ErrorKind::kArgument);
    }
    return Unwrap(te::BuildWorkload(name), ErrorKind::kIR);
  }, py::arg("name"));
}

}  // namespace tessel::python
