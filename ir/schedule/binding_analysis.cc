// Binding rules on top of iter-map detection (see binding_analysis.h).
#include "ir/schedule/binding_analysis.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/iter_map.h"
#include "ir/printer.h"
#include "ir/schedule/ir_util.h"

namespace tessel::ir::schedule {

namespace {

// The loops between `block` and its enclosing block, as iter-map inputs.
std::vector<arith::IterMapInput> LoopInputs(const StmtIndex& index, int block) {
  std::vector<arith::IterMapInput> loops;
  for (int l : index.LoopsAbove(block)) {
    const ForNode* f = index.loop(l);
    loops.push_back({f->loop_var, Range{f->min, f->extent}});
  }
  return loops;
}

// An analyzer that knows the iter vars of the block enclosing `block` (what
// loop bounds inside it may use).
void BindScope(const StmtIndex& index, int block, arith::Analyzer* ana) {
  int scope = index.ScopeBlock(block);
  if (scope < 0) return;
  for (const IterVar& iv : index.block(scope)->iter_vars) ana->Bind(iv.var, iv.dom);
}

bool ScalesPositive(const arith::IterSum& sum) {
  for (const arith::IterSplit& s : sum.args) {
    std::optional<int64_t> c = arith::AsConstInt(s.scale);
    if (!c || *c <= 0) return false;
    if (!s.mark->is_loop_var() && !ScalesPositive(s.mark->fused)) return false;
  }
  return true;
}

}  // namespace

std::string CheckReorderable(const StmtIndex& index, int block,
                             const absl::flat_hash_map<const VarNode*, int>& loops) {
  const BlockRealizeNode* r = index.realize(block);
  const BlockNode* b = r->block.get();
  bool reduces = false;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    reduces |= iv.kind == IterKind::kReduce;
    if (iv.kind == IterKind::kOpaque && UsesAnyVar(r->iter_values[k], loops)) {
      return absl::StrCat("iter var ", iv.var->name, " of block ", b->name, " (bound to ",
                          PrintExpr(r->iter_values[k]),
                          ") is opaque: its iterations have no known order freedom");
    }
  }
  // A loop feeding both a spatial and a reduce iter var (after fuse) interleaves
  // the reductions of different outputs: moved, an output's first update need
  // not be the one its init runs before.
  if (b->init != nullptr) {
    const VarNode* mixed = nullptr;  // The outermost such loop, for a stable message.
    int spatial = -1, reduce = -1;
    for (const auto& [v, pos] : loops) {
      int s = -1, t = -1;
      for (size_t k = 0; k < b->iter_vars.size(); ++k) {
        if (!arith::UsesVar(r->iter_values[k], v)) continue;
        if (b->iter_vars[k].kind == IterKind::kSpatial) s = static_cast<int>(k);
        if (b->iter_vars[k].kind == IterKind::kReduce) t = static_cast<int>(k);
      }
      if (s >= 0 && t >= 0 && (mixed == nullptr || pos < loops.at(mixed))) {
        mixed = v;
        spatial = s;
        reduce = t;
      }
    }
    if (mixed != nullptr) {
      return absl::StrCat("loop ", mixed->name, " feeds both spatial iter var ",
                          b->iter_vars[spatial].var->name, " and reduce iter var ",
                          b->iter_vars[reduce].var->name, " of block ", b->name,
                          ", so reordering it could run an update before the init");
    }
  }
  arith::Analyzer ana;
  BindScope(index, block, &ana);
  absl::StatusOr<std::vector<arith::IterSum>> map = arith::DetectIterMap(
      r->iter_values, LoopInputs(index, block), r->predicate,
      reduces ? arith::IterMapLevel::kBijective : arith::IterMapLevel::kSurjective, &ana);
  if (!map.ok()) {
    return absl::StrCat("the bindings of block ", b->name, " are not an affine ",
                        reduces ? "bijection" : "map", " of its loops: ", map.status().message());
  }
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    if (iv.kind == IterKind::kReduce && UsesAnyVar(r->iter_values[k], loops) &&
        !ScalesPositive((*map)[k])) {
      return absl::StrCat("iter var ", iv.var->name, " of block ", b->name, " (bound to ",
                          PrintExpr(r->iter_values[k]),
                          ") does not grow with its loops, so the reduction could meet its "
                          "init after other updates");
    }
  }
  return "";
}

std::string CheckDistinctInstances(const StmtIndex& index, int block, int loop) {
  const BlockRealizeNode* r = index.realize(block);
  const BlockNode* b = r->block.get();
  const ForNode* f = index.loop(loop);
  const VarNode* v = f->loop_var.get();
  std::vector<Expr> spatial;
  absl::flat_hash_map<const VarNode*, int> used;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const IterVar& iv = b->iter_vars[k];
    if (iv.kind != IterKind::kSpatial) continue;
    spatial.push_back(r->iter_values[k]);
  }
  std::vector<arith::IterMapInput> inputs;
  for (const arith::IterMapInput& in : LoopInputs(index, block)) {
    bool appears = false;
    for (const Expr& e : spatial) appears |= arith::UsesVar(e, in.var.get());
    if (appears) inputs.push_back(in);
  }
  std::optional<int64_t> extent = arith::AsConstInt(f->extent);
  if (extent && *extent <= 1) return "";
  bool uses_loop = false;
  for (const arith::IterMapInput& in : inputs) uses_loop |= in.var.get() == v;
  std::string what = absl::StrCat("block ", b->name,
                                  " does not run a distinct instance in each "
                                  "iteration of loop ",
                                  v->name);
  if (!uses_loop) return absl::StrCat(what, " (its spatial bindings do not use it)");
  arith::Analyzer ana;
  BindScope(index, block, &ana);
  absl::StatusOr<std::vector<arith::IterSum>> map =
      arith::DetectIterMap(spatial, inputs, r->predicate, arith::IterMapLevel::kBijective, &ana);
  if (!map.ok()) {
    return absl::StrCat(what, " (its spatial bindings are not a bijection of their loops: ",
                        map.status().message(), ")");
  }
  return "";
}

}  // namespace tessel::ir::schedule
