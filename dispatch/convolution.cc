#include "dispatch/convolution.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "dispatch/contraction.h"
#include "dispatch/probe.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/linear_form.h"
#include "ir/printer.h"
#include "ir/substitute.h"

namespace tessel::dispatch {
namespace {

enum Dim { kN = 0, kC = 1, kH = 2, kW = 3 };

struct Pad {
  ir::Buffer src;
  std::vector<int64_t> lo, hi;
};

// A stage P[v0, ..., v3] = select(inside, In[v0 - lo0, ...], 0) (or In[...] alone):
// the zero padding it applies, found by evaluating it at interior and boundary
// points, whatever the index clamps and the condition look like.
std::variant<Pad, std::string> MatchPad(const Stage& st) {
  const ir::BlockNode* b = st.block;
  const auto* store = ir::dyn_cast<ir::BufferStoreNode>(b->body);
  if (store == nullptr || b->init) return std::string("the stage before is not one store");
  const size_t rank = store->indices.size();
  std::vector<const ir::VarNode*> vars;
  for (const ir::Expr& i : store->indices) {
    int it = IterIndex(b, i);
    if (it < 0) return std::string("the stage before does not write by plain iterators");
    vars.push_back(b->iter_vars[it].var.get());
  }
  ir::Expr cond, value = store->value;
  if (const auto* sel = ir::dyn_cast<ir::SelectNode>(store->value)) {
    const auto* zero = ir::dyn_cast<ir::FloatImmNode>(sel->false_value);
    if (zero == nullptr || zero->value != 0.0)
      return std::string("it pads with a value other than 0");
    cond = sel->condition;
    value = sel->true_value;
  }
  const auto* in = ir::dyn_cast<ir::BufferLoadNode>(value);
  if (in == nullptr || in->indices.size() != rank || in->buffer->dtype != store->buffer->dtype) {
    return std::string("the stage before is not a padding of one buffer");
  }
  Pad pad{in->buffer, std::vector<int64_t>(rank), std::vector<int64_t>(rank)};
  std::vector<int64_t> extent(rank), mid(rank);
  for (size_t d = 0; d < rank; ++d) {
    std::optional<int64_t> e = ir::arith::AsConstInt(store->buffer->shape[d]);
    std::optional<int64_t> i = ir::arith::AsConstInt(in->buffer->shape[d]);
    if (!e || !i) return std::string("a padded extent is symbolic");
    extent[d] = *e;
    mid[d] = *e / 2;
  }
  auto at = [&](size_t d, int64_t v) {
    ir::VarMap m;
    for (size_t k = 0; k < rank; ++k) {
      m[vars[k]] = ir::IntImm(vars[k]->dtype, k == d ? v : mid[k]);
    }
    return m;
  };
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = *ir::arith::AsConstInt(in->buffer->shape[d]);
    // The offset, read at two interior points; the input must sit in the middle.
    std::optional<int64_t> a = ir::arith::AsConstInt(EvalAt(in->indices[d], at(d, mid[d])));
    std::optional<int64_t> c =
        ir::arith::AsConstInt(EvalAt(in->indices[d], at(d, (mid[d] + extent[d] - 1) / 2)));
    if (!a || !c || mid[d] - *a != (mid[d] + extent[d] - 1) / 2 - *c) {
      return absl::StrCat("dimension ", d, " of the padding is not a shift");
    }
    pad.lo[d] = mid[d] - *a;
    pad.hi[d] = extent[d] - size - pad.lo[d];
    if (pad.lo[d] < 0 || pad.hi[d] < 0)
      return absl::StrCat("dimension ", d, " is cropped, not padded");
    if (pad.lo[d] == 0 && pad.hi[d] == 0) continue;
    if (!cond) return std::string("it shifts without padding with zeros");
    for (int64_t v : {pad.lo[d] - 1, pad.lo[d], pad.lo[d] + size - 1, pad.lo[d] + size}) {
      if (v < 0 || v >= extent[d]) continue;
      std::optional<bool> inside = ir::arith::AsConstBool(EvalAt(cond, at(d, v)));
      if (inside != (v >= pad.lo[d] && v < pad.lo[d] + size)) {
        return absl::StrCat(
            "the padding condition does not hold exactly on the input along "
            "dimension ",
            d);
      }
    }
  }
  return pad;
}

std::string Layout(const std::vector<int>& roles) {
  std::string s;
  for (int r : roles) s += "NCHW"[r];
  return s;
}

}  // namespace

std::string Conv2d::ToString() const {
  return absl::StrCat(n, "x", c, "x", h, "x", w, ", ", oc, " filters ", kh, "x", kw, ", stride ",
                      stride[0], " ", stride[1], ", dilation ", dilation[0], " ", dilation[1],
                      ", pad ", pad_lo[0], " ", pad_lo[1], " ", pad_hi[0], " ", pad_hi[1],
                      ", groups ", groups, ", out ", Layout(out_dims));
}

std::variant<Conv2d, std::string> MatchConv2d(const ir::PrimFunc& func, const StageList& list,
                                              size_t s) {
  const Stage& stage = list.stages[s];
  const ir::BlockNode* b = stage.block;
  std::variant<SumOfProducts, std::string> sp = MatchSumOfProducts(b);
  if (auto* why = std::get_if<std::string>(&sp)) return *why;
  auto [store, x, y] = std::get<SumOfProducts>(sp);
  auto all_plain = [&](const ir::BufferLoadNode* ld) {
    for (const ir::Expr& e : ld->indices) {
      if (IterIndex(b, e) < 0) return false;
    }
    return true;
  };
  if (all_plain(x) == all_plain(y)) return std::string("no operand reads a window");
  const ir::BufferLoadNode* data = all_plain(x) ? y : x;
  const ir::BufferLoadNode* weights = all_plain(x) ? x : y;
  if (store->indices.size() != 4 || data->indices.size() != 4 || weights->indices.size() != 4) {
    return std::string(
        "a window over other than 4-D data, weights and output (not a 2-D convolution)");
  }
  Conv2d cv;
  const size_t n_iters = b->iter_vars.size();
  std::vector<int> out_role(n_iters, -1);  // For output iterators: their role.
  // The output channel is the output iterator the weights use; the batch the one they do not
  // and the data indexes plainly; H and W the ones in the data's windows.
  std::vector<int> data_roles(4, -1);
  int oc_iter = -1, rc_iter = -1, ry_iter = -1, rx_iter = -1;
  std::vector<bool> in_weights(n_iters, false);
  for (const ir::Expr& e : weights->indices) in_weights[IterIndex(b, e)] = true;
  for (const ir::Expr& e : store->indices) {
    int it = IterIndex(b, e);
    if (it < 0 || b->iter_vars[it].kind != ir::IterKind::kSpatial) {
      return std::string("the output is not indexed by its own iterators");
    }
    if (in_weights[it]) oc_iter = it;
  }
  if (oc_iter < 0) return std::string("no output iterator indexes the weights");
  int windows = 0, q = 1, cg = 1;
  for (size_t d = 0; d < 4; ++d) {
    const ir::Expr& e = data->indices[d];
    std::optional<ir::arith::LinearSum> lin = ir::arith::ToLinear(e);
    if (!lin || lin->base != 0) return absl::StrCat("index ", ir::PrintExpr(e), " of the data");
    std::vector<int> spatial, reduce;
    bool by_oc = false;
    for (const ir::arith::SplitTerm& t : lin->terms) {
      int it = IterIndex(b, t.index);
      if (it < 0 || t.extent != 0) return absl::StrCat("index ", ir::PrintExpr(e), " of the data");
      if (it == oc_iter) {
        by_oc = true;
        q = static_cast<int>(t.lower);
        cg = static_cast<int>(t.scale);
        continue;
      }
      if (!t.is_plain()) return absl::StrCat("index ", ir::PrintExpr(e), " of the data");
      (b->iter_vars[it].kind == ir::IterKind::kReduce ? reduce : spatial).push_back(it);
    }
    auto scale_of = [&](int it) {
      for (const ir::arith::SplitTerm& t : lin->terms) {
        if (IterIndex(b, t.index) == it) return t.scale;
      }
      return int64_t{0};
    };
    if (spatial.size() == 1 && reduce.size() == 1 && !by_oc && windows < 2) {
      const int role = windows == 0 ? kH : kW;
      data_roles[d] = role;
      out_role[spatial[0]] = role;
      (windows == 0 ? ry_iter : rx_iter) = reduce[0];
      cv.stride[windows] = scale_of(spatial[0]);
      cv.dilation[windows] = scale_of(reduce[0]);
      ++windows;
    } else if (spatial.size() == 1 && reduce.empty() && !by_oc && scale_of(spatial[0]) == 1) {
      data_roles[d] = kN;
      out_role[spatial[0]] = kN;
    } else if (spatial.empty() && reduce.size() == 1 && scale_of(reduce[0]) == 1) {
      data_roles[d] = kC;
      rc_iter = reduce[0];
      if (!by_oc) q = 0;  // No groups.
    } else {
      return absl::StrCat("index ", ir::PrintExpr(e), " of the data is not a convolution's");
    }
  }
  for (int role : {kN, kC, kH, kW}) {
    if (std::count(data_roles.begin(), data_roles.end(), role) != 1 || windows != 2) {
      return std::string("the data is not indexed by a batch, channels and two windows");
    }
  }
  out_role[oc_iter] = kC;
  for (const ir::Expr& e : store->indices) {
    int r = out_role[IterIndex(b, e)];
    if (r < 0) return std::string("an output iterator has no role in a convolution");
    cv.out_dims.push_back(r);
  }
  auto extent = [&](int it) { return stage.extents[it]; };
  cv.oc = extent(oc_iter);
  cv.kh = extent(ry_iter);
  cv.kw = extent(rx_iter);
  for (size_t i = 0; i < n_iters; ++i) {
    if (out_role[i] == kN) cv.n = extent(static_cast<int>(i));
    if (out_role[i] == kH) cv.oh = extent(static_cast<int>(i));
    if (out_role[i] == kW) cv.ow = extent(static_cast<int>(i));
  }
  // Weights: (o, i, kh, kw) by which iterator indexes each dimension.
  std::variant<std::vector<int64_t>, std::string> ws = ElementStrides(weights->buffer);
  if (auto* why = std::get_if<std::string>(&ws)) return *why;
  for (size_t d = 0; d < 4; ++d) {
    int it = IterIndex(b, weights->indices[d]);
    int role = it == oc_iter ? 0 : it == rc_iter ? 1 : it == ry_iter ? 2 : it == rx_iter ? 3 : -1;
    if (role < 0) return std::string("the weights are not indexed by (o, i, kh, kw)");
    cv.weight_strides[role] = std::get<std::vector<int64_t>>(ws)[d];
  }
  cv.weights = weights->buffer;
  cv.dst = store->buffer;
  // The input: the data itself, or what a pad stage right before pads into it.
  ir::Buffer src = data->buffer;
  std::vector<int64_t> lo(4, 0), hi(4, 0);
  if (s > 0 && list.stages[s - 1].block != nullptr && !IsParam(func, src.get())) {
    const Stage& prev = list.stages[s - 1];
    bool writes = !prev.block->writes.empty() && prev.block->writes[0].buffer.get() == src.get();
    bool only_conv = true;
    for (size_t k = 0; k < list.stages.size(); ++k) {
      if (k != s && StageReads(list.stages[k], src.get())) only_conv = false;
    }
    if (writes && only_conv) {
      std::variant<Pad, std::string> p = MatchPad(prev);
      if (auto* why = std::get_if<std::string>(&p)) return *why;
      src = std::get<Pad>(p).src;
      lo = std::get<Pad>(p).lo;
      hi = std::get<Pad>(p).hi;
      cv.pad_stage = static_cast<int>(s - 1);
    }
  }
  cv.src = src;
  std::variant<std::vector<int64_t>, std::string> ss = ElementStrides(src);
  if (auto* why = std::get_if<std::string>(&ss)) return *why;
  int64_t size[4] = {1, 1, 1, 1};
  for (size_t d = 0; d < 4; ++d) {
    if (lo[d] != 0 || hi[d] != 0) {
      if (data_roles[d] != kH && data_roles[d] != kW)
        return std::string("it pads the batch or channels");
    }
    cv.src_strides[data_roles[d]] = std::get<std::vector<int64_t>>(ss)[d];
    size[data_roles[d]] = *ir::arith::AsConstInt(src->shape[d]);
    if (data_roles[d] == kH || data_roles[d] == kW) cv.pad_lo[data_roles[d] - kH] = lo[d];
  }
  cv.c = size[kC];
  cv.h = size[kH];
  cv.w = size[kW];
  if (size[kN] != cv.n) return std::string("the batch of the data and the output differ");
  // Groups: input channel (oc // q) * cg + rc.
  const int64_t per_group = extent(rc_iter);
  if (q == 0) {
    if (cv.c != per_group) return std::string("the reduction does not cover the input channels");
  } else {
    if (cg != per_group || q < 1 || cv.oc % q != 0)
      return std::string("a channel grouping oneDNN has not");
    cv.groups = cv.oc / q;
    if (cv.c != cv.groups * per_group)
      return std::string("the groups do not cover the input channels");
  }
  // The windows the output needs must lie inside the padded input.
  const int64_t out[2] = {cv.oh, cv.ow}, in[2] = {cv.h, cv.w}, k[2] = {cv.kh, cv.kw};
  for (int a = 0; a < 2; ++a) {
    const int64_t reach = (out[a] - 1) * cv.stride[a] + (k[a] - 1) * cv.dilation[a] + 1;
    cv.pad_hi[a] = reach - in[a] - cv.pad_lo[a];
    if (cv.stride[a] < 1 || cv.dilation[a] < 1 || cv.pad_hi[a] < -cv.stride[a] + 1) {
      return std::string("its windows leave the input");
    }
    if (cv.pad_hi[a] < 0) cv.pad_hi[a] = 0;  // The last rows no window reaches.
  }
  return cv;
}

}  // namespace tessel::dispatch
