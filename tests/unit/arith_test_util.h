// Shared helpers for the arith units: short expression builders, an exact
// evaluator (the mathematical value, and whether any node overflowed), and a
// batch evaluator that runs expressions in the reference interpreter, whose
// integer semantics (wrapping, C and floor division) are the oracle.
//
//   Var i = I32("i");
//   Expr e = i * 16 + 3;                                  // operators on Expr
//   std::optional<int64_t> v = EvalExact(e, {{i.get(), 2}});   // 35
//   std::vector<std::vector<int64_t>> out =
//       EvalInInterpreter({e}, {i}, {{2}, {5}});          // {{35}, {83}}
#ifndef TESSEL_TESTS_UNIT_ARITH_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_ARITH_TEST_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"
#include "ir/arith/analyzer.h"
#include "ir/interpreter.h"
#include "ir/printer.h"

namespace tessel::ir::arith::testing {

inline Var I32(const std::string& name) { return MakeVar(name, DataType::Int(32)); }
inline Expr C(int64_t v) { return IntImm32(v); }
inline std::string Str(const Expr& e) { return e ? PrintExpr(e) : "<null>"; }
inline Range R(int64_t min, int64_t extent) { return Range{IntImm32(min), IntImm32(extent)}; }

inline Expr operator+(const Expr& a, const Expr& b) { return Add(a, b); }
inline Expr operator-(const Expr& a, const Expr& b) { return Sub(a, b); }
inline Expr operator*(const Expr& a, const Expr& b) { return Mul(a, b); }
inline Expr operator+(const Expr& a, int64_t b) { return Add(a, IntImm(a->dtype, b)); }
inline Expr operator-(const Expr& a, int64_t b) { return Sub(a, IntImm(a->dtype, b)); }
inline Expr operator*(const Expr& a, int64_t b) { return Mul(a, IntImm(a->dtype, b)); }
inline Expr operator+(int64_t a, const Expr& b) { return Add(IntImm(b->dtype, a), b); }
inline Expr operator-(int64_t a, const Expr& b) { return Sub(IntImm(b->dtype, a), b); }
inline Expr operator*(int64_t a, const Expr& b) { return Mul(IntImm(b->dtype, a), b); }
inline Expr Fd(const Expr& a, int64_t c) { return FloorDiv(a, IntImm(a->dtype, c)); }
inline Expr Fm(const Expr& a, int64_t c) { return FloorMod(a, IntImm(a->dtype, c)); }

using Env = absl::flat_hash_map<const VarNode*, int64_t>;

// The mathematical value of an integer or bool expression over `env` (vars,
// constants, arithmetic, comparisons, logic, select, casts between integers).
// `overflow` is set when some node's value leaves its dtype; nothing is returned
// for division by zero or unsupported nodes.
std::optional<__int128> EvalExactWide(const Expr& e, const Env& env, bool* overflow);
inline std::optional<int64_t> EvalExact(const Expr& e, const Env& env) {
  bool overflow = false;
  std::optional<__int128> v = EvalExactWide(e, env, &overflow);
  if (!v || overflow) return std::nullopt;
  return static_cast<int64_t>(*v);
}

// Runs every expression of `exprs` (integer or bool, over `vars`) on each row
// of `samples` (one value per var) in the interpreter; one row of results per
// sample (bools as 0/1). Fails the test (and returns nothing) when the
// interpreter reports an error, e.g. a division by zero.
std::optional<std::vector<std::vector<int64_t>>> EvalInInterpreter(
    const std::vector<Expr>& exprs, const std::vector<Var>& vars,
    const std::vector<std::vector<int64_t>>& samples);

}  // namespace tessel::ir::arith::testing

#endif  // TESSEL_TESTS_UNIT_ARITH_TEST_UTIL_H_
