// What the GPU matmul rules share (see gpu_matmul_common.h).
#include "metaschedule/rules/gpu_matmul_common.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/status_macros.h"
#include "metaschedule/rules/block_analysis.h"

namespace tessel::metaschedule {

std::variant<MatmulNest, std::string> AnalyzeGpuMatmul(const RuleContext& ctx, sch::Schedule& s,
                                                       const std::string& block,
                                                       bool symbolic_rows) {
  std::variant<TrivialNest, std::string> analyzed =
      AnalyzeGpuNest(ctx.machine.gpu, s, block, symbolic_rows);
  if (const std::string* why = std::get_if<std::string>(&analyzed)) return *why;
  MatmulNest it;
  it.nest = std::get<TrivialNest>(analyzed);
  const TrivialNest& nest = it.nest;
  const ir::BlockNode* b = nest.block;
  if (!HasReduce(b) || b->init == nullptr) return std::string("it does not reduce");
  if (b->writes.size() != 1) return std::string("it writes more than one buffer");
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    if (b->iter_vars[k].kind == ir::IterKind::kOpaque) return std::string("opaque iter var");
    if (b->iter_vars[k].kind != ir::IterKind::kReduce) continue;
    if (it.reduce >= 0) return std::string("it has several reduce iter vars (not tiled yet)");
    it.reduce = static_cast<int>(k);
  }
  const ir::BufferRegion& out = b->writes[0];
  it.cols = IterIndexingDim(b, out, out.region.size() - 1);
  it.rows = it.cols >= 0 ? RowsIter(b, it.cols) : -1;
  if (it.cols < 0 || it.rows < 0 || b->iter_vars[it.cols].kind != ir::IterKind::kSpatial) {
    return std::string(
        "its output's last dimension and another are not indexed by spatial iter vars");
  }
  it.m = nest.extents[nest.loop_of_iter[it.rows]];
  it.n = nest.extents[nest.loop_of_iter[it.cols]];
  it.k = nest.extents[nest.loop_of_iter[it.reduce]];
  // Only the rows may be a shape variable's (a dense layer over n tokens): the
  // columns and the reduction size the shared slices, and a batch the grid.
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    if (static_cast<int>(k) != it.rows && nest.extents[nest.loop_of_iter[k]] == kSymbolicExtent) {
      return absl::StrCat("iter var ", b->iter_vars[k].var->name,
                          " has a symbolic extent (only the rows may)");
    }
  }
  return it;
}

std::vector<sch::LoopRV> BatchLoops(const MatmulNest& it) {
  const TrivialNest& nest = it.nest;
  std::vector<sch::LoopRV> batch;
  for (size_t k = 0; k < nest.block->iter_vars.size(); ++k) {
    const int i = static_cast<int>(k);
    if (i == it.rows || i == it.cols || i == it.reduce || nest.extents[nest.loop_of_iter[k]] == 1) {
      continue;
    }
    batch.push_back(nest.loops[nest.loop_of_iter[k]]);
  }
  return batch;
}

absl::Status BindBatch(sch::Schedule& s, const std::vector<sch::LoopRV>& batch) {
  if (batch.empty()) return absl::OkStatus();
  sch::LoopRV z = batch[0];
  if (batch.size() > 1) {
    TESSEL_ASSIGN_OR_RETURN(z, s.Fuse(batch));
  }
  return s.Bind(z, "blockIdx.z");
}

absl::StatusOr<bool> IsUnder(sch::Schedule& s, sch::BlockRV block, sch::LoopRV l) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> loops, s.GetLoops(block));
  TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> target, s.Get(l));
  for (sch::LoopRV x : loops) {
    TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(x));
    if (f.get() == target.get()) return true;
  }
  return false;
}

absl::Status UnrollAll(sch::Schedule& s, const std::vector<sch::LoopRV>& loops) {
  for (sch::LoopRV l : loops) {
    TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(l));
    if (!ir::arith::IsConstInt(f->extent, 1)) TESSEL_RETURN_IF_ERROR(s.Unroll(l));
  }
  return absl::OkStatus();
}

absl::Status CooperativeCopy(sch::Schedule& s, sch::BlockRV copy, sch::LoopRV anchor, int64_t ty,
                             int64_t tx, int64_t max_vector) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, LoopsBelow(s, copy, anchor));
  if (l.empty()) return absl::InternalError("the copy has no loop below its anchor");
  int64_t elements = 1, inner = 1;
  for (sch::LoopRV x : l) {
    TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(x));
    std::optional<int64_t> e = ir::arith::AsConstInt(f->extent);
    if (!e) return absl::InternalError("the copy's extent is not constant");
    elements *= *e;
    inner = *e;
  }
  int64_t vec = max_vector;
  while (vec > 1 && (inner % vec != 0 || elements % (ty * tx * vec) != 0)) vec /= 2;
  sch::LoopRV fused = l[0];
  if (l.size() > 1) {
    TESSEL_ASSIGN_OR_RETURN(fused, s.Fuse(l));
  }
  std::vector<sch::Factor> factors = {std::nullopt, ty, tx};
  if (vec > 1) factors.push_back(vec);
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> p, s.Split(fused, factors));
  TESSEL_RETURN_IF_ERROR(s.Bind(p[1], "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(s.Bind(p[2], "threadIdx.x"));
  if (vec > 1) TESSEL_RETURN_IF_ERROR(s.Vectorize(p[3]));
  return absl::OkStatus();
}

}  // namespace tessel::metaschedule
