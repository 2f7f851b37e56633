// Helpers of the arith units; see arith_test_util.h.
//
//   EvalExactWide(i * 16 + 3, {i: 2^28}) -> 2^32 + 3 with `overflow` set (i32)
//   EvalInInterpreter({e}, {i}, rows)    -> one function, a loop over the rows
#include "tests/unit/arith_test_util.h"

#include <algorithm>

#include "ir/arith/int_math.h"
#include "ir/stmt.h"
#include "ir/verifier.h"

namespace tessel::ir::arith::testing {

namespace {

__int128 FloorDiv128(__int128 a, __int128 b) {
  __int128 q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

bool Fits(DataType t, __int128 v) {
  if (t.is_bool()) return v == 0 || v == 1;
  __int128 lo = t.is_uint() ? 0 : -(static_cast<__int128>(1) << (t.bits() - 1));
  __int128 hi = t.is_uint() ? (static_cast<__int128>(1) << t.bits()) - 1
                            : (static_cast<__int128>(1) << (t.bits() - 1)) - 1;
  return v >= lo && v <= hi;
}

}  // namespace

std::optional<__int128> EvalExactWide(const Expr& e, const Env& env, bool* overflow) {
  auto check = [&](__int128 v) -> std::optional<__int128> {
    if (!Fits(e->dtype.element_of(), v)) *overflow = true;
    return v;
  };
  if (const auto* i = dyn_cast<IntImmNode>(e)) return i->value;
  if (const auto* v = dyn_cast<VarNode>(e)) {
    auto it = env.find(v);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  if (const auto* n = dyn_cast<NotNode>(e)) {
    std::optional<__int128> a = EvalExactWide(n->a, env, overflow);
    if (!a) return std::nullopt;
    return *a == 0;
  }
  if (const auto* s = dyn_cast<SelectNode>(e)) {
    std::optional<__int128> c = EvalExactWide(s->condition, env, overflow);
    std::optional<__int128> t = EvalExactWide(s->true_value, env, overflow);
    std::optional<__int128> f = EvalExactWide(s->false_value, env, overflow);
    if (!c || !t || !f) return std::nullopt;
    return *c ? *t : *f;
  }
  if (const auto* c = dyn_cast<CastNode>(e)) {
    std::optional<__int128> v = EvalExactWide(c->value, env, overflow);
    if (!v) return std::nullopt;
    if (c->dtype.is_bool()) return *v != 0;
    return check(*v);
  }
  const auto* op = dyn_cast<BinaryNode>(e);
  if (op == nullptr) return std::nullopt;
  std::optional<__int128> x = EvalExactWide(op->a, env, overflow);
  std::optional<__int128> y = EvalExactWide(op->b, env, overflow);
  if (!x || !y) return std::nullopt;
  __int128 a = *x, b = *y;
  switch (op->kind()) {
    case NodeKind::kAdd: return check(a + b);
    case NodeKind::kSub: return check(a - b);
    case NodeKind::kMul: return check(a * b);
    case NodeKind::kDiv:
      if (b == 0) return std::nullopt;
      return check(a / b);
    case NodeKind::kMod:
      if (b == 0) return std::nullopt;
      return check(a % b);
    case NodeKind::kFloorDiv:
      if (b == 0) return std::nullopt;
      return check(FloorDiv128(a, b));
    case NodeKind::kFloorMod:
      if (b == 0) return std::nullopt;
      return check(a - b * FloorDiv128(a, b));
    case NodeKind::kMin: return std::min(a, b);
    case NodeKind::kMax: return std::max(a, b);
    case NodeKind::kEQ: return a == b;
    case NodeKind::kNE: return a != b;
    case NodeKind::kLT: return a < b;
    case NodeKind::kLE: return a <= b;
    case NodeKind::kGT: return a > b;
    case NodeKind::kGE: return a >= b;
    case NodeKind::kAnd: return (a != 0) && (b != 0);
    case NodeKind::kOr: return (a != 0) || (b != 0);
    default: return std::nullopt;
  }
}

std::optional<std::vector<std::vector<int64_t>>> EvalInInterpreter(
    const std::vector<Expr>& exprs, const std::vector<Var>& vars,
    const std::vector<std::vector<int64_t>>& samples) {
  // for s in 0..N { let v0 = V[s, 0] { ... O[s, k] = i64(expr_k) ... } }
  const int64_t n = static_cast<int64_t>(samples.size());
  const int64_t nv = std::max<int64_t>(1, vars.size());
  const int64_t ne = static_cast<int64_t>(exprs.size());
  DataType i64 = DataType::Int(64);
  Buffer values = MakeBuffer("V", i64, {IntImm32(n), IntImm32(nv)});
  Buffer out = MakeBuffer("O", i64, {IntImm32(n), IntImm32(ne)});
  Var s = I32("s");
  std::vector<Stmt> stores;
  for (int64_t k = 0; k < ne; ++k) {
    Expr v = exprs[k]->dtype == i64 ? exprs[k] : Cast(i64, exprs[k]);
    stores.push_back(Store(out, v, {s, IntImm32(k)}));
  }
  Stmt body = Seq(stores);
  for (int64_t j = static_cast<int64_t>(vars.size()) - 1; j >= 0; --j) {
    Expr load = Load(values, {s, IntImm32(j)});
    if (vars[j]->dtype != i64) load = Cast(vars[j]->dtype, load);
    body = ValueOrDie(MakeLetStmt(vars[j], load, body));
  }
  PrimFunc f = MakePrimFunc({Param::OfBuffer(values), Param::OfBuffer(out)},
                            For(s, IntImm32(0), IntImm32(n), body));
  absl::Status verified = VerifyFunction(f);
  EXPECT_TRUE(verified.ok()) << verified;
  HostBuffer vb = HostBuffer::Zeros(i64, {n, nv});
  HostBuffer ob = HostBuffer::Zeros(i64, {n, ne});
  for (int64_t r = 0; r < n; ++r) {
    for (size_t j = 0; j < vars.size(); ++j) vb.SetInt(r * nv + j, samples[r][j]);
  }
  absl::Status run = Run(f, {Arg(vb), Arg(ob)});
  EXPECT_TRUE(run.ok()) << run;
  if (!run.ok()) return std::nullopt;
  std::vector<std::vector<int64_t>> result(n, std::vector<int64_t>(ne));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t k = 0; k < ne; ++k) result[r][k] = ob.GetInt(r * ne + k);
  }
  return result;
}

}  // namespace tessel::ir::arith::testing
