// Iter-map detection: are a block's bindings an affine, bijective map of the
// loop variables around it? Most schedule primitives need the answer, and the
// structured form says how loops were split and fused.
//
//   loops io in [0, 7), ii in [0, 16), f in [0, 32), predicate io * 16 + ii < 100
//   bindings  vi = io * 16 + ii,  vj = f // 8,  vk = f %% 8
//   DetectIterMap(...) ->
//     vi: (io[7] * 16 + ii[16])[100]     one fused iterator, cut to 100 by the predicate
//     vj: f[32] // 8                      the upper split of f
//     vk: f[32] %% 8                      the lower split of f
//   bindings  vi = i + j           -> error: "i + j: the terms do not fuse into one
//                                     iterator (no term with scale 8 ...)"
//   bindings  vi = i, vj = i       -> error: "loop variable i is used twice ..."
//
// Vocabulary (as in TVM's arith::IterMapExpr):
// - an IterMark is an iterator taking each value in [0, extent) once: a loop
//   variable (minus its minimum), or a fused sum of splits of other marks;
// - an IterSplit is floormod(floordiv(mark, lower_factor), extent) * scale: a
//   digit of a mark in a mixed radix;
// - an IterSum is a sum of splits plus a base that uses no loop variable.
// A map is bijective when every mark is cut into splits that tile it exactly
// (each digit used once, none missing), every loop variable is used and every
// index has scale 1: each index then takes every value of [base, base + extent)
// and the loops map one-to-one onto the box of the indices. It is surjective
// when digits do not overlap but some may be unused (f // 8 alone) and indices
// may have scales (i * 2 reaches the even values of its range).
// Divisors must not involve loop variables; non-divisible splits are reported,
// except where a predicate `fused < bound` cuts a fused iterator (the padding a
// non-divisible split leaves).
#ifndef TESSEL_IR_ARITH_ITER_MAP_H_
#define TESSEL_IR_ARITH_ITER_MAP_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/stmt.h"

namespace tessel::ir::arith {

class Analyzer;
struct IterMarkNode;
using IterMark = std::shared_ptr<const IterMarkNode>;

// floormod(floordiv(mark, lower_factor), extent) * scale.
struct IterSplit {
  IterMark mark;
  Expr lower_factor;
  Expr extent;
  Expr scale;
};

// sum(args) + base.
struct IterSum {
  std::vector<IterSplit> args;
  Expr base;
};

struct IterMarkNode {
  Var var;        // Set for a loop variable: the mark is var - var_min.
  Expr var_min;   // The loop's minimum (for a loop variable).
  IterSum fused;  // For a fused mark: its splits, lowest digit last in no particular order.
  Expr extent;    // The mark takes every value in [0, extent) exactly once.
  bool is_loop_var() const { return var != nullptr; }
};

enum class IterMapLevel {
  kBijective,   // Loop points map one-to-one onto the box of the index ranges.
  kSurjective,  // Digits of each iterator do not overlap; some may be unused.
  kNoCheck,     // Affine only: no coverage check, predicates not required to fit.
};

struct IterMapInput {
  Var var;
  Range dom;
};

// The structured form of `indices` (one IterSum per index, with at most one
// split) over the loop variables `loops`, under `predicate` (a bool, may be
// null or true). On failure the status says which index and why. `ana` holds
// the context (outer loops, facts); the loops are bound inside a scope.
absl::StatusOr<std::vector<IterSum>> DetectIterMap(const std::vector<Expr>& indices,
                                                   const std::vector<IterMapInput>& loops,
                                                   const Expr& predicate, IterMapLevel level,
                                                   Analyzer* ana);

// The expression an IterSum stands for, e.g. floordiv(f, 8) or io * 16 + ii.
Expr IterSumToExpr(const IterSum& sum);
Expr IterMarkToExpr(const IterMark& mark);
// "(io[7] * 16 + ii[16])[100]", "f[32] // 8", "f[32] %% 8 * 2 + 1".
std::string IterSumToString(const IterSum& sum);
std::string IterMarkToString(const IterMark& mark);

}  // namespace tessel::ir::arith

#endif  // TESSEL_IR_ARITH_ITER_MAP_H_
