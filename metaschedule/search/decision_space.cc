// Sampling sites, their choices and replay (see decision_space.h).
#include "metaschedule/search/decision_space.h"

#include <cmath>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/status_macros.h"

namespace tessel::metaschedule {

namespace sch = ir::schedule;

namespace {

// A site with more choices than this keeps only its count: grid search refuses
// such spaces long before, and mutators draw from it without listing it.
constexpr double kMaxListedChoices = 1 << 16;

int64_t IntAttr(const sch::Instruction& inst, const char* name, int64_t otherwise) {
  const ir::AttrValue* v = inst.FindAttr(name);
  if (v == nullptr || !v->is<int64_t>()) return otherwise;
  return v->as<int64_t>();
}

// How many ordered ways `m` splits into k factors: the product, over m's prime
// powers p^e, of the ways to spread e among k places, C(e + k - 1, k - 1).
double OrderedFactorings(int64_t m, int k) {
  if (k == 0) return m == 1 ? 1 : 0;
  double ways = 1;
  for (int64_t p = 2; p * p <= m; ++p) {
    int e = 0;
    while (m % p == 0) m /= p, ++e;
    for (int i = 1; i <= e; ++i) ways = ways * (k - 1 + i) / i;
  }
  if (m > 1) ways *= k;
  return ways;
}

double PerfectTilingCount(int64_t extent, int n, int64_t max_innermost) {
  double count = 0;
  for (int64_t d = 1; d <= extent && (max_innermost <= 0 || d <= max_innermost); ++d) {
    if (extent % d == 0) count += OrderedFactorings(extent / d, n - 1);
  }
  return count;
}

void Tilings(int64_t rest, int n, int64_t max_innermost, std::vector<int64_t>* prefix,
             std::vector<std::vector<int64_t>>* out) {
  if (static_cast<int>(prefix->size()) == n - 1) {
    if (max_innermost > 0 && rest > max_innermost) return;
    prefix->push_back(rest);
    out->push_back(*prefix);
    prefix->pop_back();
    return;
  }
  for (int64_t d = 1; d <= rest; ++d) {
    if (rest % d != 0) continue;
    prefix->push_back(d);
    Tilings(rest / d, n, max_innermost, prefix, out);
    prefix->pop_back();
  }
}

// The site of `mapped` (handles naming `s`'s) with its choices.
absl::StatusOr<SamplingSite> SiteAt(size_t index, const sch::Instruction& mapped,
                                    const sch::Schedule& s) {
  SamplingSite site;
  site.index = index;
  site.kind = mapped.kind;
  if (mapped.kind == "sample_perfect_tile") {
    TESSEL_ASSIGN_OR_RETURN(auto loop, s.Get(sch::LoopRV{mapped.inputs.at(0).as_rv().id}));
    std::optional<int64_t> extent = ir::arith::AsConstInt(loop->extent);
    if (!extent) return absl::InvalidArgumentError("a tiled loop has no constant extent");
    int n = static_cast<int>(IntAttr(mapped, "n", 2));
    int64_t max_inner = IntAttr(mapped, "max_innermost_factor", 16);
    site.count = PerfectTilingCount(*extent, n, max_inner);
    if (site.count <= kMaxListedChoices) {
      for (std::vector<int64_t>& t : PerfectTilings(*extent, n, max_inner)) {
        site.choices.emplace_back(sch::TraceValue::List(t.begin(), t.end()));
      }
    }
  } else if (mapped.kind == "sample_categorical") {
    const ir::AttrValue* probs = mapped.FindAttr("probs");
    const auto* list = probs == nullptr ? nullptr : probs->get_if<ir::AttrValue::List>();
    for (size_t i = 0; list != nullptr && i < list->size(); ++i) {
      const double* p = (*list)[i].get_if<double>();
      if (p != nullptr && *p > 0) site.choices.emplace_back(static_cast<int64_t>(i));
    }
    site.count = static_cast<double>(site.choices.size());
  } else if (mapped.kind == "sample_compute_location") {
    TESSEL_ASSIGN_OR_RETURN(ir::Block block, s.Get(sch::BlockRV{mapped.inputs.at(0).as_rv().id}));
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> legal,
                            sch::LegalComputeLocations(s.state(), block->name));
    for (int64_t k : legal) site.choices.emplace_back(k);
    site.count = static_cast<double>(site.choices.size());
  } else {
    return absl::UnimplementedError(
        absl::StrCat("no decision space for sampling instruction ", mapped.kind));
  }
  return site;
}

}  // namespace

std::vector<std::vector<int64_t>> PerfectTilings(int64_t extent, int n, int64_t max_innermost) {
  std::vector<std::vector<int64_t>> out;
  if (extent < 1 || n < 1) return out;
  std::vector<int64_t> prefix;
  Tilings(extent, n, max_innermost, &prefix, &out);
  return out;
}

absl::StatusOr<std::vector<SamplingSite>> SamplingSites(const ir::IRModule& mod,
                                                        const std::string& func,
                                                        const sch::Trace& trace) {
  TESSEL_ASSIGN_OR_RETURN(sch::Schedule s, sch::Schedule::Create(mod, func));
  std::vector<SamplingSite> sites;
  absl::Status inner;
  absl::Status replay = trace.ApplyToSchedule(
      &s, [&](size_t index, const sch::Instruction& mapped, const sch::Schedule& at) {
        if (!mapped.kind.starts_with("sample_") || !inner.ok()) return;
        absl::StatusOr<SamplingSite> site = SiteAt(index, mapped, at);
        if (!site.ok()) {
          inner = absl::Status(site.status().code(),
                               absl::StrCat("instruction ", index, " (", mapped.kind,
                                            "): ", site.status().message()));
          return;
        }
        sites.push_back(*std::move(site));
      });
  if (!replay.ok()) return replay;
  if (!inner.ok()) return inner;
  return sites;
}

double SpaceSize(const std::vector<SamplingSite>& sites) {
  double size = 1;
  for (const SamplingSite& s : sites) size *= s.count;
  return size;
}

absl::StatusOr<sch::Schedule> Replay(const ir::IRModule& mod, const std::string& func,
                                     const sch::Trace& trace, uint64_t seed) {
  TESSEL_ASSIGN_OR_RETURN(sch::Schedule s, sch::Schedule::Create(mod, func, seed));
  TESSEL_RETURN_IF_ERROR(trace.ApplyToSchedule(&s));
  return s;
}

std::string DecisionKey(const sch::Trace& trace) {
  std::vector<std::string> parts;
  const std::vector<sch::Instruction>& insts = trace.instructions();
  for (size_t k = 0; k < insts.size(); ++k) {
    if (!insts[k].decision.has_value()) continue;
    parts.push_back(absl::StrCat(k, ":", insts[k].decision->ToPython()));
  }
  return absl::StrJoin(parts, ";");
}

namespace {

sch::TraceValue Rename(const sch::TraceValue& v, absl::flat_hash_map<std::string, int64_t>& ids) {
  if (v.is_rv()) {
    auto it = ids.find(v.as_rv().Name());
    // A handle used before its definition stays as it is (replay reports it).
    return it == ids.end() ? v : sch::TraceValue(sch::RV{v.as_rv().kind, it->second});
  }
  if (v.is_list()) {
    sch::TraceValue::List out;
    for (const sch::TraceValue& x : v.as_list()) out.push_back(Rename(x, ids));
    return out;
  }
  return v;
}

}  // namespace

sch::Trace Renumbered(const sch::Trace& trace) {
  absl::flat_hash_map<std::string, int64_t> ids;
  std::vector<sch::Instruction> out;
  for (const sch::Instruction& inst : trace.instructions()) {
    sch::Instruction copy = inst;
    for (sch::TraceValue& v : copy.inputs) v = Rename(v, ids);
    for (sch::RV& rv : copy.outputs) {
      int64_t id = static_cast<int64_t>(ids.size());
      ids[rv.Name()] = id;
      rv.id = id;
    }
    out.push_back(std::move(copy));
  }
  return sch::Trace(std::move(out));
}

}  // namespace tessel::metaschedule
