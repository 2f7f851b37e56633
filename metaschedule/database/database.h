// The tuning database: an SQLite file (WAL mode) of workloads and measured
// records, written by tuners and read by `apply-best`.
//
//   absl::StatusOr<std::unique_ptr<Database>> db = Database::Open("tuning.db");
//   int64_t w = *(*db)->CommitWorkload(matmul);               // found again by structure
//   (*db)->CommitRecord(w, {.target = "llvm", .trace_json = ..., .seconds = {1.1e-3}});
//   std::vector<TuningRecord> best = *(*db)->Best(matmul, "llvm", 1);
//
// - A workload is a function without its attributes (a global_symbol, `scheduled`
//   and the like name or mark it; they do not change what it computes): its
//   structural hash (ir/structural_hash.h, version 1) and its `.tsl` text, so a
//   record replays without the model it came from. A function is found by hash,
//   then by structural equality with the stored text, never by the hash alone.
// - Each record is committed in a transaction of its own with synchronous=FULL:
//   once CommitRecord returns, a `kill -9` of the process loses nothing. Several
//   processes may write one file at once (SQLite's locks; a writer waits up to
//   30 s for another).
// - Records are keyed by target string exactly: a record for "llvm -mcpu=znver4"
//   never serves "llvm -mcpu=skylake".
// - A file that is not SQLite, a damaged one, an SQLite file of something else,
//   or one of another format version is refused with an error naming it, and is
//   left as it was (nothing is written before the file is known to be ours).
// - Traces are stored in one canonical JSON form (CanonicalTrace), so a record
//   exported and imported back is recognised as the same.
#ifndef TESSEL_METASCHEDULE_DATABASE_DATABASE_H_
#define TESSEL_METASCHEDULE_DATABASE_DATABASE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "metaschedule/database/record.h"
#include "metaschedule/database/sqlite.h"

namespace tessel::metaschedule {

// The format this build reads and writes (kept in the file's tessel_meta table).
inline constexpr int kDatabaseFormatVersion = 1;

struct Workload {
  int64_t id = 0;
  std::string hash;  // 16 hex digits.
  std::string tsl;   // The function, printed as a module of one function.
  int64_t records = 0;
};

class Database {
 public:
  // Opens `path`; with `create`, makes it (and its tables) when it does not exist,
  // otherwise a missing file is an error (a mistyped path never reads as an empty
  // database).
  static absl::StatusOr<std::unique_ptr<Database>> Open(const std::string& path,
                                                        bool create = true);

  // The id of the workload structurally equal to `func`, committing it when new.
  absl::StatusOr<int64_t> CommitWorkload(const ir::PrimFunc& func);
  // The id of the stored workload structurally equal to `func`, or nullopt.
  absl::StatusOr<std::optional<int64_t>> FindWorkload(const ir::PrimFunc& func);
  // Commits `record` for workload `workload` in its own transaction; its id.
  absl::StatusOr<int64_t> CommitRecord(int64_t workload, TuningRecord record);

  // The `k` fastest successful records for the workload equal to `func` and
  // exactly `target`, fastest first; empty when there is none.
  absl::StatusOr<std::vector<TuningRecord>> Best(const ir::PrimFunc& func,
                                                 const std::string& target, int k);
  // Every record (of one workload when `workload` is set), in commit order.
  absl::StatusOr<std::vector<TuningRecord>> Records(std::optional<int64_t> workload = {});
  absl::StatusOr<std::vector<Workload>> Workloads();
  // Committed records.
  absl::StatusOr<int64_t> Size();

  // A trained cost model kept with the records (database_models.cc): its bytes
  // under (name, target), replacing the one before; `rows` it was trained on.
  absl::Status CommitModel(const std::string& name, const std::string& target,
                           const std::string& bytes, int64_t rows);
  // The model kept under (name, target), or nullopt.
  absl::StatusOr<std::optional<std::string>> FindModel(const std::string& name,
                                                       const std::string& target);

  const std::string& path() const { return db_.path(); }
  SqliteDb& sqlite() { return db_; }

 private:
  explicit Database(SqliteDb db) : db_(std::move(db)) {}
  absl::StatusOr<std::vector<TuningRecord>> Query(const std::string& where,
                                                  const std::vector<std::string>& text_args,
                                                  std::optional<int64_t> int_arg, int limit);
  SqliteDb db_;
};

// `func` as a workload: its attributes dropped.
ir::PrimFunc AsWorkload(const ir::PrimFunc& func);
// The database's key of `func`: StructuralHash of AsWorkload(func), 16 hex digits.
std::string WorkloadHash(const ir::PrimFunc& func);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_DATABASE_DATABASE_H_
