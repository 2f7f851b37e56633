// The tuning loop of one task (see tune_task.h).
#include "metaschedule/search/tune_task.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "metaschedule/search/search_strategy.h"

namespace tessel::metaschedule {

namespace sch = ir::schedule;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The task's earlier records for its target, into `history`.
absl::StatusOr<int64_t> Resume(Database* db, int64_t workload, const std::string& target,
                               SearchHistory* history) {
  absl::StatusOr<std::vector<TuningRecord>> records = db->Records(workload);
  if (!records.ok()) return records.status();
  int64_t loaded = 0;
  for (const TuningRecord& r : *records) {
    if (r.target != target) continue;
    absl::StatusOr<sch::Trace> t = sch::Trace::FromJson(r.trace_json, "a stored trace");
    if (!t.ok()) continue;  // Written by another version: it cannot guide this search.
    history->Add(*t, r.status == RunStatus::kOk ? r.MeanSeconds() : kInf);
    ++loaded;
  }
  return loaded;
}

}  // namespace

struct TaskTuner::State {
  ir::IRModule mod;
  std::unique_ptr<DesignSpace> space;
  std::unique_ptr<SearchStrategy> strategy;
  SearchHistory history;
  std::string hash;
};

TaskTuner::~TaskTuner() = default;

absl::StatusOr<std::unique_ptr<TaskTuner>> TaskTuner::Create(const TuningTask& task, Database* db,
                                                             const TuneOptions& options) {
  if (options.trials < 0 || options.batch < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("tune: trials must be >= 0 and batch >= 1 (given ", options.trials, ", ",
                     options.batch, ")"));
  }
  std::unique_ptr<TaskTuner> t(new TaskTuner());
  t->task_ = task;
  t->options_ = options;
  t->db_ = db;
  t->state_ = std::make_unique<State>();
  State& st = *t->state_;
  ir::PrimFunc workload = AsWorkload(task.func);
  st.mod = ir::MakeIRModule({{task.name, workload}});
  st.hash = WorkloadHash(workload);
  absl::StatusOr<DesignSpace> space = DesignSpace::Create(st.mod, task.name, task.target);
  if (!space.ok()) return space.status();
  st.space = std::make_unique<DesignSpace>(*std::move(space));
  absl::StatusOr<std::unique_ptr<SearchStrategy>> strategy = MakeSearchStrategy(options.strategy);
  if (!strategy.ok()) return strategy.status();
  st.strategy = *std::move(strategy);
  absl::StatusOr<int64_t> id = db->CommitWorkload(workload);
  if (!id.ok()) return id.status();
  t->workload_id_ = *id;
  absl::StatusOr<int64_t> resumed = Resume(db, *id, task.target, &st.history);
  if (!resumed.ok()) return resumed.status();
  t->result_.resumed = *resumed;
  t->result_.best_seconds = kInf;
  for (const SearchHistory::Entry* e : st.history.Best(1)) {
    t->result_.best_seconds = e->seconds;
    t->result_.best = e->trace;
  }
  std::shared_ptr<CostModel> model = options.model;
  if (model == nullptr) {
    absl::StatusOr<std::unique_ptr<CostModel>> m = MakeCostModel(options.cost_model, options.seed);
    if (!m.ok()) return m.status();
    model = std::shared_ptr<CostModel>(*std::move(m));
  }
  SearchContext ctx{.mod = st.mod,
                    .func = task.name,
                    .space = st.space.get(),
                    .seed = options.seed,
                    .max_grid = options.max_grid,
                    .heuristic_start = options.heuristic_start,
                    .model = model};
  if (absl::Status s = st.strategy->Init(ctx); !s.ok()) return s;
  return t;
}

absl::StatusOr<bool> TaskTuner::Step(const MeasureFn& measure, int n) {
  if (done_) return false;
  State& st = *state_;
  absl::StatusOr<std::vector<sch::Trace>> proposed = st.strategy->Propose(st.history, n);
  if (!proposed.ok()) return proposed.status();
  if (proposed->empty()) {
    done_ = true;
    return false;
  }
  std::vector<MeasureResult> measured = measure(*proposed);
  measured.resize(proposed->size(),
                  MeasureResult::Failed(RunStatus::kRunError, "the measurer returned no result"));
  TuneResult& r = result_;
  for (size_t i = 0; i < proposed->size(); ++i) {
    const MeasureResult& m = measured[i];
    absl::StatusOr<std::string> json = (*proposed)[i].ToJson();
    if (!json.ok()) return json.status();
    TuningRecord record;
    record.workload_hash = st.hash;
    record.target = task_.target;
    record.trace_json = *json;
    if (m.status == RunStatus::kOk) record.seconds = m.seconds;
    record.status = m.status;
    record.error = m.error;
    if (absl::StatusOr<int64_t> id = db_->CommitRecord(workload_id_, record); !id.ok()) {
      return id.status();
    }
    double t = m.MeanSeconds();
    st.history.Add((*proposed)[i], t);
    ++r.trials;
    if (!std::isfinite(t)) {
      ++r.failed;
      ++r.failures[RunStatusName(m.status)];
    } else if (t < r.best_seconds) {
      r.best_seconds = t;
      r.best = (*proposed)[i];
    }
    r.curve.push_back(r.best_seconds);
  }
  st.strategy->Observe(*proposed, measured);
  if (options_.progress) {
    options_.progress({.task = task_.name,
                       .trials = r.trials,
                       .of = options_.trials,
                       .failed = r.failed,
                       .best_seconds = r.best_seconds});
  }
  return true;
}

absl::StatusOr<TuneResult> TuneTask(const TuningTask& task, const MeasureFn& measure, Database* db,
                                    const TuneOptions& options) {
  absl::StatusOr<std::unique_ptr<TaskTuner>> tuner = TaskTuner::Create(task, db, options);
  if (!tuner.ok()) return tuner.status();
  while ((*tuner)->result().trials < options.trials) {
    int n = static_cast<int>(
        std::min<int64_t>(options.batch, options.trials - (*tuner)->result().trials));
    absl::StatusOr<bool> more = (*tuner)->Step(measure, n);
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  return (*tuner)->result();
}

}  // namespace tessel::metaschedule
