// The tuning database (see database.h).
#include "metaschedule/database/database.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"

namespace tessel::metaschedule {
namespace {

constexpr const char* kFormat = "tessel-tuning-db";

constexpr const char* kSchema = R"sql(
CREATE TABLE tessel_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL,
  tsl TEXT NOT NULL
);
CREATE INDEX workloads_by_hash ON workloads (hash);
CREATE TABLE records (
  id INTEGER PRIMARY KEY,
  workload INTEGER NOT NULL REFERENCES workloads (id),
  target TEXT NOT NULL,
  trace TEXT NOT NULL,
  seconds TEXT NOT NULL,
  mean_seconds REAL,
  status TEXT NOT NULL,
  error TEXT NOT NULL,
  tessel_version TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX records_by_workload ON records (workload, target, mean_seconds);
)sql";

// Creates the tables in an empty file, or checks those of an existing one.
absl::Status CheckOrCreateSchema(SqliteDb& db) {
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt tables,
                          db.Prepare("SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::vector<std::string> names;
  for (;;) {
    TESSEL_ASSIGN_OR_RETURN(bool row, tables.Step());
    if (!row) break;
    names.push_back(tables.Text(0));
  }
  if (names.empty()) {
    TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SqliteTransaction> tx, SqliteTransaction::Begin(&db));
    // Another process may have created it between the query and the lock.
    TESSEL_ASSIGN_OR_RETURN(SqliteStmt again,
                            db.Prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'"));
    TESSEL_ASSIGN_OR_RETURN(bool row, again.Step());
    const bool empty = row && again.Int(0) == 0;
    TESSEL_RETURN_IF_ERROR(again.Reset());
    if (empty) {
      TESSEL_RETURN_IF_ERROR(db.Exec(kSchema));
      TESSEL_RETURN_IF_ERROR(
          db.Exec(absl::StrCat("INSERT INTO tessel_meta VALUES ('format', '", kFormat,
                               "'), ('version', '", kDatabaseFormatVersion, "')")));
    }
    return tx->Commit();
  }
  if (std::find(names.begin(), names.end(), "tessel_meta") == names.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat(db.path(), ": not a tessel tuning database (an SQLite file with tables ",
                     absl::StrJoin(names, ", "), ")"));
  }
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt meta, db.Prepare("SELECT key, value FROM tessel_meta"));
  std::string format, version;
  for (;;) {
    TESSEL_ASSIGN_OR_RETURN(bool row, meta.Step());
    if (!row) break;
    if (meta.Text(0) == "format") format = meta.Text(1);
    if (meta.Text(0) == "version") version = meta.Text(1);
  }
  if (format != kFormat) {
    return absl::FailedPreconditionError(
        absl::StrCat(db.path(), ": not a tessel tuning database (format '", format, "')"));
  }
  if (version != std::to_string(kDatabaseFormatVersion)) {
    return absl::FailedPreconditionError(
        absl::StrCat(db.path(), ": a tuning database of format version ", version,
                     "; this tessel reads version ", kDatabaseFormatVersion));
  }
  return absl::OkStatus();
}

absl::StatusOr<TuningRecord> RecordFromRow(const SqliteStmt& st) {
  TuningRecord r;
  r.id = st.Int(0);
  r.workload_hash = st.Text(1);
  r.target = st.Text(2);
  r.trace_json = st.Text(3);
  nlohmann::json seconds = nlohmann::json::parse(st.Text(4), nullptr, /*allow_exceptions=*/false);
  if (!seconds.is_array()) {
    return absl::DataLossError(absl::StrCat("record ", r.id, ": its times are not a JSON array"));
  }
  for (const nlohmann::json& s : seconds) {
    if (!s.is_number()) {
      return absl::DataLossError(absl::StrCat("record ", r.id, ": a time is not a number"));
    }
    r.seconds.push_back(s.get<double>());
  }
  TESSEL_ASSIGN_OR_RETURN(r.status, ParseRunStatus(st.Text(5)));
  r.error = st.Text(6);
  r.tessel_version = st.Text(7);
  r.created_at = st.Text(8);
  return r;
}

constexpr const char* kRecordColumns =
    "records.id, workloads.hash, records.target, records.trace, records.seconds, "
    "records.status, records.error, records.tessel_version, records.created_at";

}  // namespace

ir::PrimFunc AsWorkload(const ir::PrimFunc& func) {
  if (func->attrs.empty()) return func;
  auto n = ir::MakeNode<ir::PrimFuncNode>(*func);
  n->attrs.clear();
  return ir::PrimFunc(std::move(n));
}

std::string WorkloadHash(const ir::PrimFunc& func) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(ir::StructuralHash(AsWorkload(func))));
  return hex;
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path, bool create) {
  absl::StatusOr<SqliteDb> opened = SqliteDb::Open(path, create);
  if (!opened.ok()) {
    if (!create && absl::IsPermissionDenied(opened.status())) {
      return absl::NotFoundError(absl::StrCat(path, ": no such tuning database"));
    }
    return opened.status();
  }
  SqliteDb db = *std::move(opened);
  // Read before anything is written: a file that is not SQLite fails here, a
  // foreign or damaged one below, each left untouched.
  absl::StatusOr<SqliteStmt> check = db.Prepare("PRAGMA quick_check");
  absl::StatusOr<bool> row = check.ok() ? check->Step() : absl::StatusOr<bool>(check.status());
  if (!row.ok()) {
    return absl::Status(row.status().code(),
                        absl::StrCat(path, ": cannot be read as a tuning database (",
                                     absl::IsDataLoss(row.status()) ? "file is not a database"
                                                                    : row.status().message(),
                                     ")"));
  }
  if (*row && check->Text(0) != "ok") {
    return absl::DataLossError(absl::StrCat(path, ": the database is damaged: ", check->Text(0)));
  }
  TESSEL_RETURN_IF_ERROR(check->Reset());
  TESSEL_RETURN_IF_ERROR(CheckOrCreateSchema(db));
  TESSEL_RETURN_IF_ERROR(db.Exec("PRAGMA journal_mode = WAL"));
  TESSEL_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL"));
  TESSEL_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys = ON"));
  return std::unique_ptr<Database>(new Database(std::move(db)));
}

absl::StatusOr<std::optional<int64_t>> Database::FindWorkload(const ir::PrimFunc& func) {
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt st,
                          db_.Prepare("SELECT id, tsl FROM workloads WHERE hash = ?"));
  TESSEL_RETURN_IF_ERROR(st.Bind(1, WorkloadHash(func)));
  for (;;) {
    TESSEL_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) return std::optional<int64_t>();
    absl::StatusOr<ir::IRModule> stored = ir::ParseModule(st.Text(1), "the stored workload");
    if (!stored.ok() || (*stored)->functions.size() != 1) {
      return absl::DataLossError(absl::StrCat(path(), ": workload ", st.Int(0),
                                              " does not parse: ", stored.status().message()));
    }
    if (ir::StructuralEqual((*stored)->functions[0].second, AsWorkload(func))) {
      int64_t id = st.Int(0);
      (void)st.Reset();
      return std::optional<int64_t>(id);
    }
  }
}

absl::StatusOr<int64_t> Database::CommitWorkload(const ir::PrimFunc& func) {
  TESSEL_ASSIGN_OR_RETURN(std::optional<int64_t> found, FindWorkload(func));
  if (found) return *found;
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SqliteTransaction> tx, SqliteTransaction::Begin(&db_));
  // Another writer may have added it since.
  TESSEL_ASSIGN_OR_RETURN(found, FindWorkload(func));
  if (found) return *found;
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt ins,
                          db_.Prepare("INSERT INTO workloads (hash, tsl) VALUES (?, ?)"));
  TESSEL_RETURN_IF_ERROR(ins.Bind(1, WorkloadHash(func)));
  TESSEL_RETURN_IF_ERROR(ins.Bind(2, ir::PrintFunction(AsWorkload(func), "main")));
  TESSEL_RETURN_IF_ERROR(ins.Step().status());
  const int64_t id = db_.LastInsertId();
  TESSEL_RETURN_IF_ERROR(tx->Commit());
  return id;
}

absl::StatusOr<int64_t> Database::CommitRecord(int64_t workload, TuningRecord record) {
  if (record.created_at.empty()) record.created_at = NowRfc3339();
  if (record.status == RunStatus::kOk && record.seconds.empty()) {
    return absl::InvalidArgumentError("a successful record needs at least one measured time");
  }
  nlohmann::json seconds = nlohmann::json::array();
  for (double s : record.seconds) {
    if (!(s >= 0) || s == std::numeric_limits<double>::infinity()) {
      return absl::InvalidArgumentError(absl::StrCat("a measured time of ", s, " seconds"));
    }
    seconds.push_back(s);
  }
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SqliteTransaction> tx, SqliteTransaction::Begin(&db_));
  TESSEL_ASSIGN_OR_RETURN(
      SqliteStmt ins,
      db_.Prepare("INSERT INTO records (workload, target, trace, seconds, mean_seconds, status, "
                  "error, tessel_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  TESSEL_RETURN_IF_ERROR(ins.Bind(1, workload));
  TESSEL_RETURN_IF_ERROR(ins.Bind(2, record.target));
  TESSEL_RETURN_IF_ERROR(ins.Bind(3, CanonicalTrace(record.trace_json)));
  TESSEL_RETURN_IF_ERROR(ins.Bind(4, seconds.dump()));
  if (record.status == RunStatus::kOk) {
    TESSEL_RETURN_IF_ERROR(ins.Bind(5, record.MeanSeconds()));
  } else {
    TESSEL_RETURN_IF_ERROR(ins.BindNull(5));
  }
  TESSEL_RETURN_IF_ERROR(ins.Bind(6, std::string(RunStatusName(record.status))));
  TESSEL_RETURN_IF_ERROR(ins.Bind(7, record.error));
  TESSEL_RETURN_IF_ERROR(ins.Bind(8, record.tessel_version));
  TESSEL_RETURN_IF_ERROR(ins.Bind(9, record.created_at));
  absl::StatusOr<bool> done = ins.Step();
  if (!done.ok()) {
    if (absl::IsInvalidArgument(done.status())) {  // The foreign key: no such workload.
      return absl::InvalidArgumentError(
          absl::StrCat(path(), ": no workload ", workload, " for the record"));
    }
    return done.status();
  }
  const int64_t id = db_.LastInsertId();
  TESSEL_RETURN_IF_ERROR(tx->Commit());
  return id;
}

absl::StatusOr<std::vector<TuningRecord>> Database::Query(const std::string& where,
                                                          const std::vector<std::string>& text_args,
                                                          std::optional<int64_t> int_arg,
                                                          int limit) {
  std::string sql =
      absl::StrCat("SELECT ", kRecordColumns,
                   " FROM records JOIN workloads ON records.workload = workloads.id ", where);
  if (limit > 0) absl::StrAppend(&sql, " LIMIT ", limit);
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt st, db_.Prepare(sql));
  int index = 1;
  if (int_arg) TESSEL_RETURN_IF_ERROR(st.Bind(index++, *int_arg));
  for (const std::string& t : text_args) TESSEL_RETURN_IF_ERROR(st.Bind(index++, t));
  std::vector<TuningRecord> out;
  for (;;) {
    TESSEL_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    absl::StatusOr<TuningRecord> r = RecordFromRow(st);
    if (!r.ok()) return absl::DataLossError(absl::StrCat(path(), ": ", r.status().message()));
    out.push_back(*std::move(r));
  }
  return out;
}

absl::StatusOr<std::vector<TuningRecord>> Database::Best(const ir::PrimFunc& func,
                                                         const std::string& target, int k) {
  TESSEL_ASSIGN_OR_RETURN(std::optional<int64_t> w, FindWorkload(func));
  if (!w || k <= 0) return std::vector<TuningRecord>();
  return Query(
      "WHERE records.workload = ? AND records.target = ? AND records.status = 'ok' "
      "ORDER BY records.mean_seconds ASC, records.id ASC",
      {target}, *w, k);
}

absl::StatusOr<std::vector<TuningRecord>> Database::Records(std::optional<int64_t> workload) {
  if (workload) return Query("WHERE records.workload = ? ORDER BY records.id", {}, *workload, 0);
  return Query("ORDER BY records.id", {}, std::nullopt, 0);
}

absl::StatusOr<std::vector<Workload>> Database::Workloads() {
  TESSEL_ASSIGN_OR_RETURN(
      SqliteStmt st,
      db_.Prepare("SELECT workloads.id, hash, tsl, (SELECT count(*) FROM records WHERE "
                  "records.workload = workloads.id) FROM workloads ORDER BY workloads.id"));
  std::vector<Workload> out;
  for (;;) {
    TESSEL_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(Workload{st.Int(0), st.Text(1), st.Text(2), st.Int(3)});
  }
  return out;
}

absl::StatusOr<int64_t> Database::Size() {
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt st, db_.Prepare("SELECT count(*) FROM records"));
  TESSEL_ASSIGN_OR_RETURN(bool row, st.Step());
  const int64_t n = row ? st.Int(0) : 0;
  (void)st.Reset();
  return n;
}

}  // namespace tessel::metaschedule
