// Read regions of DSL blocks (block_regions.h).
//
//   A[vi] + A[vi + 2] + A[vi - 1]: linear forms vi+0, vi+2, vi-1 share the term vi,
//   so dimension 0 is the span [vi - 1, vi - 1 + 4).
#include "ir/te/block_regions.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "ir/visitor.h"

namespace tessel::ir::te {
namespace {

// sum(coeff * var) + constant; terms keyed by the variable object.
struct Linear {
  std::map<const VarNode*, int64_t> terms;
  int64_t constant = 0;
};

std::optional<Linear> ToLinear(const Expr& e) {
  if (const auto* imm = dyn_cast<IntImmNode>(e)) return Linear{{}, imm->value};
  if (const auto* v = dyn_cast<VarNode>(e)) return Linear{{{v, 1}}, 0};
  const auto* b = dyn_cast<BinaryNode>(e);
  if (b == nullptr) return std::nullopt;
  std::optional<Linear> x = ToLinear(b->a), y = ToLinear(b->b);
  if (!x || !y) return std::nullopt;
  auto add = [](Linear l, const Linear& r, int64_t sign) {
    for (const auto& [v, c] : r.terms) {
      if ((l.terms[v] += sign * c) == 0) l.terms.erase(v);
    }
    l.constant += sign * r.constant;
    return l;
  };
  switch (b->kind()) {
    case NodeKind::kAdd: return add(*x, *y, 1);
    case NodeKind::kSub: return add(*x, *y, -1);
    case NodeKind::kMul: {
      if (!x->terms.empty() && !y->terms.empty()) return std::nullopt;
      const Linear& k = x->terms.empty() ? *x : *y;
      Linear l = x->terms.empty() ? *y : *x;
      for (auto& [v, c] : l.terms) c *= k.constant;
      std::erase_if(l.terms, [](const auto& t) { return t.second == 0; });
      l.constant *= k.constant;
      return l;
    }
    default: return std::nullopt;
  }
}

class LoadCollector : public IRVisitor {
 public:
  std::vector<const BufferNode*> order;
  absl::flat_hash_map<const BufferNode*, std::vector<const BufferLoadNode*>> loads;
  absl::flat_hash_map<const BufferNode*, Buffer> buffers;

 private:
  void VisitBufferLoad(const BufferLoadNode* op) override {
    const BufferNode* b = op->buffer.get();
    if (!loads.contains(b)) {
      order.push_back(b);
      buffers[b] = op->buffer;
    }
    loads[b].push_back(op);
    IRVisitor::VisitBufferLoad(op);
  }
};

Range DimRange(const Buffer& buffer, int d, const std::vector<const BufferLoadNode*>& loads) {
  const Expr& first = loads[0]->indices[d];
  DataType t = first->dtype;
  bool all_same = std::all_of(loads.begin(), loads.end(), [&](const BufferLoadNode* l) {
    return l->indices[d].same_as(first);
  });
  if (all_same) return Range{first, IntImm(t, 1)};
  std::optional<Linear> base = ToLinear(first);
  if (base) {
    int64_t lo = base->constant, hi = base->constant;
    Expr lo_expr = first;
    bool spans = true;
    for (const BufferLoadNode* l : loads) {
      std::optional<Linear> f = ToLinear(l->indices[d]);
      if (!f || f->terms != base->terms || l->indices[d]->dtype != t) {
        spans = false;
        break;
      }
      if (f->constant < lo) {
        lo = f->constant;
        lo_expr = l->indices[d];
      }
      hi = std::max(hi, f->constant);
    }
    if (spans) return Range{lo_expr, IntImm(t, hi - lo + 1)};
  }
  const Expr& extent = buffer->shape[d];
  return Range{IntImm(extent->dtype, 0), extent};
}

}  // namespace

std::vector<BufferRegion> ReadRegions(const std::vector<Expr>& exprs) {
  LoadCollector c;
  for (const Expr& e : exprs) c.VisitExpr(e);
  std::vector<BufferRegion> out;
  for (const BufferNode* b : c.order) {
    const Buffer& buffer = c.buffers[b];
    BufferRegion r{buffer, {}};
    for (int d = 0; d < buffer->ndim(); ++d) r.region.push_back(DimRange(buffer, d, c.loads[b]));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace tessel::ir::te
