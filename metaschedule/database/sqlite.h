// A thin layer over SQLite's C API for the tuning database: a connection and
// prepared statements as RAII objects whose every failure is an absl::Status that
// names the file and what was being done. Nothing else in tessel includes sqlite3.h.
//
//   absl::StatusOr<SqliteDb> db = SqliteDb::Open("tuning.db", /*create=*/true);
//   db->Exec("PRAGMA journal_mode=WAL");
//   absl::StatusOr<SqliteStmt> st = db->Prepare("SELECT id FROM workloads WHERE hash = ?");
//   st->Bind(1, "00ab...");
//   while (*st->Step()) int64_t id = st->Int(0);
#ifndef TESSEL_METASCHEDULE_DATABASE_SQLITE_H_
#define TESSEL_METASCHEDULE_DATABASE_SQLITE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tessel::metaschedule {

class SqliteStmt {
 public:
  SqliteStmt(SqliteStmt&&) noexcept;
  SqliteStmt& operator=(SqliteStmt&&) noexcept;
  ~SqliteStmt();

  // Parameters count from 1, as in SQL's `?`.
  absl::Status Bind(int index, int64_t value);
  absl::Status Bind(int index, double value);
  absl::Status Bind(int index, absl::string_view text);
  absl::Status BindNull(int index);
  // true: a row is ready; false: done. Resets itself once done, so it can run again.
  absl::StatusOr<bool> Step();
  absl::Status Reset();

  int64_t Int(int column) const;
  double Double(int column) const;
  std::string Text(int column) const;
  bool IsNull(int column) const;

 private:
  friend class SqliteDb;
  SqliteStmt(sqlite3* db, sqlite3_stmt* stmt, std::string where)
      : db_(db), stmt_(stmt), where_(std::move(where)) {}
  absl::Status Error(int rc, absl::string_view what) const;

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string where_;  // The file, for messages.
};

class SqliteDb {
 public:
  // Opens `path` read-write (creating it when `create`); waits up to 30 s for a
  // lock another writer holds.
  static absl::StatusOr<SqliteDb> Open(const std::string& path, bool create);
  SqliteDb(SqliteDb&&) noexcept;
  SqliteDb& operator=(SqliteDb&&) noexcept;
  ~SqliteDb();

  absl::Status Exec(absl::string_view sql);
  absl::StatusOr<SqliteStmt> Prepare(absl::string_view sql);
  int64_t LastInsertId() const;
  const std::string& path() const { return path_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
};

// BEGIN IMMEDIATE ... COMMIT around a scope; rolled back unless Commit() ran.
class SqliteTransaction {
 public:
  static absl::StatusOr<std::unique_ptr<SqliteTransaction>> Begin(SqliteDb* db);
  absl::Status Commit();
  ~SqliteTransaction();

 private:
  explicit SqliteTransaction(SqliteDb* db) : db_(db) {}
  SqliteDb* db_;
  bool done_ = false;
};

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_DATABASE_SQLITE_H_
