// The local builder and runner (see local_measure.h): worker requests written to
// files, tessel-tune-worker processes started by RunProcesses, their results read
// back and turned into MeasureResults.
#include "metaschedule/measure/local_measure.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "codegen/runtime/export_library.h"
#include "ir/printer.h"
#include "ir/read_file.h"
#include "metaschedule/database/database.h"
#include "metaschedule/measure/subprocess.h"
#include "metaschedule/measure/worker_request.h"

namespace tessel::metaschedule {

namespace {

namespace fs = std::filesystem;

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

absl::Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// The worker's answer, or a result saying how the worker failed (`stage`:
// "build" or "run").
WorkerResult Outcome(const ProcessOutcome& p, const std::string& result_path,
                     const std::string& stage) {
  WorkerResult r;
  auto failed = [&](const std::string& status, const std::string& why) {
    r.status = status;
    r.error = absl::StrCat(stage, ": ", why);
    return r;
  };
  std::string fail_status = stage == "build" ? "build_error" : "run_error";
  if (p.kind == ProcessOutcome::Kind::kTimedOut) return failed("timeout", p.Describe());
  if (!p.ok()) {
    std::string log = p.output.empty() ? "" : absl::StrCat("; its last output:\n", p.output);
    return failed(fail_status, absl::StrCat("the worker ", p.Describe(), log));
  }
  absl::StatusOr<std::string> text = ir::ReadFileBounded(result_path, 1 << 24);
  if (!text.ok()) return failed(fail_status, "the worker wrote no result");
  absl::StatusOr<WorkerResult> parsed = WorkerResult::FromJson(*text);
  if (!parsed.ok()) return failed(fail_status, std::string(parsed.status().message()));
  if (parsed->status != "ok") parsed->error = absl::StrCat(stage, ": ", parsed->error);
  return *parsed;
}

MeasureResult ToMeasureResult(const WorkerResult& w) {
  MeasureResult m;
  absl::StatusOr<RunStatus> status = ParseRunStatus(w.status);
  m.status = status.ok() ? *status : RunStatus::kRunError;
  m.error = w.error;
  m.seconds = w.seconds;
  return m;
}

std::string FaultFor(const MeasureOptions& o, size_t index, const std::string& stage) {
  auto it = o.faults.find(index);
  if (it == o.faults.end() || !it->second.starts_with(stage + ":")) return "";
  return it->second.substr(stage.size() + 1);
}

}  // namespace

absl::StatusOr<std::string> TuneWorkerPath() {
  if (const char* env = std::getenv("TESSEL_TUNE_WORKER"); env != nullptr && *env != '\0') {
    if (!Executable(env)) {
      return absl::NotFoundError(
          absl::StrCat("TESSEL_TUNE_WORKER=", env, " is not an executable file"));
    }
    return std::string(env);
  }
  std::vector<std::string> tried = {
      (fs::path(runtime::DefaultRuntimeLibraryDir()) / ".." / "bin" / "tessel-tune-worker")
          .lexically_normal()
          .string()};
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) tried.push_back((self.parent_path() / "tessel-tune-worker").string());
  for (const std::string& path : tried) {
    if (Executable(path)) return path;
  }
  return absl::NotFoundError(absl::StrCat("no tessel-tune-worker (looked for ", tried[0],
                                          tried.size() > 1 ? " and " + tried[1] : "",
                                          "); set TESSEL_TUNE_WORKER"));
}

absl::StatusOr<std::unique_ptr<LocalMeasurer>> LocalMeasurer::Create(const TuningTask& task,
                                                                     MeasureOptions options) {
  std::unique_ptr<LocalMeasurer> m(new LocalMeasurer());
  if (options.worker.empty()) {
    absl::StatusOr<std::string> worker = TuneWorkerPath();
    if (!worker.ok()) return worker.status();
    options.worker = *worker;
  }
  if (options.build_parallelism <= 0) {
    options.build_parallelism = std::max(1u, std::thread::hardware_concurrency());
  }
  if (options.work_dir.empty()) {
    std::string pattern = (fs::temp_directory_path() / "tessel-tune-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError("cannot make a temporary directory for tuning");
    }
    m->work_dir_ = pattern;
    m->own_dir_ = !options.keep_files;
  } else {
    std::error_code ec;
    fs::create_directories(options.work_dir, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot make the work directory ", options.work_dir, ": ", ec.message()));
    }
    m->work_dir_ = options.work_dir;
  }
  m->task_ = task;
  m->options_ = options;
  m->workload_ = ir::PrintModule(ir::MakeIRModule({{task.name, AsWorkload(task.func)}}));
  m->reference_ = absl::StrCat(m->work_dir_, "/", "reference.bin");

  WorkerRequest req = m->Request("reference");
  req.target = task.target;
  req.reference = m->reference_;
  std::string req_path = absl::StrCat(m->work_dir_, "/reference.json");
  std::string res_path = absl::StrCat(m->work_dir_, "/reference-result.json");
  if (absl::Status s = WriteText(req_path, req.ToJson()); !s.ok()) return s;
  std::vector<ProcessOutcome> p = RunProcesses(
      {{options.worker, req_path, res_path}},
      {.parallelism = 1, .timeout_s = options.reference_timeout_s, .log_dir = m->work_dir_});
  WorkerResult r = Outcome(p[0], res_path, "reference");
  if (r.status != "ok") {
    return absl::FailedPreconditionError(
        absl::StrCat("tuning ", task.name,
                     ": cannot compute the reference to check candidates against: ", r.error));
  }
  m->reference_by_ = r.checked_by;
  return m;
}

WorkerRequest LocalMeasurer::Request(const std::string& kind) const {
  WorkerRequest r;
  r.kind = kind;
  r.workload = workload_;
  r.function = task_.name;
  r.seed = options_.seed;
  return r;
}

LocalMeasurer::~LocalMeasurer() {
  if (own_dir_) {
    std::error_code ec;
    fs::remove_all(work_dir_, ec);
  }
}

std::vector<MeasureResult> LocalMeasurer::Measure(const std::vector<ir::schedule::Trace>& traces) {
  const int64_t batch = batch_++;
  const size_t n = traces.size();
  std::vector<MeasureResult> results(n);
  auto file = [&](size_t i, const std::string& what) {
    return absl::StrCat(work_dir_, "/b", batch, "-c", i, what);
  };
  std::error_code ec;
  for (const char* logs : {"-build", "-run"}) {
    fs::create_directories(absl::StrCat(work_dir_, "/b", batch, logs), ec);
  }
  // Build: every candidate, `build_parallelism` at once.
  std::vector<std::vector<std::string>> commands;
  std::vector<size_t> built;  // Candidates with a build command, in command order.
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<std::string> trace = traces[i].ToJson();
    WorkerRequest req = Request("build");
    req.trace = trace.ok() ? *trace : "";
    req.target = task_.target;
    req.library = file(i, ".so");
    req.fault = FaultFor(options_, i, "build");
    absl::Status written =
        trace.ok() ? WriteText(file(i, "-build.json"), req.ToJson()) : trace.status();
    if (!written.ok()) {
      results[i] =
          MeasureResult::Failed(RunStatus::kBuildError, absl::StrCat("build: ", written.message()));
      continue;
    }
    commands.push_back({options_.worker, file(i, "-build.json"), file(i, "-build-result.json")});
    built.push_back(i);
  }
  std::vector<ProcessOutcome> outcomes =
      RunProcesses(commands, {.parallelism = options_.build_parallelism,
                              .timeout_s = options_.build_timeout_s,
                              .log_dir = absl::StrCat(work_dir_, "/b", batch, "-build")});
  // Run: each built candidate alone, so that timings do not disturb each other.
  std::vector<std::vector<std::string>> runs;
  std::vector<size_t> ran;
  for (size_t k = 0; k < built.size(); ++k) {
    size_t i = built[k];
    WorkerResult b = Outcome(outcomes[k], file(i, "-build-result.json"), "build");
    results[i] = ToMeasureResult(b);
    results[i].build_s = outcomes[k].seconds;
    if (b.status != "ok") continue;
    WorkerRequest req = Request("run");
    req.target = task_.target;
    req.library = file(i, ".so");
    req.reference = reference_;
    req.number = options_.number;
    req.repeat = options_.repeat;
    req.min_repeat_ms = options_.min_repeat_ms;
    req.flush_cache = options_.flush_cache;
    req.fault = FaultFor(options_, i, "run");
    if (absl::Status s = WriteText(file(i, "-run.json"), req.ToJson()); !s.ok()) {
      results[i] = MeasureResult::Failed(RunStatus::kRunError, absl::StrCat("run: ", s.message()));
      continue;
    }
    runs.push_back({options_.worker, file(i, "-run.json"), file(i, "-run-result.json")});
    ran.push_back(i);
  }
  std::vector<ProcessOutcome> run_outcomes =
      RunProcesses(runs, {.parallelism = 1,
                          .timeout_s = options_.run_timeout_s,
                          .log_dir = absl::StrCat(work_dir_, "/b", batch, "-run")});
  for (size_t k = 0; k < ran.size(); ++k) {
    size_t i = ran[k];
    double build_s = results[i].build_s;
    results[i] = ToMeasureResult(Outcome(run_outcomes[k], file(i, "-run-result.json"), "run"));
    results[i].build_s = build_s;
    results[i].run_s = run_outcomes[k].seconds;
    if (!options_.keep_files) {
      fs::remove(file(i, ".so"), ec);
      fs::remove(file(i, ".h"), ec);
    }
  }
  return results;
}

}  // namespace tessel::metaschedule
