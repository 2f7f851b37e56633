// lower-intrinsics: rewrites the intrinsic calls that have no direct counterpart
// in codegen's target dialects (MLIR `math`/`arith`) into ones that do.
//
//   sigmoid(x)   ->  1.0f32 / (1.0f32 + exp(0.0f32 - x))       (no math.sigmoid)
//   fabs(n)      ->  select(n < 0, 0 - n, n)      for an integer n (math.absf is for floats)
//
// Every other intrinsic (exp log sqrt rsqrt tanh erf floor ceil pow fma, fabs of
// a float) maps one to one onto an MLIR `math` op and is kept; docs/lowering.md
// lists the mapping. Vector operands get broadcast constants.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/mutator.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

// The constant `v` of `t` (scalar, or broadcast to t's lanes).
ir::Expr ConstLike(ir::DataType t, double v) {
  ir::DataType elem = t.element_of();
  ir::Expr c = elem.is_float() ? ir::FloatImm(elem, v) : ir::IntImm(elem, static_cast<int64_t>(v));
  return t.is_vector() ? ir::Broadcast(c, t.lanes()) : c;
}

class IntrinsicLowerer : public ir::IRMutator {
 public:
  std::map<std::string, int> counts;

  ir::Expr VisitCall(const ir::CallNode* op) override {
    ir::Expr e = IRMutator::VisitCall(op);
    const auto* c = ir::cast<ir::CallNode>(e);
    if (c->callee != ir::CallNode::Callee::kIntrinsic || c->args.size() != 1) return e;
    const ir::Expr& x = c->args[0];
    ir::DataType t = x->dtype;
    if (c->name == "sigmoid" && t.is_float()) {
      ++counts["sigmoid"];
      ir::Expr ex = ir::Intrinsic("exp", {ir::Sub(ConstLike(t, 0), x)});
      return ir::Div(ConstLike(t, 1), ir::Add(ConstLike(t, 1), ex));
    }
    if (c->name == "fabs" && t.is_integer()) {
      ++counts["integer-fabs"];
      if (t.is_uint()) return x;
      ir::Expr zero = ConstLike(t, 0);
      return ir::Select(ir::LT(x, zero), ir::Sub(zero, x), x);
    }
    return e;
  }
};

class LowerIntrinsicsPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "lower-intrinsics",
            .description =
                "Expands intrinsics codegen has no direct op for (sigmoid, integer fabs) into "
                "basic arithmetic and exp",
            .opt_level = 0};
  }
  explicit LowerIntrinsicsPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    IntrinsicLowerer l;
    ir::PrimFunc out = l.VisitPrimFunc(func);
    for (const auto& [rule, n] : l.counts) ctx.log().RecordApplied(this->name(), name, rule, n);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(LowerIntrinsicsPass);

}  // namespace tessel::passes
