// The moves of the schedule property test (schedule_property_test.cc): one
// generator per primitive, each picking a random, often illegal, set of
// arguments and calling the Schedule facade through MoveContext::Call, which
// checks the transaction rule on every refusal.
//
//   MoveContext ctx(&sch, &rng, &log);
//   const Move& m = ctx.Pick(Moves());        // e.g. "split"
//   m.run(ctx);
//   // split(l7, [None, 0]) refused: log.violations empty when the module and the
//   // trace are unchanged and the message names the call ("sch.split(...): ...")
//
// An accepted call must leave a function the verifier accepts (the region
// rule of ir/verify_regions.h included), else a violation is logged too.
//
// Arguments come from MoveContext: a block or loop handle is usually one just
// queried from the live function, and sometimes an old handle of this case
// (whose loop a split may have consumed, or a loop of another block), so the
// handle checks are exercised as much as the rules of each primitive.
#ifndef TESSEL_TESTS_UNIT_SCHEDULE_PROPERTY_MOVES_H_
#define TESSEL_TESTS_UNIT_SCHEDULE_PROPERTY_MOVES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/schedule/sampling.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule::testing {

// What the calls of one run did, for the summary and the failure report.
struct MoveLog {
  struct Count {
    int64_t calls = 0;
    int64_t accepted = 0;
  };
  std::map<std::string, Count> counts;  // By primitive (trace name).
  std::vector<std::string> violations;  // Refusals that changed something,
                                        // acceptances the verifier refuses.
  bool verbose = false;                 // Print every call as it is made.
  int64_t too_costly = 0;               // Cases the interpreter could not finish.
};

class MoveContext {
 public:
  MoveContext(Schedule* sch, RandomEngine* rng, MoveLog* log)
      : sch_(*sch), rng_(*rng), log_(*log) {}

  Schedule& sch() { return sch_; }
  // Uniform in [0, n).
  uint64_t Below(uint64_t n) { return rng_.Below(n); }
  bool OneIn(uint64_t n) { return rng_.Below(n) == 0; }
  // Uniform in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_.Below(hi - lo + 1)); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[rng_.Below(v.size())];
  }

  // Calls `call` (returning absl::Status or absl::StatusOr<T>). On a refusal it
  // checks that the module is structurally the same, the trace no longer, and
  // the message not empty; on an acceptance, that the function verifies (else
  // a violation is logged). Returns whether the call was accepted, or the
  // value on acceptance.
  template <typename F>
  auto Call(const std::string& primitive, F&& call) {
    using R = std::invoke_result_t<F&>;
    Snapshot before = Take();
    if constexpr (std::is_same_v<R, absl::Status>) {
      absl::Status s = call();
      After(primitive, before, s);
      return s.ok();
    } else {
      R r = call();
      After(primitive, before, r.status());
      return r.ok() ? std::optional<typename R::value_type>(*std::move(r)) : std::nullopt;
    }
  }

  // A block handle: mostly get_block of a live block, sometimes an older one,
  // now and then get_block of a name that is not there (a refused query).
  std::optional<BlockRV> Block();
  // A loop handle: mostly one of get_loops of a random block, sometimes any
  // loop handle this case has seen (perhaps consumed, perhaps of another block).
  std::optional<LoopRV> Loop();
  // The loops above a block (get_loops), remembered for later picks.
  std::vector<LoopRV> LoopsOf(BlockRV block);
  // A sampled value of this case, if any.
  std::optional<ExprRV> Value();
  // A loop's constant extent now, when it has one.
  std::optional<int64_t> Extent(LoopRV loop) const;

  void Remember(const std::vector<LoopRV>& loops);
  void Remember(LoopRV loop) { loops_.push_back(loop); }
  void Remember(BlockRV block) { blocks_.push_back(block); }
  void Remember(ExprRV value) { values_.push_back(value); }
  // Targets annotated in this case, so that unannotate finds keys to remove.
  std::vector<std::pair<LoopRV, std::string>>& annotated_loops() { return annotated_loops_; }
  std::vector<std::pair<BlockRV, std::string>>& annotated_blocks() { return annotated_blocks_; }

 private:
  struct Snapshot {
    IRModule mod;
    std::string func_name;
    size_t trace_size;
  };
  Snapshot Take() const;
  void After(const std::string& primitive, const Snapshot& before, const absl::Status& s);

  Schedule& sch_;
  RandomEngine& rng_;
  MoveLog& log_;
  std::vector<BlockRV> blocks_;
  std::vector<LoopRV> loops_;
  std::vector<ExprRV> values_;
  std::vector<std::pair<LoopRV, std::string>> annotated_loops_;
  std::vector<std::pair<BlockRV, std::string>> annotated_blocks_;
};

// One primitive's generator. `in_ci` false keeps it out of the CI run (the
// comment at its row names the finding in /work/proptest-findings.md); the
// long local run (TESSEL_PROPTEST_ALL_MOVES=1) still draws it.
struct Move {
  Move(std::string n, std::function<void(MoveContext&)> r, bool ci = true, std::string p = "")
      : name(std::move(n)), run(std::move(r)), in_ci(ci), primitive(std::move(p)) {}
  std::string name;
  std::function<void(MoveContext&)> run;
  bool in_ci;
  std::string primitive;  // What it calls, when not `name` (a variant of a move).
  const std::string& called() const { return primitive.empty() ? name : primitive; }
};

// The loop primitives, queries and samples (schedule_property_moves.cc).
std::vector<Move> LoopMoves();
// compute_at, reverse_compute_at, compute_inline, reverse_compute_inline,
// sample_compute_location (schedule_property_compute_moves.cc).
std::vector<Move> ComputeLocationMoves();
// cache_read, cache_write, reindex, set_scope, storage_align,
// decompose_reduction, rfactor (schedule_property_cache_moves.cc).
std::vector<Move> CacheMoves();
// blockize, tensorize, transform_layout, pad_einsum
// (schedule_property_structure_moves.cc).
std::vector<Move> StructureMoves();
// Every move, in a fixed order (the order is part of what a seed means).
const std::vector<Move>& Moves();

}  // namespace tessel::ir::schedule::testing

#endif  // TESSEL_TESTS_UNIT_SCHEDULE_PROPERTY_MOVES_H_
