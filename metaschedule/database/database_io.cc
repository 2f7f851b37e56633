// Merging, exporting and importing tuning records (see database_io.h).
#include "metaschedule/database/database_io.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "ir/parser.h"
#include "ir/status_macros.h"

namespace tessel::metaschedule {
namespace {

absl::StatusOr<ir::PrimFunc> ParseWorkload(const std::string& tsl, const std::string& what) {
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(tsl, what);
  if (!mod.ok()) return mod.status();
  if ((*mod)->functions.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": a workload is one function, not ", (*mod)->functions.size()));
  }
  return (*mod)->functions[0].second;
}

// Whether `workload` already has this record (same target, trace and creation time).
absl::StatusOr<bool> Present(Database& db, int64_t workload, const TuningRecord& r) {
  TESSEL_ASSIGN_OR_RETURN(SqliteStmt st,
                          db.sqlite().Prepare("SELECT count(*) FROM records WHERE workload = ? AND "
                                              "target = ? AND trace = ? AND created_at = ?"));
  TESSEL_RETURN_IF_ERROR(st.Bind(1, workload));
  TESSEL_RETURN_IF_ERROR(st.Bind(2, r.target));
  TESSEL_RETURN_IF_ERROR(st.Bind(3, CanonicalTrace(r.trace_json)));
  TESSEL_RETURN_IF_ERROR(st.Bind(4, r.created_at));
  TESSEL_ASSIGN_OR_RETURN(bool row, st.Step());
  const bool present = row && st.Int(0) > 0;
  TESSEL_RETURN_IF_ERROR(st.Reset());
  return present;
}

// The id of `func`'s workload in `into`, committed when new (counted).
absl::StatusOr<int64_t> Resolve(Database& into, const ir::PrimFunc& func, TransferCount* count) {
  TESSEL_ASSIGN_OR_RETURN(std::optional<int64_t> known, into.FindWorkload(func));
  if (known) return *known;
  ++count->workloads;
  return into.CommitWorkload(func);
}

// Adds `r` for workload `w` unless present.
absl::Status Add(Database& into, int64_t w, TuningRecord r, TransferCount* count) {
  TESSEL_ASSIGN_OR_RETURN(bool present, Present(into, w, r));
  if (present) {
    ++count->skipped;
    return absl::OkStatus();
  }
  TESSEL_RETURN_IF_ERROR(into.CommitRecord(w, std::move(r)).status());
  ++count->records;
  return absl::OkStatus();
}

nlohmann::json ToJson(const Workload& w, const TuningRecord& r) {
  nlohmann::json trace = nlohmann::json::parse(r.trace_json, nullptr, false);
  return {{"workload", {{"hash", w.hash}, {"tsl", w.tsl}}},
          {"target", r.target},
          {"trace", trace.is_discarded() ? nlohmann::json(r.trace_json) : trace},
          {"seconds", r.seconds},
          {"status", RunStatusName(r.status)},
          {"error", r.error},
          {"tessel_version", r.tessel_version},
          {"created_at", r.created_at}};
}

// The record of one JSON line (its workload's text in `tsl`); errors name the line.
absl::StatusOr<TuningRecord> FromJson(const nlohmann::json& j, std::string* tsl) {
  auto text = [&](const nlohmann::json& o, const char* key) -> absl::StatusOr<std::string> {
    if (!o.is_object() || !o.contains(key) || !o[key].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("'", key, "' is missing or not a string"));
    }
    return o[key].get<std::string>();
  };
  if (!j.is_object() || !j.contains("workload")) {
    return absl::InvalidArgumentError("not a record object with a 'workload'");
  }
  TuningRecord r;
  TESSEL_ASSIGN_OR_RETURN(r.workload_hash, text(j["workload"], "hash"));
  TESSEL_ASSIGN_OR_RETURN(*tsl, text(j["workload"], "tsl"));
  TESSEL_ASSIGN_OR_RETURN(r.target, text(j, "target"));
  if (!j.contains("trace") || !(j["trace"].is_object() || j["trace"].is_string())) {
    return absl::InvalidArgumentError("'trace' is missing");
  }
  r.trace_json = j["trace"].is_string() ? j["trace"].get<std::string>() : j["trace"].dump();
  if (!j.contains("seconds") || !j["seconds"].is_array()) {
    return absl::InvalidArgumentError("'seconds' is missing or not an array");
  }
  for (const nlohmann::json& s : j["seconds"]) {
    if (!s.is_number()) return absl::InvalidArgumentError("a time in 'seconds' is not a number");
    r.seconds.push_back(s.get<double>());
  }
  TESSEL_ASSIGN_OR_RETURN(std::string status, text(j, "status"));
  TESSEL_ASSIGN_OR_RETURN(r.status, ParseRunStatus(status));
  TESSEL_ASSIGN_OR_RETURN(r.error, text(j, "error"));
  TESSEL_ASSIGN_OR_RETURN(r.tessel_version, text(j, "tessel_version"));
  TESSEL_ASSIGN_OR_RETURN(r.created_at, text(j, "created_at"));
  return r;
}

}  // namespace

absl::StatusOr<TransferCount> MergeDatabase(Database& into, Database& from) {
  TransferCount count;
  TESSEL_ASSIGN_OR_RETURN(std::vector<Workload> workloads, from.Workloads());
  for (const Workload& w : workloads) {
    TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                            ParseWorkload(w.tsl, absl::StrCat(from.path(), " workload ", w.id)));
    // Each workload is looked up once, not once per record.
    TESSEL_ASSIGN_OR_RETURN(int64_t id, Resolve(into, func, &count));
    TESSEL_ASSIGN_OR_RETURN(std::vector<TuningRecord> records, from.Records(w.id));
    for (TuningRecord& r : records) TESSEL_RETURN_IF_ERROR(Add(into, id, std::move(r), &count));
  }
  return count;
}

absl::StatusOr<int64_t> ExportJsonLines(Database& db, const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    if (std::filesystem::equivalent(path, db.path() + suffix, ec)) {
      return absl::InvalidArgumentError(
          absl::StrCat("export: ", path, " is the database's own file; give another path"));
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  TESSEL_ASSIGN_OR_RETURN(std::vector<Workload> workloads, db.Workloads());
  int64_t n = 0;
  for (const Workload& w : workloads) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<TuningRecord> records, db.Records(w.id));
    for (const TuningRecord& r : records) {
      // Text that is not UTF-8 (a truncated compiler message) is written with U+FFFD.
      out << ToJson(w, r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      ++n;
    }
  }
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("writing ", path, " failed"));
  return n;
}

absl::StatusOr<TransferCount> ImportJsonLines(Database& db, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  TransferCount count;
  std::map<std::string, std::pair<std::string, int64_t>> workload_of_text;  // tsl -> (hash, id)
  std::string line;
  for (int64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto fail = [&](const absl::Status& s) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": ", s.message(), " (",
                                                     count.records,
                                                     " records before it were imported)"));
    };
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return fail(absl::InvalidArgumentError("not JSON"));
    std::string tsl;
    absl::StatusOr<TuningRecord> r = FromJson(j, &tsl);
    if (!r.ok()) return fail(r.status());
    // Lines of one workload share its text: parse, check and look it up once.
    auto known = workload_of_text.find(tsl);
    if (known == workload_of_text.end() || known->second.first != r->workload_hash) {
      absl::StatusOr<ir::PrimFunc> func = ParseWorkload(tsl, "its workload");
      if (!func.ok()) return fail(func.status());
      if (WorkloadHash(*func) != r->workload_hash) {
        return fail(absl::InvalidArgumentError(
            absl::StrCat("the workload's hash ", r->workload_hash, " is not that of its text (",
                         WorkloadHash(*func), "): written by another hash version?")));
      }
      absl::StatusOr<int64_t> id = Resolve(db, *func, &count);
      if (!id.ok()) return fail(id.status());
      known = workload_of_text.insert_or_assign(tsl, std::make_pair(r->workload_hash, *id)).first;
    }
    if (absl::Status s = Add(db, known->second.second, *std::move(r), &count); !s.ok()) {
      return fail(s);
    }
  }
  return count;
}

}  // namespace tessel::metaschedule
