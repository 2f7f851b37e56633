#include "dispatch/epilogue.h"

#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dispatch/probe.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/visitor.h"

namespace tessel::dispatch {
namespace {

// The value of `e` with every load of `input` replaced by x; nullopt when `e`
// uses anything else (another buffer, a variable, an unknown call).
std::optional<double> Probe(const ir::Expr& e, const ir::BufferNode* input, double x) {
  return ProbeValue(e, [&](const ir::BufferLoadNode* ld) -> std::optional<double> {
    if (ld->buffer.get() == input) return x;
    return std::nullopt;
  });
}

double GeluTanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

// The unary post-op `value` computes of `input`, or nullopt.
std::optional<EpilogueOp> ProbeUnary(const ir::Expr& value, const ir::BufferNode* input) {
  static const double kPoints[] = {-3.7, -2.5, -1.3, -0.4, -0.05, 0.0, 0.07, 0.6, 1.1, 2.2, 4.1};
  std::vector<double> ys;
  for (double x : kPoints) {
    std::optional<double> y = Probe(value, input, x);
    if (!y || !std::isfinite(*y)) return std::nullopt;
    ys.push_back(*y);
  }
  auto fits = [&](const std::function<double(double)>& f) {
    for (size_t i = 0; i < ys.size(); ++i) {
      double want = f(kPoints[i]);
      if (std::fabs(ys[i] - want) > 1e-5 * std::max(1.0, std::fabs(want))) return false;
    }
    return true;
  };
  struct Candidate {
    PostOp op;
    std::function<double(double)> f;
  };
  const Candidate kCandidates[] = {
      {PostOp::kRelu, [](double x) { return x > 0 ? x : 0.0; }},
      {PostOp::kGeluErf, [](double x) { return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2)); }},
      {PostOp::kGeluTanh, GeluTanh},
      {PostOp::kSigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {PostOp::kSilu, [](double x) { return x / (1.0 + std::exp(-x)); }},
      {PostOp::kTanh, [](double x) { return std::tanh(x); }},
  };
  for (const Candidate& c : kCandidates) {
    if (fits(c.f)) return EpilogueOp{.kind = c.op};
  }
  // alpha * x + beta, read off at 0 and 1 and checked everywhere.
  std::optional<double> y0 = Probe(value, input, 0.0), y1 = Probe(value, input, 1.0);
  if (y0 && y1) {
    double alpha = *y1 - *y0, beta = *y0;
    if (fits([&](double x) { return alpha * x + beta; })) {
      return EpilogueOp{.kind = PostOp::kLinear,
                        .alpha = static_cast<float>(alpha),
                        .beta = static_cast<float>(beta)};
    }
  }
  return std::nullopt;
}

// The loads of `input` in an expression, and those of any other buffer.
class LoadScan : public ir::IRVisitor {
 public:
  explicit LoadScan(const ir::BufferNode* input) : input_(input) {}
  std::vector<const ir::BufferLoadNode*> inputs, others;
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    (op->buffer.get() == input_ ? inputs : others).push_back(op);
    IRVisitor::VisitBufferLoad(op);
  }

 private:
  const ir::BufferNode* input_;
};

bool IsLoadOf(const ir::Expr& e, const ir::BufferNode* buffer) {
  const auto* ld = ir::dyn_cast<ir::BufferLoadNode>(e);
  return ld != nullptr && ld->buffer.get() == buffer;
}

}  // namespace

const char* PostOpName(PostOp op) {
  switch (op) {
    case PostOp::kRelu:
      return "relu";
    case PostOp::kGeluErf:
      return "gelu_erf";
    case PostOp::kGeluTanh:
      return "gelu_tanh";
    case PostOp::kSigmoid:
      return "sigmoid";
    case PostOp::kSilu:
      return "silu";
    case PostOp::kLinear:
      return "linear";
    case PostOp::kTanh:
      return "tanh";
    case PostOp::kAdd:
      return "add";
    case PostOp::kMul:
      return "mul";
  }
  return "?";
}

std::string EpilogueOp::ToString() const {
  if (kind == PostOp::kAdd || kind == PostOp::kMul) {
    return absl::StrCat(PostOpName(kind), "(", operand->name, ")");
  }
  if (kind == PostOp::kLinear) return absl::StrCat("linear(", alpha, ", ", beta, ")");
  return PostOpName(kind);
}

std::variant<EpilogueOp, std::string> MatchEpilogue(const ir::BlockNode* block,
                                                    const ir::Buffer& input) {
  const auto* store = ir::dyn_cast<ir::BufferStoreNode>(block->body);
  if (store == nullptr || block->init) return std::string("it is not one elementwise store");
  for (const ir::IterVar& iv : block->iter_vars) {
    if (iv.kind != ir::IterKind::kSpatial) return std::string("it reduces");
  }
  const ir::Buffer& out = store->buffer;
  if (out->dtype != input->dtype || out->shape.size() != input->shape.size()) {
    return absl::StrCat("it writes '", out->name, "', not a ", input->dtype.ToString(),
                        " tensor of the matmul's shape");
  }
  for (size_t d = 0; d < out->shape.size(); ++d) {
    if (!ir::StructuralEqual(out->shape[d], input->shape[d])) {
      return absl::StrCat("'", out->name, "' and '", input->name, "' differ in shape");
    }
  }
  LoadScan scan(input.get());
  scan.VisitExpr(store->value);
  for (const ir::BufferLoadNode* ld : scan.inputs) {
    if (!ir::StructuralEqual(ld->indices, store->indices)) {
      return absl::StrCat("it reads '", input->name, "' elsewhere than where it writes");
    }
  }
  // Each dimension of the output: a plain iter var, with the matmul role of that dimension.
  std::vector<int> role_of(block->iter_vars.size(), -1);
  for (size_t d = 0; d < store->indices.size(); ++d) {
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (store->indices[d].same_as(block->iter_vars[i].var))
        role_of[i] = static_cast<int>(d);
    }
  }
  const std::vector<const ir::BufferLoadNode*>& others = scan.others;
  if (others.empty()) {
    std::optional<EpilogueOp> op = ProbeUnary(store->value, input.get());
    if (!op) return absl::StrCat("'", ir::PrintExpr(store->value), "' is no post-op");
    op->out = out;
    return *op;
  }
  const auto* bin = ir::dyn_cast<ir::BinaryNode>(store->value);
  if (others.size() != 1 || bin == nullptr ||
      (bin->kind() != ir::NodeKind::kAdd && bin->kind() != ir::NodeKind::kMul)) {
    return absl::StrCat("'", ir::PrintExpr(store->value), "' is no post-op (x + y or x * y only)");
  }
  const ir::BufferLoadNode* y = others[0];
  bool x_then_y = IsLoadOf(bin->a, input.get()) && bin->b.get() == y;
  bool y_then_x = IsLoadOf(bin->b, input.get()) && bin->a.get() == y;
  if (!x_then_y && !y_then_x) {
    return absl::StrCat("'", ir::PrintExpr(store->value), "' is no post-op (x + y or x * y only)");
  }
  if (y->buffer->dtype != input->dtype) {
    return absl::StrCat("operand '", y->buffer->name, "' is ", y->buffer->dtype.ToString());
  }
  std::variant<std::vector<int64_t>, std::string> s =
      RoleStrides(block, y->buffer, y->indices, role_of, static_cast<int>(store->indices.size()));
  if (auto* why = std::get_if<std::string>(&s)) return *why;
  const std::vector<int64_t>& r = std::get<std::vector<int64_t>>(s);
  EpilogueOp op{.kind = bin->kind() == ir::NodeKind::kAdd ? PostOp::kAdd : PostOp::kMul};
  op.operand = y->buffer;
  op.out_strides = r;
  op.out = out;
  return op;
}

}  // namespace tessel::dispatch
