// "Did you mean" suggestions for misspelt names (passes, options, configs).
//
//   SuggestClosest("simplfy", {"simplify", "remove-no-op"})   -> "simplify"
//   SuggestClosest("xyz", {"simplify"})                       -> ""  (nothing close)
//   DidYouMean("simplfy", {"simplify"})                       -> "; did you mean 'simplify'?"
//
// Closeness is the Levenshtein distance; a candidate is offered only when the
// distance is small relative to the name, so that wild guesses get no suggestion.
#ifndef TESSEL_PASSES_DID_YOU_MEAN_H_
#define TESSEL_PASSES_DID_YOU_MEAN_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tessel::passes {

// Edit distance (insertions, deletions, substitutions; each costs 1).
int EditDistance(absl::string_view a, absl::string_view b);

// The candidate closest to `name`, or "" when none is close enough.
std::string SuggestClosest(absl::string_view name, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" or "" -- ready to append to a message.
std::string DidYouMean(absl::string_view name, const std::vector<std::string>& candidates);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_DID_YOU_MEAN_H_
