// gpu-matmul-mma: a matmul of f16 operands accumulated in f32 on tensor cores.
// Each warp computes a 16 MT x 8 NT tile as MT x NT products of mma_m16n8k16, its
// operands staged through shared memory a slice of the reduction at a time (both
// with the reduction last, so a fragment's pairs are neighbours), its accumulators
// in registers.
//
//   for i, j, k: block C (C[i, j] += f32(A[i, k]) * f32(B[k, j])) ->
//     for by in thread_binding(.., "blockIdx.y"), bx in (.., "blockIdx.x"):
//       for ty (warps), tx (32 lanes), mt, nt, ih, jl unrolled: block C_init
//       for k_0:
//         for ax.. thread_binding(ty, tx), vectorized: block A_shared   ([i, k])
//         for ax.. thread_binding(ty, tx), vectorized: block B_shared   ([j, k])
//         for ty in thread_binding(WM * WN, "threadIdx.y"), tx in (32, "threadIdx.x"):
//           for k_1, mt, nt unrolled: for ih in 2, jl in 2, kk in 16:
//             block C "warp_mma"                                       (C_local)
//       for ty, tx, micro-tile unrolled: block C_local                  (+ fused epilogue)
//
// Rows are split [blocks, WM warps, 8, MT, 2] and columns [blocks, WN warps, 4,
// NT, 2]; lane tx = 4 g + t owns rows 2 MT g + 2 mt + ih and columns 2 NT t + 2 nt
// + jl of its warp's tile, a 2 MT x 2 NT box that lowering keeps in registers.
// Row 2 MT g + 2 mt + ih is row g + 8 ih of product (mt, nt), which is where
// mma_m16n8k16 leaves lane (g, t)'s accumulators: so remove-blocks turns the
// marked block, one lane's 2 x 2 x 16 share, into fragment loads and one mma
// (passes/lowering/warp_mma.h), and before that the schedule is an ordinary
// per-thread matmul that the interpreter checks as such.
//
// Applies where gpu-matmul would and, in addition, the block's body is
// `C = C + f32(A) * f32(B)` with A and B f16 and C f32, rows divide by 16,
// columns by 8 and the reduction by 16. The heuristic: 2 x 2 warps where the
// tiles allow, warp tiles of up to 64 x 64 (MT 4, NT 8), smaller while the grid
// has fewer than kMinBlocks blocks, reduction slices of 32 (else 16). Otherwise
// gpu-matmul computes it on the CUDA cores.
//
// Rows of a shape variable's extent (a dense layer over n tokens) are padded
// first (pad_einsum) to a multiple of the row tile, since a warp's mma cannot sit
// under a per-row guard:
//   X: f16[n, 64] -> block X_pad (X below n, zero beyond; X_pad is the shared
//   stage), block C over (n + 127) // 128 * 128 rows into C_pad (the registers),
//   block C_crop (C = C_pad below n: the write-back, guarded).
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/block_dataflow.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/rules/gpu_matmul_common.h"
#include "metaschedule/schedule_rule.h"
#include "passes/lowering/warp_mma.h"

namespace tessel::metaschedule {

namespace {

// Products per warp along rows and columns at most: a 64 x 64 warp tile holds
// 128 f32 accumulators per lane.
constexpr int64_t kMaxMt = 4, kMaxNt = 8;
// The grid the heuristic aims for (gpu_matmul.cc's reason), and warps per block.
constexpr int64_t kMinBlocks = 256;
constexpr int64_t kWarpsPerDim = 2;
// f16 elements per vector copy: 16 bytes.
constexpr int64_t kVector = 8;

struct Tiles {
  int64_t wm, wn, mt, nt, ks;  // Warps, products per warp, 16-element k steps per slice.
};

Tiles HeuristicTiles(int64_t m, int64_t n, int64_t k, int64_t batch) {
  Tiles t{1, 1, LargestDivisorAtMost(m / 16, kMaxMt), LargestDivisorAtMost(n / 8, kMaxNt),
          k % 32 == 0 ? 2 : 1};
  auto warps = [](int64_t tiles) { return tiles % kWarpsPerDim == 0 ? kWarpsPerDim : 1; };
  while (true) {
    t.wm = warps(m / (16 * t.mt));
    t.wn = warps(n / (8 * t.nt));
    const int64_t blocks = batch * (m / (16 * t.mt * t.wm)) * (n / (8 * t.nt * t.wn));
    if (blocks >= kMinBlocks || t.mt * t.nt <= 2) return t;
    if (t.nt >= 2 * t.mt) {
      t.nt /= 2;
    } else {
      t.mt /= 2;
    }
  }
}

// A matmul over a shape variable's rows after pad_einsum: the rows padded to a
// multiple of the block's row tile, so that no tile needs a guard around the
// warps' collective mma. The row operand's zero-filling copy (A_pad: A below n,
// zero beyond) becomes its shared stage, the padded output (C_pad) the
// accumulator, and the crop back to n rows (C = C_pad) its guarded write-back.
struct PaddedRows {
  MatmulNest nest;           // The padded block's.
  int64_t operand = -1;      // The read of the padded operand.
  sch::BlockRV operand_pad;  // Its zero-filling copy.
  sch::BlockRV crop;         // The output's crop.
};

// None when the analyzer proves the tile divides the rows already (n * 128):
// pad_einsum then changes nothing and the rows tile exactly.
absl::StatusOr<std::optional<PaddedRows>> PadRows(const RuleContext& ctx, sch::Schedule& s,
                                                  sch::BlockRV c, const MatmulNest& it,
                                                  int64_t tile, int64_t row_operand) {
  const ir::Block before = ir::GetRef(it.nest.block);  // Held: compared after the pad.
  const ir::BlockNode* b = before.get();
  PaddedRows out;
  out.operand = row_operand;
  std::vector<int64_t> padding(b->iter_vars.size(), 1);
  padding[it.rows] = tile;
  TESSEL_RETURN_IF_ERROR(s.PadEinsum(c, padding));
  TESSEL_ASSIGN_OR_RETURN(ir::Block pb, s.Get(c));
  if (pb.same_as(before)) return std::nullopt;
  std::variant<MatmulNest, std::string> again =
      AnalyzeGpuMatmul(ctx, s, pb->name, /*symbolic_rows=*/true);
  if (const std::string* why = std::get_if<std::string>(&again)) {
    return absl::InternalError(absl::StrCat("the padded matmul: ", *why));
  }
  out.nest = std::get<MatmulNest>(again);
  const ir::Buffer operand = pb->reads[out.operand].buffer;
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::BlockRV> producers, s.GetProducers(c));
  bool found = false;
  for (sch::BlockRV p : producers) {
    TESSEL_ASSIGN_OR_RETURN(ir::Block pp, s.Get(p));
    if (pp->writes.size() == 1 && pp->writes[0].buffer.same_as(operand)) {
      out.operand_pad = p;
      found = true;
    }
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::BlockRV> consumers, s.GetConsumers(c));
  if (!found || consumers.size() != 1) {
    return absl::InternalError("pad_einsum left no operand copy or not one crop");
  }
  out.crop = consumers[0];
  return out;
}

// A_shared's layout for conflict-free fragment loads: the eight rows one load
// spans (lane g's, 2 MT apart in the compute order) next to each other, in rows of
// the slice's k padded by 8 elements (16 bytes, which keeps the copy's vector
// stores aligned). Lane (g, t) then reads word 20 g + t (slices of 32; 12 g + t
// for 16): 32 distinct banks, where rows 2 MT apart of 16 words put 8 lanes in one
// bank (report-bank-conflicts measured 8 wavefronts per load, now 1).
//   A's row v = [block, warp] * 16 MT + g * 2 MT + mt * 2 + ih  ->  [.., mt, ih, g, k]
// B keeps its layout: permuted the same way, its loads are conflict-free too, but
// LLVM no longer proves its staging stores 16-byte aligned and stores them one
// element at a time (docs/gpu.md).
absl::Status FragmentRowsAdjacent(sch::Schedule& s, sch::BlockRV copy, sch::BlockRV c, int rows,
                                  const Tiles& t) {
  TESSEL_ASSIGN_OR_RETURN(ir::Block cb, s.Get(copy));
  const ir::Buffer staged = cb->writes[0].buffer;
  TESSEL_ASSIGN_OR_RETURN(ir::Block b, s.Get(c));
  const ir::BufferRegion* read = nullptr;
  for (const ir::BufferRegion& r : b->reads) {
    if (r.buffer.same_as(staged)) read = &r;
  }
  if (read == nullptr) return absl::InternalError("the staged operand is not read");
  std::optional<size_t> dim;
  for (size_t d = 0; d < read->region.size(); ++d) {
    if (ir::arith::UsesVar(read->region[d].min, b->iter_vars[rows].var.get())) dim = d;
  }
  const size_t rank = read->region.size();
  if (!dim || *dim + 2 != rank) return absl::InternalError("the staged operand's layout");
  std::vector<std::string> in, out;
  for (size_t d = 0; d < rank; ++d) in.push_back(absl::StrCat("v", d));
  for (size_t d = 0; d < *dim; ++d) out.push_back(in[d]);
  const std::string& v = in[*dim];
  out.push_back(absl::StrCat(v, " // ", 16 * t.mt));
  out.push_back(absl::StrCat(v, " // 2 % ", t.mt));
  out.push_back(absl::StrCat(v, " % 2"));
  out.push_back(absl::StrCat(v, " // ", 2 * t.mt, " % 8"));
  out.push_back(in.back());
  TESSEL_RETURN_IF_ERROR(s.TransformLayout(
      copy, staged->name,
      absl::StrCat("lambda ", absl::StrJoin(in, ", "), ": (", absl::StrJoin(out, ", "), ")")));
  // g's stride, the slice's k (16 t.ks) once compacted, becomes 16 t.ks + 8.
  const int64_t slice = 16 * t.ks;
  return s.StorageAlign(copy, 0, static_cast<int64_t>(rank) + 1, 2 * slice, slice + 8);
}

class GpuMatmulMma : public ScheduleRule {
 public:
  std::string name() const override { return "gpu-matmul-mma"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    std::variant<MatmulNest, std::string> analyzed =
        AnalyzeGpuMatmul(ctx, s, block, /*symbolic_rows=*/true);
    if (const std::string* why = std::get_if<std::string>(&analyzed)) {
      return RuleOutcome::NotApplicable(*why);
    }
    MatmulNest it = std::get<MatmulNest>(analyzed);
    ir::Block b = ir::GetRef(it.nest.block);
    const int rows = it.rows, cols = it.cols, reduce = it.reduce;
    const int64_t m = it.m, n = it.n, kext = it.k;
    const bool symbolic = m == kSymbolicExtent;
    if (absl::Status body = passes::lowering::CheckWarpMmaBody(b->body); !body.ok()) {
      return RuleOutcome::NotApplicable(std::string(body.message()));
    }
    if ((!symbolic && m % 16 != 0) || n % 8 != 0 || kext % 16 != 0) {
      return RuleOutcome::NotApplicable(
          absl::StrCat("its ", symbolic ? std::string("n") : absl::StrCat(m), " x ", n, " x ", kext,
                       " product is not whole 16 x 8 x 16 tensor-core tiles"));
    }
    // A's rows and B's columns: each operand uses one of them and the reduction.
    std::vector<int64_t> staged;
    std::vector<bool> by_rows;  // Per staged operand: A (rows), not B (columns).
    for (size_t r = 0; r < b->reads.size(); ++r) {
      if (sch::Touches(b->writes, b->reads[r].buffer.get())) continue;
      const bool uses_rows = RegionUsesIter(b.get(), b->reads[r], static_cast<size_t>(rows));
      const bool uses_cols = RegionUsesIter(b.get(), b->reads[r], static_cast<size_t>(cols));
      if (uses_rows == uses_cols) {
        return RuleOutcome::NotApplicable(
            "an operand is not indexed by exactly one of rows and "
            "columns");
      }
      staged.push_back(static_cast<int64_t>(r));
      by_rows.push_back(uses_rows);
    }
    if (staged.size() != 2) return RuleOutcome::NotApplicable("it has not two operands");
    if (by_rows[0] == by_rows[1]) {
      return RuleOutcome::NotApplicable("its operands are not one by rows and one by columns");
    }

    // Rows of a shape variable's extent are taken to fill the grid.
    const Tiles t =
        symbolic ? HeuristicTiles(kSymbolicRows, n, kext, kMinBlocks)
                 : HeuristicTiles(m, n, kext, SplitNestLoops(it.nest).spatial_extent / (m * n));
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock(block));
    std::vector<std::string> did;
    std::optional<PaddedRows> padded;
    if (symbolic) {
      TESSEL_ASSIGN_OR_RETURN(padded,
                              PadRows(ctx, s, c, it, 16 * t.mt * t.wm, staged[by_rows[0] ? 0 : 1]));
      if (padded) {
        b = ir::GetRef(padded->nest.nest.block);
        it = padded->nest;
        did.push_back(absl::StrCat("rows padded to a multiple of ", 16 * t.mt * t.wm));
      }
    }
    const TrivialNest& nest = it.nest;
    std::vector<sch::BlockRV> copies;
    std::vector<bool> transposed;
    for (int64_t r : staged) {
      // A padded operand's zero-filling copy is its shared stage.
      sch::BlockRV copy;
      if (padded && padded->operand == r) {
        copy = padded->operand_pad;
        TESSEL_RETURN_IF_ERROR(s.SetScope(copy, 0, "shared"));
      } else {
        TESSEL_ASSIGN_OR_RETURN(copy, s.CacheRead(c, r, "shared"));
      }
      copies.push_back(copy);
      // The reduction last: a fragment's two neighbouring k are one 32-bit word.
      std::optional<std::string> map = ColumnsLast(b.get(), b->reads[r], reduce);
      transposed.push_back(map.has_value());
      if (map) {
        TESSEL_ASSIGN_OR_RETURN(ir::Block cb, s.Get(copy));
        TESSEL_RETURN_IF_ERROR(s.TransformLayout(copy, cb->writes[0].buffer->name, *map));
        did.push_back(absl::StrCat(b->reads[r].buffer->name, " staged transposed"));
      }
    }
    // The accumulator: a padded output is it, and the crop its write-back.
    sch::BlockRV wb;
    if (padded) {
      wb = padded->crop;
      TESSEL_RETURN_IF_ERROR(s.SetScope(c, 0, "local"));
    } else {
      TESSEL_ASSIGN_OR_RETURN(wb, s.CacheWrite(c, 0, "local"));
    }
    TESSEL_ASSIGN_OR_RETURN(std::vector<std::string> epilogues, InlineEpilogues(s, wb));
    for (const std::string& e : epilogues) did.push_back(absl::StrCat("epilogue ", e));

    const NestLoops loops = SplitNestLoops(nest);
    TESSEL_ASSIGN_OR_RETURN(
        std::vector<sch::LoopRV> ri,
        s.Split(nest.loops[nest.loop_of_iter[rows]], {std::nullopt, t.wm, 8, t.mt, 2}));
    TESSEL_ASSIGN_OR_RETURN(
        std::vector<sch::LoopRV> ci,
        s.Split(nest.loops[nest.loop_of_iter[cols]], {std::nullopt, t.wn, 4, t.nt, 2}));
    TESSEL_ASSIGN_OR_RETURN(
        std::vector<sch::LoopRV> ki,
        s.Split(nest.loops[nest.loop_of_iter[reduce]], {std::nullopt, t.ks, 16}));

    const std::vector<sch::LoopRV> batch = BatchLoops(it);
    std::vector<sch::LoopRV> order = loops.unit;
    order.insert(order.end(), batch.begin(), batch.end());
    for (sch::LoopRV l : {ri[0], ci[0], ki[0], ri[1], ci[1], ri[2], ci[2], ki[1], ri[3], ci[3],
                          ri[4], ci[4], ki[2]}) {
      order.push_back(l);
    }
    TESSEL_RETURN_IF_ERROR(s.Reorder(order));
    TESSEL_RETURN_IF_ERROR(BindBatch(s, batch));
    TESSEL_RETURN_IF_ERROR(s.Bind(ri[0], "blockIdx.y"));
    TESSEL_RETURN_IF_ERROR(s.Bind(ci[0], "blockIdx.x"));
    // The accumulator: written back per block (placed while the compute's
    // regions are exact, before fused thread loops put // and % in them), zeroed
    // before k_0.
    TESSEL_ASSIGN_OR_RETURN(bool placed, IsUnder(s, wb, ci[0]));
    if (!placed) TESSEL_RETURN_IF_ERROR(s.ReverseComputeAt(wb, ci[0]));
    TESSEL_ASSIGN_OR_RETURN(sch::LoopRV warp, s.Fuse({ri[1], ci[1]}));
    TESSEL_ASSIGN_OR_RETURN(sch::LoopRV lane, s.Fuse({ri[2], ci[2]}));
    TESSEL_RETURN_IF_ERROR(s.Bind(warp, "threadIdx.y"));
    TESSEL_RETURN_IF_ERROR(s.Bind(lane, "threadIdx.x"));
    TESSEL_RETURN_IF_ERROR(UnrollAll(s, {ki[1], ri[3], ci[3]}));
    TESSEL_RETURN_IF_ERROR(s.DecomposeReduction(c, ki[0]).status());
    TESSEL_RETURN_IF_ERROR(
        s.Annotate(c, passes::lowering::kWarpMmaAnnotation, ir::AttrValue("m16n8k16")));
    TESSEL_RETURN_IF_ERROR(WarpTile(s, wb, ci[0], t));

    const int64_t warps = t.wm * t.wn;
    for (sch::BlockRV copy : copies) {
      TESSEL_ASSIGN_OR_RETURN(bool under, IsUnder(s, copy, ki[0]));
      if (!under) TESSEL_RETURN_IF_ERROR(s.ComputeAt(copy, ki[0]));
    }
    for (size_t i = 0; i < copies.size(); ++i) {
      // Only now: compute_at wants the copy's stores at its iter vars.
      // Not over whole tiles of symbolic rows (n * 128): the analyzer cannot prove
      // the permuted stage's box constant there ((i_0 * 128 + 127) // 64 may wrap
      // for all it knows of n), and storage_align pads constant shapes only.
      if (by_rows[i] && (!symbolic || padded)) {
        TESSEL_RETURN_IF_ERROR(FragmentRowsAdjacent(s, copies[i], c, rows, t));
      }
      // A transposing copy stores a strided vector: element by element.
      TESSEL_RETURN_IF_ERROR(
          CooperativeCopy(s, copies[i], ki[0], warps, 32, transposed[i] ? 1 : kVector));
    }
    did.insert(did.begin(),
               absl::StrCat("tensor cores: tile ", 16 * t.mt * t.wm, "x", 8 * t.nt * t.wn,
                            " per block of ", t.wm, "x", t.wn, " warps, ", t.mt, "x", t.nt,
                            " m16n8k16 per warp, k slices of ", 16 * t.ks));
    return RuleOutcome::Applied(absl::StrJoin(did, ", "));
  }

 private:
  // The write-back nest under `anchor` as the lanes own the accumulators: rows
  // [WM, 8, 2 MT] and columns [WN, 4, 2 NT], warps and lanes bound, each lane's
  // 2 MT x 2 NT box unrolled.
  static absl::Status WarpTile(sch::Schedule& s, sch::BlockRV blk, sch::LoopRV anchor,
                               const Tiles& t) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, LoopsBelow(s, blk, anchor));
    if (l.size() != 2) return absl::InternalError("unexpected write-back nest");
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> r, s.Split(l[0], {t.wm, 8, 2 * t.mt}));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> c, s.Split(l[1], {t.wn, 4, 2 * t.nt}));
    TESSEL_RETURN_IF_ERROR(s.Reorder({r[0], c[0], r[1], c[1], r[2], c[2]}));
    TESSEL_ASSIGN_OR_RETURN(sch::LoopRV warp, s.Fuse({r[0], c[0]}));
    TESSEL_ASSIGN_OR_RETURN(sch::LoopRV lane, s.Fuse({r[1], c[1]}));
    TESSEL_RETURN_IF_ERROR(s.Bind(warp, "threadIdx.y"));
    TESSEL_RETURN_IF_ERROR(s.Bind(lane, "threadIdx.x"));
    return UnrollAll(s, {r[2], c[2]});
  }
};

}  // namespace

TESSEL_REGISTER_SCHEDULE_RULE("cuda", 25, GpuMatmulMma);

}  // namespace tessel::metaschedule
