// The command line of tessel-opt, parsed into one struct.
//
//   tessel-opt matmul.tsl --pipeline='simplify,remove-no-op' --verify-each -o out.tsl
//
// Value flags take `--flag=value` or `--flag value`; list flags take names
// separated by commas (--print-ir-after=simplify,remove-no-op). Unknown flags
// are errors with a suggestion. `Usage()` is the --help text.
#ifndef TESSEL_TOOLS_OPT_OPT_FLAGS_H_
#define TESSEL_TOOLS_OPT_OPT_FLAGS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tessel::opt {

struct OptFlags {
  std::string input;   // Path or "-" (stdin); "-" when not given.
  std::string output;  // "" is stdout.
  bool has_pipeline = false;
  std::string pipeline;

  bool split_input_file = false;
  bool bundle_runtime = false;  // --emit=so: copy the runtime libraries beside the library.
  bool verify = true;  // Verify the input after parsing (--no-verify turns it off).
  bool verify_each = false;
  bool check_semantics = false;
  bool timing = false;
  bool print_pass_log = false;

  bool print_before_all = false;
  std::vector<std::string> print_before;
  bool print_after_all = false;
  std::vector<std::string> print_after;
  bool print_after_change = false;

  std::string dump_dir;
  std::string reproducer;  // Write a reproducer here when the pipeline fails.
  bool reproducer_full = false;
  std::string run_reproducer;

  int opt_level = 2;
  std::vector<std::string> disabled;
  std::vector<std::string> required;
  std::vector<std::pair<std::string, std::string>> configs;  // key, value text

  // Codegen (docs/codegen.md): print or write a stage of compiling the result
  // for `target` instead of the .tsl text.
  std::string emit;  // "", "mlir", "mlir-llvm", "llvm", "asm", "obj", "so"
  std::string target = "llvm";

  bool print_pipeline = false;
  bool list_passes = false;
  bool list_configs = false;
  bool load_test_passes = false;
  bool help = false;

  // The arguments that change how a pipeline runs (verify-each, check-semantics,
  // opt level, configs, ...), as given: recorded in reproducers.
  std::vector<std::string> run_args;
};

// Parses argv[1..]. With `reproducer_args_only`, accepts only the flags that a
// reproducer records (those in run_args).
absl::StatusOr<OptFlags> ParseOptFlags(const std::vector<std::string>& args,
                                       bool reproducer_args_only = false);
// Applies more arguments (from a reproducer) on top of `flags`.
absl::Status ApplyRunArgs(const std::vector<std::string>& args, OptFlags* flags);

std::string Usage();

}  // namespace tessel::opt

#endif  // TESSEL_TOOLS_OPT_OPT_FLAGS_H_
