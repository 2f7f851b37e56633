// Mutators and crossover over decisions (see mutator.h).
#include "metaschedule/search/mutator.h"

#include "absl/strings/str_cat.h"
#include "metaschedule/search/decision_space.h"
#include "metaschedule/search/search_strategy.h"

namespace tessel::metaschedule {

namespace sch = ir::schedule;

namespace {

constexpr int kTries = 8;

std::vector<int64_t> PrimeFactors(int64_t m) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p * p <= m; ++p) {
    while (m % p == 0) out.push_back(p), m /= p;
  }
  if (m > 1) out.push_back(m);
  return out;
}

// A prime factor of one place moved to another; nothing when no move keeps the
// innermost within `max_inner`.
std::optional<std::vector<int64_t>> MoveFactor(std::vector<int64_t> tile, int64_t max_inner,
                                               sch::RandomEngine* rng) {
  const size_t n = tile.size();
  if (n < 2) return std::nullopt;
  for (int attempt = 0; attempt < 16; ++attempt) {
    size_t from = rng->Below(n), to = rng->Below(n);
    if (from == to || tile[from] == 1) continue;
    std::vector<int64_t> primes = PrimeFactors(tile[from]);
    int64_t p = primes[rng->Below(primes.size())];
    std::vector<int64_t> next = tile;
    next[from] /= p;
    next[to] *= p;
    if (max_inner > 0 && next[n - 1] > max_inner) continue;
    return next;
  }
  return std::nullopt;
}

std::vector<int64_t> AsInts(const sch::TraceValue& v) {
  std::vector<int64_t> out;
  for (const sch::TraceValue& x : v.as_list()) out.push_back(x.as_int());
  return out;
}

std::string MutatorOf(const std::string& kind) {
  if (kind == "sample_perfect_tile") return "tile-size";
  if (kind == "sample_compute_location") return "compute-location";
  return "categorical";
}

// Another decision for `site` (whose current one is `inst`'s), or none.
std::optional<sch::TraceValue> OtherChoice(const SamplingSite& site, const sch::Instruction& inst,
                                           sch::RandomEngine* rng) {
  if (site.kind == "sample_perfect_tile") {
    const ir::AttrValue* max = inst.FindAttr("max_innermost_factor");
    int64_t max_inner = max != nullptr && max->is<int64_t>() ? max->as<int64_t>() : 16;
    std::optional<std::vector<int64_t>> moved = MoveFactor(AsInts(*inst.decision), max_inner, rng);
    if (!moved) return std::nullopt;
    return sch::TraceValue(sch::TraceValue::List(moved->begin(), moved->end()));
  }
  std::vector<const sch::TraceValue*> others;
  for (const sch::TraceValue& c : site.choices) {
    if (c.ToPython() != inst.decision->ToPython()) others.push_back(&c);
  }
  if (others.empty()) return std::nullopt;
  return *others[rng->Below(others.size())];
}

}  // namespace

std::vector<std::optional<sch::TraceValue>> Decisions(const sch::Trace& trace) {
  std::vector<std::optional<sch::TraceValue>> out;
  for (const sch::Instruction& inst : trace.instructions()) {
    if (inst.decision.has_value()) out.push_back(inst.decision);
  }
  return out;
}

absl::StatusOr<Mutation> Mutate(const DesignSpace& space, const sch::Trace& parent,
                                sch::RandomEngine* rng) {
  absl::StatusOr<std::vector<SamplingSite>> sites =
      SamplingSites(space.mod(), space.func(), parent);
  if (!sites.ok()) return sites.status();
  std::vector<size_t> open;  // Positions (among the sampling sites) with another choice.
  for (size_t k = 0; k < sites->size(); ++k) {
    if ((*sites)[k].count > 1) open.push_back(k);
  }
  if (open.empty()) {
    return absl::FailedPreconditionError("mutate: no decision of the trace has another choice");
  }
  const std::string parent_key = SearchHistory::Key(parent);
  std::vector<std::optional<sch::TraceValue>> decisions = Decisions(parent);
  std::string last_error = "every change rebuilt the parent's schedule";
  for (int attempt = 0; attempt < kTries; ++attempt) {
    size_t k = open[rng->Below(open.size())];
    const SamplingSite& site = (*sites)[k];
    std::optional<sch::TraceValue> next = OtherChoice(site, parent.instructions()[site.index], rng);
    if (!next) continue;
    std::vector<std::optional<sch::TraceValue>> changed = decisions;
    changed[k] = *next;
    absl::StatusOr<RuleSchedule> child = space.Rebuild(changed, rng->Next());
    if (!child.ok()) {
      last_error = std::string(child.status().message());
      continue;
    }
    if (SearchHistory::Key(child->schedule.trace()) == parent_key) continue;
    return Mutation{child->schedule.trace(), MutatorOf(site.kind), site.index};
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "mutate: no changed decision made a new schedule in ", kTries, " tries (", last_error, ")"));
}

absl::StatusOr<sch::Trace> Crossover(const DesignSpace& space, const sch::Trace& a,
                                     const sch::Trace& b, sch::RandomEngine* rng) {
  std::vector<std::optional<sch::TraceValue>> da = Decisions(a), db = Decisions(b);
  const std::string ka = SearchHistory::Key(a), kb = SearchHistory::Key(b);
  std::string last_error = "every mix rebuilt a parent";
  for (int attempt = 0; attempt < kTries; ++attempt) {
    std::vector<std::optional<sch::TraceValue>> mixed(std::max(da.size(), db.size()));
    for (size_t k = 0; k < mixed.size(); ++k) {
      bool from_b = k >= da.size() || (k < db.size() && rng->Below(2) == 1);
      mixed[k] = from_b ? db[k] : da[k];
    }
    absl::StatusOr<RuleSchedule> child = space.Rebuild(mixed, rng->Next());
    if (!child.ok()) {
      last_error = std::string(child.status().message());
      continue;
    }
    std::string key = SearchHistory::Key(child->schedule.trace());
    if (key != ka && key != kb) return child->schedule.trace();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("crossover: no mix of the parents made a new schedule in ", kTries, " tries (",
                   last_error, ")"));
}

}  // namespace tessel::metaschedule
