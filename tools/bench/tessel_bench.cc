// tessel-bench: the project's benchmark driver. Runs named cases and prints their
// figures as JSON on stdout.
//
//   $ tessel-bench --list
//   structural_hash/10k_nodes	StructuralHash of a ~10,000-node PrimFunc
//   structural_equal/10k_nodes	StructuralEqual of two separately built ~10,000-node PrimFuncs
//   $ tessel-bench --filter=structural_hash --repeats=100
//   {"benchmarks": [{"name": "structural_hash/10k_nodes", "nodes": 10412, "median_us": 38.2,
//     "min_us": 37.5, "max_us": 61.0, "repeats": 100}], "machine": {"cpu": ..., ...}}
//
// Flags: --filter=REGEX (cases whose name contains a match; default all),
// --repeats=N (timed calls per case), --tuning-db=FILE (what the tuned/ cases
// apply; without it they say they were skipped), --list, --help. Exit status: 0 when every
// selected case ran, 1 when one failed or none matched, 2 on a bad command line.
#include <cstdio>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/bench/benchmark.h"

namespace tessel::bench {
namespace {

constexpr const char* kUsage =
    "usage: tessel-bench [--filter=REGEX] [--repeats=N] [--tuning-db=FILE] [--list]\n"
    "  Runs the benchmark cases whose names match REGEX and prints JSON on stdout.\n";

struct Flags {
  std::string filter;
  bool list = false;
  BenchOptions options;
};

// False (with a message on stderr) when the command line is not understood.
bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (absl::StartsWith(arg, "--filter=")) {
      flags.filter = arg.substr(9);
    } else if (absl::StartsWith(arg, "--repeats=")) {
      int n = 0;
      if (!absl::SimpleAtoi(arg.substr(10), &n) || n < 1 || n > 1000000) {
        std::cerr << "tessel-bench: --repeats wants a whole number from 1 to 1000000, not '"
                  << arg.substr(10) << "'\n";
        return false;
      }
      flags.options.repeats = n;
    } else if (absl::StartsWith(arg, "--tuning-db=")) {
      flags.options.tuning_db = arg.substr(12);
    } else if (arg == "--list") {
      flags.list = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      std::cerr << "tessel-bench: unknown argument '" << arg << "'\n" << kUsage;
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) return 2;
  std::regex filter;
  try {
    filter = std::regex(flags.filter.empty() ? std::string(".") : flags.filter);
  } catch (const std::regex_error& e) {
    std::cerr << "tessel-bench: --filter is not a valid regular expression: " << e.what() << "\n";
    return 2;
  }
  std::vector<const BenchCase*> selected;
  for (const BenchCase& c : Registry()) {
    if (flags.filter.empty() || std::regex_search(c.name, filter)) selected.push_back(&c);
  }
  if (flags.list) {
    for (const BenchCase* c : selected) std::cout << c->name << "\t" << c->description << "\n";
    return 0;
  }
  if (selected.empty()) {
    std::cerr << "tessel-bench: no benchmark matches '" << flags.filter << "' (see --list)\n";
    return 1;
  }
  int status = 0;
  std::string out = "{\"benchmarks\": [";
  for (size_t i = 0; i < selected.size(); ++i) {
    absl::StatusOr<BenchResult> r = selected[i]->run(flags.options);
    if (i > 0) out += ",\n  ";
    if (r.ok()) {
      out += r->ToJson(selected[i]->name);
    } else {
      // A failed case is reported in place, and the run still prints valid JSON.
      out += absl::StrCat("{\"name\": ", JsonString(selected[i]->name),
                          ", \"error\": ", JsonString(r.status().ToString()), "}");
      status = 1;
    }
  }
  absl::StrAppend(&out, "],\n \"machine\": ", MachineJson(), "}\n");
  std::cout << out;
  return status;
}

}  // namespace
}  // namespace tessel::bench

int main(int argc, char** argv) { return tessel::bench::Main(argc, argv); }
