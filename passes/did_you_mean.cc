// Levenshtein distance with one rolling row; names here are short (pass and
// option names), so the quadratic cost is irrelevant.
#include "passes/did_you_mean.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tessel::passes {

int EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diag = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int up = row[j];
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string SuggestClosest(absl::string_view name, const std::vector<std::string>& candidates) {
  // Allow about one edit per three characters, at least two: "simplfy" -> "simplify"
  // but "ab" does not become "simplify".
  int limit = std::max<int>(2, static_cast<int>(name.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const std::string& c : candidates) {
    int d = EditDistance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string DidYouMean(absl::string_view name, const std::vector<std::string>& candidates) {
  std::string s = SuggestClosest(name, candidates);
  return s.empty() ? "" : absl::StrCat("; did you mean '", s, "'?");
}

}  // namespace tessel::passes
