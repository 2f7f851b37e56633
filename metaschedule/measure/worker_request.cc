// Worker requests and results as JSON (see worker_request.h), through nlohmann::json.
#include "metaschedule/measure/worker_request.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace tessel::metaschedule {

namespace {

using nlohmann::json;

// Reads `key` into `*out` when present; a value of the wrong type is an error.
template <typename T>
absl::Status Read(const json& j, const char* key, T* out) {
  auto it = j.find(key);
  if (it == j.end()) return absl::OkStatus();
  try {
    *out = it->get<T>();
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("worker message: \"", key, "\": ", e.what()));
  }
  return absl::OkStatus();
}

absl::StatusOr<json> ParseObject(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("worker message: not a JSON object");
  }
  return j;
}

}  // namespace

std::string WorkerRequest::ToJson() const {
  json j = {{"kind", kind},
            {"workload", workload},
            {"function", function},
            {"trace", trace},
            {"target", target},
            {"library", library},
            {"reference", reference},
            {"seed", seed},
            {"interp_budget", interp_budget},
            {"number", number},
            {"repeat", repeat},
            {"min_repeat_ms", min_repeat_ms},
            {"flush_cache", flush_cache},
            {"fault", fault}};
  return j.dump();
}

absl::StatusOr<WorkerRequest> WorkerRequest::FromJson(const std::string& text) {
  absl::StatusOr<json> j = ParseObject(text);
  if (!j.ok()) return j.status();
  WorkerRequest r;
  for (absl::Status s : {Read(*j, "kind", &r.kind), Read(*j, "workload", &r.workload),
                         Read(*j, "function", &r.function), Read(*j, "trace", &r.trace),
                         Read(*j, "target", &r.target), Read(*j, "library", &r.library),
                         Read(*j, "reference", &r.reference), Read(*j, "seed", &r.seed),
                         Read(*j, "interp_budget", &r.interp_budget), Read(*j, "number", &r.number),
                         Read(*j, "repeat", &r.repeat), Read(*j, "min_repeat_ms", &r.min_repeat_ms),
                         Read(*j, "flush_cache", &r.flush_cache), Read(*j, "fault", &r.fault)}) {
    if (!s.ok()) return s;
  }
  if (r.kind != "build" && r.kind != "run" && r.kind != "reference") {
    return absl::InvalidArgumentError(
        absl::StrCat("worker request: unknown kind \"", r.kind, "\" (build, run, reference)"));
  }
  return r;
}

std::string WorkerResult::ToJson() const {
  json j = {{"status", status},       {"error", error},           {"seconds", seconds},
            {"max_error", max_error}, {"elapsed_ms", elapsed_ms}, {"checked_by", checked_by}};
  // A NaN error (a candidate writing NaN) is not JSON: store it as a string.
  if (max_error != max_error) j["max_error"] = "nan";
  return j.dump();
}

absl::StatusOr<WorkerResult> WorkerResult::FromJson(const std::string& text) {
  absl::StatusOr<json> j = ParseObject(text);
  if (!j.ok()) return j.status();
  WorkerResult r;
  if (j->contains("max_error") && (*j)["max_error"].is_string()) j->erase("max_error");
  for (absl::Status s :
       {Read(*j, "status", &r.status), Read(*j, "error", &r.error), Read(*j, "seconds", &r.seconds),
        Read(*j, "max_error", &r.max_error), Read(*j, "elapsed_ms", &r.elapsed_ms),
        Read(*j, "checked_by", &r.checked_by)}) {
    if (!s.ok()) return s;
  }
  return r;
}

}  // namespace tessel::metaschedule
