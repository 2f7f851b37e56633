// The strategy registry, the search history and fresh draws (see search_strategy.h).
#include "metaschedule/search/search_strategy.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "metaschedule/search/decision_space.h"

namespace tessel::metaschedule {

namespace sch = ir::schedule;

namespace {

std::map<std::string, SearchStrategyFactory>& Registry() {
  static auto* registry = new std::map<std::string, SearchStrategyFactory>();
  return *registry;
}

}  // namespace

std::string SearchHistory::Key(const sch::Trace& trace) {
  // Renumbered: a drawn trace and its replay number their handles differently.
  return Renumbered(trace).AsPython();
}

void SearchHistory::Add(const sch::Trace& trace, double seconds) {
  entries_.push_back({trace, seconds});
  keys_.insert(Key(trace));
}

bool SearchHistory::Seen(const sch::Trace& trace) const { return keys_.contains(Key(trace)); }

std::vector<const SearchHistory::Entry*> SearchHistory::Best(size_t k) const {
  std::vector<const Entry*> ok;
  for (const Entry& e : entries_) {
    if (std::isfinite(e.seconds)) ok.push_back(&e);
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [](const Entry* a, const Entry* b) { return a->seconds < b->seconds; });
  if (ok.size() > k) ok.resize(k);
  return ok;
}

bool RegisterSearchStrategy(const std::string& name, SearchStrategyFactory factory) {
  return Registry().emplace(name, std::move(factory)).second;
}

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeSearchStrategy(const std::string& name) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    return absl::NotFoundError(absl::StrCat("no search strategy \"", name, "\" (there are: ",
                                            absl::StrJoin(SearchStrategyNames(), ", "), ")"));
  }
  return it->second();
}

std::vector<std::string> SearchStrategyNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

std::vector<sch::Trace> FreshDraws(const DesignSpace& space, const SearchHistory& history, int n,
                                   sch::RandomEngine* rng,
                                   absl::flat_hash_set<std::string>* taken) {
  std::vector<sch::Trace> out;
  for (int tries = 0; static_cast<int>(out.size()) < n && tries < 4 * n + 16; ++tries) {
    absl::StatusOr<RuleSchedule> draw = space.Draw(rng->Next());
    if (!draw.ok()) continue;
    const sch::Trace& t = draw->schedule.trace();
    if (history.Seen(t) || !taken->insert(SearchHistory::Key(t)).second) continue;
    out.push_back(t);
  }
  return out;
}

}  // namespace tessel::metaschedule
