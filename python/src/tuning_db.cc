// tessel.metaschedule.Database for Python: the tuning database (SQLite) with its
// records, best-k queries, merge and JSON lines.
//
//   >>> db = _core.TuningDatabase("tuning.db")
//   >>> w = db.commit_workload(func)
//   >>> db.commit_record(w, "llvm", trace_json, [1.1e-3, 1.0e-3])
//   >>> len(db), db.best(func, "llvm", 1)[0].mean_seconds
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "metaschedule/database/database.h"
#include "metaschedule/database/database_io.h"
#include "python/src/common.h"

namespace tessel::python {

namespace ms = metaschedule;

namespace {

ErrorKind KindOf(const absl::Status& s) {
  return absl::IsInvalidArgument(s) ? ErrorKind::kArgument : ErrorKind::kRuntime;
}

template <typename T>
T Get(absl::StatusOr<T> v) {
  if (!v.ok()) Throw(KindOf(v.status()), std::string(v.status().message()));
  return *std::move(v);
}

py::dict Counts(const ms::TransferCount& c) {
  py::dict d;
  d["records"] = c.records;
  d["skipped"] = c.skipped;
  d["workloads"] = c.workloads;
  return d;
}

}  // namespace

void BindTuningDatabase(py::module_& m) {
  py::class_<ms::TuningRecord>(m, "TuningRecord", "One measured candidate of a workload.")
      .def_readonly("id", &ms::TuningRecord::id, "Its id in the database (commit order).")
      .def_readonly("workload_hash", &ms::TuningRecord::workload_hash,
                    "The workload's structural hash, 16 hex digits.")
      .def_readonly("target", &ms::TuningRecord::target, "The target string it was measured for.")
      .def_readonly("trace", &ms::TuningRecord::trace_json, "The trace, as JSON text.")
      .def_readonly("seconds", &ms::TuningRecord::seconds, "Every measured time.")
      .def_property_readonly(
          "status", [](const ms::TuningRecord& r) { return ms::RunStatusName(r.status); },
          "'ok', 'build_error', 'run_error', 'timeout' or 'wrong_result'.")
      .def_readonly("error", &ms::TuningRecord::error, "Why it failed ('' when it did not).")
      .def_readonly("tessel_version", &ms::TuningRecord::tessel_version,
                    "The tessel that measured it.")
      .def_readonly("created_at", &ms::TuningRecord::created_at, "When it was committed (UTC).")
      .def_property_readonly("mean_seconds", &ms::TuningRecord::MeanSeconds,
                             "The mean of `seconds` (inf when there is none).")
      .def("__repr__", [](const ms::TuningRecord& r) {
        return "<TuningRecord " + std::to_string(r.id) + " " + r.target + " " +
               ms::RunStatusName(r.status) + ">";
      });
  py::class_<ms::Database>(m, "TuningDatabase", "A tuning database file (SQLite).")
      .def(py::init([](const std::string& path, bool create) {
             py::gil_scoped_release release;
             absl::StatusOr<std::unique_ptr<ms::Database>> db = ms::Database::Open(path, create);
             if (!db.ok()) {
               py::gil_scoped_acquire acquire;
               Throw(KindOf(db.status()), std::string(db.status().message()));
             }
             return *std::move(db);
           }),
           py::arg("path"), py::arg("create") = true,
           "Opens the database file `path`, creating it when `create` (else a missing "
           "file is an error).")
      .def_property_readonly("path", &ms::Database::path, "The file.")
      .def("__len__", [](ms::Database& db) { return Get(db.Size()); })
      .def(
          "commit_workload",
          [](ms::Database& db, const ir::PrimFunc& f) { return Get(db.CommitWorkload(f)); },
          py::arg("func"),
          "The id of the workload structurally equal to `func`, committing it when new.")
      .def(
          "commit_record",
          [](ms::Database& db, int64_t workload, const std::string& target,
             const std::string& trace, const std::vector<double>& seconds,
             const std::string& status, const std::string& error) {
            ms::TuningRecord r;
            r.target = target;
            r.trace_json = trace;
            r.seconds = seconds;
            r.status = Get(ms::ParseRunStatus(status));
            r.error = error;
            return Get(db.CommitRecord(workload, std::move(r)));
          },
          py::arg("workload"), py::arg("target"), py::arg("trace"), py::arg("seconds"),
          py::arg("status") = "ok", py::arg("error") = "",
          "Commits one record (its own transaction: durable once this returns); its id.")
      .def(
          "best",
          [](ms::Database& db, const ir::PrimFunc& f, const std::string& target, int k) {
            return Get(db.Best(f, target, k));
          },
          py::arg("func"), py::arg("target"), py::arg("k") = 1,
          "The k fastest successful records of `func`'s workload for exactly `target`.")
      .def(
          "records",
          [](ms::Database& db, std::optional<int64_t> workload) {
            return Get(db.Records(workload));
          },
          py::arg("workload") = py::none(),
          "Every record (of one workload id when given), in commit order.")
      .def(
          "workloads",
          [](ms::Database& db) {
            py::list out;
            for (const ms::Workload& w : Get(db.Workloads())) {
              py::dict d;
              d["id"] = w.id;
              d["hash"] = w.hash;
              d["tsl"] = w.tsl;
              d["records"] = w.records;
              out.append(d);
            }
            return out;
          },
          "The workloads: dicts of id, hash, tsl (the function's text) and records.")
      .def(
          "merge",
          [](ms::Database& db, const std::string& other) {
            std::unique_ptr<ms::Database> from = Get(ms::Database::Open(other, false));
            return Counts(Get(ms::MergeDatabase(db, *from)));
          },
          py::arg("other"),
          "Adds the records of the database file `other` (none twice); the counts.")
      .def(
          "export_json_lines",
          [](ms::Database& db, const std::string& path) {
            return Get(ms::ExportJsonLines(db, path));
          },
          py::arg("path"), "Writes every record as JSON lines; how many.")
      .def(
          "import_json_lines",
          [](ms::Database& db, const std::string& path) {
            return Counts(Get(ms::ImportJsonLines(db, path)));
          },
          py::arg("path"), "Adds the records of a JSON lines file (none twice); the counts.");
}

}  // namespace tessel::python
