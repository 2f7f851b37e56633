// tessel-tune-worker REQUEST.json RESULT.json: carries out one request of the
// tuner (build a candidate, make the reference, run a candidate) and writes the
// result, in a process of its own so that a crash or hang costs only this
// process (metaschedule/measure/worker.h).
//
//   $ tessel-tune-worker b0-c3-run.json b0-c3-run-result.json
//   (writes {"status": "ok", "seconds": [0.00112, 0.00109, 0.00110], ...})
//
// The exit status is 0 whenever a result was written, whatever it says; 2 when
// the request could not be read or the result not written.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "codegen/cpu_feature_resolver.h"
#include "ir/read_file.h"
#include "metaschedule/measure/worker.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: tessel-tune-worker REQUEST.json RESULT.json\n";
    return 2;
  }
  tessel::codegen::InstallCpuFeatureResolver();
  absl::StatusOr<std::string> text =
      tessel::ir::ReadFileBounded(argv[1], tessel::ir::kMaxSourceBytes);
  if (!text.ok()) {
    std::cerr << "tessel-tune-worker: " << text.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<tessel::metaschedule::WorkerRequest> request =
      tessel::metaschedule::WorkerRequest::FromJson(*text);
  if (!request.ok()) {
    std::cerr << "tessel-tune-worker: " << argv[1] << ": " << request.status().message() << "\n";
    return 2;
  }
  tessel::metaschedule::WorkerResult result = tessel::metaschedule::DoWork(*request);
  // Written whole, then renamed: the tuner never reads half a result.
  std::string partial = std::string(argv[2]) + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << result.ToJson();
    if (!out) {
      std::cerr << "tessel-tune-worker: cannot write " << partial << "\n";
      return 2;
    }
  }
  std::error_code ec;
  std::filesystem::rename(partial, argv[2], ec);
  if (ec) {
    std::cerr << "tessel-tune-worker: cannot write " << argv[2] << ": " << ec.message() << "\n";
    return 2;
  }
  return 0;
}
