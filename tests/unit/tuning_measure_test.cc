// Measuring candidates in worker processes: a good candidate is checked and
// timed; one that crashes, hangs, computes a wrong result or does not replay is
// a result with its reason, and the measurer goes on with the next. The tune
// loop commits every result to the database and resumes from it.
#include <gtest/gtest.h>

#include <cmath>

#include "absl/strings/match.h"
#include "ir/te/workloads.h"
#include "metaschedule/database/database.h"
#include "metaschedule/design_space.h"
#include "metaschedule/measure/local_measure.h"
#include "metaschedule/measure/worker_request.h"
#include "metaschedule/search/tune_task.h"
#include "metaschedule/tasks.h"

namespace tessel::metaschedule {
namespace {

namespace sch = ir::schedule;

TuningTask Task(const std::string& workload) {
  absl::StatusOr<ir::IRModule> mod = ir::te::BuildWorkload(workload);
  EXPECT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::vector<TuningTask>> tasks = ExtractTasks(*mod, "llvm");
  EXPECT_TRUE(tasks.ok() && tasks->size() == 1u);
  return (*tasks)[0];
}

sch::Trace Heuristic(const TuningTask& task) {
  absl::StatusOr<DesignSpace> space =
      DesignSpace::Create(ir::MakeIRModule({{task.name, task.func}}), task.name, task.target);
  EXPECT_TRUE(space.ok()) << space.status();
  absl::StatusOr<RuleSchedule> h = space->Heuristic();
  EXPECT_TRUE(h.ok()) << h.status();
  return h->schedule.trace();
}

MeasureOptions Quick() {
  MeasureOptions o;
  o.build_parallelism = 2;
  o.build_timeout_s = 60;
  o.run_timeout_s = 30;
  o.repeat = 2;
  o.min_repeat_ms = 1;
  return o;
}

TEST(WorkerRequest, RoundTripsAndRefusesUnknownKinds) {
  WorkerRequest r;
  r.kind = "run";
  r.workload = "func @f() {}";
  r.function = "f";
  r.seed = 9;
  r.repeat = 5;
  r.fault = "wrong";
  absl::StatusOr<WorkerRequest> back = WorkerRequest::FromJson(r.ToJson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->workload, r.workload);
  EXPECT_EQ(back->seed, 9u);
  EXPECT_EQ(back->repeat, 5);
  EXPECT_EQ(back->fault, "wrong");
  EXPECT_FALSE(WorkerRequest::FromJson(R"({"kind": "format-disk"})").ok());
  EXPECT_FALSE(WorkerRequest::FromJson("not json").ok());
  EXPECT_FALSE(WorkerRequest::FromJson(R"({"kind": "run", "seed": "x"})").ok());
}

TEST(LocalMeasurer, EveryFailureIsAResultWithItsReason) {
  TuningTask task = Task("matmul_17x31x23_f32");
  MeasureOptions options = Quick();
  options.build_timeout_s = 10;
  options.run_timeout_s = 4;
  options.faults = {
      {1, "build:crash"}, {2, "build:hang"}, {3, "run:crash"}, {4, "run:hang"}, {5, "run:wrong"}};
  absl::StatusOr<std::unique_ptr<LocalMeasurer>> m = LocalMeasurer::Create(task, options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->reference_by(), "interpreter");
  sch::Trace good = Heuristic(task);
  sch::Trace foreign = Heuristic(Task("softmax_16x33"));  // Names blocks mm lacks.
  std::vector<MeasureResult> r = (*m)->Measure({good, good, good, good, good, good, foreign});
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0].status, RunStatus::kOk) << r[0].error;
  EXPECT_EQ(r[0].seconds.size(), 2u);
  EXPECT_TRUE(std::isfinite(r[0].MeanSeconds()));
  EXPECT_EQ(r[1].status, RunStatus::kBuildError);
  EXPECT_TRUE(absl::StrContains(r[1].error, "build: the worker killed by signal 11")) << r[1].error;
  EXPECT_EQ(r[2].status, RunStatus::kTimeout);
  EXPECT_TRUE(absl::StrContains(r[2].error, "build: timed out")) << r[2].error;
  EXPECT_EQ(r[3].status, RunStatus::kRunError);
  EXPECT_TRUE(absl::StrContains(r[3].error, "run: the worker killed by signal 11")) << r[3].error;
  EXPECT_EQ(r[4].status, RunStatus::kTimeout);
  EXPECT_TRUE(absl::StrContains(r[4].error, "run: timed out")) << r[4].error;
  EXPECT_EQ(r[5].status, RunStatus::kWrongResult);
  EXPECT_TRUE(absl::StrContains(r[5].error, "run: ")) << r[5].error;
  EXPECT_TRUE(r[5].seconds.empty());
  EXPECT_EQ(r[6].status, RunStatus::kBuildError);
  EXPECT_TRUE(absl::StrContains(r[6].error, "replaying")) << r[6].error;
  // The measurer goes on: the next batch measures again.
  std::vector<MeasureResult> again = (*m)->Measure({good});
  EXPECT_EQ(again[0].status, RunStatus::kOk) << again[0].error;
}

TEST(LocalMeasurer, LargeFunctionsAreCheckedAgainstUnscheduledCode) {
  TuningTask task = Task("matmul_64x64x64_f32");
  MeasureOptions options = Quick();
  absl::StatusOr<std::unique_ptr<LocalMeasurer>> m = LocalMeasurer::Create(task, options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE((*m)->reference_by().empty());
}

TEST(LocalMeasurer, AMissingWorkerIsAClearError) {
  MeasureOptions options = Quick();
  options.worker = "/nonexistent/tessel-tune-worker";
  absl::StatusOr<std::unique_ptr<LocalMeasurer>> m =
      LocalMeasurer::Create(Task("softmax_16x33"), options);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "cannot compute the reference"))
      << m.status();
  EXPECT_TRUE(absl::StrContains(m.status().message(), "/nonexistent/tessel-tune-worker"))
      << m.status();
}

std::string TempDb(const std::string& name) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return path;
}

TEST(TuneTask, CommitsEveryTrialAndResumesWithoutRepeating) {
  TuningTask task = Task("softmax_16x33");
  absl::StatusOr<std::unique_ptr<LocalMeasurer>> m = LocalMeasurer::Create(task, Quick());
  ASSERT_TRUE(m.ok()) << m.status();
  MeasureFn measure = [&](const std::vector<sch::Trace>& t) { return (*m)->Measure(t); };
  std::string path = TempDb("tune_resume.db");
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  int progress_calls = 0;
  TuneOptions options;
  options.strategy = "random";
  options.trials = 6;
  options.batch = 3;
  options.seed = 4;
  options.progress = [&](const TuneProgress&) { ++progress_calls; };
  absl::StatusOr<TuneResult> first = TuneTask(task, measure, db->get(), options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->trials, 6);
  EXPECT_EQ(first->failed, 0);
  EXPECT_EQ(progress_calls, 2);
  EXPECT_EQ(first->curve.size(), 6u);
  EXPECT_TRUE(std::isfinite(first->best_seconds));
  EXPECT_EQ(*(*db)->Size(), 6);
  // Again, same seed: the six are loaded, and six new ones measured.
  absl::StatusOr<TuneResult> second = TuneTask(task, measure, db->get(), options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->resumed, 6);
  EXPECT_EQ(second->trials, 6);
  EXPECT_LE(second->best_seconds, first->best_seconds);
  absl::StatusOr<std::vector<TuningRecord>> all = (*db)->Records();
  ASSERT_TRUE(all.ok());
  std::set<std::string> traces;
  for (const TuningRecord& r : *all) traces.insert(CanonicalTrace(r.trace_json));
  EXPECT_EQ(traces.size(), 12u);
}

}  // namespace
}  // namespace tessel::metaschedule
