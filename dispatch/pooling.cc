// 2-D pooling stages (see pooling.h).
#include "dispatch/pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "dispatch/probe.h"
#include "dispatch/row_stages.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/visitor.h"

namespace tessel::dispatch {
namespace {

// The iter var of `block` that `e` is, or -1.
int VarIndex(const ir::BlockNode* block, const ir::Expr& e) {
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (e.same_as(block->iter_vars[i].var)) return static_cast<int>(i);
  }
  return -1;
}

// `index` = o * stride + r * dilation - pad_lo in the vars o and r, read off by
// evaluating it at four points; false when it is not of that form.
bool Window(const ir::Expr& index, const ir::Var& o, const ir::Var& r, int64_t* stride,
            int64_t* dilation, int64_t* pad_lo) {
  auto at = [&](int64_t ov, int64_t rv) {
    ir::VarMap m;
    m[o.get()] = ir::IntImm(o->dtype, ov);
    m[r.get()] = ir::IntImm(r->dtype, rv);
    return ir::arith::AsConstInt(EvalAt(index, m));
  };
  std::optional<int64_t> v00 = at(0, 0), v10 = at(1, 0), v01 = at(0, 1);
  if (!v00 || !v10 || !v01) return false;
  *stride = *v10 - *v00;
  *dilation = *v01 - *v00;
  *pad_lo = -*v00;
  if (*stride < 1 || *dilation < 1) return false;
  // The points give the form; the analyzer proves the index is exactly it (not
  // `(o % 3) * 2 + r`, which agrees at small o).
  const ir::DataType t = index->dtype;
  ir::Expr form = ir::Sub(ir::Add(ir::Mul(ir::Cast(t, o), ir::IntImm(t, *stride)),
                                  ir::Mul(ir::Cast(t, r), ir::IntImm(t, *dilation))),
                          ir::IntImm(t, *pad_lo));
  ir::arith::Analyzer ana;
  return ana.CanProveEqual(index, form);
}

// The statement of a reduction body under its optional guard.
const ir::BufferStoreNode* GuardedStore(const ir::Stmt& body, ir::Expr* guard) {
  if (const auto* g = ir::dyn_cast<ir::IfThenElseNode>(body)) {
    if (g->else_case) return nullptr;
    *guard = g->condition;
    return ir::dyn_cast<ir::BufferStoreNode>(g->then_case);
  }
  return ir::dyn_cast<ir::BufferStoreNode>(body);
}

}  // namespace

std::string Pool2d::ToString() const {
  const char* name = kind == kMax ? "max_pool" : kind == kAvgIncludePad ? "avg_pool" : "avg_pool";
  std::string s =
      absl::StrCat(name, " ", kernel[0], "x", kernel[1], " stride ", stride[0], "x", stride[1],
                   " pad ", pad_lo[0], ",", pad_lo[1], "/", pad_hi[0], ",", pad_hi[1]);
  if (dilation[0] != 1 || dilation[1] != 1) {
    absl::StrAppend(&s, " dilation ", dilation[0], "x", dilation[1]);
  }
  if (kind == kAvgExcludePad) absl::StrAppend(&s, " (padding excluded)");
  return s;
}

std::variant<Pool2d, std::string> MatchPool2d(const ir::PrimFunc& func, const StageList& list,
                                              size_t s) {
  const Stage& st = list.stages[s];
  const ir::BlockNode* b = st.block;
  if (b == nullptr) return std::string("not a block");
  std::vector<int> reduce, spatial;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    (b->iter_vars[i].kind == ir::IterKind::kReduce ? reduce : spatial)
        .push_back(static_cast<int>(i));
  }
  if (reduce.size() != 2 || spatial.size() != 4 || !b->init) {
    return std::string("not a reduction over a 2-D window of a 4-D tensor");
  }
  ir::Expr guard;
  const ir::BufferStoreNode* store = GuardedStore(b->body, &guard);
  const auto* init = ir::dyn_cast<ir::BufferStoreNode>(b->init);
  const auto* bin = store ? ir::dyn_cast<ir::BinaryNode>(store->value) : nullptr;
  if (store == nullptr || init == nullptr || bin == nullptr ||
      (bin->kind() != ir::NodeKind::kMax && bin->kind() != ir::NodeKind::kAdd) ||
      init->buffer.get() != store->buffer.get()) {
    return std::string("not a max or sum into one buffer");
  }
  Pool2d p;
  const bool is_max = bin->kind() == ir::NodeKind::kMax;
  const auto* init_value = ir::dyn_cast<ir::FloatImmNode>(init->value);
  // oneDNN starts a max at the lowest float; -inf gives the same for any finite input.
  const double lowest = -static_cast<double>(std::numeric_limits<float>::max());
  if (init_value == nullptr ||
      (is_max ? !(std::isinf(init_value->value) && init_value->value < 0) &&
                    init_value->value != lowest
              : init_value->value != 0.0)) {
    return std::string("its init is not the reduction's identity");
  }
  // The accumulator and the input load, either way round.
  auto is_acc = [&](const ir::Expr& e) {
    const auto* ld = ir::dyn_cast<ir::BufferLoadNode>(e);
    return ld != nullptr && ld->buffer.get() == store->buffer.get() &&
           SameExprs(ld->indices, store->indices);
  };
  const ir::Expr& other = is_acc(bin->a) ? bin->b : is_acc(bin->b) ? bin->a : ir::Expr();
  const auto* x = other.defined() ? ir::dyn_cast<ir::BufferLoadNode>(other) : nullptr;
  if (x == nullptr) return std::string("not a max or sum of a tensor's elements");
  if (x->indices.size() != 4 || store->indices.size() != 4) {
    return std::string("it does not pool a 4-D tensor into a 4-D tensor");
  }
  // The output's dimensions: plain spatial vars. out_pos[var] = its output dimension.
  std::vector<int> out_pos(b->iter_vars.size(), -1);
  for (size_t d = 0; d < 4; ++d) {
    int v = VarIndex(b, store->indices[d]);
    if (v < 0 || b->iter_vars[v].kind != ir::IterKind::kSpatial || out_pos[v] >= 0) {
      return std::string("its output is not indexed by plain iterators");
    }
    out_pos[v] = static_cast<int>(d);
  }
  // The input's dimensions: two passed through, two windows.
  std::variant<std::vector<int64_t>, std::string> xs = ElementStrides(x->buffer);
  if (auto* why = std::get_if<std::string>(&xs)) return *why;
  std::variant<std::vector<int64_t>, std::string> ys = ElementStrides(store->buffer);
  if (auto* why = std::get_if<std::string>(&ys)) return *why;
  std::vector<int> pass_dims, window_dims;  // Dimensions of X.
  std::vector<int> out_of;                  // The output dimension of each, in that order.
  std::vector<std::pair<int, int>> window_vars;
  for (int d = 0; d < 4; ++d) {
    int v = VarIndex(b, x->indices[d]);
    if (v >= 0 && b->iter_vars[v].kind == ir::IterKind::kSpatial) {
      pass_dims.push_back(d);
      continue;
    }
    int found_o = -1, found_r = -1;
    for (int o : spatial) {
      for (int r : reduce) {
        int64_t stride, dilation, pad;
        if (Window(x->indices[d], b->iter_vars[o].var, b->iter_vars[r].var, &stride, &dilation,
                   &pad)) {
          found_o = o;
          found_r = r;
        }
      }
    }
    if (found_o < 0) return absl::StrCat("dimension ", d, " of the input is not a window");
    window_dims.push_back(d);
    window_vars.push_back({found_o, found_r});
  }
  // The output's four iterators each used once: two passed through, two windows'.
  {
    std::vector<int> used = {VarIndex(b, x->indices[pass_dims.size() > 0 ? pass_dims[0] : 0])};
    if (pass_dims.size() == 2) used.push_back(VarIndex(b, x->indices[pass_dims[1]]));
    for (const auto& [o, r] : window_vars) used.push_back(o);
    std::sort(used.begin(), used.end());
    if (pass_dims.size() != 2 || window_dims.size() != 2 ||
        std::adjacent_find(used.begin(), used.end()) != used.end()) {
      return std::string("the output's iterators are not each used once by the input");
    }
  }
  if (pass_dims.size() != 2 || window_dims.size() != 2 ||
      window_vars[0].second == window_vars[1].second) {
    return std::string("not two passed-through dimensions and two windows");
  }
  const std::vector<int64_t>& xstr = std::get<std::vector<int64_t>>(xs);
  const std::vector<int64_t>& ystr = std::get<std::vector<int64_t>>(ys);
  for (int k = 0; k < 2; ++k) {
    const int d = pass_dims[k], v = VarIndex(b, x->indices[d]);
    p.in[k] = *ir::arith::AsConstInt(x->buffer->shape[d]);
    p.out[k] = st.extents[v];
    if (p.out[k] != p.in[k]) return std::string("a passed-through dimension changes extent");
    p.src_strides[k] = xstr[d];
    p.dst_strides[k] = ystr[out_pos[v]];
  }
  for (int k = 0; k < 2; ++k) {
    const int d = window_dims[k];
    const auto [o, r] = window_vars[k];
    Window(x->indices[d], b->iter_vars[o].var, b->iter_vars[r].var, &p.stride[k], &p.dilation[k],
           &p.pad_lo[k]);
    p.in[2 + k] = *ir::arith::AsConstInt(x->buffer->shape[d]);
    p.out[2 + k] = st.extents[o];
    p.kernel[k] = st.extents[r];
    p.src_strides[2 + k] = xstr[d];
    p.dst_strides[2 + k] = ystr[out_pos[o]];
    const int64_t span = (p.kernel[k] - 1) * p.dilation[k] + 1;
    p.pad_hi[k] =
        std::max<int64_t>(0, (p.out[2 + k] - 1) * p.stride[k] + span - p.in[2 + k] - p.pad_lo[k]);
    // No window lies wholly in the padding (oneDNN would write its lowest value there).
    if (p.pad_lo[k] < 0 || p.pad_lo[k] >= span || p.pad_hi[k] >= span ||
        (p.in[2 + k] + p.pad_lo[k] + p.pad_hi[k] - span) / p.stride[k] + 1 != p.out[2 + k]) {
      return absl::StrCat("window ", k, " does not tile the input (oneDNN's output size)");
    }
  }
  // Taps outside the input must be skipped: the guard is the bounds, found by evaluation.
  const bool padded = p.pad_lo[0] || p.pad_lo[1] || p.pad_hi[0] || p.pad_hi[1];
  if (padded != guard.defined()) {
    return padded ? std::string("taps outside the input are read (no bounds check)")
                  : std::string("a condition guards the taps of an unpadded window");
  }
  if (guard.defined()) {
    // The guard must hold exactly where both taps are inside the input: checked at
    // every tap of the first, second, middle and last two outputs of each window,
    // with the passed-through iterators at their first and last values.
    auto samples = [](int64_t n) {
      std::vector<int64_t> v = {0, 1, n / 2, n - 2, n - 1};
      v.erase(std::remove_if(v.begin(), v.end(), [&](int64_t x) { return x < 0 || x >= n; }),
              v.end());
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return v;
    };
    auto set = [&](ir::VarMap* m, int var, int64_t v) {
      (*m)[b->iter_vars[var].var.get()] = ir::IntImm(b->iter_vars[var].var->dtype, v);
    };
    std::vector<int> pass_vars;
    for (int d : pass_dims) pass_vars.push_back(VarIndex(b, x->indices[d]));
    const auto [o0, r0] = window_vars[0];
    const auto [o1, r1] = window_vars[1];
    for (int64_t a0 : samples(p.out[2])) {
      for (int64_t b0 = 0; b0 < p.kernel[0]; ++b0) {
        for (int64_t a1 : samples(p.out[3])) {
          for (int64_t b1 = 0; b1 < p.kernel[1]; ++b1) {
            for (int corner = 0; corner < 2; ++corner) {
              ir::VarMap m;
              set(&m, o0, a0);
              set(&m, r0, b0);
              set(&m, o1, a1);
              set(&m, r1, b1);
              for (int k = 0; k < 2; ++k) set(&m, pass_vars[k], corner ? p.out[k] - 1 : 0);
              const int64_t at0 = a0 * p.stride[0] + b0 * p.dilation[0] - p.pad_lo[0];
              const int64_t at1 = a1 * p.stride[1] + b1 * p.dilation[1] - p.pad_lo[1];
              const bool inside = at0 >= 0 && at0 < p.in[2] && at1 >= 0 && at1 < p.in[3];
              if (ir::arith::AsConstBool(EvalAt(guard, m)) != inside) {
                return std::string("the condition on the taps is not the input's bounds");
              }
            }
          }
        }
      }
    }
  }
  p.src = x->buffer;
  p.dst = store->buffer;
  p.stages = {s};
  if (is_max) {
    p.kind = Pool2d::kMax;
  } else {
    // An average: the next stage divides the sum by the area, or by the taps inside.
    const Stage* div =
        s + 1 < list.stages.size() && list.stages[s + 1].block ? &list.stages[s + 1] : nullptr;
    const ir::BufferStoreNode* ystore = nullptr;
    if (div == nullptr) return std::string("a window sum with nothing dividing it");
    std::vector<int64_t> dims(4);
    for (int d = 0; d < 4; ++d) dims[d] = *ir::arith::AsConstInt(store->buffer->shape[d]);
    std::variant<Indexing, std::string> ix = MatchRowwise(*div, 0, dims, &ystore);
    if (auto* why = std::get_if<std::string>(&ix)) return "the division: " + *why;
    const ir::BlockNode* db = div->block;
    class SumLoads : public ir::IRVisitor {
     public:
      const ir::BufferStoreNode* y = nullptr;
      const ir::BufferNode* sum = nullptr;
      bool ok = true;
      void VisitBufferLoad(const ir::BufferLoadNode* op) override {
        if (op->buffer.get() == sum && !SameExprs(op->indices, y->indices)) ok = false;
        IRVisitor::VisitBufferLoad(op);
      }
    } loads;
    loads.y = ystore;
    loads.sum = store->buffer.get();
    loads.VisitExpr(ystore->value);
    if (!loads.ok) return std::string("the division reads the sum elsewhere than it writes");
    // The division stage's var for each output dimension of the sum.
    bool include = true, exclude = true;
    for (int64_t ih : {int64_t{0}, p.out[2] / 2, p.out[2] - 1}) {
      for (int64_t iw : {int64_t{0}, p.out[3] / 2, p.out[3] - 1}) {
        ir::VarMap m;
        for (int d = 0; d < 4; ++d) {
          int v = VarIndex(db, ystore->indices[d]);
          int64_t val = 0;
          if (d == out_pos[window_vars[0].first]) val = ih;
          if (d == out_pos[window_vars[1].first]) val = iw;
          m[db->iter_vars[v].var.get()] = ir::IntImm(db->iter_vars[v].var->dtype, val);
        }
        ir::Expr at = EvalAt(ystore->value, m);
        auto count = [&](int k, int64_t o) {
          int64_t c = 0;
          for (int64_t r = 0; r < p.kernel[k]; ++r) {
            const int64_t at_k = o * p.stride[k] + r * p.dilation[k] - p.pad_lo[k];
            c += at_k >= 0 && at_k < p.in[2 + k];
          }
          return static_cast<double>(c);
        };
        const double area = static_cast<double>(p.kernel[0] * p.kernel[1]);
        const double inside = count(0, ih) * count(1, iw);
        // y = sum / count at several sums, negative ones included (a fused relu or
        // clamp after the division would show there).
        for (double v : {1.0, -2.5, 4.0, 0.0}) {
          std::optional<double> y =
              ProbeValue(at, [&](const ir::BufferLoadNode* ld) -> std::optional<double> {
                if (ld->buffer.get() == store->buffer.get()) return v;
                return std::nullopt;
              });
          if (!y) return std::string("the division is not of the window sum by a count");
          include = include && std::fabs(*y * area - v) < 1e-6 * std::max(1.0, std::fabs(v));
          exclude = exclude && std::fabs(*y * inside - v) < 1e-6 * std::max(1.0, std::fabs(v));
        }
      }
    }
    if (!include && !exclude) {
      return std::string("the division is by neither the window's area nor its taps inside");
    }
    p.kind = include ? Pool2d::kAvgIncludePad : Pool2d::kAvgExcludePad;
    std::variant<std::vector<int64_t>, std::string> ds = ElementStrides(ystore->buffer);
    if (auto* why = std::get_if<std::string>(&ds)) return *why;
    for (int k = 0; k < 4; ++k) {
      // The same output dimension of the division's store as of the sum's.
      const int sum_dim = k < 2 ? out_pos[VarIndex(b, x->indices[pass_dims[k]])]
                                : out_pos[window_vars[k - 2].first];
      p.dst_strides[k] = std::get<std::vector<int64_t>>(ds)[sum_dim];
    }
    p.dst = ystore->buffer;
    p.dropped = {store->buffer.get()};
    p.stages.push_back(s + 1);
    if (std::string why = OwnedBy(func, list, p.stages, p.dropped); !why.empty()) return why;
  }
  if (p.src.get() == p.dst.get() || (!p.dropped.empty() && p.dropped[0] == p.src.get())) {
    return std::string("it pools a tensor into itself");
  }
  if (p.src->dtype != ir::DataType::Float(32) || p.dst->dtype != ir::DataType::Float(32)) {
    return absl::StrCat("dtype ", p.dst->dtype.ToString(), " (the oneDNN rule takes f32)");
  }
  return p;
}

}  // namespace tessel::dispatch
