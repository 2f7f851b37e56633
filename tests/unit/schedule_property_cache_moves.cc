// The moves of the caching and reduction primitives (schedule_property_moves.h):
// cache_read, cache_write, reindex, set_scope, storage_align,
// decompose_reduction and rfactor.
//
//   cache_write: a random block's write buffer (index mostly in range, now and
//                then -1 or one past the end) into "local", "shared" or a
//                scope that does not exist
//   rfactor:     a random loop (mostly a reduce loop of a reduction, after a
//                split of it half of the time) at a random factor axis
#include "tests/unit/schedule_property_moves.h"

namespace tessel::ir::schedule::testing {
namespace {

// How many reads (writes) the block has now; 1 when it is gone.
int64_t RegionCount(MoveContext& ctx, BlockRV block, bool writes) {
  absl::StatusOr<ir::Block> b = ctx.sch().Get(block);
  if (!b.ok()) return 1;
  return static_cast<int64_t>(writes ? (*b)->writes.size() : (*b)->reads.size());
}

// An index into `n` regions, out of range one time in eight.
int64_t SomeIndex(MoveContext& ctx, int64_t n) {
  if (n == 0 || ctx.OneIn(8)) return ctx.OneIn(2) ? -1 : n;
  return ctx.Int(0, n - 1);
}

std::string SomeScope(MoveContext& ctx) {
  static const std::vector<std::string> kScopes = {"local",  "local",        "shared",
                                                   "global", "warp.nowhere", ""};
  return ctx.Pick(kScopes);
}

void CacheMove(MoveContext& ctx, bool write) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  int64_t index = SomeIndex(ctx, RegionCount(ctx, *b, write));
  std::string scope = SomeScope(ctx);
  Schedule& s = ctx.sch();
  std::optional<BlockRV> out =
      write ? ctx.Call("cache_write", [&] { return s.CacheWrite(*b, index, scope); })
            : ctx.Call("cache_read", [&] { return s.CacheRead(*b, index, scope); });
  if (out) ctx.Remember(*out);
}

void ReindexMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  bool write = ctx.OneIn(2);
  int64_t index = SomeIndex(ctx, RegionCount(ctx, *b, write));
  std::optional<BlockRV> out =
      ctx.Call("reindex", [&] { return ctx.sch().Reindex(*b, index, write); });
  if (out) ctx.Remember(*out);
}

void SetScopeMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  int64_t index = SomeIndex(ctx, RegionCount(ctx, *b, /*writes=*/true));
  std::string scope = SomeScope(ctx);
  ctx.Call("set_scope", [&] { return ctx.sch().SetScope(*b, index, scope); });
}

void StorageAlignMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  int64_t index = SomeIndex(ctx, RegionCount(ctx, *b, /*writes=*/true));
  int64_t axis = ctx.Int(-1, 2), factor = ctx.Int(-1, 16), offset = ctx.Int(-1, 8);
  ctx.Call("storage_align",
           [&] { return ctx.sch().StorageAlign(*b, index, axis, factor, offset); });
}

void DecomposeReductionMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  std::vector<LoopRV> loops = ctx.LoopsOf(*b);
  std::optional<LoopRV> l;
  if (!loops.empty() && !ctx.OneIn(5)) {
    l = ctx.Pick(loops);
  } else {
    l = ctx.Loop();
  }
  if (!l) return;
  std::optional<BlockRV> out =
      ctx.Call("decompose_reduction", [&] { return ctx.sch().DecomposeReduction(*b, *l); });
  if (out) ctx.Remember(*out);
}

void RFactorMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  std::vector<LoopRV> loops = ctx.LoopsOf(*b);
  if (loops.empty()) return;
  LoopRV l = ctx.Pick(loops);
  Schedule& s = ctx.sch();
  if (ctx.OneIn(2)) {  // rfactor of the inner part of a split, the usual use.
    auto parts = ctx.Call("split", [&] { return s.Split(l, {std::nullopt, ctx.Int(2, 4)}); });
    if (parts) {
      ctx.Remember(*parts);
      l = ctx.Pick(*parts);
    }
  }
  int64_t axis = ctx.Int(-1, 2);
  std::optional<BlockRV> out = ctx.Call("rfactor", [&] { return s.RFactor(l, axis); });
  if (out) ctx.Remember(*out);
}

}  // namespace

std::vector<Move> CacheMoves() {
  return {
      {"cache_read", [](MoveContext& c) { CacheMove(c, false); }},
      {"cache_write", [](MoveContext& c) { CacheMove(c, true); }},
      {"reindex", ReindexMove},
      {"set_scope", SetScopeMove},
      {"storage_align", StorageAlignMove},
      {"decompose_reduction", DecomposeReductionMove},
      {"rfactor", RFactorMove},
  };
}

}  // namespace tessel::ir::schedule::testing
