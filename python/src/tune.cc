// Tuning from Python (tessel.metaschedule.tune): the task scheduler and search of
// metaschedule/search/ over tasks, measured by the local worker processes or by a
// Python measurer (the dask runner), with a Python progress callback.
//
//   >>> results = _core.tune_tasks(tasks, db, strategy="evolutionary", trials=64,
//   ...                            measure_factory=None, progress=print)
//   >>> results[0]["best_seconds"], results[0]["curve"]
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "ir/printer.h"
#include "metaschedule/cost_model/training_rows.h"
#include "metaschedule/database/database.h"
#include "metaschedule/measure/local_measure.h"
#include "metaschedule/search/search_strategy.h"
#include "metaschedule/search/task_scheduler.h"
#include "python/src/common.h"
#include "python/src/gil_object.h"

namespace tessel::python {

namespace ms = metaschedule;

namespace {

// A Python measurer: called with the candidates' traces as JSON, returns one
// dict per candidate ({"status", "seconds", "error"}). A failing or malformed
// answer makes every candidate of the batch a run error, never a crash.
ms::MeasureFn PythonMeasure(py::object measure) {
  std::shared_ptr<py::object> shared = HoldUnderGil(std::move(measure));
  return [shared](const std::vector<ir::schedule::Trace>& traces) {
    std::vector<ms::MeasureResult> out;
    py::gil_scoped_acquire acquire;
    try {
      py::list json;
      for (const ir::schedule::Trace& t : traces) {
        absl::StatusOr<std::string> j = t.ToJson();
        json.append(j.ok() ? *j : std::string());
      }
      py::list results = (*shared)(json);
      for (size_t i = 0; i < traces.size(); ++i) {
        if (i >= results.size()) {
          out.push_back(ms::MeasureResult::Failed(ms::RunStatus::kRunError,
                                                  "run: the measurer returned no result"));
          continue;
        }
        py::dict r = results[i].cast<py::dict>();
        ms::MeasureResult m;
        absl::StatusOr<ms::RunStatus> status =
            ms::ParseRunStatus(r.contains("status") ? r["status"].cast<std::string>() : "ok");
        m.status = status.ok() ? *status : ms::RunStatus::kRunError;
        if (r.contains("seconds")) m.seconds = r["seconds"].cast<std::vector<double>>();
        if (r.contains("error")) m.error = r["error"].cast<std::string>();
        if (m.status == ms::RunStatus::kOk && m.seconds.empty()) {
          m = ms::MeasureResult::Failed(ms::RunStatus::kRunError, "run: no time measured");
        }
        out.push_back(std::move(m));
      }
    } catch (const std::exception& e) {
      out.assign(traces.size(), ms::MeasureResult::Failed(
                                    ms::RunStatus::kRunError,
                                    std::string("run: the Python measurer raised: ") + e.what()));
    }
    return out;
  };
}

py::dict ResultDict(const ms::TuneResult& r) {
  py::dict d;
  d["trials"] = r.trials;
  d["failed"] = r.failed;
  d["failures"] = r.failures;
  d["resumed"] = r.resumed;
  d["best_seconds"] = r.best_seconds;
  d["curve"] = r.curve;
  if (r.best.has_value()) {
    absl::StatusOr<std::string> j = r.best->ToJson();
    d["best_trace"] = j.ok() ? py::cast(*j) : py::none();
  } else {
    d["best_trace"] = py::none();
  }
  return d;
}

}  // namespace

void BindTune(py::module_& m) {
  m.def(
      "workload_text",
      [](const ms::TuningTask& task) {
        return ir::PrintModule(ir::MakeIRModule({{task.name, ms::AsWorkload(task.func)}}));
      },
      py::arg("task"), "The task's function as the .tsl text a worker builds from.");
  m.def(
      "tune_worker_path", [] { return Unwrap(ms::TuneWorkerPath(), ErrorKind::kRuntime); },
      "The tessel-tune-worker executable the local runner starts.");
  m.def(
      "search_strategies", [] { return ms::SearchStrategyNames(); },
      "The registered search strategies.");
  m.def(
      "tune_tasks",
      [](const std::vector<ms::TuningTask>& tasks, ms::Database& db, const std::string& strategy,
         int64_t trials, int batch, uint64_t seed, const std::string& cost_model,
         const std::string& scheduler, int64_t max_grid, py::object measure_factory,
         py::object progress, int workers, int64_t repeat, double min_repeat_ms,
         double build_timeout, double run_timeout, const std::string& work_dir,
         const std::string& warm_start, bool flush_cache, bool heuristic_start) {
        ms::MeasureOptions measure;
        measure.work_dir = work_dir;
        measure.build_parallelism = workers;
        measure.build_timeout_s = build_timeout;
        measure.run_timeout_s = run_timeout;
        measure.repeat = repeat;
        measure.min_repeat_ms = min_repeat_ms;
        measure.flush_cache = flush_cache;
        std::vector<std::unique_ptr<ms::LocalMeasurer>> measurers;
        ms::MeasureFactory factory =
            [&](const ms::TuningTask& task) -> absl::StatusOr<ms::MeasureFn> {
          if (!measure_factory.is_none()) {
            py::gil_scoped_acquire acquire;
            try {
              return PythonMeasure(measure_factory(task));
            } catch (const std::exception& e) {
              return absl::InvalidArgumentError(std::string("the runner could not measure ") +
                                                task.name + ": " + e.what());
            }
          }
          ms::MeasureOptions o = measure;
          if (!o.work_dir.empty()) o.work_dir += "/" + task.name;
          absl::StatusOr<std::unique_ptr<ms::LocalMeasurer>> lm =
              ms::LocalMeasurer::Create(task, o);
          if (!lm.ok()) return lm.status();
          ms::LocalMeasurer* raw = lm->get();
          measurers.push_back(*std::move(lm));
          return ms::MeasureFn(
              [raw](const std::vector<ir::schedule::Trace>& t) { return raw->Measure(t); });
        };
        ms::TuneOptions options;
        options.strategy = strategy;
        options.trials = trials;
        options.batch = batch;
        options.seed = seed;
        options.max_grid = max_grid;
        options.heuristic_start = heuristic_start;
        options.cost_model = cost_model;
        if (!warm_start.empty()) {
          std::shared_ptr<ms::CostModel> model(
              Unwrap(ms::MakeCostModel(cost_model, seed), ErrorKind::kArgument));
          if (absl::Status s =
                  ms::WarmStart(*model, warm_start, tasks.empty() ? "" : tasks[0].target);
              !s.ok()) {
            Throw(ErrorKind::kArgument, std::string(s.message()));
          }
          options.model = model;
        }
        if (!progress.is_none()) {
          std::shared_ptr<py::object> cb = HoldUnderGil(progress);
          options.progress = [cb](const ms::TuneProgress& p) {
            py::gil_scoped_acquire acquire;
            try {
              (*cb)(p.task, p.trials, p.of, p.failed, p.best_seconds);
            } catch (const std::exception&) {
              // A broken progress display must not stop tuning.
            }
          };
        }
        ms::TaskSchedulerOptions sched;
        sched.kind = scheduler;
        sched.total_trials = trials;
        absl::StatusOr<std::vector<ms::TuneResult>> results;
        {
          py::gil_scoped_release release;
          results = ms::TuneTasks(tasks, factory, &db, options, sched);
        }
        if (!results.ok()) {
          Throw(absl::IsInvalidArgument(results.status()) || absl::IsNotFound(results.status())
                    ? ErrorKind::kArgument
                    : ErrorKind::kRuntime,
                std::string(results.status().message()));
        }
        py::list out;
        for (const ms::TuneResult& r : *results) out.append(ResultDict(r));
        return out;
      },
      py::arg("tasks"), py::arg("db"), py::arg("strategy"), py::arg("trials"), py::arg("batch"),
      py::arg("seed"), py::arg("cost_model"), py::arg("scheduler"), py::arg("max_grid"),
      py::arg("measure_factory"), py::arg("progress"), py::arg("workers"), py::arg("repeat"),
      py::arg("min_repeat_ms"), py::arg("build_timeout"), py::arg("run_timeout"),
      py::arg("work_dir"), py::arg("warm_start") = "", py::arg("flush_cache") = false,
      py::arg("heuristic_start") = true);
}

}  // namespace tessel::python
