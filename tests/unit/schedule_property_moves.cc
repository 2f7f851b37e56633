// The handle picking of MoveContext and the moves of the loop primitives,
// queries and samples (schedule_property_moves.h).
//
//   split:   a sampled perfect tile of the loop, or [None, f], or random
//            integers (0, negative, too small a product, two Nones ...)
//   reorder: a random subset of a block's loops in random order, sometimes with
//            a loop of another block or a consumed one
#include "tests/unit/schedule_property_moves.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"

namespace tessel::ir::schedule::testing {

// ---- MoveContext ---------------------------------------------------------------

MoveContext::Snapshot MoveContext::Take() const {
  return {sch_.mod(), sch_.func_name(), sch_.trace().instructions().size()};
}

void MoveContext::After(const std::string& primitive, const Snapshot& before,
                        const absl::Status& s) {
  MoveLog::Count& c = log_.counts[primitive];
  ++c.calls;
  if (s.ok()) {
    ++c.accepted;
    const std::vector<Instruction>& insts = sch_.trace().instructions();
    std::string py =
        Trace(std::vector<Instruction>(
                  insts.begin() + static_cast<std::ptrdiff_t>(before.trace_size), insts.end()))
            .AsPython();
    if (log_.verbose) std::fprintf(stderr, "accepted: %s", py.c_str());
    // Every intermediate function verifies, the region rule included: a
    // primitive that leaves a block touching more than it declares misleads
    // the next one, which trusts the declared regions.
    if (absl::Status v = VerifyFunction(sch_.func(), sch_.func_name()); !v.ok()) {
      log_.violations.push_back(absl::StrCat(primitive, " was accepted but the verifier refuses "
                                             "the function it gave: ", v.message(),
                                             "\n  the call: ", py));
    }
    return;
  }
  std::string message(s.message());
  if (log_.verbose) {
    std::fprintf(stderr, "refused:  %s\n", message.substr(0, message.find('\n')).c_str());
  }
  std::string problem;
  if (message.empty()) problem += " its message is empty;";
  // Every refusal names the call as Python (docs/schedule.md, "Errors").
  if (!message.empty() && message.rfind("sch.", 0) != 0) problem += " its message names no call;";
  if (sch_.func_name() != before.func_name) problem += " it switched the function;";
  if (!StructuralEqual(sch_.mod(), before.mod)) problem += " it changed the module;";
  if (sch_.trace().instructions().size() != before.trace_size) {
    problem += absl::StrCat(" the trace went from ", before.trace_size, " to ",
                            sch_.trace().instructions().size(), " instructions;");
  }
  if (!problem.empty()) {
    log_.violations.push_back(
        absl::StrCat(primitive, " was refused but", problem, "\n  its error: ", message));
  }
}

std::optional<BlockRV> MoveContext::Block() {
  if (!blocks_.empty() && OneIn(5)) return Pick(blocks_);
  std::vector<std::string> names = sch_.state().index().BlockNames();
  std::string name = names.empty() || OneIn(40) ? "no_such_block" : Pick(names);
  std::optional<BlockRV> b = Call("get_block", [&] { return sch_.GetBlock(name); });
  if (b) Remember(*b);
  return b;
}

std::vector<LoopRV> MoveContext::LoopsOf(BlockRV block) {
  std::optional<std::vector<LoopRV>> loops =
      Call("get_loops", [&] { return sch_.GetLoops(block); });
  if (!loops) return {};
  Remember(*loops);
  return *loops;
}

std::optional<LoopRV> MoveContext::Loop() {
  if (!loops_.empty() && OneIn(5)) return Pick(loops_);
  std::optional<BlockRV> b = Block();
  if (!b) return std::nullopt;
  std::vector<LoopRV> loops = LoopsOf(*b);
  if (loops.empty()) return std::nullopt;
  return Pick(loops);
}

std::optional<ExprRV> MoveContext::Value() {
  if (values_.empty()) return std::nullopt;
  return Pick(values_);
}

std::optional<int64_t> MoveContext::Extent(LoopRV loop) const {
  absl::StatusOr<Ref<const ForNode>> f = sch_.Get(loop);
  if (!f.ok()) return std::nullopt;
  return arith::AsConstInt((*f)->extent);
}

void MoveContext::Remember(const std::vector<LoopRV>& loops) {
  loops_.insert(loops_.end(), loops.begin(), loops.end());
}

namespace {

// ---- Argument helpers -------------------------------------------------------------

// A contiguous run of 1..max loops of a random block, sometimes with one
// replaced by any remembered loop (of another block, or consumed).
std::vector<LoopRV> SomeLoops(MoveContext& ctx, size_t max) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return {};
  std::vector<LoopRV> loops = ctx.LoopsOf(*b);
  if (loops.empty()) return {};
  size_t start = ctx.Below(loops.size());
  size_t n = 1 + ctx.Below(std::min(max, loops.size() - start));
  std::vector<LoopRV> out(loops.begin() + static_cast<std::ptrdiff_t>(start),
                          loops.begin() + static_cast<std::ptrdiff_t>(start + n));
  if (ctx.OneIn(8)) {
    if (std::optional<LoopRV> other = ctx.Loop()) out[ctx.Below(out.size())] = *other;
  }
  return out;
}

// Split factors for `loop`: mostly legal ([None, f], a perfect tile), else
// anything (zero, negative, a product too small, two Nones, one factor).
std::vector<Factor> SomeFactors(MoveContext& ctx, LoopRV loop) {
  std::optional<int64_t> extent = ctx.Extent(loop);
  switch (ctx.Below(6)) {
    case 0:
    case 1:
      return {std::nullopt, ctx.Int(1, 6)};
    case 2:
      return {ctx.Int(1, 4), std::nullopt};
    case 3: {
      if (!extent || *extent <= 0) break;
      int n = static_cast<int>(ctx.Int(2, 3));
      std::optional<std::vector<ExprRV>> t = ctx.Call("sample_perfect_tile", [&] {
        return ctx.sch().SamplePerfectTile(loop, n, ctx.Int(0, 8));
      });
      if (!t) break;
      for (ExprRV v : *t) ctx.Remember(v);
      return std::vector<Factor>(t->begin(), t->end());
    }
    case 4:
      if (std::optional<ExprRV> v = ctx.Value()) return {std::nullopt, *v};
      break;
    default:
      break;
  }
  std::vector<Factor> f;
  int n = static_cast<int>(ctx.Int(1, 3));
  for (int i = 0; i < n; ++i) {
    if (ctx.OneIn(3)) {
      f.push_back(std::nullopt);
    } else {
      f.push_back(ctx.Int(-1, 8));
    }
  }
  return f;
}

// ---- The moves ------------------------------------------------------------------------

void SplitMove(MoveContext& ctx) {
  std::optional<LoopRV> l = ctx.Loop();
  if (!l) return;
  std::vector<Factor> f = SomeFactors(ctx, *l);
  if (auto out = ctx.Call("split", [&] { return ctx.sch().Split(*l, f); })) ctx.Remember(*out);
}

void FuseMove(MoveContext& ctx) {
  std::vector<LoopRV> loops = SomeLoops(ctx, 3);
  if (ctx.OneIn(6) && loops.size() > 1) std::swap(loops[0], loops[1]);  // Not outermost first.
  if (auto out = ctx.Call("fuse", [&] { return ctx.sch().Fuse(loops); })) ctx.Remember(*out);
}

void ReorderMove(MoveContext& ctx) {
  std::vector<LoopRV> loops = SomeLoops(ctx, 5);
  for (size_t k = loops.size(); k > 1; --k) std::swap(loops[k - 1], loops[ctx.Below(k)]);
  if (ctx.OneIn(10) && !loops.empty()) loops.push_back(loops[0]);  // A repeated loop.
  ctx.Call("reorder", [&] { return ctx.sch().Reorder(loops); });
}

void TileMove(MoveContext& ctx) {
  std::vector<LoopRV> loops = SomeLoops(ctx, 3);
  std::vector<std::vector<Factor>> factors;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (ctx.OneIn(6)) {
      factors.push_back({ctx.Int(0, 3), ctx.Int(1, 3)});
    } else {
      factors.push_back({std::nullopt, ctx.Int(1, 5)});
    }
  }
  if (ctx.OneIn(10) && !factors.empty()) factors.pop_back();  // One list short.
  if (auto out = ctx.Call("tile", [&] { return ctx.sch().Tile(loops, factors); })) {
    ctx.Remember(*out);
  }
}

void LoopKindMove(MoveContext& ctx, const std::string& kind) {
  std::optional<LoopRV> l = ctx.Loop();
  if (!l) return;
  Schedule& s = ctx.sch();
  if (kind == "parallel") ctx.Call(kind, [&] { return s.Parallel(*l); });
  if (kind == "vectorize") ctx.Call(kind, [&] { return s.Vectorize(*l); });
  if (kind == "unroll") ctx.Call(kind, [&] { return s.Unroll(*l); });
  if (kind == "bind") {
    static const std::vector<std::string> kAxes = {
        "blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y", "vthread", "warp.x", ""};
    std::string axis = ctx.Pick(kAxes);
    ctx.Call(kind, [&] { return s.Bind(*l, axis); });
  }
}

// Annotation keys are few, so unannotate finds one now and then.
const std::vector<std::string>& AnnKeys() {
  static const std::vector<std::string> k = {"pragma_unroll", "rule", "unroll_max", ""};
  return k;
}

AttrValue SomeAttr(MoveContext& ctx) {
  switch (ctx.Below(7)) {
    case 0:
      return AttrValue(ctx.Int(-2, 64));
    case 1:
      return AttrValue(0.25 * static_cast<double>(ctx.Int(-4, 4)));
    case 2:
      return AttrValue("ew");
    case 3:
      return AttrValue(AttrValue::List{AttrValue(int64_t{8}), AttrValue(true)});
    case 4:
      return AttrValue(IntImm32(3));  // An expression: refused (a trace holds literals).
    case 5:
      return AttrValue(std::numeric_limits<double>::quiet_NaN());  // No JSON form: refused.
    default:
      return AttrValue(-std::numeric_limits<double>::infinity());
  }
}

void AnnotateMove(MoveContext& ctx) {
  std::string key = ctx.Pick(AnnKeys());
  bool block = ctx.OneIn(2);
  std::optional<ExprRV> v = ctx.OneIn(4) ? ctx.Value() : std::nullopt;
  AttrValue a = SomeAttr(ctx);
  Schedule& s = ctx.sch();
  if (block) {
    std::optional<BlockRV> b = ctx.Block();
    if (!b) return;
    if (ctx.Call("annotate",
                 [&] { return v ? s.Annotate(*b, key, *v) : s.Annotate(*b, key, a); })) {
      ctx.annotated_blocks().emplace_back(*b, key);
    }
  } else {
    std::optional<LoopRV> l = ctx.Loop();
    if (!l) return;
    if (ctx.Call("annotate",
                 [&] { return v ? s.Annotate(*l, key, *v) : s.Annotate(*l, key, a); })) {
      ctx.annotated_loops().emplace_back(*l, key);
    }
  }
}

// A key of `present` half of the time (when there is one), else any key.
std::string SomeKey(MoveContext& ctx, const Attrs& present) {
  if (present.empty() || ctx.OneIn(2)) return ctx.Pick(AnnKeys());
  auto it = present.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(ctx.Below(present.size())));
  return it->first;
}

void UnannotateMove(MoveContext& ctx) {
  Schedule& s = ctx.sch();
  // An annotation made earlier (perhaps removed since, or its loop split away).
  if (!ctx.annotated_loops().empty() && ctx.OneIn(2)) {
    auto [l, key] = ctx.Pick(ctx.annotated_loops());
    ctx.Call("unannotate", [&] { return s.Unannotate(l, key); });
    return;
  }
  if (!ctx.annotated_blocks().empty() && ctx.OneIn(2)) {
    auto [b, key] = ctx.Pick(ctx.annotated_blocks());
    ctx.Call("unannotate", [&] { return s.Unannotate(b, key); });
    return;
  }
  if (ctx.OneIn(2)) {
    if (std::optional<BlockRV> b = ctx.Block()) {
      absl::StatusOr<ir::Block> block = s.Get(*b);
      std::string key = SomeKey(ctx, block.ok() ? (*block)->annotations : Attrs{});
      ctx.Call("unannotate", [&] { return s.Unannotate(*b, key); });
    }
  } else if (std::optional<LoopRV> l = ctx.Loop()) {
    absl::StatusOr<Ref<const ForNode>> loop = s.Get(*l);
    std::string key = SomeKey(ctx, loop.ok() ? (*loop)->annotations : Attrs{});
    ctx.Call("unannotate", [&] { return s.Unannotate(*l, key); });
  }
}

void AddUnitLoopMove(MoveContext& ctx) {
  Schedule& s = ctx.sch();
  std::optional<LoopRV> out;
  if (ctx.OneIn(2)) {
    if (std::optional<BlockRV> b = ctx.Block()) {
      out = ctx.Call("add_unit_loop", [&] { return s.AddUnitLoop(*b); });
    }
  } else if (std::optional<LoopRV> l = ctx.Loop()) {
    out = ctx.Call("add_unit_loop", [&] { return s.AddUnitLoop(*l); });
  }
  if (out) ctx.Remember(*out);
}

void SamplePerfectTileMove(MoveContext& ctx) {
  std::optional<LoopRV> l = ctx.Loop();
  if (!l) return;
  int n = static_cast<int>(ctx.Int(0, 4));
  int64_t max_inner = ctx.Int(-1, 8);
  std::optional<std::vector<int64_t>> decision;
  if (ctx.OneIn(4)) {  // A given decision, right or wrong.
    decision.emplace();
    for (int i = 0; i < n; ++i) decision->push_back(ctx.Int(0, 5));
  }
  auto out = ctx.Call("sample_perfect_tile",
                      [&] { return ctx.sch().SamplePerfectTile(*l, n, max_inner, decision); });
  if (out) {
    for (ExprRV v : *out) ctx.Remember(v);
  }
}

void SampleCategoricalMove(MoveContext& ctx) {
  std::vector<int64_t> cand;
  std::vector<double> probs;
  int n = static_cast<int>(ctx.Int(0, 3));
  for (int i = 0; i < n; ++i) {
    cand.push_back(ctx.Int(0, 64));
    probs.push_back(0.25 * static_cast<double>(ctx.Int(-1, 4)));
  }
  if (ctx.OneIn(8)) probs.push_back(1.0);  // One weight too many.
  std::optional<int64_t> decision;
  if (ctx.OneIn(4)) decision = ctx.Int(-1, 3);
  auto out = ctx.Call("sample_categorical",
                      [&] { return ctx.sch().SampleCategorical(cand, probs, decision); });
  if (out) ctx.Remember(*out);
}

void ChildBlocksMove(MoveContext& ctx) {
  Schedule& s = ctx.sch();
  std::optional<std::vector<BlockRV>> out;
  if (ctx.OneIn(2)) {
    if (std::optional<BlockRV> b = ctx.Block()) {
      out = ctx.Call("get_child_blocks", [&] { return s.GetChildBlocks(*b); });
    }
  } else if (std::optional<LoopRV> l = ctx.Loop()) {
    out = ctx.Call("get_child_blocks", [&] { return s.GetChildBlocks(*l); });
  }
  if (out) {
    for (BlockRV b : *out) ctx.Remember(b);
  }
}

void ProducersConsumersMove(MoveContext& ctx, bool producers) {
  std::optional<BlockRV> b = ctx.Block();
  if (!b) return;
  Schedule& s = ctx.sch();
  auto out = producers ? ctx.Call("get_producers", [&] { return s.GetProducers(*b); })
                       : ctx.Call("get_consumers", [&] { return s.GetConsumers(*b); });
  if (out) {
    for (BlockRV x : *out) ctx.Remember(x);
  }
}

}  // namespace

std::vector<Move> LoopMoves() {
  return {
      {"split", SplitMove},
      {"fuse", FuseMove},
      {"reorder", ReorderMove},
      {"tile", TileMove},
      {"parallel", [](MoveContext& c) { LoopKindMove(c, "parallel"); }},
      {"vectorize", [](MoveContext& c) { LoopKindMove(c, "vectorize"); }},
      {"unroll", [](MoveContext& c) { LoopKindMove(c, "unroll"); }},
      {"bind", [](MoveContext& c) { LoopKindMove(c, "bind"); }},
      {"annotate", AnnotateMove},
      {"unannotate", UnannotateMove},
      {"add_unit_loop", AddUnitLoopMove},
      {"sample_perfect_tile", SamplePerfectTileMove},
      {"sample_categorical", SampleCategoricalMove},
      {"get_child_blocks", ChildBlocksMove},
      {"get_producers", [](MoveContext& c) { ProducersConsumersMove(c, true); }},
      {"get_consumers", [](MoveContext& c) { ProducersConsumersMove(c, false); }},
  };
}

const std::vector<Move>& Moves() {
  static const std::vector<Move>* all = new std::vector<Move>([] {
    std::vector<Move> m = LoopMoves();
    for (Move& x : ComputeLocationMoves()) m.push_back(std::move(x));
    for (Move& x : CacheMoves()) m.push_back(std::move(x));
    for (Move& x : StructureMoves()) m.push_back(std::move(x));
    return m;
  }());
  return *all;
}

}  // namespace tessel::ir::schedule::testing
