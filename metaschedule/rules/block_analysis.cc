// Block facts for the schedule rules (block_analysis.h).
#include "metaschedule/rules/block_analysis.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/visitor.h"

namespace tessel::metaschedule {

NestLoops SplitNestLoops(const TrivialNest& nest) {
  const ir::BlockNode* block = nest.block;
  NestLoops out;
  for (size_t l = 0; l < nest.loops.size(); ++l) {
    auto iter = std::find(nest.loop_of_iter.begin(), nest.loop_of_iter.end(), static_cast<int>(l));
    const bool is_spatial =
        iter != nest.loop_of_iter.end() &&
        block->iter_vars[iter - nest.loop_of_iter.begin()].kind == ir::IterKind::kSpatial;
    const bool is_unit = nest.extents[l] == 1;
    if ((is_unit && (!out.spatial.empty() || !out.reduce.empty())) ||
        (is_spatial && !out.reduce.empty())) {
      out.in_order = false;
    }
    // A product with a symbolic extent is symbolic.
    auto times = [](int64_t a, int64_t b) {
      return a == kSymbolicExtent || b == kSymbolicExtent ? kSymbolicExtent : a * b;
    };
    if (is_unit) {
      out.unit.push_back(nest.loops[l]);
    } else if (is_spatial) {
      out.spatial.push_back(nest.loops[l]);
      out.spatial_extent = times(out.spatial_extent, nest.extents[l]);
    } else {
      out.reduce.push_back(nest.loops[l]);
      out.reduce_extent = times(out.reduce_extent, nest.extents[l]);
    }
  }
  return out;
}

std::vector<int64_t> GpuThreadCounts(int max_threads_per_block) {
  std::vector<int64_t> counts;
  for (int64_t t = 32; t <= max_threads_per_block; t *= 2) counts.push_back(t);
  return counts;
}

std::variant<TrivialNest, std::string> AnalyzeNest(sch::Schedule& s, const std::string& block,
                                                   bool symbolic) {
  const sch::StmtIndex& index = s.state().index();
  int b = index.FindBlock(block);
  if (b < 0) return absl::StrCat("no block ", block);
  const ir::BlockRealizeNode* r = index.realize(b);
  std::vector<int> loops = index.LoopsAbove(b);
  if (loops.empty() || loops.size() != r->iter_values.size()) {
    return "its loops are not one per iter var";
  }
  if (index.ChildBlocks(loops[0]) != std::vector<int>{b}) {
    return "other blocks share its loop nest";
  }
  TrivialNest nest;
  nest.block = index.block(b);
  nest.loop_of_iter.assign(r->iter_values.size(), -1);
  for (size_t l = 0; l < loops.size(); ++l) {
    const ir::ForNode* f = index.loop(loops[l]);
    const ir::StmtNode* inner = l + 1 < loops.size() ? static_cast<const ir::StmtNode*>(
                                                           index.loop(loops[l + 1]))
                                                     : r;
    if (f->body.get() != inner) return "its loop nest is not perfect";
    if (f->for_kind != ir::ForKind::kSerial) return "a loop of its nest is already scheduled";
    std::optional<int64_t> extent = ir::arith::AsConstInt(f->extent);
    if (!extent && symbolic && ir::arith::IsConstInt(f->min, 0)) extent = kSymbolicExtent;
    if (!ir::arith::IsConstInt(f->min, 0) || !extent || *extent == 0 || *extent < kSymbolicExtent) {
      return "a loop of its nest has a non-constant extent";
    }
    nest.extents.push_back(*extent);
    bool bound = false;
    for (size_t k = 0; k < r->iter_values.size(); ++k) {
      if (r->iter_values[k].get() == f->loop_var.get() && nest.loop_of_iter[k] < 0) {
        nest.loop_of_iter[k] = static_cast<int>(l);
        bound = true;
        break;
      }
    }
    if (!bound) return "its iter vars are not bound to its loops one to one";
  }
  absl::StatusOr<sch::BlockRV> rv = s.GetBlock(block);
  if (!rv.ok()) return std::string(rv.status().message());
  absl::StatusOr<std::vector<sch::LoopRV>> all = s.GetLoops(*rv);
  if (!all.ok()) return std::string(all.status().message());
  nest.loops.assign(all->end() - static_cast<std::ptrdiff_t>(loops.size()), all->end());
  return nest;
}

absl::StatusOr<int64_t> SampleThreadCount(const RuleContext& ctx, sch::Schedule& s,
                                          int64_t extent) {
  const std::vector<int64_t> candidates = GpuThreadCounts(ctx.machine.max_threads_per_block);
  int64_t heuristic = 0;
  for (size_t c = 0; c < candidates.size() && candidates[c] <= kGpuHeuristicThreads; ++c) {
    // A symbolic extent (a row of n) is taken to be long; the split's predicate
    // guards the tail.
    if (extent == kSymbolicExtent ||
        (candidates[c] <= extent &&
         (extent % candidates[c] == 0 || extent % candidates[heuristic] != 0))) {
      heuristic = static_cast<int64_t>(c);
    }
  }
  // Fewer threads that each load four neighbouring elements (16 bytes of f32) move
  // more bytes per instruction: layer_norm's 768 columns take 64 x 4 before 256 x 3.
  // Two warps at least, so that a block still hides some latency itself.
  constexpr int64_t kMinVectorThreads = 64;
  for (size_t c = 0;
       extent != kSymbolicExtent && c < candidates.size() && candidates[c] <= kGpuHeuristicThreads;
       ++c) {
    if (candidates[c] >= kMinVectorThreads && extent % (candidates[c] * 4) == 0) {
      heuristic = static_cast<int64_t>(c);
    }
  }
  std::vector<double> probs(candidates.size(), 1.0 / static_cast<double>(candidates.size()));
  TESSEL_ASSIGN_OR_RETURN(sch::ExprRV choice,
                          s.SampleCategorical(candidates, probs, ctx.Decide(heuristic)));
  return s.Get(choice);
}

std::variant<TrivialNest, std::string> AnalyzeGpuNest(bool gpu, sch::Schedule& s,
                                                      const std::string& block, bool symbolic) {
  if (!gpu) return std::string("the target is not a GPU");
  return AnalyzeNest(s, block, symbolic);
}

absl::Status SpreadOverThreads(sch::Schedule& s, sch::LoopRV loop, int64_t threads,
                               int64_t per_thread) {
  const bool several = per_thread > 1;
  std::vector<sch::Factor> factors = {std::nullopt, threads};
  if (several) factors.push_back(per_thread);
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts, s.Split(loop, factors));
  std::vector<sch::LoopRV> order = {parts[1], parts[0]};
  if (several) order.push_back(parts[2]);
  TESSEL_RETURN_IF_ERROR(s.Reorder(order));
  TESSEL_RETURN_IF_ERROR(s.Bind(parts[1], "threadIdx.x"));
  return several ? s.Unroll(parts[2]) : absl::OkStatus();
}

absl::StatusOr<int64_t> SampleElementsPerThread(const RuleContext& ctx, sch::Schedule& s,
                                                int64_t extent, int64_t threads) {
  const std::vector<int64_t> candidates = {1, 2, 4};
  const bool symbolic = extent == kSymbolicExtent;
  int64_t heuristic = 0;
  for (size_t c = 0; !symbolic && c < candidates.size(); ++c) {
    if (extent % (threads * candidates[c]) == 0) heuristic = static_cast<int64_t>(c);
  }
  std::vector<double> probs(candidates.size(), 1.0 / static_cast<double>(candidates.size()));
  TESSEL_ASSIGN_OR_RETURN(sch::ExprRV choice,
                          s.SampleCategorical(candidates, probs, ctx.Decide(heuristic)));
  TESSEL_ASSIGN_OR_RETURN(int64_t v, s.Get(choice));
  // A drawn width that does not divide the extent leaves a predicated tail; the
  // threads then read one element at a time (the unrolled copies could not merge).
  // So does every width over a symbolic extent, which no width is known to divide.
  return !symbolic && extent % (threads * v) == 0 ? v : 1;
}

int64_t LargestDivisorAtMost(int64_t n, int64_t bound) {
  for (int64_t d = std::min(n, std::max<int64_t>(bound, 1)); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

bool AllSpatial(const ir::BlockNode* b) {
  for (const ir::IterVar& iv : b->iter_vars) {
    if (iv.kind != ir::IterKind::kSpatial) return false;
  }
  return true;
}

bool HasReduce(const ir::BlockNode* b) {
  for (const ir::IterVar& iv : b->iter_vars) {
    if (iv.kind == ir::IterKind::kReduce) return true;
  }
  return false;
}

std::optional<int64_t> DomainSize(const ir::BlockNode* b) {
  int64_t n = 1;
  for (const ir::IterVar& iv : b->iter_vars) {
    std::optional<int64_t> e = ir::arith::AsConstInt(iv.dom.extent);
    if (!e || *e <= 0 || n > (int64_t{1} << 40)) return std::nullopt;
    n *= *e;
  }
  return n;
}

std::optional<int64_t> ElementCount(const ir::BufferNode* buffer) {
  int64_t n = 1;
  for (const ir::Expr& d : buffer->shape) {
    std::optional<int64_t> e = ir::arith::AsConstInt(d);
    if (!e || *e <= 0 || n > (int64_t{1} << 40)) return std::nullopt;
    n *= *e;
  }
  return n;
}

namespace {

class FindCall : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitCall(const ir::CallNode* op) override {
    found = true;
    IRVisitor::VisitCall(op);
  }
};

}  // namespace

bool CallsFunction(const ir::BlockNode* b) {
  FindCall f;
  f.VisitStmt(b->body);
  return f.found;
}

int IterIndexingDim(const ir::BlockNode* b, const ir::BufferRegion& region, size_t dim) {
  if (dim >= region.region.size()) return -1;
  const ir::Expr& min = region.region[dim].min;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    if (min.get() == b->iter_vars[k].var.get()) return static_cast<int>(k);
  }
  return -1;
}

bool RegionUsesIter(const ir::BlockNode* b, const ir::BufferRegion& region, size_t k) {
  const ir::VarNode* v = b->iter_vars[k].var.get();
  for (const ir::Range& r : region.region) {
    if (ir::arith::UsesVar(r.min, v) || ir::arith::UsesVar(r.extent, v)) return true;
  }
  return false;
}

int RowsIter(const ir::BlockNode* b, int cols) {
  const ir::BufferRegion& out = b->writes[0];
  const size_t rank = out.region.size();
  int fallback = -1;
  for (size_t d = rank; d-- > 0;) {
    const int k = IterIndexingDim(b, out, d);
    if (k < 0 || k == cols || b->iter_vars[k].kind != ir::IterKind::kSpatial) continue;
    if (fallback < 0) fallback = k;
    bool shared = true;
    for (const ir::BufferRegion& r : b->reads) {
      if (RegionUsesIter(b, r, static_cast<size_t>(cols)) &&
          RegionUsesIter(b, r, static_cast<size_t>(k))) {
        shared = false;
      }
    }
    if (shared) return k;
  }
  return fallback;
}

absl::StatusOr<std::vector<sch::LoopRV>> LoopsBelow(sch::Schedule& s, sch::BlockRV block,
                                                    sch::LoopRV anchor) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> loops, s.GetLoops(block));
  TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> a, s.Get(anchor));
  for (size_t l = 0; l < loops.size(); ++l) {
    TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(loops[l]));
    if (f.get() == a.get()) return std::vector<sch::LoopRV>(loops.begin() + l + 1, loops.end());
  }
  return std::vector<sch::LoopRV>{};
}

std::optional<std::string> ColumnsLast(const ir::BlockNode* b, const ir::BufferRegion& region,
                                       int cols) {
  const size_t rank = region.region.size();
  std::optional<size_t> dim;
  for (size_t d = 0; d < rank; ++d) {
    if (ir::arith::UsesVar(region.region[d].min, b->iter_vars[cols].var.get())) dim = d;
  }
  if (!dim || *dim + 1 == rank) return std::nullopt;
  std::vector<std::string> in, out;
  for (size_t d = 0; d < rank; ++d) {
    in.push_back(absl::StrCat("v", d));
    if (d != *dim) out.push_back(absl::StrCat("v", d));
  }
  out.push_back(absl::StrCat("v", *dim));
  return absl::StrCat("lambda ", absl::StrJoin(in, ", "), ": (", absl::StrJoin(out, ", "), ")");
}

absl::StatusOr<std::vector<std::string>> InlineEpilogues(sch::Schedule& s, sch::BlockRV writeback) {
  std::vector<std::string> inlined;
  for (int fused = 0; fused < 4; ++fused) {
    TESSEL_ASSIGN_OR_RETURN(ir::Block wblock, s.Get(writeback));
    const ir::BufferNode* result = wblock->writes[0].buffer.get();
    if (sch::IsParam(s.func(), result)) break;
    std::vector<std::string> readers = sch::ReadersOf(s.state().index(), result);
    if (readers.size() != 1) break;
    const ir::BlockNode* epi = s.state().index().block(s.state().index().FindBlock(readers[0]));
    if (!AllSpatial(epi) || epi->init != nullptr) break;
    sch::Schedule before = s;
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV e, s.GetBlock(readers[0]));
    if (!s.ReverseComputeInline(e).ok()) {
      s = std::move(before);
      break;
    }
    inlined.push_back(readers[0]);
  }
  return inlined;
}

std::string FirstLine(const absl::Status& status) {
  std::string m(status.message());
  size_t nl = m.find('\n');
  return nl == std::string::npos ? m : m.substr(0, nl);
}

}  // namespace tessel::metaschedule
