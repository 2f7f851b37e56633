// Schedule functions registered by name for `manual-schedule{schedule=...}`.
//
//   matmul-cpu-tile: a block with exactly three loops bound to spatial,
//   spatial, reduce iter vars and an init (a matmul, C = A B or A Bᵀ), the
//   register-tiled recipe of docs/schedule.md and of the hand schedule that
//   tools/bench/codegen_benchmarks.cc measures against OpenBLAS: each 8 x 32
//   tile of C accumulates in a local buffer that LLVM keeps in registers across
//   the k loop, zeroed before it and written back after it; the 32 columns of B
//   a column of tiles reads are copied into a contiguous panel once, which stays
//   in cache while the rows of tiles pass over it.
//
//   for i { for j { for k { block C } } }
//     -> for j_0 in parallel {
//          for ax0, ax1 in ...vectorized { block B_global }            (the panel)
//          for i_0 {
//            for ax0 in unrolled(8) { for ax1 in vectorized(32) { block C_init } }
//            for k { for i_1 in unrolled(8) { for j_1 in vectorized(32) { block C } } }
//            for ax0 in unrolled(8) { for ax1 in vectorized(32) { block C_local } } } }
//
// A tile is 8 rows by 32 columns (two 16-lane f32 vectors per row) when C is
// that large, smaller when it is not; tails are guarded by predicates. The panel
// is copied only when the tiles divide the columns (with a column tail,
// reverse_compute_at refuses the write-back under the copy's guarded loops).
// Every block of the function that fits is scheduled; a function with none is
// "not applicable".
#include <algorithm>
#include <optional>

#include "ir/arith/expr_util.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/schedule_registry.h"
#include "ir/status_macros.h"

namespace tessel::passes {

namespace {

namespace sch = ir::schedule;

constexpr int64_t kTileRows = 8;
constexpr int64_t kTileCols = 32;

// True when `block` has three loops bound, in order, to spatial, spatial and
// reduce iter vars, each iter var bound to exactly its loop, and an init (the
// accumulator is zeroed by decompose_reduction's block).
bool IsMatmulLike(sch::Schedule& s, const std::string& name) {
  const sch::StmtIndex& index = s.state().index();
  int b = index.FindBlock(name);
  std::vector<int> loops = index.LoopsAbove(b);
  const ir::BlockRealizeNode* r = index.realize(b);
  if (loops.size() != 3 || r->iter_values.size() != 3) return false;
  if (r->block->init == nullptr || r->block->writes.size() != 1) return false;
  const ir::IterKind kinds[3] = {ir::IterKind::kSpatial, ir::IterKind::kSpatial,
                                 ir::IterKind::kReduce};
  for (int k = 0; k < 3; ++k) {
    if (r->block->iter_vars[k].kind != kinds[k]) return false;
    if (r->iter_values[k].get() != index.loop(loops[k])->loop_var.get()) return false;
    if (index.loop(loops[k])->for_kind != ir::ForKind::kSerial) return false;
  }
  return true;
}

// The extent of `loop` when it is a positive constant.
std::optional<int64_t> ConstExtent(sch::Schedule& s, sch::LoopRV loop) {
  absl::StatusOr<ir::Ref<const ir::ForNode>> f = s.Get(loop);
  if (!f.ok()) return std::nullopt;
  std::optional<int64_t> extent = ir::arith::AsConstInt((*f)->extent);
  if (!extent || *extent <= 0) return std::nullopt;
  return extent;
}

// The tile extent along a loop: the full tile when the loop is at least that
// long (or not constant), otherwise the loop itself (so that an 8-column
// matmul is one 8-lane vector, not a guarded 32-lane one).
int64_t TileFactor(std::optional<int64_t> extent, int64_t tile) {
  return extent ? std::min(tile, *extent) : tile;
}

// The last `n` loops above `block`, innermost last.
absl::StatusOr<std::vector<sch::LoopRV>> InnerLoops(sch::Schedule& s, sch::BlockRV block,
                                                    size_t n) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, s.GetLoops(block));
  if (l.size() < n) return absl::InternalError("matmul-cpu-tile expected more loops");
  return std::vector<sch::LoopRV>(l.end() - n, l.end());
}

// Rows of a tile unrolled, columns vectorized: the loops of the init and the
// write-back blocks, and of the accumulation.
absl::Status RegisterTile(sch::Schedule& s, sch::LoopRV rows, sch::LoopRV cols) {
  TESSEL_RETURN_IF_ERROR(s.Unroll(rows));
  return s.Vectorize(cols);
}

// The index among `block`'s reads of the buffer indexed by the column and not
// the row iter var (B, or Bᵀ's W): the panel worth copying per column of tiles.
std::optional<int64_t> PanelRead(const ir::BlockNode* block) {
  const ir::VarNode* vi = block->iter_vars[0].var.get();
  const ir::VarNode* vj = block->iter_vars[1].var.get();
  for (size_t r = 0; r < block->reads.size(); ++r) {
    bool uses_i = false, uses_j = false;
    for (const ir::Range& range : block->reads[r].region) {
      uses_i |= ir::arith::UsesVar(range.min, vi) || ir::arith::UsesVar(range.extent, vi);
      uses_j |= ir::arith::UsesVar(range.min, vj) || ir::arith::UsesVar(range.extent, vj);
    }
    if (uses_j && !uses_i) return static_cast<int64_t>(r);
  }
  return std::nullopt;
}

absl::Status TileOne(sch::Schedule& s, const std::string& name) {
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV c, s.GetBlock(name));
  TESSEL_ASSIGN_OR_RETURN(ir::Block block, s.Get(c));
  const std::optional<int64_t> panel = PanelRead(block.get());
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> l, s.GetLoops(c));
  const int64_t rows = TileFactor(ConstExtent(s, l[0]), kTileRows);
  const std::optional<int64_t> n = ConstExtent(s, l[1]);
  const int64_t cols = TileFactor(n, kTileCols);
  const bool copy_panel = panel && n && *n % cols == 0;
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> i, s.Split(l[0], {std::nullopt, rows}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> j, s.Split(l[1], {std::nullopt, cols}));
  // Columns of tiles outermost: one panel of B serves every row of tiles.
  TESSEL_RETURN_IF_ERROR(s.Reorder({j[0], i[0], l[2], i[1], j[1]}));
  TESSEL_RETURN_IF_ERROR(s.Parallel(j[0]));
  if (copy_panel) {
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV pack, s.CacheRead(c, *panel, "global"));
    TESSEL_RETURN_IF_ERROR(s.ComputeAt(pack, j[0]));
    TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> p, InnerLoops(s, pack, 1));
    TESSEL_RETURN_IF_ERROR(s.Vectorize(p[0]));
  }
  // The accumulator tile, written back once per tile after its k loop.
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV out, s.CacheWrite(c, 0, "local"));
  TESSEL_RETURN_IF_ERROR(s.ReverseComputeAt(out, i[0]));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> o, InnerLoops(s, out, 2));
  TESSEL_RETURN_IF_ERROR(RegisterTile(s, o[0], o[1]));
  // Its zeroing, once per tile before the k loop instead of a `k == 0` test in it.
  TESSEL_ASSIGN_OR_RETURN(sch::BlockRV init, s.DecomposeReduction(c, l[2]));
  TESSEL_ASSIGN_OR_RETURN(std::vector<sch::LoopRV> z, InnerLoops(s, init, 2));
  TESSEL_RETURN_IF_ERROR(RegisterTile(s, z[0], z[1]));
  return RegisterTile(s, i[1], j[1]);
}

absl::StatusOr<bool> MatmulCpuTile(sch::Schedule& s) {
  bool applied = false;
  for (const std::string& name : s.state().index().BlockNames()) {
    if (!IsMatmulLike(s, name)) continue;
    TESSEL_RETURN_IF_ERROR(TileOne(s, name));
    applied = true;
  }
  return applied;
}

TESSEL_REGISTER_SCHEDULE(
    "matmul-cpu-tile",
    "Register-tiles matmul-like blocks 8x32 with a local accumulator and a packed B panel, "
    "parallel columns of tiles",
    MatmulCpuTile);

}  // namespace

}  // namespace tessel::passes
