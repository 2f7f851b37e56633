// The Schedule: transforms the loops of a function by primitives, through
// handles that stay valid as long as what they name survives, and records
// every step as a replayable trace.
//
//   absl::StatusOr<Schedule> sch = Schedule::Create(mod);     // works on the first function
//   BlockRV c = *sch->GetBlock("C");
//   std::vector<LoopRV> l = *sch->GetLoops(c);                 // i, j, k
//   std::vector<LoopRV> i = *sch->Split(l[0], {std::nullopt, 32});
//   std::vector<LoopRV> j = *sch->Split(l[1], {std::nullopt, 32});
//   absl::Status s = sch->Reorder({i[0], j[0], l[2], i[1], j[1]});
//   s = sch->Parallel(i[0]);
//   s = sch->Vectorize(j[1]);
//   sch->mod();                     // the scheduled module
//   sch->trace().AsPython();        // b0 = sch.get_block(name="C") ...
//
// Handles (BlockRV, LoopRV, ExprRV) are small ids into the schedule's table.
// A block handle follows the block by name and a loop handle the loop by its
// variable, so both survive primitives that keep them (reorder, parallel,
// annotate, a split of another loop ...). A handle whose loop or block a
// primitive removed says so: "loop handle l1 was consumed by split".
//
// Every primitive is transactional: on failure the schedule (IR, handles,
// trace) is exactly as before, and the error names the call as Python, the
// rule broken, and shows the function with the offending loop or block marked.
//
// Each primitive is declared once (primitive_decl.h, ir/schedule/primitive/)
// and called through Apply: `sch.Apply(primitive::Split{l, {std::nullopt, 32}})`.
// The named methods below are shorthands for the primitives that exist today;
// a new primitive needs none.
#ifndef TESSEL_IR_SCHEDULE_SCHEDULE_H_
#define TESSEL_IR_SCHEDULE_SCHEDULE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/function.h"
#include "ir/index_map.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/param_codec.h"
#include "ir/schedule/primitive/add_unit_loop.h"
#include "ir/schedule/primitive/annotate.h"
#include "ir/schedule/primitive/blockize.h"
#include "ir/schedule/primitive/cache_read_write.h"
#include "ir/schedule/primitive/compute_at.h"
#include "ir/schedule/primitive/compute_inline.h"
#include "ir/schedule/primitive/decompose_reduction.h"
#include "ir/schedule/primitive/fuse.h"
#include "ir/schedule/primitive/loop_kind.h"
#include "ir/schedule/primitive/pad_einsum.h"
#include "ir/schedule/primitive/queries.h"
#include "ir/schedule/primitive/reindex.h"
#include "ir/schedule/primitive/reorder.h"
#include "ir/schedule/primitive/rfactor.h"
#include "ir/schedule/primitive/sample_categorical.h"
#include "ir/schedule/primitive/sample_compute_location.h"
#include "ir/schedule/primitive/sample_perfect_tile.h"
#include "ir/schedule/primitive/set_scope.h"
#include "ir/schedule/primitive/split.h"
#include "ir/schedule/primitive/storage_align.h"
#include "ir/schedule/primitive/tensorize.h"
#include "ir/schedule/primitive/transform_layout.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/sampling.h"
#include "ir/schedule/state.h"
#include "ir/schedule/trace.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

class Schedule {
 public:
  // Verifies `mod` and works on `func_name` (default: the first function).
  // `seed` drives the sampling instructions.
  static absl::StatusOr<Schedule> Create(IRModule mod, const std::string& func_name = "",
                                         uint64_t seed = 1);

  // Switches to another function of the module. Handles and traces are per
  // function; those of the previous function stay valid for when it returns.
  absl::Status WorkOn(const std::string& func_name);

  const IRModule& mod() const { return mod_; }
  const PrimFunc& func() const { return state_.func(); }
  const std::string& func_name() const { return state_.func_name(); }
  // The trace of the current function.
  const Trace& trace() const;
  const ScheduleState& state() const { return state_; }

  // Runs one primitive: resolves its handles, calls it on the state, and on
  // success commits the function and records the instruction; on failure the
  // schedule is unchanged and the error starts with the call as Python.
  // Returns absl::Status, or absl::StatusOr of the new handles.
  template <typename P>
  FacadeResult<PrimitiveResult<P>> Apply(const P& call);

  // What a handle names now (not traced).
  absl::StatusOr<Block> Get(BlockRV block) const;
  absl::StatusOr<Ref<const ForNode>> Get(LoopRV loop) const;
  absl::StatusOr<int64_t> Get(ExprRV value) const;

  // Splits each loop of a perfect nest by its factors and orders the results
  // level by level: Tile({i, j}, {{None, 32}, {None, 32}}) -> i_0, j_0, i_1, j_1.
  // Traced as its splits and one reorder (a composition, not a primitive).
  absl::StatusOr<std::vector<LoopRV>> Tile(const std::vector<LoopRV>& loops,
                                           const std::vector<std::vector<Factor>>& factors);

  // ---- Shorthands: Apply(primitive::X{...}) (docs/schedule.md) ------------------------
  auto GetBlock(const std::string& name) { return Apply(primitive::GetBlock{name}); }
  auto GetLoops(BlockRV block) { return Apply(primitive::GetLoops{block}); }
  auto GetChildBlocks(BlockOrLoop x) { return Apply(primitive::GetChildBlocks{x}); }
  auto GetProducers(BlockRV block) { return Apply(primitive::GetProducers{block}); }
  auto GetConsumers(BlockRV block) { return Apply(primitive::GetConsumers{block}); }
  auto Split(LoopRV loop, std::vector<Factor> factors) {
    return Apply(primitive::Split{loop, std::move(factors)});
  }
  auto Fuse(std::vector<LoopRV> loops) { return Apply(primitive::Fuse{std::move(loops)}); }
  auto Reorder(std::vector<LoopRV> order) { return Apply(primitive::Reorder{std::move(order)}); }
  auto Parallel(LoopRV loop) { return Apply(primitive::Parallel{loop}); }
  auto Vectorize(LoopRV loop) { return Apply(primitive::Vectorize{loop}); }
  auto Unroll(LoopRV loop) { return Apply(primitive::Unroll{loop}); }
  auto Bind(LoopRV loop, std::string axis) { return Apply(primitive::Bind{loop, std::move(axis)}); }
  // `value`: an AttrValue, or a sampled ExprRV (e.g. an unroll depth).
  auto Annotate(BlockOrLoop x, std::string key, AnnValue value) {
    return Apply(primitive::Annotate{x, std::move(key), std::move(value)});
  }
  auto Unannotate(BlockOrLoop x, std::string key) {
    return Apply(primitive::Unannotate{x, std::move(key)});
  }
  auto AddUnitLoop(BlockOrLoop x) { return Apply(primitive::AddUnitLoop{x}); }
  auto ComputeInline(BlockRV block) { return Apply(primitive::ComputeInline{block}); }
  auto ReverseComputeInline(BlockRV block) { return Apply(primitive::ReverseComputeInline{block}); }
  // `loop` may be a location sampled by SampleComputeLocation: root leaves the
  // block where it is, inline inlines it.
  auto ComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops = false) {
    return Apply(primitive::ComputeAt{block, loop, preserve_unit_loops});
  }
  auto ReverseComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops = false) {
    return Apply(primitive::ReverseComputeAt{block, loop, preserve_unit_loops});
  }
  auto CacheRead(BlockRV block, int64_t read_buffer_index, std::string storage_scope) {
    return Apply(primitive::CacheRead{block, read_buffer_index, std::move(storage_scope)});
  }
  auto CacheWrite(BlockRV block, int64_t write_buffer_index, std::string storage_scope) {
    return Apply(primitive::CacheWrite{block, write_buffer_index, std::move(storage_scope)});
  }
  auto DecomposeReduction(BlockRV block, LoopRV loop) {
    return Apply(primitive::DecomposeReduction{block, loop});
  }
  auto Reindex(BlockRV block, int64_t buffer_index, bool is_write) {
    return Apply(primitive::Reindex{block, buffer_index, is_write});
  }
  auto RFactor(LoopRV loop, int64_t factor_axis) {
    return Apply(primitive::RFactor{loop, factor_axis});
  }
  auto SetScope(BlockRV block, int64_t buffer_index, std::string storage_scope) {
    return Apply(primitive::SetScope{block, buffer_index, std::move(storage_scope)});
  }
  auto StorageAlign(BlockRV block, int64_t buffer_index, int64_t axis, int64_t factor,
                    int64_t offset) {
    return Apply(primitive::StorageAlign{block, buffer_index, axis, factor, offset});
  }
  auto Blockize(LoopRV loop) { return Apply(primitive::Blockize{loop}); }
  auto Tensorize(BlockOrLoop x, std::string intrin_name) {
    return Apply(primitive::Tensorize{x, std::move(intrin_name)});
  }
  auto TransformLayout(BlockRV block, BufferRef buffer, const IndexMap& index_map) {
    return Apply(primitive::TransformLayout{block, std::move(buffer), index_map.ToPython()});
  }
  auto TransformLayout(BlockRV block, BufferRef buffer, std::string index_map) {
    return Apply(primitive::TransformLayout{block, std::move(buffer), std::move(index_map)});
  }
  auto PadEinsum(BlockRV block, std::vector<int64_t> padding) {
    return Apply(primitive::PadEinsum{block, std::move(padding)});
  }
  auto SamplePerfectTile(LoopRV loop, int64_t n, int64_t max_innermost_factor,
                         std::optional<std::vector<int64_t>> decision = std::nullopt) {
    return Apply(primitive::SamplePerfectTile{loop, n, max_innermost_factor, std::move(decision)});
  }
  auto SampleCategorical(std::vector<int64_t> candidates, std::vector<double> probs,
                         std::optional<int64_t> decision = std::nullopt) {
    return Apply(primitive::SampleCategorical{std::move(candidates), std::move(probs), decision});
  }
  auto SampleComputeLocation(BlockRV block, std::optional<int64_t> decision = std::nullopt) {
    return Apply(primitive::SampleComputeLocation{block, decision});
  }

 private:
  template <typename T>
  friend struct ParamCodec;

  struct Handle {
    char kind;                // 'b', 'l', 'v'
    std::string func;         // The function it belongs to.
    std::string block;        // 'b': the block's name.
    Var loop;                 // 'l': the loop's variable (null: a special compute location).
    int64_t value = 0;        // 'v': the sampled value; 'l' without loop: kRoot/kInlineLocation.
    std::string consumed_by;  // Set once a primitive removed what it named.
  };
  // The special location a loop handle names, if it names one.
  std::optional<int64_t> SpecialLocation(LoopRV rv) const;

  Schedule(IRModule mod, ScheduleState state, uint64_t seed);

  int64_t NewHandle(Handle h);
  // OK when `id` is a live handle of kind `want` of the current function.
  absl::Status CheckHandle(int64_t id, char want) const;
  absl::StatusOr<std::string> Resolve(BlockRV rv) const;
  absl::StatusOr<Var> Resolve(LoopRV rv) const;
  absl::StatusOr<int64_t> Resolve(ExprRV rv) const;
  // Marks handles of the current function whose loop or block is gone.
  void MarkConsumed(const std::string& primitive);
  // Installs the state's function into the module after a primitive.
  void Commit(const std::string& primitive);
  // Prefixes a failure with the call, e.g. "sch.split(loop=l1, factors=[None, 32]): ".
  static absl::Status Fail(const Instruction& inst, const absl::Status& status);
  void Record(Instruction inst) { traces_[state_.func_name()].Append(std::move(inst)); }

  // New handles for what a primitive made, each also listed in `inst`'s outputs.
  BlockRV MakeOutput(const std::string& block, Instruction* inst);
  LoopRV MakeOutput(const Var& loop, Instruction* inst);
  LoopRV MakeOutput(const ResolvedLocation& location, Instruction* inst);
  ExprRV MakeOutput(int64_t value, Instruction* inst);
  template <typename R>
  auto MakeOutput(const std::vector<R>& made, Instruction* inst) {
    std::vector<decltype(MakeOutput(made.front(), inst))> out;
    for (const R& m : made) out.push_back(MakeOutput(m, inst));
    return out;
  }

  IRModule mod_;
  ScheduleState state_;
  RandomEngine rng_;
  std::vector<Handle> handles_;
  std::map<std::string, Trace> traces_;
};

// ---- Apply ------------------------------------------------------------------------

// The instruction `call` records: each argument traced by its codec.
template <typename P>
Instruction TraceCall(const P& call) {
  Instruction inst;
  inst.kind = P::kInfo.name;
  std::apply(
      [&](const auto&... spec) {
        (ParamCodec<typename std::remove_cvref_t<decltype(spec)>::type>::Record(call.*spec.member,
                                                                                spec.name, &inst),
         ...);
      },
      P::kArgs);
  return inst;
}

template <typename P>
FacadeResult<PrimitiveResult<P>> Schedule::Apply(const P& call) {
  using Result = PrimitiveResult<P>;
  using Facade = FacadeResult<Result>;
  constexpr bool kReturnsStatus = std::is_same_v<Result, absl::Status>;

  Instruction inst = TraceCall(call);
  // Resolve every handle first: the first that is stale or of the wrong kind
  // fails the call before anything changes.
  auto resolved = std::apply(
      [&](const auto&... spec) {
        return std::make_tuple(
            ParamCodec<typename std::remove_cvref_t<decltype(spec)>::type>::Resolve(
                *this, call.*spec.member)...);
      },
      P::kArgs);
  absl::Status bad = std::apply(
      [](const auto&... r) {
        absl::Status first;
        ((first.ok() && !r.ok() ? (void)(first = r.status()) : (void)0), ...);
        return first;
      },
      resolved);
  if (!bad.ok()) return Facade(Fail(inst, bad));

  // A primitive that fails leaves nothing changed. A pure one (a query, a
  // sampling instruction) changes no state, so only the others pay for a copy.
  std::optional<ScheduleState> before;
  if constexpr (!P::kInfo.pure) before = state_;
  PrimitiveContext ctx(&state_, &rng_);
  Result result = std::apply([&](const auto&... r) { return P::Apply(ctx, *r...); }, resolved);
  if (ctx.decision()) inst.decision = ctx.decision();
  if (!result.ok()) {
    if constexpr (!P::kInfo.pure) state_ = std::move(*before);
    if constexpr (kReturnsStatus) {
      return Facade(Fail(inst, result));
    } else {
      return Facade(Fail(inst, result.status()));
    }
  }
  if constexpr (!P::kInfo.pure) Commit(P::kInfo.name);
  if constexpr (kReturnsStatus) {
    Record(std::move(inst));
    return Facade(absl::OkStatus());
  } else {
    auto out = MakeOutput(*result, &inst);
    Record(std::move(inst));
    return Facade(std::move(out));
  }
}

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_SCHEDULE_H_
