// Seeded sampling (see sampling.h).
#include "ir/schedule/sampling.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel::ir::schedule {

uint64_t RandomEngine::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t RandomEngine::Below(uint64_t n) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // Draws at or above it would bias.
  uint64_t x;
  do {
    x = Next();
  } while (x >= limit);
  return x % n;
}

double RandomEngine::Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

std::vector<int64_t> SamplePerfectTile(RandomEngine* rng, int64_t extent, int n,
                                       int64_t max_innermost_factor) {
  if (n == 1) return {extent};  // The only perfect tiling; the caller checks the limit.
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d * d <= extent; ++d) {
    if (extent % d != 0) continue;
    for (int64_t x : {d, extent / d}) {
      if ((max_innermost_factor <= 0 || x <= max_innermost_factor) &&
          (divisors.empty() || divisors.back() != x)) {
        divisors.push_back(x);
      }
    }
  }
  std::sort(divisors.begin(), divisors.end());
  divisors.erase(std::unique(divisors.begin(), divisors.end()), divisors.end());
  std::vector<int64_t> tile(n, 1);
  int64_t inner = divisors[rng->Below(divisors.size())];
  tile[n - 1] = inner;
  int64_t rest = extent / inner;
  for (int64_t p = 2; p * p <= rest; ++p) {
    while (rest % p == 0) {
      tile[rng->Below(n - 1)] *= p;
      rest /= p;
    }
  }
  if (rest > 1) tile[rng->Below(n - 1)] *= rest;
  return tile;
}

std::string CheckPerfectTile(const std::vector<int64_t>& decision, int64_t extent, int n,
                             int64_t max_innermost_factor) {
  if (static_cast<int>(decision.size()) != n) {
    return absl::StrCat("the decision has ", decision.size(), " factors, not n = ", n);
  }
  int64_t product = 1;
  for (int64_t f : decision) {
    if (f <= 0 || __builtin_mul_overflow(product, f, &product)) {
      return absl::StrCat("the decision [", absl::StrJoin(decision, ", "),
                          "] has a factor that is not positive, or overflows");
    }
  }
  if (product != extent) {
    return absl::StrCat("the decision [", absl::StrJoin(decision, ", "), "] multiplies to ",
                        product, ", not to the loop's extent ", extent);
  }
  if (max_innermost_factor > 0 && decision.back() > max_innermost_factor) {
    return absl::StrCat("the decision's innermost factor ", decision.back(),
                        " exceeds max_innermost_factor ", max_innermost_factor);
  }
  return "";
}

int64_t SampleCategorical(RandomEngine* rng, const std::vector<double>& probs) {
  double total = 0;
  for (double p : probs) total += p;
  double x = rng->Unit() * total;
  for (size_t k = 0; k < probs.size(); ++k) {
    if (x < probs[k]) return static_cast<int64_t>(k);
    x -= probs[k];
  }
  // Rounding left x at the top: the last category with weight.
  for (size_t k = probs.size(); k-- > 0;) {
    if (probs[k] > 0) return static_cast<int64_t>(k);
  }
  return 0;
}

std::string CheckCategorical(const std::vector<int64_t>& candidates,
                             const std::vector<double>& probs) {
  if (candidates.empty()) return "there are no candidates";
  if (candidates.size() != probs.size()) {
    return absl::StrCat(candidates.size(), " candidates but ", probs.size(), " probabilities");
  }
  double total = 0;
  for (double p : probs) {
    if (!(p >= 0) || std::isinf(p)) {
      return absl::StrCat("probability ", p, " is not a finite non-negative number");
    }
    total += p;
  }
  if (!(total > 0)) return "the probabilities sum to 0";
  return "";
}

}  // namespace tessel::ir::schedule
