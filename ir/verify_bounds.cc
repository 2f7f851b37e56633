// Accesses the verifier proves out of bounds (see ir/verify_walk.h): an index
// that is an affine form of loop variables with constant ranges takes its
// smallest and largest value at a corner of the loops' box, and every corner
// runs unless something guards the access. So such an index whose extreme
// leaves the buffer is a certain out-of-bounds access:
//
//   for i in range(0, 4) {
//     for j in range(0, 4) {
//       block B(vi: spatial[0, 4] = i, vj: spatial[0, 4] = j) {
//         B[vi, vj] = A[vi * 1000000, vj]
//       }
//     }
//   }
//   -> "verify: function 'f': block 'B': load of buffer 'A': index vi * 1000000
//       reaches 3000000 in dimension 0, outside [0, 4) ..."
//
// Block iter vars stand for their bindings. An access under an `if`, a block
// predicate, a zero-trip loop or the right operand of && / || is left alone:
// its corners may never run (the interpreter checks it when it runs).
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "ir/verify_walk.h"

namespace tessel::ir {

namespace {

constexpr int kMaxSubstitutionDepth = 16;
// Beyond this magnitude a form is given up (no overflow of the 128-bit sums).
constexpr __int128 kMaxMagnitude = static_cast<__int128>(1) << 100;

bool TooBig(__int128 v) { return v > kMaxMagnitude || v < -kMaxMagnitude; }

}  // namespace

std::pair<FunctionVerifier::Int, FunctionVerifier::Int> FunctionVerifier::Extremes(
    const Affine& f) const {
  Int lo = f.constant, hi = f.constant;
  for (const auto& [v, coef] : f.terms) {
    const ForNode* loop = visible_.at(v).loop;
    const Int first = *ConstInt(loop->min), last = first + *ConstInt(loop->extent) - 1;
    lo += coef > 0 ? coef * first : coef * last;
    hi += coef > 0 ? coef * last : coef * first;
  }
  return {lo, hi};
}

std::optional<FunctionVerifier::Affine> FunctionVerifier::AffineOf(const Expr& e, int depth) const {
  if (!e || !e->dtype.is_integer() || !e->dtype.is_scalar() || depth > kMaxSubstitutionDepth) {
    return std::nullopt;
  }
  std::optional<Affine> out;
  if (std::optional<Int> c = ConstInt(e)) {
    out = Affine{*c, {}};
  } else if (const auto* v = dyn_cast<VarNode>(e)) {
    auto it = visible_.find(v);
    if (it == visible_.end()) return std::nullopt;
    if (it->second.binder == Binder::kIterVar) {
      auto value = iter_values_.find(v);
      if (value == iter_values_.end()) return std::nullopt;
      out = AffineOf(value->second, depth + 1);
    } else if (it->second.binder == Binder::kLoop) {
      std::optional<Int> min = ConstInt(it->second.loop->min);
      std::optional<Int> extent = ConstInt(it->second.loop->extent);
      if (!min || !extent || *extent <= 0) return std::nullopt;
      out = Affine{0, {{v, 1}}};
    }
  } else if (const auto* c = dyn_cast<CastNode>(e)) {
    // A widening integer cast keeps the value.
    if (!c->value->dtype.is_integer() || c->value->dtype.bits() > e->dtype.bits() ||
        c->value->dtype.is_uint() != e->dtype.is_uint()) {
      return std::nullopt;
    }
    out = AffineOf(c->value, depth);
  } else if (e->kind() == NodeKind::kAdd || e->kind() == NodeKind::kSub ||
             e->kind() == NodeKind::kMul) {
    const auto* op = cast<BinaryNode>(e.get());
    std::optional<Affine> a = AffineOf(op->a, depth), b = AffineOf(op->b, depth);
    if (!a || !b) return std::nullopt;
    if (e->kind() == NodeKind::kMul) {
      if (!a->terms.empty() && !b->terms.empty()) return std::nullopt;  // Not affine.
      if (!a->terms.empty()) std::swap(a, b);
      const Int k = a->constant;  // a is the constant side now.
      out = Affine{b->constant * k, {}};
      for (const auto& [v, coef] : b->terms) out->terms.push_back({v, coef * k});
    } else {
      const Int sign = e->kind() == NodeKind::kSub ? -1 : 1;
      out = std::move(a);
      out->constant += sign * b->constant;
      for (const auto& [v, coef] : b->terms) {
        auto same = std::find_if(out->terms.begin(), out->terms.end(),
                                 [&](const auto& t) { return t.first == v; });
        if (same == out->terms.end()) {
          out->terms.push_back({v, sign * coef});
        } else {
          same->second += sign * coef;
        }
      }
      std::erase_if(out->terms, [](const auto& t) { return t.second == 0; });
    }
  }
  if (!out || TooBig(out->constant)) return std::nullopt;
  for (const auto& [v, coef] : out->terms) {
    if (TooBig(coef)) return std::nullopt;
  }
  // A subexpression that may wrap at run time does not take the exact values.
  const auto [lo, hi] = Extremes(*out);
  const int bits = e->dtype.bits();
  const Int type_min = e->dtype.is_uint() ? 0 : -(static_cast<Int>(1) << (bits - 1));
  const Int type_max = e->dtype.is_uint() ? (static_cast<Int>(1) << bits) - 1
                                          : (static_cast<Int>(1) << (bits - 1)) - 1;
  if (lo < type_min || hi > type_max) return std::nullopt;
  return out;
}

absl::Status FunctionVerifier::CheckAffineIndex(const Buffer& buffer, size_t dim,
                                                const Expr& index, Int extent, const char* what) {
  if (guard_depth_ > 0) return absl::OkStatus();
  Expr base = index;
  Int stride = 0;
  int lanes = 1;
  if (const auto* ramp = dyn_cast<RampNode>(index)) {
    std::optional<Int> s = ConstInt(ramp->stride);
    if (!s) return absl::OkStatus();
    base = ramp->base;
    stride = *s;
    lanes = ramp->lanes;
  } else if (const auto* bc = dyn_cast<BroadcastNode>(index)) {
    base = bc->value;
  }
  std::optional<Affine> form = AffineOf(base, 0);
  if (!form) return absl::OkStatus();
  auto [lo, hi] = Extremes(*form);
  const Int last_lane = stride * (lanes - 1);
  lo += std::min<Int>(0, last_lane);
  hi += std::max<Int>(0, last_lane);
  if (lo >= 0 && hi < extent) return absl::OkStatus();
  const Int bad = lo < 0 ? lo : hi;
  return Fail(absl::StrCat(what, " of buffer '", buffer->name, "': index ", ShowExpr(index),
                           " reaches ", IntText(bad), " in dimension ", dim, ", outside [0, ",
                           IntText(extent), "); the loops around it run every value of their "
                           "ranges and nothing guards the access"),
              index.get());
}

}  // namespace tessel::ir
