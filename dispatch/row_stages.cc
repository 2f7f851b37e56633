// Row reductions and rowwise stages (see row_stages.h).
#include "dispatch/row_stages.h"

#include <cmath>
#include <cstddef>

#include "absl/strings/str_cat.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::dispatch {
namespace {

// Whether every index is a distinct iter var of the stage's block; the extent of
// each goes to `extents`.
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

// The stores of a statement made of lets and a sequence of stores, with the lets'
// values substituted; false for anything else.
bool Stores(const ir::Stmt& s, ir::VarMap* lets, std::vector<const ir::BufferStoreNode*>* out,
            std::vector<ir::Expr>* values) {
  if (const auto* let = ir::dyn_cast<ir::LetStmtNode>(s)) {
    (*lets)[let->var.get()] = ir::Substitute(let->value, *lets);
    return Stores(let->body, lets, out, values);
  }
  if (const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(s)) {
    for (const ir::Stmt& c : seq->seq) {
      if (!Stores(c, lets, out, values)) return false;
    }
    return true;
  }
  if (const auto* store = ir::dyn_cast<ir::BufferStoreNode>(s)) {
    out->push_back(store);
    values->push_back(ir::Substitute(store->value, *lets));
    return true;
  }
  return false;
}

class Loads : public ir::IRVisitor {
 public:
  std::vector<const ir::BufferLoadNode*> all;
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    all.push_back(op);
    IRVisitor::VisitBufferLoad(op);
  }
};

}  // namespace

bool SameExprs(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

std::variant<RowReduction, std::string> MatchRowReduction(const Stage& st, ir::NodeKind combine,
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
  if (k == nullptr || !b->init) return std::string("it does not reduce");
  ir::VarMap lets, init_lets;
  std::vector<const ir::BufferStoreNode*> stores, inits;
  std::vector<ir::Expr> values, init_values;
  if (!Stores(b->body, &lets, &stores, &values) ||
      !Stores(b->init, &init_lets, &inits, &init_values) || stores.empty() ||
      stores.size() != inits.size()) {
    return std::string("it is not a reduction into row buffers");
  }
  RowReduction r;
  r.ix.row = stores[0]->indices;
  for (size_t i = 0; i < stores.size(); ++i) {
    const ir::BufferStoreNode* store = stores[i];
    const ir::BufferStoreNode* first = inits[i];
    const auto* init_value = ir::dyn_cast<ir::FloatImmNode>(init_values[i]);
    const bool init_ok = init_value != nullptr && (std::isinf(init) ? init_value->value <= -3.0e38
                                                                    : init_value->value == init);
    if (first->buffer.get() != store->buffer.get() || !SameExprs(first->indices, store->indices) ||
        !SameExprs(store->indices, r.ix.row) || !init_ok) {
      return std::string("its init is not the reduction's identity");
    }
    const auto* bin = ir::dyn_cast<ir::BinaryNode>(values[i]);
    if (bin == nullptr || bin->kind() != combine) return std::string("the combiner differs");
    auto is_acc = [&](const ir::Expr& e) {
      const auto* ld = ir::dyn_cast<ir::BufferLoadNode>(e);
      return ld != nullptr && ld->buffer.get() == store->buffer.get() &&
             SameExprs(ld->indices, store->indices);
    };
    if (is_acc(bin->a)) {
      r.accs.push_back({store->buffer.get(), bin->b});
    } else if (is_acc(bin->b)) {
      r.accs.push_back({store->buffer.get(), bin->a});
    } else {
      return std::string("it does not accumulate into its output");
    }
  }
  std::vector<int64_t> row_extents;
  if (!PlainVars(st, r.ix.row, &row_extents)) {
    return std::string("its output is not indexed by plain iterators");
  }
  Loads loads;
  for (const Accumulation& a : r.accs) loads.VisitExpr(a.value);
  for (const ir::BufferLoadNode* ld : loads.all) {
    if (ld->indices.size() != r.ix.row.size() + 1) continue;
    for (size_t a = 0; a < ld->indices.size() && r.axis < 0; ++a) {
      std::vector<ir::Expr> full = r.ix.row;
      full.insert(full.begin() + static_cast<std::ptrdiff_t>(a), k->var);
      if (SameExprs(ld->indices, full)) {
        r.axis = static_cast<int>(a);
        r.ix.full = full;
      }
    }
    if (r.axis >= 0) break;
  }
  if (r.axis < 0) return std::string("it reads no row of a tensor along its reduce iterator");
  if (!PlainVars(st, r.ix.full, &r.dims)) return std::string("an iterator is used twice");
  return r;
}

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

std::string OwnedBy(const ir::PrimFunc& func, const StageList& list,
                    const std::vector<size_t>& stages,
                    const std::vector<const ir::BufferNode*>& buffers) {
  for (const ir::BufferNode* b : buffers) {
    if (IsParam(func, b))
      return absl::StrCat("'", b->name, "' is a parameter (the caller reads it)");
    for (size_t k = 0; k < list.stages.size(); ++k) {
      bool inside = false;
      for (size_t j : stages) inside = inside || j == k;
      if (!inside && StageReads(list.stages[k], b)) {
        return absl::StrCat("'", b->name, "' is also read outside the matched region");
      }
    }
  }
  return "";
}

}  // namespace tessel::dispatch
