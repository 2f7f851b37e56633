// Cost models kept in the tuning database (Database::CommitModel, FindModel):
// the table `models`, made the first time a model is committed, so that files
// written before it existed stay readable and unchanged until then.
//
//   models (name TEXT, target TEXT, bytes TEXT, rows INTEGER, created_at TEXT,
//           PRIMARY KEY (name, target))
#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "metaschedule/database/database.h"

namespace tessel::metaschedule {

namespace {

constexpr const char* kModelsTable = R"sql(
CREATE TABLE IF NOT EXISTS models (
  name TEXT NOT NULL,
  target TEXT NOT NULL,
  bytes TEXT NOT NULL,
  rows INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (name, target)
);
)sql";

}  // namespace

absl::Status Database::CommitModel(const std::string& name, const std::string& target,
                                   const std::string& bytes, int64_t rows) {
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<SqliteTransaction> tx, SqliteTransaction::Begin(&db_));
  TESSEL_RETURN_IF_ERROR(db_.Exec(kModelsTable));
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt put,
                          db_.Prepare("INSERT OR REPLACE INTO models (name, target, bytes, rows, "
                                      "created_at) VALUES (?, ?, ?, ?, ?)"));
  TESSEL_RETURN_IF_ERROR(put.Bind(1, name));
  TESSEL_RETURN_IF_ERROR(put.Bind(2, target));
  TESSEL_RETURN_IF_ERROR(put.Bind(3, bytes));
  TESSEL_RETURN_IF_ERROR(put.Bind(4, rows));
  TESSEL_RETURN_IF_ERROR(put.Bind(5, NowRfc3339()));
  TESSEL_RETURN_IF_ERROR(put.Step().status());
  return tx->Commit();
}

absl::StatusOr<std::optional<std::string>> Database::FindModel(const std::string& name,
                                                               const std::string& target) {
  TESSEL_ASSIGN_OR_RETURN(
      SqliteStmt table,
      db_.Prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'models'"));
  TESSEL_ASSIGN_OR_RETURN(bool row, table.Step());
  const bool exists = row && table.Int(0) > 0;
  TESSEL_RETURN_IF_ERROR(table.Reset());
  if (!exists) return std::nullopt;
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt get,
                          db_.Prepare("SELECT bytes FROM models WHERE name = ? AND target = ?"));
  TESSEL_RETURN_IF_ERROR(get.Bind(1, name));
  TESSEL_RETURN_IF_ERROR(get.Bind(2, target));
  TESSEL_ASSIGN_OR_RETURN(bool found, get.Step());
  if (!found) return std::nullopt;
  std::string bytes = get.Text(0);
  TESSEL_RETURN_IF_ERROR(get.Reset());
  return bytes;
}

}  // namespace tessel::metaschedule
