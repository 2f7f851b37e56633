// The decisions of a trace and the choices each one has: what a tuner searches.
// A trace drawn from a design space (design_space.h) is its skeleton; the values
// of its sampling instructions (tile factors, compute locations, parallel
// lengths, vector widths, intrinsics) are the point in the space.
//
//   trace:  v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=16,
//                                                decision=[4, 2, 8])     (extent 64)
//           l7 = sch.sample_compute_location(block=b2, decision=-1)
//   SamplingSites(mod, "mm", trace) ->
//     {index 3, sample_perfect_tile, 28 choices: [1, 4, 16], [4, 1, 16], ..., [64, 1, 1]}
//     {index 9, sample_compute_location, 3 choices: -2, -1, 0}
//   SpaceSize(sites) -> 84, the product of the choice counts
//
// Each site's choices are read from the schedule as replay reaches it (the
// extent of the loop being tiled, the places compute_at accepts), with the
// decisions before it as the trace has them.
#ifndef TESSEL_METASCHEDULE_SEARCH_DECISION_SPACE_H_
#define TESSEL_METASCHEDULE_SEARCH_DECISION_SPACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/trace.h"

namespace tessel::metaschedule {

struct SamplingSite {
  size_t index = 0;  // The instruction's index in the trace.
  std::string kind;  // sample_perfect_tile, sample_categorical, sample_compute_location.
  double count = 0;  // How many decisions are allowed there.
  // Every one of them, when there are at most 65536 (else only the count).
  std::vector<ir::schedule::TraceValue> choices;
};

// The sampling instructions of `trace` replayed onto `func` of `mod`, in trace
// order, each with its choices. Fails when the trace does not replay.
absl::StatusOr<std::vector<SamplingSite>> SamplingSites(const ir::IRModule& mod,
                                                        const std::string& func,
                                                        const ir::schedule::Trace& trace);

// The product of the sites' choice counts (a double: spaces reach 10^30).
double SpaceSize(const std::vector<SamplingSite>& sites);

// `trace` replayed onto a fresh schedule of `func`; sampling instructions
// without a decision draw one from `seed`. The schedule's trace holds every
// decision taken.
absl::StatusOr<ir::schedule::Schedule> Replay(const ir::IRModule& mod, const std::string& func,
                                              const ir::schedule::Trace& trace, uint64_t seed = 1);

// The decisions of a trace's sampling instructions in order, as one JSON-free
// key (e.g. "3:[4,2,8];9:-1"): two traces of one skeleton with equal keys are
// the same candidate.
std::string DecisionKey(const ir::schedule::Trace& trace);

// `trace` with its handles numbered in the order instructions define them
// (b0, l1, l2, v3, ...). A design-space draw numbers handles as its rules made
// them, tries that were rolled back included, so the same schedule drawn and
// replayed differs only in these numbers; renumbered, the two are equal.
ir::schedule::Trace Renumbered(const ir::schedule::Trace& trace);

// Every ordered way to write `extent` as n factors with the innermost at most
// `max_innermost` (no bound when <= 0), in lexicographic order.
std::vector<std::vector<int64_t>> PerfectTilings(int64_t extent, int n, int64_t max_innermost);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_SEARCH_DECISION_SPACE_H_
