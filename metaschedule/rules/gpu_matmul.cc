// gpu-matmul: a reduction whose operands are reused across its output tile
// (matmul, batch_matmul, dense) computed a tile per block of threads, its
// operands staged through shared memory a slice of the reduction at a time, and
// each thread's part of the tile accumulated in registers.
//
//   for i, j, k: block C (vi, vj spatial; vk reduce) ->
//     for i_0 in thread_binding(.., "blockIdx.y"), j_0 in thread_binding(.., "blockIdx.x"):
//       for ty, tx, micro-tile unrolled: block C_init                 (C_local = 0)
//       for k_0:
//         for ax.. thread_binding(ty, tx): block A_shared    (A's slice, staged as [k, i])
//         for ax.. thread_binding(ty, tx), vectorized: block B_shared (B's slice, [k, j])
//         for ty in thread_binding(.., "threadIdx.y"), tx in (.., "threadIdx.x"):
//           for k_1, i_1, j_1, i_3, j_3 unrolled: block C            (into C_local)
//       for ty, tx, micro-tile unrolled: block C_local                 (+ fused epilogue)
//
// Rows and columns are split [blocks, outer micro, threads, inner micro]: thread
// (ty, tx) owns rows i_0 * BM + i_1 * (TY * 4) + ty * 4 + i_3 (with an inner
// micro-tile of 4), so the four rows it reads per reduction step are one
// ld.shared.v4 of A staged as [k, i], consecutive threads read consecutive
// vectors (no bank conflicts), and the outer part spreads a thread's rows a
// block-width apart. The accumulator is laid out (block, thread, micro-tile), so
// lowering shrinks it to the thread's own TM x TN (compact-buffer-allocation: a
// local buffer is the thread's) and the unrolled micro-tile keeps it in
// registers. Lowering puts two barriers in each k_0 iteration: after the copies,
// and before the next iteration's copies overwrite what the threads still read
// (passes/lowering/thread_sync.h). The copies are spread over all threads, in
// vectors of up to four where the operand keeps its layout.
//
// Applies to a block with one reduce iter var and an init, alone in a perfect
// trivially bound nest, writing one buffer whose last dimension (columns) and
// another (rows, RowsIter) are indexed by spatial iter vars of at least 16
// elements, with some read that does not use the rows and some that does not use
// the columns (both operands are reused). Other spatial iter vars (a batch) are
// fused and bound to blockIdx.z. Rows and columns are each a 4-level
// sample_perfect_tile decision and the reduction a 2-level one; the heuristic
// takes 16 threads along rows and columns (a block of 256), micro-tiles of up to
// 8 x 8 as the size allows (a 128 x 128 tile per block from 1024 rows), inner
// micro-tiles of up to 4 and reduction slices of 8 (fewer threads where a slice
// would leave some without an element to copy). Not applicable: several reduce
// iter vars (conv2d), a GEMV (gpu-reduction's).
//
// The rows may be a shape variable's (a dense layer over n tokens; columns,
// reduction and batch stay constant): no perfect tile is sampled for them, the
// heuristic's split for 1024 rows is applied as it is, a thread's rows are
// neighbours (rows [blocks, 1, threads, micro]), and the split's predicate
// guards the last row tile in the A copy, the compute and the write-back:
//   for i in range(0, n) ... ->
//     for i_0 in thread_binding(0, (n + 127) // 128, "blockIdx.y"):
//       ... block C(vi = i_0 * 128 + i_2 * 8 + i_3, ..) where i_0 * 128 + i_2 * 8 + i_3 < n
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/block_dataflow.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/rules/gpu_matmul_common.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

// Threads along rows and along columns at most; their product is the block.
constexpr int64_t kMaxThreadsPerDim = 16;
// Rows and columns below this go to gpu-reduction or gpu-fallback.
constexpr int64_t kMinExtent = 16;
// A thread's contiguous rows or columns at most: one 16-byte load of f32.
constexpr int64_t kVector = 4;
// The grid the heuristic aims for: two blocks per multiprocessor of a 132-SM
// H100, so that no multiprocessor idles; and the fewest accumulators per thread
// it shrinks a micro-tile to for that (fewer leave the threads waiting on
// shared memory).
constexpr int64_t kMinBlocks = 256;
constexpr int64_t kMinMicro = 4;
// CUDA's bound on a kernel's static shared memory.
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

// The heuristic split of rows or columns of extent `e`: [blocks, outer micro,
// threads, inner micro], up to `max_threads` threads. The micro-tile grows with
// the extent (8 from 1024 up), so that a small matmul still spreads over several
// blocks; its inner part is up to kVector elements, one vector load of shared
// memory.
std::vector<int64_t> HeuristicTile(int64_t e, int64_t max_threads, int64_t max_micro) {
  const int64_t threads = LargestDivisorAtMost(e, max_threads);
  const int64_t micro =
      LargestDivisorAtMost(e / threads, std::min(std::clamp<int64_t>(e / 128, 1, 8), max_micro));
  const int64_t inner = LargestDivisorAtMost(micro, kVector);
  return {e / (threads * micro), micro / inner, threads, inner};
}

// Elements of a row or column tile: outer micro x threads x inner micro.
int64_t TileExtent(const std::vector<int64_t>& f) { return f[1] * f[2] * f[3]; }

// A reduction slice that lets every thread copy whole vectors of both slices (a
// BM x slice and a slice x BN tile over TY x TX threads): 8 elements, else the
// next size from the divisors of the reduction `k` up to 32; 0 when none does.
int64_t ReductionSlice(int64_t k, const std::vector<int64_t>& rf, const std::vector<int64_t>& cf) {
  const int64_t threads = rf[2] * cf[2], bm = TileExtent(rf), bn = TileExtent(cf);
  for (int64_t d : {8, 16, 32, 4, 2, 1}) {
    if (k % d == 0 && bm * d % threads == 0 && bn * d % threads == 0) return d;
  }
  return 0;
}

// The heuristic's decisions for rows (m), columns (n) and the reduction (k),
// with `batch` tiles along the other spatial iter vars: 16 x 16 threads, fewer
// where the slices would leave threads without an element to copy (a short
// reduction under small tiles); micro-tiles smaller while the grid has fewer
// than kMinBlocks blocks and a thread keeps at least kMinMicro accumulators.
struct Heuristic {
  std::vector<int64_t> rows, cols, reduce;
};
Heuristic HeuristicTiles(int64_t m, int64_t n, int64_t k, int64_t batch) {
  int64_t ty = kMaxThreadsPerDim, tx = kMaxThreadsPerDim, row_micro = 8, col_micro = 8;
  while (true) {
    Heuristic h{HeuristicTile(m, ty, row_micro), HeuristicTile(n, tx, col_micro), {}};
    const int64_t rm = h.rows[1] * h.rows[3], cm = h.cols[1] * h.cols[3];
    if (batch * h.rows[0] * h.cols[0] < kMinBlocks && rm * cm / 2 >= kMinMicro) {
      (rm >= cm ? row_micro : col_micro) = std::max(rm, cm) / 2;
      continue;
    }
    const int64_t slice = ReductionSlice(k, h.rows, h.cols);
    if (slice > 0 || (ty == 1 && tx == 1)) {
      const int64_t s = slice > 0 ? slice : LargestDivisorAtMost(k, 8);
      h.reduce = {k / s, s};
      return h;
    }
    (ty >= tx ? ty : tx) /= 2;
  }
}

class GpuMatmul : public ScheduleRule {
 public:
  std::string name() const override { return "gpu-matmul"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    std::variant<MatmulNest, std::string> analyzed =
        AnalyzeGpuMatmul(ctx, s, block, /*symbolic_rows=*/true);
    if (const std::string* why = std::get_if<std::string>(&analyzed)) {
      return RuleOutcome::NotApplicable(*why);
    }
    const MatmulNest it = std::get<MatmulNest>(analyzed);
    const TrivialNest& nest = it.nest;
    const ir::Block b = ir::GetRef(nest.block);
    const int rows = it.rows, cols = it.cols, reduce = it.reduce;
    const int64_t m = it.m, n = it.n, kext = it.k;
    const bool symbolic = m == kSymbolicExtent;
    if ((!symbolic && m < kMinExtent) || n < kMinExtent) {
      return RuleOutcome::NotApplicable(
          absl::StrCat("its ", symbolic ? std::string("n") : absl::StrCat(m), " x ", n,
                       " tile is below ", kMinExtent, " x ", kMinExtent));
    }
    // The operands staged in shared memory: reads that miss the rows or the
    // columns (the reused ones); there must be one of each.
    std::vector<int64_t> staged;
    bool row_reuse = false, col_reuse = false;
    for (size_t r = 0; r < b->reads.size(); ++r) {
      if (sch::Touches(b->writes, b->reads[r].buffer.get())) continue;
      const bool uses_rows = RegionUsesIter(b.get(), b->reads[r], static_cast<size_t>(rows));
      const bool uses_cols = RegionUsesIter(b.get(), b->reads[r], static_cast<size_t>(cols));
      row_reuse |= !uses_rows;
      col_reuse |= !uses_cols;
      if (uses_rows != uses_cols) staged.push_back(static_cast<int64_t>(r));
    }
    if (!row_reuse || !col_reuse) {
      return RuleOutcome::NotApplicable("no operand is reused across both rows and columns");
    }

    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock(block));
    // Stages first, on the untiled nest: cache_read places a copy at the root
    // there and cache_write its write-back after the nest.
    std::vector<sch::BlockRV> copies;
    std::vector<bool> transposed, along_cols;
    std::vector<std::string> did;
    for (int64_t r : staged) {
      TESSEL_ASSIGN_OR_RETURN(sch::BlockRV copy, s.CacheRead(c, r, "shared"));
      copies.push_back(copy);
      // Each operand is staged with its rows (A) or columns (B) last -- A[i, k]
      // and a dense layer's W[j, k] as [k, i] and [k, j] -- so that a thread's
      // inner micro-tile is one vector load and consecutive threads read
      // consecutive words, not words a row apart in one bank.
      along_cols.push_back(RegionUsesIter(b.get(), b->reads[r], static_cast<size_t>(cols)));
      std::optional<std::string> map =
          ColumnsLast(b.get(), b->reads[r], along_cols.back() ? cols : rows);
      transposed.push_back(map.has_value());
      if (!map) continue;
      TESSEL_ASSIGN_OR_RETURN(ir::Block cb, s.Get(copy));
      TESSEL_RETURN_IF_ERROR(s.TransformLayout(copy, cb->writes[0].buffer->name, *map));
      did.push_back(absl::StrCat(b->reads[r].buffer->name, " staged transposed"));
    }
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV wb, s.CacheWrite(c, 0, "local"));
    TESSEL_ASSIGN_OR_RETURN(std::vector<std::string> epilogues,
                            InlineEpilogues(s, wb));  // As on the CPU.
    for (const std::string& e : epilogues) did.push_back(absl::StrCat("epilogue ", e));

    // The tiles: rows and columns [blocks, outer micro, threads, inner micro], the
    // reduction [slices, slice].
    auto tile = [&](int iter, std::vector<int64_t> decision, int64_t max_inner)
        -> absl::StatusOr<std::pair<std::vector<sch::LoopRV>, std::vector<int64_t>>> {
      if (nest.extents[nest.loop_of_iter[iter]] == kSymbolicExtent) {
        // No perfect tile of a shape variable: the heuristic's split, its tail
        // guarded by the split's predicate.
        std::vector<sch::Factor> factors = {std::nullopt};
        factors.insert(factors.end(), decision.begin() + 1, decision.end());
        TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts,
                                s.Split(nest.loops[nest.loop_of_iter[iter]], factors));
        return std::make_pair(parts, decision);
      }
      TESSEL_ASSIGN_OR_RETURN(std::vector<sch::ExprRV> v,
                              s.SamplePerfectTile(nest.loops[nest.loop_of_iter[iter]],
                                                  static_cast<int64_t>(decision.size()), max_inner,
                                                  ctx.Decide(decision)));
      std::vector<int64_t> got;
      for (sch::ExprRV x : v) {
        TESSEL_ASSIGN_OR_RETURN(int64_t f, s.Get(x));
        got.push_back(f);
      }
      std::vector<sch::Factor> factors(v.begin(), v.end());
      TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> parts,
                              s.Split(nest.loops[nest.loop_of_iter[iter]], factors));
      return std::make_pair(parts, got);
    };
    const NestLoops loops = SplitNestLoops(nest);
    // Rows of a shape variable's extent are taken to fill the grid: no tile is
    // shrunk for the number of blocks.
    Heuristic h = symbolic ? HeuristicTiles(kSymbolicRows, n, kext, kMinBlocks)
                           : HeuristicTiles(m, n, kext, loops.spatial_extent / (m * n));
    // A thread's rows of a symbolic extent are neighbours (no outer micro-tile):
    // the accumulator's layout cannot be transformed along a dimension no tile is
    // known to divide, and neighbouring rows are already one box of it.
    if (symbolic) h.rows = {0, 1, h.rows[2], h.rows[1] * h.rows[3]};
    TESSEL_ASSIGN_OR_RETURN(auto rt, tile(rows, h.rows, kVector));
    TESSEL_ASSIGN_OR_RETURN(auto ct, tile(cols, h.cols, kVector));
    const std::vector<sch::LoopRV> ri = rt.first, ci = ct.first;
    const std::vector<int64_t> rf = rt.second, cf = ct.second;
    TESSEL_ASSIGN_OR_RETURN(auto kt, tile(reduce, h.reduce, 32));
    const std::vector<sch::LoopRV> ki = kt.first;
    const std::vector<int64_t> kf = kt.second;
    const int64_t ty = rf[2], tx = cf[2], threads = ty * tx;
    if (threads > ctx.machine.max_threads_per_block) {
      return RuleOutcome::NotApplicable(absl::StrCat(ty, " x ", tx, " threads exceed the target's ",
                                                     ctx.machine.max_threads_per_block));
    }
    // A drawn tile whose slices overflow static shared memory would only fail to build.
    int64_t staged_bytes = 0;
    for (size_t o = 0; o < staged.size(); ++o) {
      staged_bytes +=
          TileExtent(along_cols[o] ? cf : rf) * kf[1] * b->reads[staged[o]].buffer->dtype.bytes();
    }
    if (staged_bytes > kMaxStaticSharedBytes) {
      return RuleOutcome::NotApplicable(absl::StrCat("its slices take ", staged_bytes,
                                                     " bytes of shared memory, over ",
                                                     kMaxStaticSharedBytes));
    }

    // Order: unit loops, the batch (fused, blockIdx.z), then the tile loops.
    const std::vector<sch::LoopRV> batch = BatchLoops(it);
    std::vector<sch::LoopRV> order = loops.unit;
    order.insert(order.end(), batch.begin(), batch.end());
    for (sch::LoopRV l : {ri[0], ci[0], ki[0], ri[2], ci[2], ki[1], ri[1], ci[1], ri[3], ci[3]}) {
      order.push_back(l);
    }
    TESSEL_RETURN_IF_ERROR(s.Reorder(order));
    TESSEL_RETURN_IF_ERROR(BindBatch(s, batch));
    TESSEL_RETURN_IF_ERROR(s.Bind(ri[0], "blockIdx.y"));
    TESSEL_RETURN_IF_ERROR(s.Bind(ci[0], "blockIdx.x"));
    TESSEL_RETURN_IF_ERROR(s.Bind(ri[2], "threadIdx.y"));
    TESSEL_RETURN_IF_ERROR(s.Bind(ci[2], "threadIdx.x"));
    TESSEL_RETURN_IF_ERROR(UnrollAll(s, {ki[1], ri[1], ci[1], ri[3], ci[3]}));

    // The accumulator: written back per block of threads, zeroed before k_0.
    TESSEL_ASSIGN_OR_RETURN(bool placed, IsUnder(s, wb, ci[0]));
    if (!placed) TESSEL_RETURN_IF_ERROR(s.ReverseComputeAt(wb, ci[0]));
    // The zeroing nest inherits the compute's bound and unrolled loops.
    TESSEL_RETURN_IF_ERROR(s.DecomposeReduction(c, ki[0]).status());
    TESSEL_RETURN_IF_ERROR(LayOutAccumulator(s, wb, b->writes[0], rows, /*rows_moved=*/!symbolic,
                                             cols, b.get(), rf, cf));
    TESSEL_RETURN_IF_ERROR(ThreadTile(s, wb, ci[0], rf, cf));

    // The operands' slices, copied by all threads under k_0.
    // All are placed before any is spread: a spread copy's region (through the
    // fused index's // and %) is no longer exact, and the next move would no
    // longer see that each block of threads writes all of it that it reads.
    for (sch::BlockRV copy : copies) {
      TESSEL_ASSIGN_OR_RETURN(bool under, IsUnder(s, copy, ki[0]));
      if (!under) TESSEL_RETURN_IF_ERROR(s.ComputeAt(copy, ki[0]));
    }
    for (size_t i = 0; i < copies.size(); ++i) {
      TESSEL_RETURN_IF_ERROR(
          CooperativeCopy(s, copies[i], ki[0], ty, tx, transposed[i] ? 1 : kVector));
    }
    did.insert(did.begin(), absl::StrCat("tile ", TileExtent(rf), "x", TileExtent(cf),
                                         " per block of ", ty, "x", tx, " threads, ", rf[1] * rf[3],
                                         "x", cf[1] * cf[3], " per thread, k slices of ", kf[1]));
    return RuleOutcome::Applied(absl::StrJoin(did, ", "));
  }

 private:
  // Lays the accumulator out (block, thread, micro-tile) along rows and
  // columns, so that each thread's elements form one box (along the columns
  // only unless `rows_moved`).
  static absl::Status LayOutAccumulator(sch::Schedule& s, sch::BlockRV wb,
                                        const ir::BufferRegion& out, int rows, bool rows_moved,
                                        int cols, const ir::BlockNode* b,
                                        const std::vector<int64_t>& rf,
                                        const std::vector<int64_t>& cf) {
    const size_t rank = out.region.size();
    std::vector<std::string> in, kept, moved[4];
    for (size_t d = 0; d < rank; ++d) {
      const std::string v = absl::StrCat("v", d);
      in.push_back(v);
      const int k = IterIndexingDim(b, out, d);
      const std::vector<int64_t>* f = k == rows && rows_moved ? &rf : k == cols ? &cf : nullptr;
      if (f == nullptr) {
        kept.push_back(v);
        continue;
      }
      // v = block * tile + outer * (threads * inner) + thread * inner + inner.
      const int64_t threads = (*f)[2], inner = (*f)[3], tile = TileExtent(*f);
      moved[0].push_back(absl::StrCat(v, " // ", tile));
      moved[1].push_back(absl::StrCat(v, " // ", inner, " % ", threads));
      moved[2].push_back(absl::StrCat(v, " % ", tile, " // ", threads * inner));
      moved[3].push_back(absl::StrCat(v, " % ", inner));
    }
    for (const auto& part : moved) kept.insert(kept.end(), part.begin(), part.end());
    TESSEL_ASSIGN_OR_RETURN(ir::Block wblock, s.Get(wb));
    return s.TransformLayout(
        wb, wblock->reads[0].buffer->name,
        absl::StrCat("lambda ", absl::StrJoin(in, ", "), ": (", absl::StrJoin(kept, ", "), ")"));
  }

  // The accumulator's write-back nest under `anchor` as the threads own it:
  // (ty, tx) bound, the micro-tile unrolled inside.
  static absl::Status ThreadTile(sch::Schedule& s, sch::BlockRV blk, sch::LoopRV anchor,
                                 const std::vector<int64_t>& rf, const std::vector<int64_t>& cf) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, LoopsBelow(s, blk, anchor));
    if (l.size() != 2) return absl::InternalError("unexpected write-back nest");
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> r, s.Split(l[0], {rf[1], rf[2], rf[3]}));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> c, s.Split(l[1], {cf[1], cf[2], cf[3]}));
    TESSEL_RETURN_IF_ERROR(s.Reorder({r[1], c[1], r[0], c[0], r[2], c[2]}));
    TESSEL_RETURN_IF_ERROR(s.Bind(r[1], "threadIdx.y"));
    TESSEL_RETURN_IF_ERROR(s.Bind(c[1], "threadIdx.x"));
    return UnrollAll(s, {r[0], c[0], r[2], c[2]});
  }
};

}  // namespace

TESSEL_REGISTER_SCHEDULE_RULE("cuda", 20, GpuMatmul);

}  // namespace tessel::metaschedule
