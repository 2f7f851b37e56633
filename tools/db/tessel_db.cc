// tessel-db: what is in a tuning database, and moving records between them.
//
//   tessel-db list tuning.db                 workloads, records per target, best times
//   tessel-db records tuning.db              one line per record
//   tessel-db merge into.db from.db...       adds the records of each (none twice)
//   tessel-db export tuning.db out.jsonl     JSON lines, one record each
//   tessel-db import tuning.db in.jsonl      adds them back (none twice)
//
// Exit status 0, or 1 with the error on stderr (a file that is not a tuning
// database, a malformed line with its number, ...); 2 for a wrong command line.
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "metaschedule/database/database.h"
#include "metaschedule/database/database_io.h"

namespace tessel::metaschedule {
namespace {

constexpr const char* kUsage =
    "usage: tessel-db list DB | records DB | merge INTO FROM... | export DB OUT.jsonl | "
    "import DB IN.jsonl\n";

int Fail(const absl::Status& s) {
  std::cerr << "tessel-db: " << s.message() << "\n";
  return 1;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

int List(Database& db) {
  absl::StatusOr<std::vector<Workload>> workloads = db.Workloads();
  if (!workloads.ok()) return Fail(workloads.status());
  for (const Workload& w : *workloads) {
    std::cout << w.hash << "  " << FirstLine(w.tsl) << "\n";
    absl::StatusOr<std::vector<TuningRecord>> records = db.Records(w.id);
    if (!records.ok()) return Fail(records.status());
    struct PerTarget {
      int64_t ok = 0, failed = 0;
      double best = 0;
    };
    std::map<std::string, PerTarget> targets;
    for (const TuningRecord& r : *records) {
      PerTarget& t = targets[r.target];
      if (r.status != RunStatus::kOk) {
        ++t.failed;
        continue;
      }
      if (t.ok++ == 0 || r.MeanSeconds() < t.best) t.best = r.MeanSeconds();
    }
    for (const auto& [target, t] : targets) {
      std::cout << absl::StrFormat("    %-32s %5d ok %5d failed", "\"" + target + "\"", t.ok,
                                   t.failed);
      if (t.ok) std::cout << absl::StrFormat("   best %.3f ms", t.best * 1e3);
      std::cout << "\n";
    }
  }
  absl::StatusOr<int64_t> n = db.Size();
  if (!n.ok()) return Fail(n.status());
  std::cout << workloads->size() << " workloads, " << *n << " records\n";
  return 0;
}

int Records(Database& db) {
  absl::StatusOr<std::vector<TuningRecord>> records = db.Records();
  if (!records.ok()) return Fail(records.status());
  for (const TuningRecord& r : *records) {
    std::cout << absl::StrFormat("%6d %s %-24s %-12s", r.id, r.workload_hash,
                                 "\"" + r.target + "\"", RunStatusName(r.status));
    if (r.status == RunStatus::kOk) {
      std::cout << absl::StrFormat(" %.4f ms (%d run%s)", r.MeanSeconds() * 1e3, r.seconds.size(),
                                   r.seconds.size() == 1 ? "" : "s");
    } else {
      std::cout << " " << FirstLine(r.error);
    }
    std::cout << "  " << r.created_at << "\n";
  }
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string& cmd = args[0];
  const bool two = cmd == "export" || cmd == "import";
  if ((cmd == "list" || cmd == "records") ? args.size() != 2
      : two                               ? args.size() != 3
      : cmd == "merge"                    ? args.size() < 3
                                          : true) {
    std::cerr << kUsage;
    return 2;
  }
  // Only import and merge write: they may create their database; the others read one.
  const bool writes = cmd == "import" || cmd == "merge";
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(args[1], writes);
  if (!db.ok()) return Fail(db.status());
  if (cmd == "list") return List(**db);
  if (cmd == "records") return Records(**db);
  if (cmd == "export") {
    absl::StatusOr<int64_t> n = ExportJsonLines(**db, args[2]);
    if (!n.ok()) return Fail(n.status());
    std::cout << "exported " << *n << " records to " << args[2] << "\n";
    return 0;
  }
  TransferCount total;
  for (size_t i = 2; i < args.size(); ++i) {
    absl::StatusOr<TransferCount> c;
    if (cmd == "import") {
      c = ImportJsonLines(**db, args[i]);
    } else {
      absl::StatusOr<std::unique_ptr<Database>> from = Database::Open(args[i], /*create=*/false);
      if (!from.ok()) return Fail(from.status());
      c = MergeDatabase(**db, **from);
    }
    if (!c.ok()) return Fail(c.status());
    total.records += c->records;
    total.skipped += c->skipped;
    total.workloads += c->workloads;
  }
  std::cout << "added " << total.records << " records (" << total.skipped
            << " already present) and " << total.workloads << " workloads\n";
  return 0;
}

}  // namespace
}  // namespace tessel::metaschedule

int main(int argc, char** argv) {
  try {
    return tessel::metaschedule::Main(argc, argv);
  } catch (const std::exception& e) {  // Never reached by design; no input may end in terminate.
    std::cerr << "tessel-db: " << e.what() << "\n";
    return 1;
  }
}
