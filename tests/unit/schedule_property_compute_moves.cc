// The moves of the compute-location primitives (schedule_property_moves.h):
// compute_at, reverse_compute_at, compute_inline, reverse_compute_inline and
// sample_compute_location.
//
//   compute_at:         a random block at a loop of one of its consumers
//                       (mostly), or at any loop this case has seen
//   sample_compute_location: a location (perhaps root or inline), remembered
//                       as a loop handle that other moves then pass around
#include "tests/unit/schedule_property_moves.h"

namespace tessel::ir::schedule::testing {
namespace {

// A loop of one of the block's consumers (producers when `producers`), or
// else any loop.
std::optional<LoopRV> LoopOfANeighbour(MoveContext& ctx, BlockRV block, bool producers) {
  Schedule& s = ctx.sch();
  if (!ctx.OneIn(4)) {
    auto others = producers ? ctx.Call("get_producers", [&] { return s.GetProducers(block); })
                            : ctx.Call("get_consumers", [&] { return s.GetConsumers(block); });
    if (others && !others->empty()) {
      std::vector<LoopRV> loops = ctx.LoopsOf(ctx.Pick(*others));
      if (!loops.empty()) return ctx.Pick(loops);
    }
  }
  return ctx.Loop();
}

void ComputeAtMove(MoveContext& ctx, bool reverse) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  std::optional<LoopRV> l = LoopOfANeighbour(ctx, *b, /*producers=*/reverse);
  if (!l) return;
  bool preserve = ctx.OneIn(3);
  Schedule& s = ctx.sch();
  if (reverse) {
    ctx.Call("reverse_compute_at", [&] { return s.ReverseComputeAt(*b, *l, preserve); });
  } else {
    ctx.Call("compute_at", [&] { return s.ComputeAt(*b, *l, preserve); });
  }
}

void ComputeInlineMove(MoveContext& ctx, bool reverse) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  Schedule& s = ctx.sch();
  if (reverse) {
    ctx.Call("reverse_compute_inline", [&] { return s.ReverseComputeInline(*b); });
  } else {
    ctx.Call("compute_inline", [&] { return s.ComputeInline(*b); });
  }
}

// Samples a location (now and then with a given decision, right or wrong) and
// mostly computes the block there, as a tuner would.
void SampleComputeLocationMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  std::optional<int64_t> decision;
  if (ctx.OneIn(4)) decision = ctx.Int(-3, 8);
  Schedule& s = ctx.sch();
  std::optional<LoopRV> l =
      ctx.Call("sample_compute_location", [&] { return s.SampleComputeLocation(*b, decision); });
  if (!l) return;
  ctx.Remember(*l);
  if (!ctx.OneIn(4)) ctx.Call("compute_at", [&] { return s.ComputeAt(*b, *l, ctx.OneIn(3)); });
}

}  // namespace

std::vector<Move> ComputeLocationMoves() {
  return {
      {"compute_at", [](MoveContext& c) { ComputeAtMove(c, false); }},
      {"reverse_compute_at", [](MoveContext& c) { ComputeAtMove(c, true); }},
      {"compute_inline", [](MoveContext& c) { ComputeInlineMove(c, false); }},
      {"reverse_compute_inline", [](MoveContext& c) { ComputeInlineMove(c, true); }},
      {"sample_compute_location", SampleComputeLocationMove},
  };
}

}  // namespace tessel::ir::schedule::testing
