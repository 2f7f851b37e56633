// Schedule functions registered by name for `manual-schedule{schedule=...}`.
//
//   matmul-cpu-tile: a block with exactly three loops bound to spatial,
//   spatial, reduce iter vars (a matmul, or a batched one written that way):
//
//   for i { for j { for k { block C } } }
//     -> for i_0 in parallel { for j_0 { for k { for i_1 { for j_1 in vectorized {
//          block C } } } } }          (i by 32, j by 16; tails guarded by predicates)
//
// Every block of the function that fits is scheduled; a function with none is
// "not applicable".
#include "ir/schedule/schedule.h"
#include "ir/schedule/schedule_registry.h"

namespace tessel::passes {

namespace {

namespace sch = ir::schedule;

// True when `block` has three loops bound, in order, to spatial, spatial and
// reduce iter vars, each iter var bound to exactly its loop.
bool IsMatmulLike(sch::Schedule& s, const std::string& name) {
  const sch::StmtIndex& index = s.state().index();
  int b = index.FindBlock(name);
  std::vector<int> loops = index.LoopsAbove(b);
  const ir::BlockRealizeNode* r = index.realize(b);
  if (loops.size() != 3 || r->iter_values.size() != 3) return false;
  const ir::IterKind kinds[3] = {ir::IterKind::kSpatial, ir::IterKind::kSpatial,
                                 ir::IterKind::kReduce};
  for (int k = 0; k < 3; ++k) {
    if (r->block->iter_vars[k].kind != kinds[k]) return false;
    if (r->iter_values[k].get() != index.loop(loops[k])->loop_var.get()) return false;
    if (index.loop(loops[k])->for_kind != ir::ForKind::kSerial) return false;
  }
  return true;
}

absl::StatusOr<bool> MatmulCpuTile(sch::Schedule& s) {
  bool applied = false;
  for (const std::string& name : s.state().index().BlockNames()) {
    if (!IsMatmulLike(s, name)) continue;
    absl::StatusOr<sch::BlockRV> block = s.GetBlock(name);
    if (!block.ok()) return block.status();
    absl::StatusOr<std::vector<sch::LoopRV>> loops = s.GetLoops(*block);
    if (!loops.ok()) return loops.status();
    absl::StatusOr<std::vector<sch::LoopRV>> tiles =
        s.Tile({(*loops)[0], (*loops)[1]}, {{std::nullopt, 32}, {std::nullopt, 16}});
    if (!tiles.ok()) return tiles.status();
    const std::vector<sch::LoopRV>& t = *tiles;  // i_0, j_0, i_1, j_1
    if (absl::Status ok = s.Reorder({t[0], t[1], (*loops)[2], t[2], t[3]}); !ok.ok()) return ok;
    if (absl::Status ok = s.Parallel(t[0]); !ok.ok()) return ok;
    if (absl::Status ok = s.Vectorize(t[3]); !ok.ok()) return ok;
    applied = true;
  }
  return applied;
}

TESSEL_REGISTER_SCHEDULE(
    "matmul-cpu-tile", "Tiles matmul-like blocks 32x16, parallel outer rows, vector inner columns",
    MatmulCpuTile);

}  // namespace

}  // namespace tessel::passes
