// Round-robin and gradient task scheduling (see task_scheduler.h).
#include "metaschedule/search/task_scheduler.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace tessel::metaschedule {

namespace {

// The gradient score of a task that has had batches of `batch` trials.
double Score(const TaskTuner& t, int batch, int window) {
  const std::vector<double>& curve = t.result().curve;
  size_t now = curve.size();
  size_t back = static_cast<size_t>(window) * static_cast<size_t>(batch);
  double best = t.result().best_seconds;
  if (!std::isfinite(best)) return 1e300;  // Nothing works yet: keep trying it.
  double before = now > back ? curve[now - back - 1] : curve.front();
  double improvement = std::isfinite(before) ? (before - best) / before : 1.0;
  return static_cast<double>(t.task().weight) * best * (std::max(0.0, improvement) + 0.02);
}

}  // namespace

absl::StatusOr<std::vector<TuneResult>> TuneTasks(const std::vector<TuningTask>& tasks,
                                                  const MeasureFactory& measure_for, Database* db,
                                                  const TuneOptions& options,
                                                  const TaskSchedulerOptions& scheduler) {
  if (scheduler.kind != "gradient" && scheduler.kind != "round-robin") {
    return absl::InvalidArgumentError(absl::StrCat("no task scheduler \"", scheduler.kind,
                                                   "\" (there are: gradient, round-robin)"));
  }
  std::vector<std::unique_ptr<TaskTuner>> tuners;
  std::vector<MeasureFn> measures;
  for (const TuningTask& task : tasks) {
    absl::StatusOr<std::unique_ptr<TaskTuner>> t = TaskTuner::Create(task, db, options);
    if (!t.ok()) return t.status();
    absl::StatusOr<MeasureFn> m = measure_for(task);
    if (!m.ok()) return m.status();
    tuners.push_back(*std::move(t));
    measures.push_back(*std::move(m));
  }
  int64_t spent = 0;
  size_t turn = 0;
  while (spent < scheduler.total_trials) {
    // The next task: in turn, or by score once each has had a batch.
    int pick = -1;
    double best_score = -1;
    for (size_t k = 0; k < tuners.size(); ++k) {
      size_t i = (turn + k) % tuners.size();
      if (tuners[i]->done()) continue;
      if (scheduler.kind == "round-robin" || tuners[i]->result().curve.empty()) {
        pick = static_cast<int>(i);
        break;
      }
      double s = Score(*tuners[i], options.batch, scheduler.window);
      if (s > best_score) best_score = s, pick = static_cast<int>(i);
    }
    if (pick < 0) break;  // Every task is done.
    turn = static_cast<size_t>(pick) + 1;
    int n = static_cast<int>(std::min<int64_t>(options.batch, scheduler.total_trials - spent));
    int64_t before = tuners[pick]->result().trials;
    absl::StatusOr<bool> more = tuners[pick]->Step(measures[pick], n);
    if (!more.ok()) return more.status();
    spent += tuners[pick]->result().trials - before;
  }
  std::vector<TuneResult> results;
  for (const auto& t : tuners) results.push_back(t->result());
  return results;
}

}  // namespace tessel::metaschedule
