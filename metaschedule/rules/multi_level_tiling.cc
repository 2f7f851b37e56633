// multi-level-tiling: tiles a reduction with data reuse (matmul, batch_matmul,
// dense, conv2d ...) in the SSRSRS structure, with a register-resident
// accumulator tile, a packed panel of the operand the rows of tiles share, and
// elementwise epilogues computed at the tile.
//
//   for i, j, k: block C (vi, vj spatial; vk reduce) ->
//     for i_0, j_0:                                   (S0: parallel, one panel each)
//       for ax0, ax1: block B_global                  (the panel B[:, j tile])
//       for i_1, j_1:                                 (S1: one accumulator tile each)
//         for ax0 unrolled, ax1 vectorized: block C_init
//         for k_0:                                    (R0)
//           for i_2, j_2:                             (S2)
//             for k_1:                                (R1)
//               for i_3 unrolled, j_3 vectorized:     (S3: the register tile)
//                 block C (into C_local)
//         for ax0 unrolled, ax1 vectorized: block C_local  (+ fused epilogue)
//
// Applies to a block with spatial and reduce iter vars and an init, alone in a
// perfect trivially bound nest, writing a buffer of rank >= 2 two of whose
// dimensions, the columns (ColsIter: the last, or one giving whole vectors) and
// the rows (RowsIter), are indexed by spatial iter vars, and reading some buffer
// that does not use every spatial iter var (reuse: a tile pays). Columns that
// are not the output's last dimension (conv2d NCHW's output channels) get an
// accumulator laid out with them last; a transposed panel that fits in half the
// L2 is packed whole, once per call; a two-dimensional panel packed per column
// tile is laid out panel-major ([N / T * K, T], PanelMajor), which compaction
// shrinks to the same [K, T] and hoist-constant-packing can hoist for a constant
// weight with every tile's panel still contiguous. Every panel copy runs its loop over the
// panel's columns innermost, vectorized (PackUnder). The register tile runs a registered
// micro-kernel (tensorize) where one matches it (ComputeTile).
// Each loop is split by sample_perfect_tile (4 levels spatial, 2 reduce). The
// heuristic (default-schedule): cols' innermost factor is a divisor up to two
// vectors (ColumnTile), rows' the largest up to what the vector registers hold
// beside it (at most 8, or 16 rows of one vector); cols' remaining factor goes to S0 (parallel,
// with the panel), rows' to S1; every other spatial loop stays whole in S0 and every reduce loop in
// R0. That is the recipe of the hand schedule the bench measures against oneDNN (tools/bench),
// derived from the block instead of written for it.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/tensor_intrin.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

// The register tile's columns: a divisor of `n` up to two vectors, preferring
// whole vectors, then a power of two from 4 lanes (a narrower register), then
// the largest. A width like 28 would split every row into 16 + 8 + 4 lanes and
// keep the accumulator out of registers.
int64_t ColumnTile(int64_t n, int64_t lanes) {
  auto score = [&](int64_t d) {
    if (d % lanes == 0) return 2;
    return d >= 4 && (d & (d - 1)) == 0 ? 1 : 0;
  };
  int64_t best = 1;
  for (int64_t d = 1; d <= std::min(n, 2 * lanes); ++d) {
    if (n % d != 0) continue;
    if (score(d) > score(best) || (score(d) == score(best) && d > best)) best = d;
  }
  return best;
}

// A [K, N] panel laid out panel-major as [N / tile * K, tile]: tile t of `tile`
// columns is the contiguous rows [t * K, (t + 1) * K),
//   lambda v0, v1: (v1 // 32 * 768 + v0, v1 % 32)      (K 768, tile 32)
// Two dimensions still, so the micro-kernels' operands match it.
std::string PanelMajor(int64_t rows, int64_t tile) {
  return absl::StrCat("lambda v0, v1: (v1 // ", tile, " * ", rows, " + v0, v1 % ", tile, ")");
}

// The index in `loops` of the loop whose variable the copy's binding of the
// panel's last (contiguous) dimension uses, or -1.
int LoopOfLastDim(sch::Schedule& s, sch::BlockRV pack, const std::vector<sch::LoopRV>& loops) {
  absl::StatusOr<ir::Block> b = s.Get(pack);
  if (!b.ok() || (*b)->writes.empty() || (*b)->writes[0].region.empty()) return -1;
  const sch::StmtIndex& index = s.state().index();
  const ir::BlockRealizeNode* r = index.realize(index.FindBlock((*b)->name));
  const ir::Expr& last = (*b)->writes[0].region.back().min;
  for (size_t l = 0; l < loops.size(); ++l) {
    absl::StatusOr<ir::Ref<const ir::ForNode>> f = s.Get(loops[l]);
    if (!f.ok()) return -1;
    for (size_t k = 0; k < (*b)->iter_vars.size(); ++k) {
      if (ir::arith::UsesVar(last, (*b)->iter_vars[k].var.get()) &&
          ir::arith::UsesVar(r->iter_values[k], (*f)->loop_var.get())) {
        return static_cast<int>(l);
      }
    }
  }
  return -1;
}

// Moves the loop of the panel copy `pack` over the panel's contiguous dimension
// innermost among its `loops` (kept as they are where it cannot), so that a
// transposed panel (Wᵀ of a dense layer) is written a vector at a time and read
// with gathers whose rows stay in L1,
//   for ax1 in 768: for ax0 in vectorized 32: W1_global[ax1, ax0] = W1[ax0, ax1]
// where the order of W1 would store one element per line of a 96 KB panel.
// Returns the loops in their new order.
std::vector<sch::LoopRV> ContiguousInnermost(sch::Schedule& s, sch::BlockRV pack,
                                             std::vector<sch::LoopRV> loops) {
  const int contiguous = LoopOfLastDim(s, pack, loops);
  if (contiguous < 0 || contiguous + 1 == static_cast<int>(loops.size())) return loops;
  std::vector<sch::LoopRV> order = loops;
  order.erase(order.begin() + contiguous);
  order.push_back(loops[contiguous]);
  sch::Schedule before = s;
  if (s.Reorder(order).ok()) return order;
  s = std::move(before);
  return loops;
}

// Moves the panel copy `pack` under `loop`, its contiguous dimension's loop
// innermost (ContiguousInnermost), and vectorizes that loop where it can (a
// halo, conv2d's rows plus taps, may refuse it).
absl::Status PackUnder(sch::Schedule& s, sch::BlockRV pack, sch::LoopRV loop) {
  TESSEL_RETURN_IF_ERROR(s.ComputeAt(pack, loop));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> below, LoopsBelow(s, pack, loop));
  const std::vector<sch::LoopRV> p = ContiguousInnermost(s, pack, std::move(below));
  if (!p.empty()) {
    sch::Schedule before = s;
    if (!s.Vectorize(p.back()).ok()) s = std::move(before);
  }
  return absl::OkStatus();
}

// Unrolls all but the innermost of `loops` and vectorizes the innermost.
absl::Status RegisterTile(sch::Schedule& s, const std::vector<sch::LoopRV>& loops) {
  for (size_t l = 0; l < loops.size(); ++l) {
    TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(loops[l]));
    if (ir::arith::IsConstInt(f->extent, 1)) continue;
    TESSEL_RETURN_IF_ERROR(l + 1 == loops.size() ? s.Vectorize(loops[l]) : s.Unroll(loops[l]));
  }
  return absl::OkStatus();
}

// The loop extents of an intrinsic's description, outermost first ([4, 16] for
// f32_fma_4x16).
std::vector<int64_t> DescTile(const ir::PrimFunc& desc) {
  std::vector<int64_t> tile;
  const ir::StmtNode* at = desc->body.get();
  while (const auto* f = ir::dyn_cast<ir::ForNode>(at)) {
    std::optional<int64_t> e = ir::arith::AsConstInt(f->extent);
    if (!e) return {};
    tile.push_back(*e);
    at = f->body.get();
  }
  return tile;
}

// Splits the register tile (rows, cols) by an intrinsic's [R, W] and
// tensorizes its inner R x W part; the outer parts are unrolled.
absl::Status TensorizeTile(sch::Schedule& s, sch::LoopRV rows, sch::LoopRV cols,
                           const std::string& name, const std::vector<int64_t>& tile) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> r, s.Split(rows, {std::nullopt, tile[0]}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> c, s.Split(cols, {std::nullopt, tile[1]}));
  TESSEL_RETURN_IF_ERROR(s.Reorder({r[0], c[0], r[1], c[1]}));
  for (sch::LoopRV outer : {r[0], c[0]}) {
    TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> f, s.Get(outer));
    if (!ir::arith::IsConstInt(f->extent, 1)) TESSEL_RETURN_IF_ERROR(s.Unroll(outer));
  }
  return s.Tensorize(r[1], name);
}

// The register tile's computation: a registered micro-kernel where one matches
// (its [R, W] divides the tile and tensorize accepts the block), else the tile's
// rows unrolled and columns vectorized. The choice is a sample_categorical over
// "none" and the intrinsics that match; the heuristic takes the one covering
// the most of the tile. Returns the intrinsic's name, or "".
absl::StatusOr<std::string> ComputeTile(const RuleContext& ctx, sch::Schedule& s, sch::LoopRV rows,
                                        sch::LoopRV cols) {
  TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> rf, s.Get(rows));
  TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> cf, s.Get(cols));
  const std::optional<int64_t> m = ir::arith::AsConstInt(rf->extent);
  const std::optional<int64_t> n = ir::arith::AsConstInt(cf->extent);
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> tiles;
  for (const std::string& name : ir::schedule::TensorIntrinNames()) {
    absl::StatusOr<ir::schedule::TensorIntrin> intrin = ir::schedule::GetTensorIntrin(name);
    if (!intrin.ok() || !m || !n) continue;
    std::vector<int64_t> tile = DescTile(intrin->desc);
    if (tile.size() != 2 || *m % tile[0] != 0 || *n % tile[1] != 0) continue;
    sch::Schedule trial = s;  // Does tensorize take it? Tried aside, not traced.
    if (!TensorizeTile(trial, rows, cols, name, tile).ok()) continue;
    names.push_back(name);
    tiles.push_back(tile);
  }
  // Choice 0 is "none", choice k + 1 the k-th matching intrinsic.
  std::vector<int64_t> choices = {0};
  int64_t heuristic = 0, covered = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    choices.push_back(static_cast<int64_t>(k) + 1);
    if (tiles[k][0] * tiles[k][1] > covered) {
      covered = tiles[k][0] * tiles[k][1];
      heuristic = static_cast<int64_t>(k) + 1;
    }
  }
  if (names.empty()) {
    TESSEL_RETURN_IF_ERROR(RegisterTile(s, {rows, cols}));
    return std::string();
  }
  std::vector<double> probs(choices.size(), 1.0 / static_cast<double>(choices.size()));
  TESSEL_ASSIGN_OR_RETURN(sch::ExprRV pick,
                          s.SampleCategorical(choices, probs, ctx.Decide(heuristic)));
  TESSEL_ASSIGN_OR_RETURN(int64_t chosen, s.Get(pick));
  if (chosen == 0) {
    TESSEL_RETURN_IF_ERROR(RegisterTile(s, {rows, cols}));
    return std::string();
  }
  const size_t k = static_cast<size_t>(chosen - 1);
  TESSEL_RETURN_IF_ERROR(TensorizeTile(s, rows, cols, names[k], tiles[k]));
  return names[k];
}

// The columns of the register tile: the spatial iter var of the output's last
// dimension, unless its extent gives no whole vector of columns and another
// output dimension, read by some operand (the panel), does: conv2d NCHW's 56
// columns fall to 8 lanes, its 64 output channels give two vectors. The
// accumulator and the panel are then laid out with the columns last.
int ColsIter(const ir::BlockNode* b, const TrivialNest& nest, int64_t lanes) {
  const ir::BufferRegion& out = b->writes[0];
  const size_t rank = out.region.size();
  const int last = IterIndexingDim(b, out, rank - 1);
  auto whole = [&](int k) {
    return ColumnTile(nest.extents[nest.loop_of_iter[k]], lanes) % lanes == 0;
  };
  if (last < 0 || whole(last)) return last;
  for (size_t d = rank - 1; d-- > 0;) {
    const int k = IterIndexingDim(b, out, d);
    if (k < 0 || b->iter_vars[k].kind != ir::IterKind::kSpatial || !whole(k)) continue;
    for (const ir::BufferRegion& r : b->reads) {
      if (RegionUsesIter(b, r, static_cast<size_t>(k)) &&
          !RegionUsesIter(b, r, static_cast<size_t>(last))) {
        return k;
      }
    }
  }
  return last;
}

class MultiLevelTiling : public ScheduleRule {
 public:
  std::string name() const override { return "multi-level-tiling"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext& ctx, sch::Schedule& s,
                                    const std::string& block) const override {
    const sch::StmtIndex& index = s.state().index();
    int sref = index.FindBlock(block);
    const ir::Block b = ir::GetRef(index.block(sref));
    if (!HasReduce(b.get()) || b->init == nullptr) {
      return RuleOutcome::NotApplicable("it does not reduce");
    }
    if (b->writes.size() != 1) return RuleOutcome::NotApplicable("it writes more than one buffer");
    for (const ir::IterVar& iv : b->iter_vars) {
      if (iv.kind == ir::IterKind::kOpaque) return RuleOutcome::NotApplicable("opaque iter var");
    }
    const ir::BufferRegion& out = b->writes[0];
    const size_t rank = out.region.size();
    std::variant<TrivialNest, std::string> analysed = AnalyzeNest(s, block);
    if (const std::string* why = std::get_if<std::string>(&analysed)) {
      return RuleOutcome::NotApplicable(*why);
    }
    const TrivialNest& nest = std::get<TrivialNest>(analysed);
    const int lanes = std::min(ctx.machine.Lanes(out.buffer->dtype), 64);
    const int cols = rank >= 2 ? ColsIter(b.get(), nest, lanes) : -1;
    const int rows = cols >= 0 ? RowsIter(b.get(), cols) : -1;
    if (cols < 0 || rows < 0 || cols == rows) {
      return RuleOutcome::NotApplicable(
          "its output's last dimension and another are not indexed by spatial iter vars");
    }
    // Reuse: some read does not use every spatial iter var.
    std::optional<int64_t> panel;
    bool reuse = false;
    for (size_t r = 0; r < b->reads.size(); ++r) {
      for (size_t k = 0; k < b->iter_vars.size(); ++k) {
        if (b->iter_vars[k].kind == ir::IterKind::kSpatial &&
            !RegionUsesIter(b.get(), b->reads[r], k)) {
          reuse = true;
        }
      }
      if (!panel && RegionUsesIter(b.get(), b->reads[r], static_cast<size_t>(cols)) &&
          !RegionUsesIter(b.get(), b->reads[r], static_cast<size_t>(rows)) &&
          !sch::Touches(b->writes, b->reads[r].buffer.get())) {
        panel = static_cast<int64_t>(r);
      }
    }
    if (!reuse) return RuleOutcome::NotApplicable("no read is reused across its iterations");

    // The heuristic's factors per iter var.
    const int64_t n = nest.extents[nest.loop_of_iter[cols]];
    const int64_t m = nest.extents[nest.loop_of_iter[rows]];
    const int64_t col_tile = ColumnTile(n, lanes);
    const int64_t vectors_per_row = (col_tile + lanes - 1) / lanes;
    const int64_t row_budget =
        std::max<int64_t>(1, (ctx.machine.vector_registers - 4) / vectors_per_row);
    const int64_t row_tile =
        LargestDivisorAtMost(m, std::min<int64_t>(vectors_per_row == 1 ? 16 : 8, row_budget));

    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock(block));
    // parts[k][level]: the loops of iter var k, outermost level first.
    std::vector<std::vector<sch::LoopRV>> parts(b->iter_vars.size());
    std::vector<std::string> tiles;
    int64_t col_tiles = 1;  // The columns' outermost factor: how many column tiles.
    for (size_t k = 0; k < b->iter_vars.size(); ++k) {
      const bool spatial = b->iter_vars[k].kind == ir::IterKind::kSpatial;
      const int64_t e = nest.extents[nest.loop_of_iter[k]];
      std::vector<int64_t> decision = spatial ? std::vector<int64_t>{e, 1, 1, 1}
                                              : std::vector<int64_t>{e, 1};
      if (static_cast<int>(k) == cols) decision = {n / col_tile, 1, 1, col_tile};
      if (static_cast<int>(k) == rows) decision = {1, m / row_tile, 1, row_tile};
      const int64_t max_inner = static_cast<int>(k) == cols ? 64 : 16;
      TESSEL_ASSIGN_OR_RETURN(
          std::vector<sch::ExprRV> v,
          s.SamplePerfectTile(nest.loops[nest.loop_of_iter[k]],
                              static_cast<int64_t>(decision.size()), max_inner,
                              ctx.Decide(decision)));
      std::vector<sch::Factor> factors(v.begin(), v.end());
      TESSEL_ASSIGN_OR_RETURN(parts[k], s.Split(nest.loops[nest.loop_of_iter[k]], factors));
      std::vector<std::string> got;
      for (sch::ExprRV x : v) {
        TESSEL_ASSIGN_OR_RETURN(int64_t f, s.Get(x));
        got.push_back(absl::StrCat(f));
        if (static_cast<int>(k) == cols && got.size() == 1) col_tiles = f;
      }
      tiles.push_back(absl::StrCat(b->iter_vars[k].var->name, "=[", absl::StrJoin(got, ","), "]"));
    }
    // SSRSRS, rows and cols innermost within each spatial level.
    std::vector<size_t> spatial_order;
    for (size_t k = 0; k < b->iter_vars.size(); ++k) {
      if (b->iter_vars[k].kind == ir::IterKind::kSpatial && static_cast<int>(k) != rows &&
          static_cast<int>(k) != cols) {
        spatial_order.push_back(k);
      }
    }
    spatial_order.push_back(static_cast<size_t>(rows));
    spatial_order.push_back(static_cast<size_t>(cols));
    std::vector<sch::LoopRV> order;
    auto level = [&](bool spatial, size_t lv) {
      if (spatial) {
        for (size_t k : spatial_order) order.push_back(parts[k][lv]);
        return;
      }
      for (size_t k = 0; k < b->iter_vars.size(); ++k) {
        if (b->iter_vars[k].kind == ir::IterKind::kReduce) order.push_back(parts[k][lv]);
      }
    };
    level(true, 0), level(true, 1), level(false, 0), level(true, 2), level(false, 1),
        level(true, 3);
    TESSEL_RETURN_IF_ERROR(s.Reorder(order));
    const sch::LoopRV s0_last = parts[cols][0], s1_last = parts[cols][1];
    sch::LoopRV r0_first = parts[0][0];
    for (size_t k = 0; k < b->iter_vars.size(); ++k) {
      if (b->iter_vars[k].kind == ir::IterKind::kReduce) {
        r0_first = parts[k][0];
        break;
      }
    }
    std::vector<std::string> did = {absl::StrJoin(tiles, " ")};

    // The panel of the operand every row of tiles reads, once per column of tiles.
    TESSEL_ASSIGN_OR_RETURN(ir::Ref<const ir::ForNode> rows1, s.Get(parts[rows][1]));
    // A panel pays when rows of tiles share it, or when its columns must be
    // moved last for contiguous vector loads (conv2d's kernel, channels first).
    std::optional<std::string> map;
    if (panel) map = ColumnsLast(b.get(), b->reads[*panel], cols);
    if (panel && (map || !ir::arith::IsConstInt(rows1->extent, 1))) {
      TESSEL_ASSIGN_OR_RETURN(sch::BlockRV pack, s.CacheRead(c, *panel, "global"));
      // The panel laid out with the columns' dimension last, so that the vector
      // loads of the register tile are contiguous (Wᵀ of a dense layer).
      if (map) {
        TESSEL_ASSIGN_OR_RETURN(ir::Block pb, s.Get(pack));
        TESSEL_RETURN_IF_ERROR(s.TransformLayout(pack, pb->writes[0].buffer->name, *map));
        did.push_back("transposed panel");
      }
      // A transposed operand that fits in half the L2 (conv2d's kernel) is packed
      // whole, once per call: under the column loop it would be packed again
      // for every tile of the spatial loops outside it.
      const ir::BufferNode* operand = b->reads[*panel].buffer.get();
      const std::optional<int64_t> elements = ElementCount(operand);
      if (map && elements && *elements * operand->dtype.bytes() <= ctx.machine.l2_bytes / 2) {
        // Its copy written a vector of columns at a time (parallelize-vectorize
        // vectorizes that loop).
        TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> loops, s.GetLoops(pack));
        ContiguousInnermost(s, pack, std::move(loops));
        did.push_back(absl::StrCat("packed ", b->reads[*panel].buffer->name, " whole"));
      } else {
        TESSEL_RETURN_IF_ERROR(PackUnder(s, pack, s0_last));
        TESSEL_ASSIGN_OR_RETURN(ir::Block pb, s.Get(pack));
        const ir::BufferNode* packed = pb->writes[0].buffer.get();
        const int64_t col_tile_extent = n / col_tiles;
        const std::optional<int64_t> panel_rows =
            packed->shape.size() == 2 ? ir::arith::AsConstInt(packed->shape[0]) : std::nullopt;
        if (col_tile_extent < n && panel_rows) {
          TESSEL_RETURN_IF_ERROR(
              s.TransformLayout(pack, packed->name, PanelMajor(*panel_rows, col_tile_extent)));
        }
        did.push_back(absl::StrCat("packed ", b->reads[*panel].buffer->name));
      }
    }

    // The accumulator tile, written back once per tile, with the epilogues folded
    // in; its columns last (a vector of them in one register) where the output
    // has them elsewhere.
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV wb, s.CacheWrite(c, 0, "local"));
    if (std::optional<std::string> map = ColumnsLast(b.get(), out, cols)) {
      TESSEL_ASSIGN_OR_RETURN(ir::Block wblock, s.Get(wb));
      TESSEL_RETURN_IF_ERROR(s.TransformLayout(wb, wblock->reads[0].buffer->name, *map));
      did.push_back("transposed accumulator");
    }
    TESSEL_ASSIGN_OR_RETURN(std::vector<std::string> epilogues, InlineEpilogues(s, wb));
    for (const std::string& e : epilogues) did.push_back(absl::StrCat("epilogue ", e));
    TESSEL_RETURN_IF_ERROR(s.ReverseComputeAt(wb, s1_last));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> w, LoopsBelow(s, wb, s1_last));
    TESSEL_RETURN_IF_ERROR(RegisterTile(s, w));
    // Its zeroing, once per tile before the reduction loops.
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV init, s.DecomposeReduction(c, r0_first));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> z, LoopsBelow(s, init, s1_last));
    TESSEL_RETURN_IF_ERROR(RegisterTile(s, z));
    did.push_back("local accumulator");
    TESSEL_ASSIGN_OR_RETURN(std::string intrin,
                            ComputeTile(ctx, s, parts[rows][3], parts[cols][3]));
    if (!intrin.empty()) did.push_back(absl::StrCat("tensorized ", intrin));
    return RuleOutcome::Applied(absl::StrJoin(did, ", "));
  }
};

TESSEL_REGISTER_SCHEDULE_RULE("llvm", 300, MultiLevelTiling);

}  // namespace

}  // namespace tessel::metaschedule
