// The moves of the structure and layout primitives (schedule_property_moves.h):
// blockize, tensorize, transform_layout and pad_einsum.
//
//   transform_layout: a buffer of a random block (by name or index, often a
//                     parameter, which is refused) under a map from a small
//                     list: transposes, splits of a dimension, wrong arities
//   tensorize:        mostly the recipe of the built-in FMA intrinsics (pad the
//                     einsum to [R, 16, 1], tile i by R and j by 16 under k,
//                     tensorize i_1), each step a checked call of its own
#include "absl/strings/str_cat.h"
#include "tests/unit/schedule_property_moves.h"

namespace tessel::ir::schedule::testing {
namespace {

void BlockizeMove(MoveContext& ctx) {
  std::optional<LoopRV> l = ctx.Loop();
  if (!l) return;
  std::optional<BlockRV> b = ctx.Call("blockize", [&] { return ctx.sch().Blockize(*l); });
  if (b) ctx.Remember(*b);
}

// Index maps for a buffer of `rank` dimensions, legal or not for its shape.
std::string SomeIndexMap(MoveContext& ctx, size_t rank) {
  switch (ctx.Below(6)) {
    case 0:
      return "lambda i: (i // 2, i % 2)";
    case 1:
      return "lambda i, j: (j, i)";
    case 2:
      return absl::StrCat("lambda i, j: (i // ", ctx.Int(1, 4), ", j, i % ", ctx.Int(1, 4), ")");
    case 3:
      return "lambda i, j, k: (k, i, j)";
    case 4:
      return "lambda i, j: (i + j)";  // Not a bijection.
    default: {
      std::string params, out;
      for (size_t d = 0; d < rank; ++d) {
        absl::StrAppend(&params, d ? ", " : "", "x", d);
        absl::StrAppend(&out, d ? ", " : "", "x", rank - 1 - d);
      }
      return absl::StrCat("lambda ", params, ": (", out, rank == 1 ? ",)" : ")");
    }
  }
}

void TransformLayoutMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  Schedule& s = ctx.sch();
  absl::StatusOr<ir::Block> block = s.Get(*b);
  std::vector<BufferRegion> regions;
  if (block.ok()) {
    regions = (*block)->reads;
    regions.insert(regions.end(), (*block)->writes.begin(), (*block)->writes.end());
  }
  BufferRef ref = int64_t{0};
  size_t rank = 2;
  if (!regions.empty() && !ctx.OneIn(8)) {
    size_t k = ctx.Below(regions.size());
    rank = regions[k].buffer->shape.size();
    if (ctx.OneIn(2)) {
      ref = regions[k].buffer->name;
    } else {
      ref = static_cast<int64_t>(k);
    }
  } else {
    ref = ctx.OneIn(2) ? BufferRef(std::string("no_such_buffer")) : BufferRef(ctx.Int(-1, 4));
  }
  std::string map = SomeIndexMap(ctx, rank);
  ctx.Call("transform_layout", [&] { return s.TransformLayout(*b, ref, map); });
}

void PadEinsumMove(MoveContext& ctx) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  Schedule& s = ctx.sch();
  absl::StatusOr<ir::Block> block = s.Get(*b);
  size_t n = block.ok() ? (*block)->iter_vars.size() : 2;
  if (ctx.OneIn(8)) n = ctx.Below(4);  // The wrong number of factors.
  std::vector<int64_t> padding;
  for (size_t i = 0; i < n; ++i) padding.push_back(ctx.OneIn(10) ? 0 : ctx.Int(1, 4));
  ctx.Call("pad_einsum", [&] { return s.PadEinsum(*b, padding); });
}

// The recipe of the built-in intrinsics on a random block (refused steps end
// it), else tensorize of a random loop or block by a random name.
void TensorizeMove(MoveContext& ctx) {
  Schedule& s = ctx.sch();
  static const std::vector<std::string> kIntrins = {"f32_fma_1x16", "f32_fma_4x16",
                                                    "no_such_intrin"};
  std::string intrin = ctx.Pick(kIntrins);
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  if (ctx.OneIn(4)) {
    if (ctx.OneIn(2)) {
      ctx.Call("tensorize", [&] { return s.Tensorize(*b, intrin); });
    } else if (std::optional<LoopRV> l = ctx.Loop()) {
      ctx.Call("tensorize", [&] { return s.Tensorize(*l, intrin); });
    }
    return;
  }
  int64_t rows = intrin == "f32_fma_4x16" ? 4 : 1;
  if (!ctx.Call("pad_einsum", [&] { return s.PadEinsum(*b, {rows, 16, 1}); })) return;
  std::vector<LoopRV> loops = ctx.LoopsOf(*b);
  if (loops.size() != 3) return;
  auto i = ctx.Call("split", [&] { return s.Split(loops[0], {std::nullopt, rows}); });
  auto j = ctx.Call("split", [&] { return s.Split(loops[1], {std::nullopt, 16}); });
  if (!i || !j) return;
  if (!ctx.Call("reorder", [&] {
        return s.Reorder({(*i)[0], (*j)[0], loops[2], (*i)[1], (*j)[1]});
      })) {
    return;
  }
  ctx.Call("tensorize", [&] { return s.Tensorize((*i)[1], intrin); });
}

}  // namespace

std::vector<Move> StructureMoves() {
  return {
      {"blockize", BlockizeMove},
      {"tensorize", TensorizeMove},
      {"transform_layout", TransformLayoutMove},
      {"pad_einsum", PadEinsumMove},
  };
}

}  // namespace tessel::ir::schedule::testing
