// SQLite, wrapped (see sqlite.h).
#include "metaschedule/database/sqlite.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace tessel::metaschedule {
namespace {

absl::Status ToStatus(int rc, const std::string& where, absl::string_view what,
                      const char* message) {
  std::string text = absl::StrCat(where, ": ", what, ": ", message ? message : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(text);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
      return absl::DataLossError(text);
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return absl::PermissionDeniedError(text);
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
      return absl::InvalidArgumentError(text);
    default:
      return absl::InternalError(text);
  }
}

}  // namespace

SqliteStmt::SqliteStmt(SqliteStmt&& o) noexcept
    : db_(o.db_), stmt_(std::exchange(o.stmt_, nullptr)), where_(std::move(o.where_)) {}

SqliteStmt& SqliteStmt::operator=(SqliteStmt&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = std::exchange(o.stmt_, nullptr);
    where_ = std::move(o.where_);
  }
  return *this;
}

SqliteStmt::~SqliteStmt() { sqlite3_finalize(stmt_); }

absl::Status SqliteStmt::Error(int rc, absl::string_view what) const {
  return ToStatus(rc, where_, what, sqlite3_errmsg(db_));
}

absl::Status SqliteStmt::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  return rc == SQLITE_OK ? absl::OkStatus() : Error(rc, "binding a value");
}

absl::Status SqliteStmt::Bind(int index, double value) {
  int rc = sqlite3_bind_double(stmt_, index, value);
  return rc == SQLITE_OK ? absl::OkStatus() : Error(rc, "binding a value");
}

absl::Status SqliteStmt::Bind(int index, absl::string_view text) {
  int rc =
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return rc == SQLITE_OK ? absl::OkStatus() : Error(rc, "binding a value");
}

absl::Status SqliteStmt::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  return rc == SQLITE_OK ? absl::OkStatus() : Error(rc, "binding a value");
}

absl::StatusOr<bool> SqliteStmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt_);
    return false;
  }
  absl::Status s = Error(rc, "running a statement");
  sqlite3_reset(stmt_);
  return s;
}

absl::Status SqliteStmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  return absl::OkStatus();
}

int64_t SqliteStmt::Int(int column) const { return sqlite3_column_int64(stmt_, column); }
double SqliteStmt::Double(int column) const { return sqlite3_column_double(stmt_, column); }
bool SqliteStmt::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}
std::string SqliteStmt::Text(int column) const {
  const unsigned char* t = sqlite3_column_text(stmt_, column);
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}

absl::StatusOr<SqliteDb> SqliteDb::Open(const std::string& path, bool create) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status s = ToStatus(rc, path, "cannot open", db ? sqlite3_errmsg(db) : nullptr);
    sqlite3_close_v2(db);
    return s;
  }
  sqlite3_busy_timeout(db, 30000);
  sqlite3_extended_result_codes(db, 1);
  return SqliteDb(db, path);
}

SqliteDb::SqliteDb(SqliteDb&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept {
  if (this != &o) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

absl::Status SqliteDb::Exec(absl::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return absl::OkStatus();
  absl::Status s = ToStatus(rc, path_, absl::StrCat("running '", sql, "'"), message);
  sqlite3_free(message);
  return s;
}

absl::StatusOr<SqliteStmt> SqliteDb::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return ToStatus(rc, path_, absl::StrCat("preparing '", sql, "'"), sqlite3_errmsg(db_));
  }
  return SqliteStmt(db_, stmt, path_);
}

int64_t SqliteDb::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }

absl::StatusOr<std::unique_ptr<SqliteTransaction>> SqliteTransaction::Begin(SqliteDb* db) {
  if (absl::Status s = db->Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  return std::unique_ptr<SqliteTransaction>(new SqliteTransaction(db));
}

absl::Status SqliteTransaction::Commit() {
  absl::Status s = db_->Exec("COMMIT");
  if (s.ok()) done_ = true;
  return s;
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) (void)db_->Exec("ROLLBACK");
}

}  // namespace tessel::metaschedule
