// Layer normalisation stages (see layer_norm.h).
#include "dispatch/layer_norm.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "dispatch/probe.h"
#include "dispatch/row_stages.h"
#include "ir/visitor.h"

namespace tessel::dispatch {
namespace {

// A probe point: the element, its row's mean and variance, gamma and beta there.
struct Point {
  double x, mean, var, g, b;
};
constexpr Point kPoints[] = {{1.7, 0.3, 0.8, 1.3, 0.4},
                             {-0.9, 0.3, 2.5, 0.7, -0.2},
                             {0.4, -1.1, 0.05, 2.1, 1.5},
                             {2.2, 1.0, 1.2, -0.6, 0.3},
                             {-1.6, 0.2, 0.4, 0.9, -0.8}};

// What a row accumulates of X: x (a sum) or x * x (a sum of squares), or neither.
enum class Moment { kNone, kSum, kSquares };
Moment MomentOf(const ir::Expr& value, const ir::BufferNode* x, const Indexing& ix) {
  bool sum = true, squares = true;
  for (double v : {-1.5, 0.3, 2.0}) {
    std::optional<double> y =
        ProbeValue(value, [&](const ir::BufferLoadNode* ld) -> std::optional<double> {
          if (ld->buffer.get() == x && SameExprs(ld->indices, ix.full)) return v;
          return std::nullopt;
        });
    if (!y) return Moment::kNone;
    sum = sum && std::fabs(*y - v) < 1e-9;
    squares = squares && std::fabs(*y - v * v) < 1e-9;
  }
  return sum ? Moment::kSum : squares ? Moment::kSquares : Moment::kNone;
}

// The first load of rank row + 1 at the full index: X.
const ir::BufferNode* SourceOf(const RowReduction& r) {
  class Find : public ir::IRVisitor {
   public:
    const Indexing* ix = nullptr;
    const ir::BufferNode* found = nullptr;
    void VisitBufferLoad(const ir::BufferLoadNode* op) override {
      if (found == nullptr && SameExprs(op->indices, ix->full)) found = op->buffer.get();
      IRVisitor::VisitBufferLoad(op);
    }
  } find;
  find.ix = &r.ix;
  for (const Accumulation& a : r.accs) find.VisitExpr(a.value);
  return find.found;
}

// The vectors along the axis a stage reads (loads indexed by the axis var alone).
std::vector<ir::Buffer> AxisVectors(const ir::Expr& value, const ir::Expr& axis_var) {
  class Find : public ir::IRVisitor {
   public:
    const ir::Expr* var = nullptr;
    std::vector<ir::Buffer> found;
    void VisitBufferLoad(const ir::BufferLoadNode* op) override {
      if (op->indices.size() == 1 && op->indices[0].same_as(*var)) {
        bool seen = false;
        for (const ir::Buffer& b : found) seen = seen || b.get() == op->buffer.get();
        if (!seen) found.push_back(op->buffer);
      }
      IRVisitor::VisitBufferLoad(op);
    }
  } find;
  find.var = &axis_var;
  find.VisitExpr(value);
  return find.found;
}

struct Roles {
  const ir::BufferNode* x;
  const ir::BufferNode* sum;
  const ir::BufferNode* squares;
  const ir::BufferNode* gamma;  // May be null.
  const ir::BufferNode* beta;   // May be null.
  double n;                     // The row length.
};

// The stage's value at point p, the loads taking their roles' values; nullopt when
// it reads anything else.
std::optional<double> ValueAt(const ir::Expr& value, const Roles& r, const Indexing& ix,
                              const Point& p) {
  const ir::Expr& axis_var = ix.full.back();
  return ProbeValue(value, [&](const ir::BufferLoadNode* ld) -> std::optional<double> {
    const ir::BufferNode* b = ld->buffer.get();
    if (b == r.x && SameExprs(ld->indices, ix.full)) return p.x;
    if (b == r.sum && SameExprs(ld->indices, ix.row)) return p.mean * r.n;
    if (b == r.squares && SameExprs(ld->indices, ix.row)) return (p.var + p.mean * p.mean) * r.n;
    if (ld->indices.size() == 1 && ld->indices[0].same_as(axis_var)) {
      if (b == r.gamma) return p.g;
      if (b == r.beta) return p.b;
    }
    return std::nullopt;
  });
}

// eps when the stage computes (x - mean) / sqrt(var + eps) * gamma + beta with
// these roles at every probe point.
std::optional<double> FitEps(const ir::Expr& value, const Roles& r, const Indexing& ix) {
  std::optional<double> eps;
  for (const Point& p : kPoints) {
    std::optional<double> y = ValueAt(value, r, ix, p);
    if (!y || !std::isfinite(*y)) return std::nullopt;
    const double g = r.gamma ? p.g : 1.0, b = r.beta ? p.b : 0.0;
    if (!eps) {  // sqrt(var + eps) = (x - mean) g / (y - b)
      if (std::fabs(*y - b) < 1e-12) return std::nullopt;
      const double root = (p.x - p.mean) * g / (*y - b);
      eps = root * root - p.var;
      if (root <= 0 || *eps < 0 || *eps > 1) return std::nullopt;
    }
    const double want = (p.x - p.mean) / std::sqrt(p.var + *eps) * g + b;
    if (std::fabs(*y - want) > 1e-6 * std::max(1.0, std::fabs(want))) return std::nullopt;
  }
  return eps;
}

}  // namespace

std::string LayerNorm::ToString() const {
  return absl::StrCat("layer_norm(", src->name, ", eps ", eps,
                      gamma ? ", gamma " + gamma->name : "", beta ? ", beta " + beta->name : "",
                      ")");
}

std::variant<LayerNorm, std::string> MatchLayerNorm(const ir::PrimFunc& func, const StageList& list,
                                                    size_t s) {
  const std::vector<Stage>& st = list.stages;
  if (st[s].block == nullptr) return std::string("not a block");
  std::variant<RowReduction, std::string> first = MatchRowReduction(st[s], ir::NodeKind::kAdd, 0.0);
  if (auto* why = std::get_if<std::string>(&first)) return "no row sums: " + *why;
  const RowReduction& red = std::get<RowReduction>(first);
  Roles roles{};
  roles.x = SourceOf(red);
  LayerNorm out;
  out.dims = red.dims;
  out.stages = {s};
  auto take = [&](const RowReduction& r) {
    for (const Accumulation& a : r.accs) {
      Moment m = MomentOf(a.value, roles.x, r.ix);
      if (m == Moment::kSum && roles.sum == nullptr) {
        roles.sum = a.acc;
      } else if (m == Moment::kSquares && roles.squares == nullptr) {
        roles.squares = a.acc;
      } else {
        return false;
      }
      out.dropped.push_back(a.acc);
    }
    return true;
  };
  if (roles.x == nullptr || !take(red)) return std::string("no row sums: not of x and x * x");
  size_t next = s + 1;
  if (roles.squares == nullptr || roles.sum == nullptr) {  // The other sum in a block of its own.
    if (next >= st.size() || st[next].block == nullptr) return std::string("no sum of squares");
    std::variant<RowReduction, std::string> second =
        MatchRowReduction(st[next], ir::NodeKind::kAdd, 0.0);
    auto* r2 = std::get_if<RowReduction>(&second);
    if (r2 == nullptr || r2->axis != red.axis || r2->dims != red.dims || SourceOf(*r2) != roles.x ||
        !take(*r2) || roles.sum == nullptr || roles.squares == nullptr) {
      return std::string("no sums of both x and x * x along one axis");
    }
    out.stages.push_back(next++);
  }
  if (red.axis != static_cast<int>(red.dims.size()) - 1) {
    return absl::StrCat("it normalises axis ", red.axis, ", not the last (oneDNN's layer norm)");
  }
  roles.n = static_cast<double>(red.dims.back());
  if (next >= st.size() || st[next].block == nullptr) return std::string("nothing normalises");
  const ir::BufferStoreNode* ystore = nullptr;
  std::variant<Indexing, std::string> nix = MatchRowwise(st[next], red.axis, red.dims, &ystore);
  if (auto* why = std::get_if<std::string>(&nix)) return "the normalising stage: " + *why;
  const Indexing& ix = std::get<Indexing>(nix);
  std::vector<ir::Buffer> vectors = AxisVectors(ystore->value, ix.full.back());
  for (const ir::Buffer& v : vectors) {
    const ir::BufferNode* vb = v.get();
    if (vb == roles.x || vb == roles.sum || vb == roles.squares || vb == ystore->buffer.get()) {
      return absl::StrCat("the normalising stage reads '", v->name, "' along the axis as a vector");
    }
  }
  if (ystore->buffer.get() == roles.x || ystore->buffer.get() == roles.sum ||
      ystore->buffer.get() == roles.squares) {
    return std::string("it normalises in place");
  }
  if (vectors.size() > 2)
    return std::string("the normalising stage reads more than gamma and beta");
  // Every assignment of the vectors to gamma and beta, the vectors all used.
  std::vector<std::pair<ir::Buffer, ir::Buffer>> options;
  if (vectors.empty()) options.push_back({nullptr, nullptr});
  if (vectors.size() == 1) options = {{vectors[0], nullptr}, {nullptr, vectors[0]}};
  if (vectors.size() == 2) options = {{vectors[0], vectors[1]}, {vectors[1], vectors[0]}};
  for (const auto& [g, b] : options) {
    roles.gamma = g.get();
    roles.beta = b.get();
    std::optional<double> eps = FitEps(ystore->value, roles, ix);
    if (!eps) continue;
    out.dst = ystore->buffer;
    out.gamma = g;
    out.beta = b;
    out.eps = static_cast<float>(*eps);
    break;
  }
  if (!out.dst) {
    return std::string("the last stage is not (x - mean) / sqrt(var + eps) * gamma + beta");
  }
  // X itself, as a Buffer: a load of it in the normalising stage.
  class FindX : public ir::IRVisitor {
   public:
    const ir::BufferNode* x = nullptr;
    ir::Buffer found;
    void VisitBufferLoad(const ir::BufferLoadNode* op) override {
      if (op->buffer.get() == x) found = op->buffer;
      IRVisitor::VisitBufferLoad(op);
    }
  } find_x;
  find_x.x = roles.x;
  find_x.VisitExpr(ystore->value);
  if (!find_x.found) return std::string("the normalising stage does not read X");
  out.src = find_x.found;
  out.stages.push_back(next);
  if (std::string why = OwnedBy(func, list, out.stages, out.dropped); !why.empty()) return why;
  for (const ir::Buffer& b : {out.src, out.dst, out.gamma, out.beta}) {
    if (b && b->dtype != ir::DataType::Float(32)) {
      return absl::StrCat("dtype ", b->dtype.ToString(), " (the oneDNN rule takes f32)");
    }
  }
  if (out.dims.size() < 2 || out.dims.size() > 6) return std::string("2 to 6 dimensions only");
  return out;
}

}  // namespace tessel::dispatch
