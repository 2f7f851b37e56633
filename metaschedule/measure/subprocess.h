// Child processes with a deadline: how the tuner runs workers so that a
// candidate that crashes or hangs costs one worker, never the tuner.
//
//   std::vector<ProcessOutcome> out = RunProcesses(
//       {{"/usr/bin/tessel-tune-worker", "req0.json", "res0.json"}, ...},
//       {.parallelism = 2, .timeout_s = 30, .log_dir = "/tmp/tune"});
//   out[0].Describe() -> "exited with status 0" | "killed by signal 11 (Segmentation fault)"
//                        | "timed out after 30 s"
//
// Each child runs in a process group of its own, and a child past its deadline is
// killed with its whole group (a worker's own children, the linker, go too). Its
// standard output and error go to a log file, whose last lines come back.
#ifndef TESSEL_METASCHEDULE_MEASURE_SUBPROCESS_H_
#define TESSEL_METASCHEDULE_MEASURE_SUBPROCESS_H_

#include <string>
#include <vector>

namespace tessel::metaschedule {

struct ProcessOutcome {
  enum class Kind { kExited, kSignaled, kTimedOut, kNotStarted };
  Kind kind = Kind::kNotStarted;
  int code = 0;        // The exit status, or the signal.
  double seconds = 0;  // Wall time from start to end.
  std::string output;  // The last 4 KiB of its standard output and error.
  std::string error;   // kNotStarted: why.

  bool ok() const { return kind == Kind::kExited && code == 0; }
  std::string Describe() const;
};

struct ProcessOptions {
  int parallelism = 1;    // Children at once.
  double timeout_s = 60;  // Per child.
  std::string log_dir;    // Where the logs go ("" -> /tmp); log i is child-<i>.log.
};

// Runs every command (argv[0] a path), at most `parallelism` at once; returns
// one outcome per command, in order.
std::vector<ProcessOutcome> RunProcesses(const std::vector<std::vector<std::string>>& commands,
                                         const ProcessOptions& options);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_MEASURE_SUBPROCESS_H_
