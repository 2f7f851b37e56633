// Moving records between tuning databases: merging one into another, and JSON
// lines out and in (one record per line, with its workload's hash and `.tsl`, so
// a line stands alone). What `tessel-db merge | export | import` run.
//
//   {"workload": {"hash": "9c0e...", "tsl": "func @main(...) {...}"}, "target": "llvm",
//    "trace": {"format": "tessel-trace", ...}, "seconds": [0.0011, 0.00108],
//    "status": "ok", "error": "", "tessel_version": "0.4.0",
//    "created_at": "2026-11-26T06:10:00.000000Z"}
//
// A record already present (same workload, target, trace and creation time) is not
// added twice, so merging or importing again changes nothing.
#ifndef TESSEL_METASCHEDULE_DATABASE_DATABASE_IO_H_
#define TESSEL_METASCHEDULE_DATABASE_DATABASE_IO_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "metaschedule/database/database.h"

namespace tessel::metaschedule {

struct TransferCount {
  int64_t records = 0;    // Added.
  int64_t skipped = 0;    // Already present.
  int64_t workloads = 0;  // New workloads added.
};

// Adds every record of `from` to `into`.
absl::StatusOr<TransferCount> MergeDatabase(Database& into, Database& from);
// Writes every record of `db` to `path` as JSON lines.
absl::StatusOr<int64_t> ExportJsonLines(Database& db, const std::string& path);
// Adds the records of a JSON lines file; a malformed line fails the import
// with its line number, after the lines before it were committed.
absl::StatusOr<TransferCount> ImportJsonLines(Database& db, const std::string& path);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_DATABASE_DATABASE_IO_H_
