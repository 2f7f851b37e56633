// Softmax and log-softmax stages (see softmax.h).
#include "dispatch/softmax.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "dispatch/probe.h"
#include "ir/visitor.h"

namespace tessel::dispatch {
namespace {

// How a stage indexes the tensors of a softmax: `full` is X's index (the row's
// vars with the axis var at `axis`), `row` the same without it.
struct Indexing {
  std::vector<ir::Expr> full, row;
};

bool SameExprs(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

// Whether every index is a distinct iter var of `block`; the extent of each
// (from the stage) goes to `extents`.
bool PlainVars(const Stage& st, const std::vector<ir::Expr>& indices,
               std::vector<int64_t>* extents) {
  extents->clear();
  for (size_t d = 0; d < indices.size(); ++d) {
    int found = -1;
    for (size_t i = 0; i < st.block->iter_vars.size(); ++i) {
      if (indices[d].same_as(st.block->iter_vars[i].var)) found = static_cast<int>(i);
    }
    if (found < 0) return false;
    for (size_t e = 0; e < d; ++e) {
      if (indices[e].same_as(indices[d])) return false;
    }
    extents->push_back(st.extents[found]);
  }
  return true;
}

// The values of the tensors at one probe point: X = x, M = m, E = exp(x - m), S = s.
struct Point {
  double x, m, s;
};
constexpr Point kPoints[] = {
    {-1.3, 0.7, 1.7}, {0.2, -0.4, 3.2}, {2.5, 0.7, 0.9}, {-0.6, -0.4, 5.5}, {1.1, 1.9, 2.3}};

// The tensors of the softmax found so far, with how each is indexed.
struct Tensors {
  const ir::BufferNode* x = nullptr;
  const ir::BufferNode* m = nullptr;
  const ir::BufferNode* e = nullptr;
  const ir::BufferNode* s = nullptr;
};

// Whether `value`, with every load at the right index (X, E full; M, S row) and
// nothing else read, equals `want` at every probe point.
bool ProbeStage(const ir::Expr& value, const Tensors& t, const Indexing& ix,
                double (*want)(const Point&)) {
  for (const Point& p : kPoints) {
    bool bad_index = false;
    std::optional<double> v =
        ProbeValue(value, [&](const ir::BufferLoadNode* ld) -> std::optional<double> {
          const ir::BufferNode* b = ld->buffer.get();
          const bool full = SameExprs(ld->indices, ix.full), row = SameExprs(ld->indices, ix.row);
          if (b == t.x && full) return p.x;
          if (b == t.e && full) return std::exp(p.x - p.m);
          if (b == t.m && row) return p.m;
          if (b == t.s && row) return p.s;
          bad_index = b == t.x || b == t.e || b == t.m || b == t.s;
          return std::nullopt;
        });
    if (bad_index || !v) return false;
    const double w = want(p);
    if (std::fabs(*v - w) > 1e-6 * std::max(1.0, std::fabs(w))) return false;
  }
  return true;
}

double ExpXM(const Point& p) { return std::exp(p.x - p.m); }
double SoftmaxOf(const Point& p) { return std::exp(p.x - p.m) / p.s; }
double LogSoftmaxOf(const Point& p) { return p.x - p.m - std::log(p.s); }

// A reduction stage `acc[row] = combine(acc[row], value)` from `acc = init`, with
// one reduce iter var: the store, its value operand and the indexing (the axis at
// `axis`, or found from the value's loads of rank row + 1 when `axis` < 0).
struct Reduction {
  const ir::BufferStoreNode* store = nullptr;
  ir::Expr value;
  Indexing ix;
  int axis = -1;
  std::vector<int64_t> dims;  // Extents of the full index.
};

std::variant<Reduction, std::string> MatchReduction(const Stage& st, ir::NodeKind combine,
                                                    double init) {
  const ir::BlockNode* b = st.block;
  const ir::IterVar* k = nullptr;
  for (const ir::IterVar& iv : b->iter_vars) {
    if (iv.kind == ir::IterKind::kReduce) {
      if (k != nullptr) return std::string("it reduces over more than one iterator");
      k = &iv;
    } else if (iv.kind != ir::IterKind::kSpatial) {
      return std::string("an opaque iterator");
    }
  }
  const auto* store = ir::dyn_cast<ir::BufferStoreNode>(b->body);
  const auto* first = b->init ? ir::dyn_cast<ir::BufferStoreNode>(b->init) : nullptr;
  if (k == nullptr || store == nullptr || first == nullptr) {
    return std::string("it is not one reduction into one buffer");
  }
  const auto* init_value = ir::dyn_cast<ir::FloatImmNode>(first->value);
  const bool init_ok = init_value != nullptr && (std::isinf(init) ? init_value->value <= -3.0e38
                                                                  : init_value->value == init);
  if (first->buffer.get() != store->buffer.get() || !SameExprs(first->indices, store->indices) ||
      !init_ok) {
    return std::string("its init is not the reduction's identity");
  }
  const auto* bin = ir::dyn_cast<ir::BinaryNode>(store->value);
  if (bin == nullptr || bin->kind() != combine) return std::string("the combiner differs");
  auto is_acc = [&](const ir::Expr& e) {
    const auto* ld = ir::dyn_cast<ir::BufferLoadNode>(e);
    return ld != nullptr && ld->buffer.get() == store->buffer.get() &&
           SameExprs(ld->indices, store->indices);
  };
  Reduction r;
  r.store = store;
  if (is_acc(bin->a)) {
    r.value = bin->b;
  } else if (is_acc(bin->b)) {
    r.value = bin->a;
  } else {
    return std::string("it does not accumulate into its output");
  }
  std::vector<int64_t> row_extents;
  if (!PlainVars(st, store->indices, &row_extents)) {
    return std::string("its output is not indexed by plain iterators");
  }
  r.ix.row = store->indices;
  // The full index: the first load of rank row + 1 that is the row's vars with the
  // reduce var inserted somewhere.
  class Loads : public ir::IRVisitor {
   public:
    std::vector<const ir::BufferLoadNode*> all;
    void VisitBufferLoad(const ir::BufferLoadNode* op) override {
      all.push_back(op);
      IRVisitor::VisitBufferLoad(op);
    }
  } loads;
  loads.VisitExpr(r.value);
  for (const ir::BufferLoadNode* ld : loads.all) {
    if (ld->indices.size() != r.ix.row.size() + 1) continue;
    for (size_t a = 0; a < ld->indices.size(); ++a) {
      std::vector<ir::Expr> full = r.ix.row;
      full.insert(full.begin() + static_cast<std::ptrdiff_t>(a), k->var);
      if (SameExprs(ld->indices, full)) {
        r.axis = static_cast<int>(a);
        r.ix.full = full;
        break;
      }
    }
    if (r.axis >= 0) break;
  }
  if (r.axis < 0) return std::string("it reads no row of a tensor along its reduce iterator");
  if (!PlainVars(st, r.ix.full, &r.dims)) return std::string("an iterator is used twice");
  return r;
}

// A spatial stage `out[full] = value` over the full index (the axis at `axis`).
std::variant<Indexing, std::string> MatchRowwise(const Stage& st, int axis,
                                                 const std::vector<int64_t>& dims,
                                                 const ir::BufferStoreNode** out) {
  const ir::BlockNode* b = st.block;
  const auto* store = ir::dyn_cast<ir::BufferStoreNode>(b->body);
  if (store == nullptr || b->init) return std::string("it is not one elementwise store");
  for (const ir::IterVar& iv : b->iter_vars) {
    if (iv.kind != ir::IterKind::kSpatial) return std::string("it reduces");
  }
  std::vector<int64_t> extents;
  if (!PlainVars(st, store->indices, &extents) || extents != dims) {
    return std::string("it does not write the tensor's shape by plain iterators");
  }
  Indexing ix;
  ix.full = store->indices;
  ix.row = store->indices;
  ix.row.erase(ix.row.begin() + axis);
  *out = store;
  return ix;
}

}  // namespace

std::string Softmax::ToString() const {
  return absl::StrCat(log ? "log_softmax(" : "softmax(", src->name, ", axis ", axis, ")");
}

std::variant<Softmax, std::string> MatchSoftmax(const ir::PrimFunc& func, const StageList& list,
                                                size_t s) {
  const std::vector<Stage>& st = list.stages;
  if (st[s].block == nullptr) return std::string("not a block");
  std::variant<Reduction, std::string> a = MatchReduction(st[s], ir::NodeKind::kMax, -INFINITY);
  if (auto* why = std::get_if<std::string>(&a)) return "no max reduction: " + *why;
  const Reduction& mx = std::get<Reduction>(a);
  const auto* xload = ir::dyn_cast<ir::BufferLoadNode>(mx.value);
  if (xload == nullptr || !SameExprs(xload->indices, mx.ix.full)) {
    return std::string("the max is not of a tensor's elements");
  }
  Softmax out;
  out.src = xload->buffer;
  out.axis = mx.axis;
  out.dims = mx.dims;
  out.stages = {s};
  Tensors t{.x = xload->buffer.get(), .m = mx.store->buffer.get()};
  out.dropped = {t.m};
  size_t next = s + 1;
  auto stage_at = [&](size_t j) -> const Stage* {
    return j < st.size() && st[j].block != nullptr ? &st[j] : nullptr;
  };
  // Optional: E = exp(X - M).
  if (const Stage* e = stage_at(next)) {
    const ir::BufferStoreNode* store = nullptr;
    std::variant<Indexing, std::string> ix = MatchRowwise(*e, out.axis, out.dims, &store);
    if (auto* i = std::get_if<Indexing>(&ix);
        i != nullptr && ProbeStage(store->value, t, *i, ExpXM)) {
      t.e = store->buffer.get();
      out.dropped.push_back(t.e);
      out.stages.push_back(next++);
    }
  }
  // S = sum over the axis of E (or of exp(X - M)).
  const Stage* sum_stage = stage_at(next);
  if (sum_stage == nullptr) return std::string("no sum of exponentials follows the max");
  std::variant<Reduction, std::string> c = MatchReduction(*sum_stage, ir::NodeKind::kAdd, 0.0);
  if (auto* why = std::get_if<std::string>(&c)) return "no sum of exponentials: " + *why;
  const Reduction& sum = std::get<Reduction>(c);
  if (sum.axis != out.axis || sum.dims != out.dims || !ProbeStage(sum.value, t, sum.ix, ExpXM)) {
    return std::string("the sum after the max is not of exp(x - max) along the same axis");
  }
  t.s = sum.store->buffer.get();
  out.dropped.push_back(t.s);
  out.stages.push_back(next++);
  // Y = E / S (softmax) or X - M - log(S) (log-softmax).
  const Stage* norm = stage_at(next);
  if (norm == nullptr) return std::string("nothing normalises by the sum");
  const ir::BufferStoreNode* ystore = nullptr;
  std::variant<Indexing, std::string> nix = MatchRowwise(*norm, out.axis, out.dims, &ystore);
  if (auto* why = std::get_if<std::string>(&nix)) return "the normalising stage: " + *why;
  if (ProbeStage(ystore->value, t, std::get<Indexing>(nix), SoftmaxOf)) {
    out.log = false;
  } else if (ProbeStage(ystore->value, t, std::get<Indexing>(nix), LogSoftmaxOf)) {
    out.log = true;
  } else {
    return std::string("the last stage is neither exp(x - max) / sum nor x - max - log(sum)");
  }
  out.dst = ystore->buffer;
  out.stages.push_back(next);
  // The intermediates belong to the softmax alone.
  for (const ir::BufferNode* b : out.dropped) {
    if (IsParam(func, b))
      return absl::StrCat("'", b->name, "' is a parameter (the caller reads it)");
    for (size_t k = 0; k < st.size(); ++k) {
      bool inside = false;
      for (size_t j : out.stages) inside = inside || j == k;
      if (!inside && StageReads(st[k], b)) {
        return absl::StrCat("'", b->name, "' is also read outside the matched region");
      }
    }
  }
  if (out.src->dtype != ir::DataType::Float(32) || out.dst->dtype != ir::DataType::Float(32)) {
    return absl::StrCat("dtype ", out.dst->dtype.ToString(), " (the oneDNN rule takes f32)");
  }
  if (out.dims.size() > 6) return std::string("more than 6 dimensions");
  return out;
}

}  // namespace tessel::dispatch
