// The benchmark driver's building blocks: named cases, per-call timing, JSON.
//
//   TESSEL_BENCHMARK(structural_hash_10k, "structural_hash/10k_nodes",
//                    "StructuralHash of a ~10,000-node PrimFunc") {
//     PrimFunc f = ...;
//     BenchResult r;
//     r.Add("nodes", CountNodes(f));
//     r.AddTiming(TimeCalls(opts.repeats, [&] { Sink(StructuralHash(f)); }));
//     return r;
//   }
//
// A case is a function from options to a result (or an error, e.g. when a library
// it compares against is missing); tessel-bench picks cases by name and prints
// every result as one JSON object. New cases (codegen against OpenBLAS/oneDNN,
// passes, tuning) are new files in tools/bench that use TESSEL_BENCHMARK.
#ifndef TESSEL_TOOLS_BENCH_BENCHMARK_H_
#define TESSEL_TOOLS_BENCH_BENCHMARK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tessel::bench {

struct BenchOptions {
  int repeats = 200;  // Timed calls per case (after a few untimed warm-up calls).
  // --tuning-db: the tuned/ cases schedule by its records (apply-best) for the target
  // "llvm -num-cores=T -num-threads=T" of their thread count T.
  std::string tuning_db;
  bool tuned = false;  // Set by the tuned/ cases for the shared code they call.
};

struct Timing {
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  int repeats = 0;
};

// The figures of one case, as JSON members in the order they were added.
class BenchResult {
 public:
  void Add(const std::string& key, int64_t value);
  void Add(const std::string& key, double value);
  void Add(const std::string& key, const std::string& value);
  void AddTiming(const Timing& t);  // median_us, min_us, max_us, repeats
  // {"name": <name>, <members>...}
  std::string ToJson(const std::string& name) const;

 private:
  std::vector<std::pair<std::string, std::string>> members_;  // Key, JSON value text.
};

using BenchFn = std::function<absl::StatusOr<BenchResult>(const BenchOptions&)>;

struct BenchCase {
  std::string name;         // "area/case", e.g. "structural_hash/10k_nodes".
  std::string description;  // One line, shown by --list.
  BenchFn run;
};

// Every registered case, in registration order.
std::vector<BenchCase>& Registry();

struct Registrar {
  Registrar(std::string name, std::string description, BenchFn fn);
};

#define TESSEL_BENCHMARK(id, name, description)                                          \
  static ::absl::StatusOr<::tessel::bench::BenchResult> id(                              \
      const ::tessel::bench::BenchOptions& opts);                                        \
  static const ::tessel::bench::Registrar id##_registrar(name, description, id);         \
  static ::absl::StatusOr<::tessel::bench::BenchResult> id(                              \
      [[maybe_unused]] const ::tessel::bench::BenchOptions& opts)

// Times `fn` call by call: a few untimed warm-up calls, then `repeats` timed ones.
Timing TimeCalls(int repeats, const std::function<void()>& fn);

// Keeps a computed value alive so the optimizer cannot drop the work.
void Sink(uint64_t value);

// A JSON string literal (quoted, escaped).
std::string JsonString(const std::string& s);

// {"cpu": ..., "logical_cores": ..., "compiler": ..., "build_type": ...}
std::string MachineJson();

}  // namespace tessel::bench

#endif  // TESSEL_TOOLS_BENCH_BENCHMARK_H_
