// Softmax and log-softmax stages (see softmax.h).
#include "dispatch/softmax.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "dispatch/probe.h"
#include "dispatch/row_stages.h"

namespace tessel::dispatch {
namespace {

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

}  // namespace

std::string Softmax::ToString() const {
  return absl::StrCat(log ? "log_softmax(" : "softmax(", src->name, ", axis ", axis, ")");
}

std::variant<Softmax, std::string> MatchSoftmax(const ir::PrimFunc& func, const StageList& list,
                                                size_t s) {
  const std::vector<Stage>& st = list.stages;
  if (st[s].block == nullptr) return std::string("not a block");
  std::variant<RowReduction, std::string> a =
      MatchRowReduction(st[s], ir::NodeKind::kMax, -INFINITY);
  if (auto* why = std::get_if<std::string>(&a)) return "no max reduction: " + *why;
  const RowReduction& mx = std::get<RowReduction>(a);
  if (mx.accs.size() != 1) return std::string("no max reduction: it has several outputs");
  const auto* xload = ir::dyn_cast<ir::BufferLoadNode>(mx.accs[0].value);
  if (xload == nullptr || !SameExprs(xload->indices, mx.ix.full)) {
    return std::string("the max is not of a tensor's elements");
  }
  Softmax out;
  out.src = xload->buffer;
  out.axis = mx.axis;
  out.dims = mx.dims;
  out.stages = {s};
  Tensors t{.x = xload->buffer.get(), .m = mx.accs[0].acc};
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
  std::variant<RowReduction, std::string> c =
      MatchRowReduction(*sum_stage, ir::NodeKind::kAdd, 0.0);
  if (auto* why = std::get_if<std::string>(&c)) return "no sum of exponentials: " + *why;
  const RowReduction& sum = std::get<RowReduction>(c);
  if (sum.accs.size() != 1 || sum.axis != out.axis || sum.dims != out.dims ||
      !ProbeStage(sum.accs[0].value, t, sum.ix, ExpXM)) {
    return std::string("the sum after the max is not of exp(x - max) along the same axis");
  }
  t.s = sum.accs[0].acc;
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
  // Five distinct tensors (an exp stored back into X would make the sum read it).
  {
    std::vector<const ir::BufferNode*> all = out.dropped;
    all.push_back(out.src.get());
    all.push_back(out.dst.get());
    std::sort(all.begin(), all.end());
    if (std::adjacent_find(all.begin(), all.end()) != all.end()) {
      return std::string("two of its stages write one tensor");
    }
  }
  // The intermediates belong to the softmax alone.
  if (std::string why = OwnedBy(func, list, out.stages, out.dropped); !why.empty()) return why;
  if (out.src->dtype != ir::DataType::Float(32) || out.dst->dtype != ir::DataType::Float(32)) {
    return absl::StrCat("dtype ", out.dst->dtype.ToString(), " (the oneDNN rule takes f32)");
  }
  if (out.dims.size() > 6) return std::string("more than 6 dimensions");
  return out;
}

}  // namespace tessel::dispatch
