// Mutation and crossover of candidates: new points of a design space made by
// changing decisions only (DESIGN.md decision 7). The child is rebuilt by the
// rules from the decisions (DesignSpace::Rebuild), so a decision that shapes the
// schedule -- a parallel length decides which loops are fused -- takes effect,
// not only the value it records.
//
//   parent:  v4, v5 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16,
//                                             decision=[16, 4])
//   Mutate(space, parent, &rng) -> decision=[8, 8]  (the tile-size mutator moved
//                                  a factor 2 from the outer to the inner place)
//   Crossover(space, a, b, &rng) -> the k-th decision from a or b, at random
//
// The mutators, one per kind of decision:
//   tile-size         sample_perfect_tile: a prime factor moves between two places
//                     (the innermost bound kept);
//   compute-location  sample_compute_location: another place compute_at accepts;
//   categorical       sample_categorical: another candidate of non-zero weight --
//                     a parallel length, a vector or rfactor width, an intrinsic.
// A child is returned only when it differs from its parents; a few tries are
// made before giving up with an error.
#ifndef TESSEL_METASCHEDULE_SEARCH_MUTATOR_H_
#define TESSEL_METASCHEDULE_SEARCH_MUTATOR_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/sampling.h"
#include "ir/schedule/trace.h"
#include "metaschedule/design_space.h"

namespace tessel::metaschedule {

struct Mutation {
  ir::schedule::Trace trace;  // The child.
  std::string mutator;        // "tile-size", "compute-location" or "categorical".
  size_t site = 0;            // The parent's instruction whose decision changed.
};

// One decision of `parent` changed. Fails when no decision has another choice,
// or when no change made a new schedule in a few tries.
absl::StatusOr<Mutation> Mutate(const DesignSpace& space, const ir::schedule::Trace& parent,
                                ir::schedule::RandomEngine* rng);

// The k-th decision taken from `a` or `b` with equal chance (from the one that
// has it when only one does). Fails when no mix differed from both parents.
absl::StatusOr<ir::schedule::Trace> Crossover(const DesignSpace& space,
                                              const ir::schedule::Trace& a,
                                              const ir::schedule::Trace& b,
                                              ir::schedule::RandomEngine* rng);

// The decisions of `trace`'s sampling instructions, in order.
std::vector<std::optional<ir::schedule::TraceValue>> Decisions(const ir::schedule::Trace& trace);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_SEARCH_MUTATOR_H_
