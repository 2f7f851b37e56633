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
#ifndef TESSEL_IR_SCHEDULE_SCHEDULE_H_
#define TESSEL_IR_SCHEDULE_SCHEDULE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/function.h"
#include "ir/schedule/sampling.h"
#include "ir/schedule/state.h"
#include "ir/schedule/trace.h"
#include "ir/schedule/transform_layout.h"

namespace tessel::ir::schedule {

struct BlockRV {
  int64_t id = -1;
};
struct LoopRV {
  int64_t id = -1;
};
struct ExprRV {
  int64_t id = -1;
};

// A split factor: an integer, a sampled value, or None (inferred).
class Factor {
 public:
  Factor(std::nullopt_t) {}         // NOLINT: None, inferred.
  Factor(int64_t v) : value_(v) {}  // NOLINT
  Factor(int v) : value_(v) {}      // NOLINT
  Factor(ExprRV rv) : rv_(rv) {}    // NOLINT
  bool is_inferred() const { return !value_ && rv_.id < 0; }
  std::optional<int64_t> value() const { return value_; }
  const ExprRV& rv() const { return rv_; }

 private:
  std::optional<int64_t> value_;
  ExprRV rv_;
};

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

  // ---- Queries -----------------------------------------------------------------
  absl::StatusOr<BlockRV> GetBlock(const std::string& name);
  absl::StatusOr<std::vector<LoopRV>> GetLoops(BlockRV block);
  absl::StatusOr<std::vector<BlockRV>> GetChildBlocks(BlockRV block);
  absl::StatusOr<std::vector<BlockRV>> GetChildBlocks(LoopRV loop);
  absl::StatusOr<std::vector<BlockRV>> GetProducers(BlockRV block);
  absl::StatusOr<std::vector<BlockRV>> GetConsumers(BlockRV block);

  // What a handle names now (not traced).
  absl::StatusOr<Block> Get(BlockRV block) const;
  absl::StatusOr<Ref<const ForNode>> Get(LoopRV loop) const;
  absl::StatusOr<int64_t> Get(ExprRV value) const;

  // ---- Loop primitives (docs/schedule.md) --------------------------------------
  absl::StatusOr<std::vector<LoopRV>> Split(LoopRV loop, const std::vector<Factor>& factors);
  absl::StatusOr<LoopRV> Fuse(const std::vector<LoopRV>& loops);
  absl::Status Reorder(const std::vector<LoopRV>& order);
  // Splits each loop of a perfect nest by its factors and orders the results
  // level by level: Tile({i, j}, {{None, 32}, {None, 32}}) -> i_0, j_0, i_1, j_1.
  // Traced as its splits and one reorder.
  absl::StatusOr<std::vector<LoopRV>> Tile(const std::vector<LoopRV>& loops,
                                           const std::vector<std::vector<Factor>>& factors);
  absl::Status Parallel(LoopRV loop);
  absl::Status Vectorize(LoopRV loop);
  absl::Status Unroll(LoopRV loop);
  absl::Status Bind(LoopRV loop, const std::string& thread_axis);
  absl::Status Annotate(LoopRV loop, const std::string& key, const AttrValue& value);
  absl::Status Annotate(BlockRV block, const std::string& key, const AttrValue& value);
  // The annotation takes the sampled value (e.g. an unroll depth).
  absl::Status Annotate(LoopRV loop, const std::string& key, ExprRV value);
  absl::Status Annotate(BlockRV block, const std::string& key, ExprRV value);
  absl::Status Unannotate(LoopRV loop, const std::string& key);
  absl::Status Unannotate(BlockRV block, const std::string& key);
  absl::StatusOr<LoopRV> AddUnitLoop(BlockRV block);
  absl::StatusOr<LoopRV> AddUnitLoop(LoopRV loop);

  // ---- Compute location (docs/schedule.md; schedule_compute_location.cc) -------
  absl::Status ComputeInline(BlockRV block);
  absl::Status ReverseComputeInline(BlockRV block);
  // `loop` may be a location sampled by SampleComputeLocation: root leaves the
  // block where it is, inline inlines it.
  absl::Status ComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops = false);
  absl::Status ReverseComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops = false);

  // ---- Caching and reductions (docs/schedule.md; schedule_cache.cc) -------------
  // Each returns the new block: the copy block, the init block, the rfactor block.
  absl::StatusOr<BlockRV> CacheRead(BlockRV block, int64_t read_buffer_index,
                                    const std::string& storage_scope);
  absl::StatusOr<BlockRV> CacheWrite(BlockRV block, int64_t write_buffer_index,
                                     const std::string& storage_scope);
  absl::StatusOr<BlockRV> DecomposeReduction(BlockRV block, LoopRV loop);
  absl::StatusOr<BlockRV> Reindex(BlockRV block, int64_t buffer_index, bool is_write);
  absl::StatusOr<BlockRV> RFactor(LoopRV loop, int64_t factor_axis);
  absl::Status SetScope(BlockRV block, int64_t buffer_index, const std::string& storage_scope);
  absl::Status StorageAlign(BlockRV block, int64_t buffer_index, int64_t axis, int64_t factor,
                            int64_t offset);

  // ---- Structure and layout (blockize.h, tensorize.h, transform_layout.h,
  // pad_einsum.h; the facade is schedule_structure.cc) -------------------------------
  // The subtree under `loop` becomes a new block around the block below.
  absl::StatusOr<BlockRV> Blockize(LoopRV loop);
  // Replaces the block's computation by the implementation of the registered
  // intrinsic whose description it matches (tensor_intrin.h); a loop is
  // blockized first, in the same transaction.
  absl::Status Tensorize(BlockRV block, const std::string& intrin_name);
  absl::Status Tensorize(LoopRV loop, const std::string& intrin_name);
  // The layout of a buffer the block accesses (by name, or by index in its
  // reads then writes) changes by `index_map`; the text form is parsed
  // ("lambda i, j: (i // 16, j, i % 16)", ir/index_map.h).
  absl::Status TransformLayout(BlockRV block, const BufferRef& buffer, const IndexMap& index_map);
  absl::Status TransformLayout(BlockRV block, const BufferRef& buffer,
                               const std::string& index_map);
  // Pads an einsum-like block's iteration domain to multiples of `padding`
  // (one factor per iter var), through zero-padded input copies and an output crop.
  absl::Status PadEinsum(BlockRV block, const std::vector<int64_t>& padding);

  // ---- Sampling ------------------------------------------------------------------
  // n factors of the loop's constant extent, the innermost at most
  // max_innermost_factor (<= 0: no limit). With `decision`, that tiling is used
  // (checked) instead of a random one.
  absl::StatusOr<std::vector<ExprRV>> SamplePerfectTile(
      LoopRV loop, int n, int64_t max_innermost_factor,
      std::optional<std::vector<int64_t>> decision = std::nullopt);
  // One of `candidates`, drawn with weights `probs`; `decision` is an index.
  absl::StatusOr<ExprRV> SampleCategorical(const std::vector<int64_t>& candidates,
                                           const std::vector<double>& probs,
                                           std::optional<int64_t> decision = std::nullopt);
  // A location where compute_at of `block` is legal, drawn uniformly: a loop,
  // or the special locations root (stay; decision -1) and inline (decision
  // -2). A decision k >= 0 names the k-th loop of the block's scope in program
  // order.
  absl::StatusOr<LoopRV> SampleComputeLocation(BlockRV block,
                                               std::optional<int64_t> decision = std::nullopt);

 private:
  struct Handle {
    char kind;                // 'b', 'l', 'v'
    std::string func;         // The function it belongs to.
    std::string block;        // 'b': the block's name.
    Var loop;                 // 'l': the loop's variable (null: a special compute location).
    int64_t value = 0;        // 'v': the sampled value; 'l' without loop: kRoot/kInlineLocation.
    std::string consumed_by;  // Set once a primitive removed what it named.
  };
  static constexpr int64_t kRootLocation = -1;
  static constexpr int64_t kInlineLocation = -2;
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
  absl::StatusOr<std::vector<std::optional<int64_t>>> FactorValues(
      const std::vector<Factor>& factors, std::vector<TraceValue>* traced) const;

  IRModule mod_;
  ScheduleState state_;
  RandomEngine rng_;
  std::vector<Handle> handles_;
  std::map<std::string, Trace> traces_;
};

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_SCHEDULE_H_
