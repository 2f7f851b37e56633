// The schedule property test (docs/schedule.md, "Property test"): seeded
// random sequences of primitives, with random and often illegal arguments, on
// every family of the op library at small odd sizes.
//
//   case 17 of seed 20261121: matmul_bias_relu M=5 N=3 K=7, 9 moves
//     split(l2, [None, 0])       refused  -> module, trace unchanged, message
//     reorder(l6, l3)            accepted
//     parallel(l1)               refused  (reduce)
//     ...
//   after each accepted call the function verifies (every load and store of a
//   block inside its declared regions, ir/verify_regions.h);
//   then: the function verifies, the interpreter gives the original's results
//   on random inputs, and the trace, written as JSON and read back (and
//   simplified), replays onto the original to a structurally equal function.
//
// The environment picks the run (the defaults are the CI run):
//   TESSEL_PROPTEST_SEED=n    the seed (default 20261121)
//   TESSEL_PROPTEST_CASES=n   cases of the op library test (default 3000)
//   TESSEL_PROPTEST_CASE=i    only case i (what a failure report says to run)
//   TESSEL_PROPTEST_VERBOSE=1 print every call as it is made
//   TESSEL_PROPTEST_ALL_MOVES=1  draw the moves kept out of CI too
// A failure prints the seed, the case, the one command that reruns it, and the
// failing trace, shortened, as a Python script.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "ir/te/workloads.h"
#include "tests/unit/schedule_property_moves.h"
#include "tests/unit/schedule_property_ops.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

constexpr uint64_t kDefaultSeed = 20261121;
constexpr int64_t kDefaultCases = 3000;
// Bounds each interpreter run: the functions are small, so only a schedule
// that multiplied the work (or a runaway loop) gets near it. Splits whose
// factors overshoot an extent multiply the iterations (a loop of 2 split by
// [None, 8] runs 8 guarded ones), so the bound leaves room for several.
constexpr int64_t kOpStepBudget = 2'000'000;
constexpr int64_t kWorkloadStepBudget = 40'000'000;  // matmul_64x64x64: 262,144 updates.

std::optional<int64_t> EnvInt(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::strtoll(v, nullptr, 10);
}

struct RunConfig {
  uint64_t seed = kDefaultSeed;
  int64_t cases = kDefaultCases;
  std::optional<int64_t> only_case;
  bool verbose = false;
  bool all_moves = false;
};

RunConfig ConfigFromEnv() {
  RunConfig c;
  if (auto s = EnvInt("TESSEL_PROPTEST_SEED")) c.seed = static_cast<uint64_t>(*s);
  if (auto n = EnvInt("TESSEL_PROPTEST_CASES")) c.cases = *n;
  c.only_case = EnvInt("TESSEL_PROPTEST_CASE");
  c.verbose = EnvInt("TESSEL_PROPTEST_VERBOSE").value_or(0) != 0;
  c.all_moves = EnvInt("TESSEL_PROPTEST_ALL_MOVES").value_or(0) != 0;
  return c;
}

// Each case draws from its own generator, so one case reruns alone.
RandomEngine CaseEngine(uint64_t seed, int64_t index) {
  RandomEngine r(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index) + 1);
  r.Next();
  return r;
}

// ---- A crash still names its case ----------------------------------------------------

char g_current_case[512];

void OnCrash(int sig) {
  const char kHead[] = "\nschedule property test crashed in: ";
  (void)!write(2, kHead, sizeof(kHead) - 1);
  (void)!write(2, g_current_case, std::strlen(g_current_case));
  (void)!write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string RerunCommand(const std::string& test, uint64_t seed, int64_t index) {
  return absl::StrCat("TESSEL_PROPTEST_SEED=", seed, " TESSEL_PROPTEST_CASE=", index,
                      " TESSEL_PROPTEST_VERBOSE=1 build/bin/tessel_schedule_tests",
                      " --gtest_filter=ScheduleProperty.", test);
}

// ---- Checking a scheduled function ------------------------------------------------

// The checks on a schedule whose calls all kept the transaction rule. A
// schedule may legally multiply the work (over-splits whose predicated-off
// iterations still run, a producer recomputed in every innermost iteration):
// when the interpreter runs out of its step or memory budget the comparison is
// skipped, `*too_costly` set, and the other checks still run.
absl::Status CheckScheduled(const IRModule& original, const Schedule& sch, int64_t max_steps,
                            bool* too_costly = nullptr) {
  const PrimFunc& before = original->functions.front().second;
  absl::Status v = VerifyFunction(sch.func(), sch.func_name());
  if (!v.ok()) return absl::InternalError(absl::StrCat("the verifier refuses it: ", v.message()));
  absl::Status same = CheckSameResults(before, sch.func(), /*seed=*/1, {.rtol = 1e-4, .atol = 1e-5},
                                       {.max_steps = max_steps, .interrupted = nullptr});
  if (same.code() == absl::StatusCode::kResourceExhausted) {
    if (too_costly != nullptr) *too_costly = true;
    same = absl::OkStatus();
  }
  if (!same.ok()) {
    return absl::InternalError(absl::StrCat("the interpreter disagrees: ", same.message()));
  }
  absl::StatusOr<std::string> json = sch.trace().ToJson();
  if (!json.ok()) return absl::InternalError(absl::StrCat("ToJson: ", json.status().message()));
  absl::StatusOr<Trace> back = Trace::FromJson(*json);
  if (!back.ok()) return absl::InternalError(absl::StrCat("FromJson: ", back.status().message()));
  for (bool simplified : {false, true}) {
    const char* which = simplified ? "the simplified trace" : "the trace read back from JSON";
    absl::StatusOr<Schedule> replay = Schedule::Create(original, "", /*seed=*/12345);
    if (!replay.ok()) return replay.status();
    absl::Status applied = (simplified ? back->Simplified() : *back).ApplyToSchedule(&*replay);
    if (!applied.ok()) {
      return absl::InternalError(absl::StrCat(which, " does not replay: ", applied.message()));
    }
    absl::Status eq = AssertStructuralEqual(replay->func(), sch.func());
    if (!eq.ok()) {
      return absl::InternalError(
          absl::StrCat(which, " replays to a different function: ", eq.message()));
    }
  }
  return absl::OkStatus();
}

// What kind of failure: its message up to the first ':' ("the verifier
// refuses it", "the interpreter disagrees", ...).
std::string FailureKind(const absl::Status& s) {
  std::string m(s.message());
  return m.substr(0, m.find(':'));
}

// The failure of replaying `insts` onto the original and checking the result
// (OK when it replays and passes).
absl::Status ReplayAndCheck(const IRModule& original, std::vector<Instruction> insts,
                            int64_t max_steps) {
  absl::StatusOr<Schedule> s = Schedule::Create(original);
  if (!s.ok()) return s.status();
  absl::Status applied = Trace(std::move(insts)).ApplyToSchedule(&*s);
  return applied.ok() ? CheckScheduled(original, *s, max_steps) : applied;
}

// A small trace that still fails like `whole` does: the shortest failing
// prefix, then without each earlier instruction that the failure does not
// need (one at a time, last first; a dropped query whose handles are used
// does not replay, so it stays).
std::pair<Trace, absl::Status> ShrinkFailingTrace(const IRModule& original, const Trace& trace,
                                                  int64_t max_steps, const absl::Status& whole) {
  std::vector<Instruction> insts = trace.instructions();
  absl::Status why = whole;
  for (size_t k = 1; k < insts.size(); ++k) {
    std::vector<Instruction> prefix(insts.begin(), insts.begin() + static_cast<long>(k));
    absl::Status check = ReplayAndCheck(original, prefix, max_steps);
    if (!check.ok()) {
      insts = std::move(prefix);
      why = check;
      break;
    }
  }
  for (size_t i = insts.size() - 1; i-- > 0;) {
    std::vector<Instruction> fewer = insts;
    fewer.erase(fewer.begin() + static_cast<long>(i));
    absl::Status check = ReplayAndCheck(original, fewer, max_steps);
    if (!check.ok() && FailureKind(check) == FailureKind(why) &&
        check.message().find("replaying instruction") == absl::string_view::npos) {
      insts = std::move(fewer);
      why = check;
    }
  }
  return {Trace(std::move(insts)), why};
}

// A Python script that rebuilds the function, replays `trace` and runs the
// check that failed (`last`: an extra line, e.g. the refused call).
std::string ReproPython(const IRModule& original, const std::string& func_name, const Trace& trace,
                        const std::string& last) {
  std::string py = absl::StrCat("import tessel\nmod = tessel.parse(r'''\n", PrintModule(original),
                                "''')\nsch = tessel.Schedule(mod)\n", trace.AsPython());
  if (!last.empty()) return absl::StrCat(py, last, "\n");
  return absl::StrCat(py, "tessel.verify(sch.mod)\ntessel.check_same_results(mod[\"", func_name,
                      "\"], sch.mod[\"", func_name, "\"], rtol=1e-4, atol=1e-5)\n",
                      "replay = tessel.Schedule(mod)\n",
                      "tessel.Trace.from_json(sch.trace.as_json()).apply_to_schedule(replay)\n",
                      "tessel.assert_structural_equal(replay.mod, sch.mod)\n");
}

// ---- One case ------------------------------------------------------------------------

struct CaseSpec {
  std::string test;  // The TEST's name, for the rerun command.
  uint64_t seed;
  int64_t index;
  IRModule mod;
  std::string what;   // The op and its sizes.
  int64_t max_steps;  // Of one interpreter run.
};

// Runs `steps` random moves on a schedule of spec.mod; "" when every property
// held, else the failure report.
std::string RunCase(const CaseSpec& spec, RandomEngine& rng, int steps,
                    const std::vector<const Move*>& moves, MoveLog* log) {
  std::snprintf(g_current_case, sizeof(g_current_case), "%s (%s)",
                RerunCommand(spec.test, spec.seed, spec.index).c_str(), spec.what.c_str());
  if (log->verbose)
    std::fprintf(stderr, "case %lld: %s\n", static_cast<long long>(spec.index), spec.what.c_str());
  absl::StatusOr<Schedule> created = Schedule::Create(spec.mod, "", rng.Next());
  if (!created.ok()) return absl::StrCat("Schedule::Create: ", created.status().message());
  Schedule sch = *std::move(created);
  MoveContext ctx(&sch, &rng, log);
  log->violations.clear();
  for (int i = 0; i < steps && log->violations.empty(); ++i) ctx.Pick(moves)->run(ctx);

  std::string head =
      absl::StrCat("case ", spec.index, " of seed ", spec.seed, " (", spec.what, ") failed: ");
  std::string rerun = absl::StrCat("\nrerun: ", RerunCommand(spec.test, spec.seed, spec.index));
  const std::string& name = sch.func_name();
  if (!log->violations.empty()) {
    const std::string& v = log->violations.front();
    // The error starts with the refused call as Python: "sch.split(...): rule".
    size_t at = v.find("its error: sch.");
    std::string call;
    if (at != std::string::npos) {
      std::string msg = v.substr(at + 11);
      size_t end = msg.find("): ");
      if (end != std::string::npos)
        call = msg.substr(0, end + 1) + "  # refused; must change nothing";
    }
    return absl::StrCat(head, v, rerun, "\nthe trace so far as Python:\n",
                        ReproPython(spec.mod, name, sch.trace(), call));
  }
  bool too_costly = false;
  absl::Status check = CheckScheduled(spec.mod, sch, spec.max_steps, &too_costly);
  log->too_costly += too_costly;
  if (check.ok()) return "";
  auto [prefix, why] = ShrinkFailingTrace(spec.mod, sch.trace(), spec.max_steps, check);
  return absl::StrCat(head, why.message(), rerun, "\na shortened failing trace (",
                      prefix.instructions().size(), " of ", sch.trace().instructions().size(),
                      " instructions) as Python:\n", ReproPython(spec.mod, name, prefix, ""),
                      "the function the whole trace gives:\n", PrintFunction(sch.func(), name));
}

std::vector<const Move*> MovesFor(const RunConfig& config) {
  std::vector<const Move*> out;
  for (const Move& m : Moves()) {
    if (m.in_ci || config.all_moves) out.push_back(&m);
  }
  return out;
}

std::string Summary(const MoveLog& log) {
  std::string s = absl::StrCat(log.too_costly, " too costly to interpret; ");
  absl::StrAppend(&s, "calls (accepted/all) by primitive:");
  for (const auto& [name, c] : log.counts)
    absl::StrAppend(&s, " ", name, " ", c.accepted, "/", c.calls, ";");
  return s;
}

// Runs the cases, stopping after a few failures (each prints its own report).
struct Runner {
  RunConfig config = ConfigFromEnv();
  std::vector<const Move*> moves = MovesFor(config);
  MoveLog log;
  int failures = 0;
  int64_t cases_run = 0;

  Runner() {
    log.verbose = config.verbose;
    std::signal(SIGSEGV, OnCrash);
    std::signal(SIGABRT, OnCrash);
    std::signal(SIGFPE, OnCrash);
  }
  bool Wanted(int64_t index) const { return !config.only_case || *config.only_case == index; }
  void Run(const CaseSpec& spec, RandomEngine& rng) {
    if (failures >= 3) return;
    int steps = static_cast<int>(1 + rng.Below(12));
    std::string failure = RunCase(spec, rng, steps, moves, &log);
    ++cases_run;
    if (!failure.empty()) {
      ++failures;
      ADD_FAILURE() << failure;
    }
  }
};

TEST(ScheduleProperty, RandomSequencesOnTheOpLibrary) {
  Runner r;
  auto start = std::chrono::steady_clock::now();
  const std::vector<PropertyOp>& ops = PropertyOps();
  std::map<std::string, int> per_op;
  int64_t first = r.config.only_case.value_or(0);
  int64_t last = r.config.only_case ? first + 1 : r.config.cases;
  for (int64_t i = first; i < last; ++i) {
    if (r.failures >= 3) break;
    RandomEngine rng = CaseEngine(r.config.seed, i);
    const PropertyOp& op = ops[rng.Below(ops.size())];
    absl::StatusOr<PropertyFunction> f = op.build(rng);
    ASSERT_TRUE(f.ok()) << op.name << ": " << f.status().message();
    ++per_op[op.name];
    r.Run({"RandomSequencesOnTheOpLibrary", r.config.seed, i, f->mod, f->what, kOpStepBudget}, rng);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("seed %llu: %lld cases in %.1f s; %s\n",
              static_cast<unsigned long long>(r.config.seed), static_cast<long long>(r.cases_run),
              secs, Summary(r.log).c_str());
  if (r.config.only_case || r.failures > 0) return;
  // Too costly to interpret is rare; more would hide real failures.
  EXPECT_LE(r.log.too_costly * 100, r.cases_run)
      << r.log.too_costly << " cases ran out of the interpreter's budget";
  // Every op was drawn, and every move got at least one call accepted: a
  // generator that is always refused tests only the refusals.
  EXPECT_EQ(per_op.size(), ops.size());
  if (r.config.cases >= 500) {
    for (const Move* m : r.moves) {
      EXPECT_GT(r.log.counts[m->called()].accepted, 0) << m->name << " was never accepted";
    }
  }
}

// The same on the small named workloads (softmax_16x33, bert_ffn_8x64x32 ...):
// larger, multi-block functions, fewer cases.
TEST(ScheduleProperty, RandomSequencesOnTheSmallWorkloads) {
  Runner r;
  int64_t index = 0;
  for (const te::Workload& w : te::AllWorkloads()) {
    if (!w.small) continue;
    absl::StatusOr<IRModule> mod = w.build();
    ASSERT_TRUE(mod.ok()) << w.name << ": " << mod.status().message();
    for (int k = 0; k < 6; ++k, ++index) {
      if (!r.Wanted(index) || r.failures >= 3) continue;
      RandomEngine rng = CaseEngine(r.config.seed, index);
      r.Run({"RandomSequencesOnTheSmallWorkloads", r.config.seed, index, *mod, w.name,
             kWorkloadStepBudget},
            rng);
    }
  }
  if (!r.config.only_case && r.failures == 0) {
    EXPECT_GE(r.cases_run, 54);
  }
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
