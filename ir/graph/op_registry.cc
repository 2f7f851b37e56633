// The table of graph-level operators (see op_registry.h). Each entry says how
// many inputs the op takes, which attributes, and how to build it with te:
//
//   {"softmax", 1, 1, {"axis"}, [](const In& in, Reader& a) -> Result {
//      TESSEL_ASSIGN_OR_RETURN(int64_t axis, a.Int("axis", -1));
//      return ops::Softmax(in[0], static_cast<int>(axis));
//   }}
#include "ir/graph/op_registry.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/analyzer.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/te/compute.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/ops/ops.h"

namespace tessel::ir::graph {
namespace {

namespace ops = te::ops;

using In = std::vector<te::Tensor>;
using Result = absl::StatusOr<te::Tensor>;

// Typed reads of an op's attributes, each with its default when absent.
class Reader {
 public:
  explicit Reader(const Attrs& attrs) : attrs_(attrs) {}

  absl::StatusOr<int64_t> Int(const char* key, int64_t dflt) const {
    const AttrValue* v = Find(key);
    if (v == nullptr) return dflt;
    if (const int64_t* i = v->get_if<int64_t>()) return *i;
    return Wrong(key, "an integer");
  }
  absl::StatusOr<bool> Bool(const char* key, bool dflt) const {
    const AttrValue* v = Find(key);
    if (v == nullptr) return dflt;
    if (const bool* b = v->get_if<bool>()) return *b;
    return Wrong(key, "true or false");
  }
  absl::StatusOr<double> Float(const char* key, double dflt) const {
    const AttrValue* v = Find(key);
    if (v == nullptr) return dflt;
    if (const double* d = v->get_if<double>()) return *d;
    if (const int64_t* i = v->get_if<int64_t>()) return static_cast<double>(*i);
    return Wrong(key, "a number");
  }
  absl::StatusOr<std::string> Str(const char* key, std::string dflt) const {
    const AttrValue* v = Find(key);
    if (v == nullptr) return dflt;
    if (const std::string* s = v->get_if<std::string>()) return *s;
    return Wrong(key, "a string");
  }
  absl::StatusOr<std::vector<int64_t>> Ints(const char* key, std::vector<int64_t> dflt) const {
    const AttrValue* v = Find(key);
    if (v == nullptr) return dflt;
    const AttrValue::List* list = v->get_if<AttrValue::List>();
    if (list == nullptr) return Wrong(key, "a list of integers");
    std::vector<int64_t> out;
    for (const AttrValue& e : *list) {
      const int64_t* i = e.get_if<int64_t>();
      if (i == nullptr) return Wrong(key, "a list of integers");
      out.push_back(*i);
    }
    return out;
  }
  absl::StatusOr<std::vector<int>> Int32s(const char* key, std::vector<int> dflt) const {
    std::vector<int64_t> wide(dflt.begin(), dflt.end());
    TESSEL_ASSIGN_OR_RETURN(wide, Ints(key, wide));
    std::vector<int> out;
    for (int64_t x : wide) {
      TESSEL_RETURN_IF_ERROR(InRange(key, x));
      out.push_back(static_cast<int>(x));
    }
    return out;
  }
  absl::StatusOr<int> Int32(const char* key, int dflt) const {
    TESSEL_ASSIGN_OR_RETURN(int64_t x, Int(key, dflt));
    TESSEL_RETURN_IF_ERROR(InRange(key, x));
    return static_cast<int>(x);
  }
  // A dtype spelled as a string ("f16"); Void when absent.
  absl::StatusOr<DataType> Dtype(const char* key) const {
    TESSEL_ASSIGN_OR_RETURN(std::string text, Str(key, ""));
    if (text.empty()) return DataType::Void();
    absl::StatusOr<DataType> t = DataType::Parse(text);
    if (!t.ok()) return Wrong(key, "a dtype such as \"f32\"");
    return *t;
  }
  absl::StatusOr<ops::Layout> Layout() const {
    TESSEL_ASSIGN_OR_RETURN(std::string text, Str("layout", "NCHW"));
    if (text == "NCHW") return ops::Layout::kNCHW;
    if (text == "NHWC") return ops::Layout::kNHWC;
    return Wrong("layout", "\"NCHW\" or \"NHWC\"");
  }

 private:
  // Sizes, axes and counts: far below what an int holds.
  static absl::Status InRange(const char* key, int64_t x) {
    if (x >= -(int64_t{1} << 30) && x <= (int64_t{1} << 30)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", key, "' holds ", x, ", out of range"));
  }
  const AttrValue* Find(const char* key) const {
    auto it = attrs_.find(key);
    return it == attrs_.end() ? nullptr : &it->second;
  }
  absl::Status Wrong(const char* key, const char* want) const {
    return absl::InvalidArgumentError(absl::StrCat("attribute '", key, "' must be ", want));
  }

  const Attrs& attrs_;
};

struct OpEntry {
  int min_inputs;
  int max_inputs;  // -1: any number.
  std::vector<std::string> attrs;
  std::function<Result(const In&, const Reader&)> build;
};

using Unary = Result (*)(const te::Tensor&, std::string);
using Binary = Result (*)(const ops::Operand&, const ops::Operand&, std::string);
using Reduce = Result (*)(const te::Tensor&, const std::vector<int>&, bool, std::string);

OpEntry UnaryOp(Unary f, const char* name) {
  return {1, 1, {}, [f, name](const In& in, const Reader&) { return f(in[0], name); }};
}
OpEntry BinaryOp(Binary f, const char* name) {
  return {2, 2, {}, [f, name](const In& in, const Reader&) { return f(in[0], in[1], name); }};
}
OpEntry ReduceOp(Reduce f, const char* name) {
  return {1, 1, {"axes", "keepdims"}, [f, name](const In& in, const Reader& a) -> Result {
            TESSEL_ASSIGN_OR_RETURN(std::vector<int> axes, a.Int32s("axes", {}));
            TESSEL_ASSIGN_OR_RETURN(bool keep, a.Bool("keepdims", false));
            return f(in[0], axes, keep, name);
          }};
}
using ArgReduce = Result (*)(const te::Tensor&, int, bool, std::string);
OpEntry ArgReduceOp(ArgReduce f, const char* name) {
  return {1, 1, {"axis", "keepdims"}, [f, name](const In& in, const Reader& a) -> Result {
            TESSEL_ASSIGN_OR_RETURN(int axis, a.Int32("axis", 0));
            TESSEL_ASSIGN_OR_RETURN(bool keep, a.Bool("keepdims", false));
            return f(in[0], axis, keep, name);
          }};
}
OpEntry MatmulOp(bool batched) {
  return {2,
          2,
          {"transpose_a", "transpose_b", "out_dtype"},
          [batched](const In& in, const Reader& a) -> Result {
            ops::MatmulOptions o;
            TESSEL_ASSIGN_OR_RETURN(o.transpose_a, a.Bool("transpose_a", false));
            TESSEL_ASSIGN_OR_RETURN(o.transpose_b, a.Bool("transpose_b", false));
            TESSEL_ASSIGN_OR_RETURN(o.out_dtype, a.Dtype("out_dtype"));
            if (!batched) return ops::Matmul(in[0], in[1], o);
            o.name = "T_batch_matmul";
            return ops::BatchMatmul(in[0], in[1], o);
          }};
}
OpEntry PoolOp(bool max) {
  return {1,
          1,
          {"kernel", "strides", "padding", "dilation", "layout", "count_include_pad"},
          [max](const In& in, const Reader& a) -> Result {
            ops::Pool2DOptions o;
            TESSEL_ASSIGN_OR_RETURN(o.kernel, a.Int32s("kernel", {}));
            TESSEL_ASSIGN_OR_RETURN(o.strides, a.Int32s("strides", {1, 1}));
            TESSEL_ASSIGN_OR_RETURN(o.padding, a.Int32s("padding", {0}));
            TESSEL_ASSIGN_OR_RETURN(o.dilation, a.Int32s("dilation", {1, 1}));
            TESSEL_ASSIGN_OR_RETURN(o.layout, a.Layout());
            TESSEL_ASSIGN_OR_RETURN(o.count_include_pad, a.Bool("count_include_pad", true));
            return max ? ops::MaxPool2D(in[0], o) : ops::AvgPool2D(in[0], o);
          }};
}

const absl::flat_hash_map<std::string, OpEntry>& Table() {
  static const auto* table = new absl::flat_hash_map<std::string, OpEntry>{
      {"relu", UnaryOp(&ops::Relu, "T_relu")},
      {"neg", UnaryOp(&ops::Neg, "T_neg")},
      {"abs", UnaryOp(&ops::Abs, "T_abs")},
      {"exp", UnaryOp(&ops::Exp, "T_exp")},
      {"log", UnaryOp(&ops::Log, "T_log")},
      {"sqrt", UnaryOp(&ops::Sqrt, "T_sqrt")},
      {"rsqrt", UnaryOp(&ops::Rsqrt, "T_rsqrt")},
      {"tanh", UnaryOp(&ops::Tanh, "T_tanh")},
      {"erf", UnaryOp(&ops::Erf, "T_erf")},
      {"sigmoid", UnaryOp(&ops::Sigmoid, "T_sigmoid")},
      {"silu", UnaryOp(&ops::Silu, "T_silu")},
      {"gelu",
       {1,
        1,
        {"approximate"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(std::string form, a.Str("approximate", "none"));
          if (form != "none" && form != "tanh") {
            return absl::InvalidArgumentError(
                "attribute 'approximate' must be \"none\" or \"tanh\"");
          }
          return ops::Gelu(in[0], form == "tanh" ? ops::GeluForm::kTanh : ops::GeluForm::kErf);
        }}},
      {"cast",
       {1,
        1,
        {"dtype"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(DataType t, a.Dtype("dtype"));
          if (t.is_void()) return absl::InvalidArgumentError("attribute 'dtype' is required");
          return ops::Cast(in[0], t);
        }}},
      {"add", BinaryOp(&ops::Add, "T_add")},
      {"subtract", BinaryOp(&ops::Sub, "T_subtract")},
      {"multiply", BinaryOp(&ops::Mul, "T_multiply")},
      {"divide", BinaryOp(&ops::Div, "T_divide")},
      {"maximum", BinaryOp(&ops::Maximum, "T_maximum")},
      {"minimum", BinaryOp(&ops::Minimum, "T_minimum")},
      {"power", BinaryOp(&ops::Power, "T_power")},
      {"where",
       {3, 3, {}, [](const In& in, const Reader&) { return ops::Where(in[0], in[1], in[2]); }}},
      {"matmul", MatmulOp(false)},
      {"batch_matmul", MatmulOp(true)},
      {"dense",
       {2,
        3,
        {"out_dtype"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(DataType t, a.Dtype("out_dtype"));
          return ops::Dense(in[0], in[1], in.size() == 3 ? in[2] : te::Tensor(), t);
        }}},
      {"softmax",
       {1,
        1,
        {"axis"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(int axis, a.Int32("axis", -1));
          return ops::Softmax(in[0], axis);
        }}},
      {"log_softmax",
       {1,
        1,
        {"axis"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(int axis, a.Int32("axis", -1));
          return ops::LogSoftmax(in[0], axis);
        }}},
      {"layer_norm",
       {1,
        3,
        {"axes", "eps"},
        [](const In& in, const Reader& a) -> Result {
          if (in.size() == 2) return absl::InvalidArgumentError("takes x, or x, gamma and beta");
          TESSEL_ASSIGN_OR_RETURN(std::vector<int> axes, a.Int32s("axes", {-1}));
          TESSEL_ASSIGN_OR_RETURN(double eps, a.Float("eps", 1e-5));
          te::Tensor none;
          return ops::LayerNorm(in[0], in.size() == 3 ? in[1] : none, in.size() == 3 ? in[2] : none,
                                axes, eps);
        }}},
      {"rms_norm",
       {1,
        2,
        {"axes", "eps"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(std::vector<int> axes, a.Int32s("axes", {-1}));
          TESSEL_ASSIGN_OR_RETURN(double eps, a.Float("eps", 1e-5));
          return ops::RmsNorm(in[0], in.size() == 2 ? in[1] : te::Tensor(), axes, eps);
        }}},
      {"l2_normalize",
       {1,
        1,
        {"axis", "eps"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(int axis, a.Int32("axis", -1));
          TESSEL_ASSIGN_OR_RETURN(double eps, a.Float("eps", 1e-12));
          return ops::L2Normalize(in[0], axis, eps);
        }}},
      {"gemv",
       {2,
        2,
        {"out_dtype"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(DataType t, a.Dtype("out_dtype"));
          return ops::Gemv(in[0], in[1], t);
        }}},
      {"argmax", ArgReduceOp(&ops::ArgMax, "T_argmax")},
      {"argmin", ArgReduceOp(&ops::ArgMin, "T_argmin")},
      {"broadcast_to",
       {1,
        1,
        {"shape"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(std::vector<int> shape, a.Int32s("shape", {}));
          std::vector<Expr> dims;
          for (int d : shape) dims.push_back(IntImm32(d));
          return ops::BroadcastTo(in[0], dims);
        }}},
      {"sum", ReduceOp(&ops::Sum, "T_sum")},
      {"prod", ReduceOp(&ops::Prod, "T_prod")},
      {"max", ReduceOp(&ops::Max, "T_max")},
      {"min", ReduceOp(&ops::Min, "T_min")},
      {"mean", ReduceOp(&ops::Mean, "T_mean")},
      {"transpose",
       {1,
        1,
        {"perm"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(std::vector<int> perm, a.Int32s("perm", {}));
          return ops::Transpose(in[0], perm);
        }}},
      {"reshape",
       {1,
        1,
        {"shape"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, a.Ints("shape", {}));
          return ops::Reshape(in[0], shape);
        }}},
      {"concat",
       {1,
        -1,
        {"axis"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(int axis, a.Int32("axis", 0));
          return ops::Concat(in, axis);
        }}},
      {"pad",
       {1,
        1,
        {"before", "after", "value"},
        [](const In& in, const Reader& a) -> Result {
          TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> before, a.Ints("before", {}));
          TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> after, a.Ints("after", {}));
          TESSEL_ASSIGN_OR_RETURN(double value, a.Float("value", 0.0));
          return ops::Pad(in[0], before, after, value);
        }}},
      {"max_pool2d", PoolOp(true)},
      {"avg_pool2d", PoolOp(false)},
      {"conv2d",
       {2,
        2,
        {"strides", "padding", "dilation", "groups", "layout", "out_dtype"},
        [](const In& in, const Reader& a) -> Result {
          ops::Conv2DOptions o;
          TESSEL_ASSIGN_OR_RETURN(o.strides, a.Int32s("strides", {1, 1}));
          TESSEL_ASSIGN_OR_RETURN(o.padding, a.Int32s("padding", {0}));
          TESSEL_ASSIGN_OR_RETURN(o.dilation, a.Int32s("dilation", {1, 1}));
          TESSEL_ASSIGN_OR_RETURN(o.groups, a.Int32("groups", 1));
          TESSEL_ASSIGN_OR_RETURN(o.layout, a.Layout());
          TESSEL_ASSIGN_OR_RETURN(o.out_dtype, a.Dtype("out_dtype"));
          return ops::Conv2D(in[0], in[1], o);
        }}},
      {"attention",
       {3,
        3,
        {"scale", "causal"},
        [](const In& in, const Reader& a) -> Result {
          ops::AttentionOptions o;
          TESSEL_ASSIGN_OR_RETURN(o.scale, a.Float("scale", 0.0));
          TESSEL_ASSIGN_OR_RETURN(o.causal, a.Bool("causal", false));
          return ops::Attention(in[0], in[1], in[2], o);
        }}},
  };
  return *table;
}

}  // namespace

bool IsGraphOp(const std::string& name) { return Table().contains(name); }

std::vector<std::string> GraphOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : Table()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

Result BuildGraphOp(const std::string& op, const std::vector<te::Tensor>& inputs,
                    const Attrs& attrs) {
  auto it = Table().find(op);
  if (it == Table().end()) {
    return absl::NotFoundError(absl::StrCat(
        "unknown operator '", op, "' (operators: ", absl::StrJoin(GraphOpNames(), ", "), ")"));
  }
  const OpEntry& e = it->second;
  int n = static_cast<int>(inputs.size());
  if (n < e.min_inputs || (e.max_inputs >= 0 && n > e.max_inputs)) {
    std::string want = e.max_inputs < 0 ? absl::StrCat("at least ", e.min_inputs)
                       : e.min_inputs == e.max_inputs
                           ? absl::StrCat(e.min_inputs)
                           : absl::StrCat(e.min_inputs, " to ", e.max_inputs);
    return absl::InvalidArgumentError(
        absl::StrCat("operator '", op, "' takes ", want, " inputs, got ", n));
  }
  for (const auto& [key, value] : attrs) {
    if (std::find(e.attrs.begin(), e.attrs.end(), key) == e.attrs.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operator '", op, "' has no attribute '", key, "'",
          e.attrs.empty() ? std::string(" (it takes none)")
                          : absl::StrCat(" (it takes ", absl::StrJoin(e.attrs, ", "), ")")));
    }
  }
  Result out = e.build(inputs, Reader(attrs));
  if (!out.ok()) {
    return absl::Status(out.status().code(),
                        absl::StrCat("operator '", op, "': ", out.status().message()));
  }
  return out;
}

absl::StatusOr<LegalizedOp> InferGraphOp(const GraphCall& call, const std::string& output_name) {
  if (call.kind != GraphCall::Kind::kOp) {
    return absl::InvalidArgumentError(
        absl::StrCat("call_tir @", call.callee, " is not an operator call"));
  }
  std::vector<te::Tensor> inputs;
  std::vector<te::FuncArg> params;
  for (const Buffer& arg : call.args) {
    TESSEL_ASSIGN_OR_RETURN(te::Tensor t,
                            te::Placeholder(te::Shape(arg->shape), arg->dtype, arg->name));
    inputs.push_back(t);
    params.emplace_back(t);
  }
  TESSEL_ASSIGN_OR_RETURN(te::Tensor out, BuildGraphOp(call.callee, inputs, call.attrs));
  for (const te::Tensor& in : inputs) {
    if (out.same_as(in)) {
      return absl::InvalidArgumentError(
          absl::StrCat("operator '", call.callee, "' returns its input unchanged"));
    }
  }
  params.emplace_back(out);
  TESSEL_ASSIGN_OR_RETURN(PrimFunc func, te::CreatePrimFunc(params, call.callee));
  TESSEL_ASSIGN_OR_RETURN(Buffer output, MakeBufferChecked(output_name, out.dtype(), out.shape()));
  return LegalizedOp{std::move(func), std::move(output)};
}

absl::StatusOr<LegalizedOp> LegalizeGraphOp(const GraphBinding& binding) {
  if (binding.outputs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "operator '", binding.call.callee, "' defines one value, not ", binding.outputs.size()));
  }
  const Buffer& declared = binding.outputs[0];
  TESSEL_ASSIGN_OR_RETURN(LegalizedOp op, InferGraphOp(binding.call, declared->name));
  bool same =
      declared->dtype == op.output->dtype && declared->shape.size() == op.output->shape.size();
  arith::Analyzer ana;
  for (size_t d = 0; same && d < declared->shape.size(); ++d) {
    same = declared->shape[d]->dtype == op.output->shape[d]->dtype &&
           ana.CanProveEqual(declared->shape[d], op.output->shape[d]);
  }
  if (!same) {
    return absl::InvalidArgumentError(
        absl::StrCat("value '", declared->name, "' is declared ", TensorTypeText(declared), "; ",
                     binding.call.callee, " gives ", TensorTypeText(op.output)));
  }
  op.output = declared;
  return op;
}

}  // namespace tessel::ir::graph
