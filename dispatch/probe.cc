// Probing expressions (see probe.h).
#include "dispatch/probe.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ir/arith/analyzer.h"

namespace tessel::dispatch {

std::optional<double> ProbeValue(const ir::Expr& e, const LoadValue& load) {
  using ir::NodeKind;
  switch (e->kind()) {
    case NodeKind::kFloatImm:
      return ir::cast<ir::FloatImmNode>(e)->value;
    case NodeKind::kIntImm:
      return static_cast<double>(ir::cast<ir::IntImmNode>(e)->value);
    case NodeKind::kBufferLoad:
      return load(ir::cast<ir::BufferLoadNode>(e));
    case NodeKind::kCast: {
      const auto* c = ir::cast<ir::CastNode>(e);
      if (!c->dtype.is_float() || !c->value->dtype.is_float()) return std::nullopt;
      return ProbeValue(c->value, load);
    }
    case NodeKind::kSelect: {
      const auto* s = ir::cast<ir::SelectNode>(e);
      std::optional<double> c = ProbeValue(s->condition, load);
      if (!c) return std::nullopt;
      return ProbeValue(*c != 0 ? s->true_value : s->false_value, load);
    }
    case NodeKind::kCall: {
      const auto* c = ir::cast<ir::CallNode>(e);
      if (c->callee != ir::CallNode::Callee::kIntrinsic) return std::nullopt;
      std::vector<double> a;
      for (const ir::Expr& arg : c->args) {
        std::optional<double> v = ProbeValue(arg, load);
        if (!v) return std::nullopt;
        a.push_back(*v);
      }
      const std::string& n = c->name;
      if (n == "exp") return std::exp(a[0]);
      if (n == "log") return std::log(a[0]);
      if (n == "erf") return std::erf(a[0]);
      if (n == "tanh") return std::tanh(a[0]);
      if (n == "sigmoid") return 1.0 / (1.0 + std::exp(-a[0]));
      if (n == "sqrt") return std::sqrt(a[0]);
      if (n == "rsqrt") return 1.0 / std::sqrt(a[0]);
      if (n == "fabs") return std::fabs(a[0]);
      if (n == "pow") return std::pow(a[0], a[1]);
      if (n == "fma") return a[0] * a[1] + a[2];
      return std::nullopt;
    }
    default:
      break;
  }
  const auto* b = ir::dyn_cast<ir::BinaryNode>(e);
  if (b == nullptr) return std::nullopt;
  std::optional<double> l = ProbeValue(b->a, load), r = ProbeValue(b->b, load);
  if (!l || !r) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::kAdd:
      return *l + *r;
    case NodeKind::kSub:
      return *l - *r;
    case NodeKind::kMul:
      return *l * *r;
    case NodeKind::kDiv:
      return *l / *r;
    case NodeKind::kMin:
      return std::min(*l, *r);
    case NodeKind::kMax:
      return std::max(*l, *r);
    case NodeKind::kLT:
      return *l < *r ? 1.0 : 0.0;
    case NodeKind::kLE:
      return *l <= *r ? 1.0 : 0.0;
    case NodeKind::kGT:
      return *l > *r ? 1.0 : 0.0;
    case NodeKind::kGE:
      return *l >= *r ? 1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

ir::Expr EvalAt(const ir::Expr& e, const ir::VarMap& values) {
  ir::arith::Analyzer ana;
  return ana.Simplify(ir::Substitute(e, values));
}

}  // namespace tessel::dispatch
