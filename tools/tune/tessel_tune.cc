// tessel-tune: tunes the functions of a module and keeps what it measured in a
// tuning database, for apply-best to use (docs/metaschedule.md).
//
//   tessel-tune model.tsl --db=tuning.db --trials=64 [--strategy=evolutionary]
//       [--target="llvm -num-cores=2"] [--batch=16] [--seed=1] [--cost-model=xgboost]
//       [--warm-start=OTHER.db[:TARGET]] [--scheduler=gradient|round-robin] [--workers=N]
//       [--repeat=3] [--min-repeat-ms=20] [--build-timeout=120] [--run-timeout=60]
//       [--max-grid=4096] [--work-dir=DIR]
//   tessel-tune model.tsl --space-size [--target=...]
//   tessel-tune model.tsl --db=tuning.db --model-quality [--target=...]
//   tessel-tune model.tsl --db=tuning.db --dask=tcp://scheduler:8786 [...]
//
//   $ tessel-tune mm.tsl --space-size
//   task mm (weight 1): 9 decisions, 1.6e+05 points
//     sample_perfect_tile      36 choices  (instruction 3)
//     ...
//     a grid search over it: 1.6e+05 candidates, about 22 h at 0.5 s per candidate
//   $ tessel-tune mm.tsl --db=tuning.db --trials=32
//   [16/32] mm: best 0.0214 ms (58.3 GFLOP/s), 0 failed, 2 s left
//   [32/32] mm: best 0.0187 ms (66.7 GFLOP/s), 0 failed, 0 s left
//   task  weight  trials  failed  resumed  best       GFLOP/s  checked by
//   mm         1      32       0        0  0.0187 ms     66.7  interpreter
//   cost model xgboost (kept in tuning.db): on 8 held-out records, Kendall tau 0.61,
//   top-10 recall 0.88
//
// With --dask=ADDRESS the candidates are measured on a dask.distributed cluster:
// the run is handed to Python (python3 -m tessel.tune_cli, the package beside this
// tessel's libraries), whose dask client sends the jobs.
//
// The trained cost model is kept in the database under its target and starts the
// next run; --warm-start trains it first on another database's records (of
// TARGET, by default this run's).
//
// Exit status 0, 1 with the error on stderr, 2 for a wrong command line.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "codegen/cpu_feature_resolver.h"
#include "codegen/runtime/export_library.h"
#include "ir/parser.h"
#include "ir/read_file.h"
#include "metaschedule/cost_model/cost_model.h"
#include "metaschedule/cost_model/features.h"
#include "metaschedule/cost_model/training_rows.h"
#include "metaschedule/database/database.h"
#include "metaschedule/design_space.h"
#include "metaschedule/measure/local_measure.h"
#include "metaschedule/search/decision_space.h"
#include "metaschedule/search/search_strategy.h"
#include "metaschedule/search/task_scheduler.h"
#include "metaschedule/tasks.h"

namespace tessel::metaschedule {
namespace {

constexpr const char* kUsage =
    "usage: tessel-tune FILE.tsl --db=DB [--trials=N] [--strategy=NAME] [--target=T] "
    "[--batch=N] [--seed=N] [--cost-model=xgboost|analytic|random] [--warm-start=DB[:TARGET]] "
    "[--scheduler=gradient|round-robin] [--workers=N] [--repeat=N] [--min-repeat-ms=MS] "
    "[--build-timeout=S] [--run-timeout=S] [--max-grid=N] [--work-dir=DIR] "
    "[--flush-cache] [--no-heuristic-start] [--dask=ADDRESS]\n"
    "       tessel-tune FILE.tsl --space-size [--target=T]\n"
    "       tessel-tune FILE.tsl --db=DB --model-quality [--target=T]\n";

int Fail(const absl::Status& s) {
  std::cerr << "tessel-tune: " << s.message() << "\n";
  return 1;
}

int Usage(const std::string& why) {
  std::cerr << "tessel-tune: " << why << "\n" << kUsage;
  return 2;
}

std::string Duration(double s) {
  if (s < 120) return absl::StrFormat("%.0f s", s);
  if (s < 7200) return absl::StrFormat("%.0f min", s / 60);
  if (s < 172800) return absl::StrFormat("%.0f h", s / 3600);
  if (s < 3.2e8) return absl::StrFormat("%.0f days", s / 86400);
  return absl::StrFormat("%.1e years", s / 3.15e7);
}

std::string Ms(double s) {
  return std::isfinite(s) ? absl::StrFormat("%.4f ms", s * 1e3) : std::string("-");
}

int SpaceSizes(const std::vector<TuningTask>& tasks) {
  constexpr double kSecondsPerCandidate = 0.5;  // Build and run, about, on this project's CI.
  for (const TuningTask& task : tasks) {
    ir::IRModule mod = ir::MakeIRModule({{task.name, AsWorkload(task.func)}});
    absl::StatusOr<DesignSpace> space = DesignSpace::Create(mod, task.name, task.target);
    if (!space.ok()) return Fail(space.status());
    absl::StatusOr<RuleSchedule> h = space->Heuristic();
    if (!h.ok()) return Fail(h.status());
    absl::StatusOr<std::vector<SamplingSite>> sites =
        SamplingSites(mod, task.name, h->schedule.trace());
    if (!sites.ok()) return Fail(sites.status());
    double size = SpaceSize(*sites);
    std::cout << absl::StrFormat("task %s (weight %d): %d decisions, %.3g points\n", task.name,
                                 task.weight, sites->size(), size);
    for (const SamplingSite& s : *sites) {
      std::cout << absl::StrFormat("  %-24s %8.3g choices  (instruction %d)\n", s.kind, s.count,
                                   s.index);
    }
    std::cout << absl::StrFormat(
        "  a grid search over it: %.3g candidates, about %s at %.1f s "
        "per candidate\n",
        size, Duration(size * kSecondsPerCandidate), kSecondsPerCandidate);
  }
  return 0;
}

std::string Gflops(double flops, double seconds) {
  if (flops <= 0 || !std::isfinite(seconds) || seconds <= 0) return "-";
  return absl::StrFormat("%.1f", flops / seconds * 1e-9);
}

// The live progress line: trials done of the run's budget, the task's best, the
// failures, and the time left at the pace so far.
struct Progress {
  int64_t total = 0, done = 0;
  absl::Time start;
  std::map<std::string, int64_t> per_task;

  void Report(const TuneProgress& p, const std::map<std::string, double>& flops) {
    done += p.trials - per_task[p.task];
    per_task[p.task] = p.trials;
    double elapsed = absl::ToDoubleSeconds(absl::Now() - start);
    double left =
        done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
    auto it = flops.find(p.task);
    std::cout << absl::StrFormat("[%d/%d] %s: best %s (%s GFLOP/s), %d failed, %s left\n", done,
                                 total, p.task, Ms(p.best_seconds),
                                 Gflops(it == flops.end() ? 0 : it->second, p.best_seconds),
                                 p.failed, Duration(left))
              << std::flush;
  }
};

struct Flags {
  std::string file, db, target = "llvm", strategy = "evolutionary", scheduler = "gradient";
  std::string work_dir, cost_model = "xgboost", warm_start;
  int64_t trials = 64, batch = 16, seed = 1, jobs = 0, repeat = 3, max_grid = 4096;
  double min_repeat_ms = 20, build_timeout = 120, run_timeout = 60;
  bool space_size = false, model_quality = false, flush_cache = false, heuristic_start = true;
};

// The run's cost model: the one kept in the database for the target, else a new
// one; with --warm-start, first trained on another database's records.
absl::StatusOr<std::shared_ptr<CostModel>> StartModel(const Flags& f, Database& db) {
  absl::StatusOr<std::unique_ptr<CostModel>> made = MakeCostModel(f.cost_model, f.seed);
  if (!made.ok()) return made.status();
  std::shared_ptr<CostModel> model(*std::move(made));
  if (f.cost_model != "xgboost") return model;
  absl::StatusOr<std::optional<std::string>> kept = db.FindModel(f.cost_model, f.target);
  if (!kept.ok()) return kept.status();
  if (kept->has_value()) {
    if (absl::Status s = model->Load(**kept); !s.ok()) {
      std::cerr << "tessel-tune: the cost model kept in " << f.db << " does not load ("
                << s.message() << "); starting a new one\n";
    } else {
      std::cout << "cost model: the one kept in " << f.db << " for \"" << f.target << "\"\n";
    }
  }
  if (!f.warm_start.empty()) {
    int64_t rows = 0;
    if (absl::Status s = WarmStart(*model, f.warm_start, f.target, &rows); !s.ok()) return s;
    std::cout << absl::StrFormat("cost model: warm-started on %d records of %s\n", rows,
                                 f.warm_start);
  }
  return model;
}

// Keeps the trained model in the database and reports how well a model of its
// kind ranks held-out records of this target.
int FinishModel(const Flags& f, Database& db, CostModel& model) {
  if (f.strategy != "evolutionary") return 0;
  if (absl::StatusOr<std::string> bytes = model.Save(); bytes.ok()) {
    if (absl::Status s = db.CommitModel(model.name(), f.target, *bytes, model.size()); !s.ok()) {
      return Fail(s);
    }
  }
  absl::StatusOr<std::vector<TrainingRow>> rows = RowsFromDatabase(db, f.target);
  if (!rows.ok()) return Fail(rows.status());
  absl::StatusOr<ModelQuality> q = HeldOutQuality(model.name(), *rows, f.seed);
  if (!q.ok()) return Fail(q.status());
  if (q->rows >= 2) {
    std::cout << absl::StrFormat(
        "cost model %s: on %d held-out records, Kendall tau %.2f, top-10 recall %.2f\n",
        model.name(), q->rows, q->kendall_tau, q->top_k_recall);
  }
  return 0;
}

// --model-quality: how each kind of cost model ranks the database's held-out
// records of the target (nothing is measured).
int ModelQualities(const Flags& f) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(f.db, /*create=*/false);
  if (!db.ok()) return Fail(db.status());
  int64_t skipped = 0;
  absl::StatusOr<std::vector<TrainingRow>> rows = RowsFromDatabase(**db, f.target, &skipped);
  if (!rows.ok()) return Fail(rows.status());
  std::cout << absl::StrFormat("%d records of \"%s\" (%d left out: their traces no longer lower)\n",
                               rows->size(), f.target, skipped);
  std::cout << absl::StrFormat("%-10s %8s %12s %s\n", "model", "held out", "Kendall tau",
                               "top-10 recall");
  for (const std::string& name : CostModelNames()) {
    absl::StatusOr<ModelQuality> q = HeldOutQuality(name, *rows, f.seed);
    if (!q.ok()) return Fail(q.status());
    std::cout << absl::StrFormat("%-10s %8d %12.2f %.2f\n", name, q->rows, q->kendall_tau,
                                 q->top_k_recall);
  }
  return 0;
}

// "" when all flags parsed, else what is wrong.
std::string Parse(int argc, char** argv, Flags* f) {
  std::map<std::string, int64_t*> ints = {{"--trials", &f->trials}, {"--batch", &f->batch},
                                          {"--seed", &f->seed},     {"--workers", &f->jobs},
                                          {"--repeat", &f->repeat}, {"--max-grid", &f->max_grid}};
  std::map<std::string, double*> doubles = {{"--min-repeat-ms", &f->min_repeat_ms},
                                            {"--build-timeout", &f->build_timeout},
                                            {"--run-timeout", &f->run_timeout}};
  std::map<std::string, std::string*> strings = {{"--db", &f->db},
                                                 {"--target", &f->target},
                                                 {"--strategy", &f->strategy},
                                                 {"--scheduler", &f->scheduler},
                                                 {"--work-dir", &f->work_dir}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--no-heuristic-start") {
      f->heuristic_start = false;
      continue;
    }
    if (arg == "--space-size" || arg == "--model-quality" || arg == "--flush-cache") {
      (arg == "--space-size"      ? f->space_size
       : arg == "--model-quality" ? f->model_quality
                                  : f->flush_cache) = true;
      continue;
    }
    if (!arg.starts_with("--")) {
      if (!f->file.empty()) return "more than one input file";
      f->file = arg;
      continue;
    }
    std::vector<std::string> kv = absl::StrSplit(arg, absl::MaxSplits('=', 1));
    if (kv.size() != 2) return absl::StrCat(arg, " needs a value (", arg, "=...)");
    if (auto it = ints.find(kv[0]); it != ints.end()) {
      if (!absl::SimpleAtoi(kv[1], it->second))
        return absl::StrCat(kv[0], ": not an integer: ", kv[1]);
    } else if (auto d = doubles.find(kv[0]); d != doubles.end()) {
      if (!absl::SimpleAtod(kv[1], d->second))
        return absl::StrCat(kv[0], ": not a number: ", kv[1]);
    } else if (auto s = strings.find(kv[0]); s != strings.end()) {
      *s->second = kv[1];
    } else {
      return absl::StrCat("unknown flag ", kv[0]);
    }
  }
  if (f->file.empty()) return "no input file";
  if (!f->space_size && f->db.empty()) return "--db=FILE is needed to tune";
  if (f->trials < 0 || f->batch < 1 || f->repeat < 1 || f->jobs < 0) {
    return "--trials must be >= 0, --batch and --repeat >= 1, --workers >= 0";
  }
  return "";
}

// --dask: the same run through tessel.tune_cli's command line (Python holds the dask
// client). Returns only when it could not start Python.
int RunOnDask(int argc, char** argv) {
  namespace fs = std::filesystem;
  fs::path lib = runtime::DefaultRuntimeLibraryDir();
  std::string package;
  for (const fs::path& dir : {lib / "python3" / "dist-packages", lib / ".." / "python"}) {
    if (fs::exists(dir / "tessel" / "__init__.py")) package = dir.lexically_normal().string();
  }
  if (package.empty()) {
    return Fail(absl::NotFoundError(absl::StrCat(
        "--dask needs tessel's Python package (looked in ", lib.string(),
        "/python3/dist-packages and ", (lib / ".." / "python").lexically_normal().string(), ")")));
  }
  const char* old = std::getenv("PYTHONPATH");
  std::string path = old != nullptr && *old != '\0' ? absl::StrCat(package, ":", old) : package;
  setenv("PYTHONPATH", path.c_str(), 1);
  const char* python = std::getenv("TESSEL_PYTHON");
  std::string exe = python != nullptr && *python != '\0' ? python : "/usr/bin/python3";
  std::vector<std::string> args = {exe, "-m", "tessel.tune_cli"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    // Flags of the local measurer and the grid have no meaning there.
    if (a.starts_with("--workers=") || a.starts_with("--work-dir=") ||
        a.starts_with("--max-grid=")) {
      continue;
    }
    args.push_back(a);
  }
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  execv(exe.c_str(), cargs.data());
  return Fail(absl::InternalError(absl::StrCat("cannot run ", exe, ": ", std::strerror(errno))));
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).starts_with("--dask=")) return RunOnDask(argc, argv);
  }
  Flags f;
  if (std::string why = Parse(argc, argv, &f); !why.empty()) return Usage(why);
  absl::StatusOr<std::string> text = ir::ReadFileBounded(f.file, ir::kMaxSourceBytes);
  if (!text.ok()) return Fail(text.status());
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(*text, f.file);
  if (!mod.ok()) return Fail(mod.status());
  absl::StatusOr<std::vector<TuningTask>> tasks = ExtractTasks(*mod, f.target);
  if (!tasks.ok()) return Fail(tasks.status());
  if (tasks->empty()) {
    std::cout << "nothing to tune: every function is scheduled or dispatched\n";
    return 0;
  }
  if (f.space_size) return SpaceSizes(*tasks);
  if (f.model_quality) return ModelQualities(f);

  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(f.db, /*create=*/true);
  if (!db.ok()) return Fail(db.status());
  absl::StatusOr<std::shared_ptr<CostModel>> model = StartModel(f, **db);
  if (!model.ok()) return Fail(model.status());

  MeasureOptions measure;
  measure.work_dir = f.work_dir;
  measure.build_parallelism = static_cast<int>(f.jobs);
  measure.build_timeout_s = f.build_timeout;
  measure.run_timeout_s = f.run_timeout;
  measure.repeat = f.repeat;
  measure.min_repeat_ms = f.min_repeat_ms;
  measure.flush_cache = f.flush_cache;
  std::vector<std::unique_ptr<LocalMeasurer>> measurers;
  std::map<std::string, std::string> reference_by;
  MeasureFactory factory = [&](const TuningTask& task) -> absl::StatusOr<MeasureFn> {
    MeasureOptions o = measure;
    if (!o.work_dir.empty()) o.work_dir = absl::StrCat(o.work_dir, "/", task.name);
    absl::StatusOr<std::unique_ptr<LocalMeasurer>> m = LocalMeasurer::Create(task, o);
    if (!m.ok()) return m.status();
    reference_by[task.name] = (*m)->reference_by();
    LocalMeasurer* raw = m->get();
    measurers.push_back(*std::move(m));
    return MeasureFn([raw](const std::vector<ir::schedule::Trace>& t) { return raw->Measure(t); });
  };
  std::map<std::string, double> flops;  // Per task, for GFLOP/s.
  for (const TuningTask& task : *tasks) {
    absl::StatusOr<double> n =
        WorkloadFloatOperations(ir::MakeIRModule({{task.name, AsWorkload(task.func)}}), task.name);
    flops[task.name] = n.ok() ? *n : 0;
  }
  Progress progress;
  progress.total = f.trials;
  progress.start = absl::Now();
  TuneOptions options{.strategy = f.strategy,
                      .trials = f.trials,
                      .batch = static_cast<int>(f.batch),
                      .seed = static_cast<uint64_t>(f.seed),
                      .max_grid = f.max_grid,
                      .heuristic_start = f.heuristic_start,
                      .cost_model = f.cost_model,
                      .model = *model,
                      .progress = [&](const TuneProgress& p) { progress.Report(p, flops); }};
  absl::StatusOr<std::vector<TuneResult>> results =
      TuneTasks(*tasks, factory, db->get(), options,
                {.kind = f.scheduler, .total_trials = f.trials, .window = 3});
  if (!results.ok()) return Fail(results.status());
  std::cout << absl::StrFormat("%-28s %6s %7s %7s %8s  %-12s %8s  %s\n", "task", "weight", "trials",
                               "failed", "resumed", "best", "GFLOP/s", "checked by");
  for (size_t i = 0; i < tasks->size(); ++i) {
    const TuneResult& r = (*results)[i];
    const std::string& name = (*tasks)[i].name;
    std::string failures;
    for (const auto& [status, n] : r.failures) absl::StrAppend(&failures, ", ", n, " ", status);
    std::cout << absl::StrFormat(
        "%-28s %6d %7d %7d %8d  %-12s %8s  %s%s\n", name, (*tasks)[i].weight, r.trials, r.failed,
        r.resumed, Ms(r.best_seconds), Gflops(flops[name], r.best_seconds), reference_by[name],
        failures.empty() ? "" : absl::StrCat(" (", failures.substr(2), ")"));
  }
  return FinishModel(f, **db, **model);
}

}  // namespace
}  // namespace tessel::metaschedule

int main(int argc, char** argv) {
  tessel::codegen::InstallCpuFeatureResolver();
  return tessel::metaschedule::Main(argc, argv);
}
