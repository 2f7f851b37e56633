// The seeded random choices of sampling instructions, and the checks a given
// decision must pass.
//
//   RandomEngine rng(42);
//   SamplePerfectTile(&rng, 1024, 3, 16)   -> e.g. {8, 8, 16}: product 1024,
//                                             innermost at most 16
//   SampleCategorical(&rng, {0.5, 0.25, 0.25}) -> an index, 0 half of the time
//
// The generator is splitmix64 and every draw is computed from its raw 64-bit
// outputs by integer arithmetic here (no std:: distributions, whose results
// differ between standard libraries), so a seed gives the same decisions on
// every platform: traces sampled once replay identically everywhere.
#ifndef TESSEL_IR_SCHEDULE_SAMPLING_H_
#define TESSEL_IR_SCHEDULE_SAMPLING_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::ir::schedule {

class RandomEngine {
 public:
  explicit RandomEngine(uint64_t seed = 1) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, n), n > 0 (rejection sampling, so exactly uniform).
  uint64_t Below(uint64_t n);
  // Uniform in [0, 1) with 53 bits.
  double Unit();
  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

// n factors whose product is `extent` (> 0), the innermost at most
// `max_innermost_factor` (no limit when <= 0): the innermost is drawn uniformly
// from the divisors allowed, then each remaining prime factor goes to a
// uniformly chosen outer position.
std::vector<int64_t> SamplePerfectTile(RandomEngine* rng, int64_t extent, int n,
                                       int64_t max_innermost_factor);
// "" when `decision` is a valid perfect tiling of `extent`, else why not.
std::string CheckPerfectTile(const std::vector<int64_t>& decision, int64_t extent, int n,
                             int64_t max_innermost_factor);

// An index drawn with the given weights (non-negative, not all zero).
int64_t SampleCategorical(RandomEngine* rng, const std::vector<double>& probs);
// "" when candidates and probs are usable, else why not.
std::string CheckCategorical(const std::vector<int64_t>& candidates,
                             const std::vector<double>& probs);

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_SAMPLING_H_
