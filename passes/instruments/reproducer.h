// Failure reproducers: when a pass fails, or an instrument (verify-each,
// check-semantics) rejects its output, write a .tsl file that reproduces the
// failure on its own:
//
//   // tessel-reproducer: pipeline='remove-no-op' arg='--verify-each'
//   // error: verify-each: the IR is invalid after pass 'remove-no-op': ...
//   func @f(...) { ... }            <- the module the failing pass was given
//
// The first line is a comment, so the file is still a module any tool can read;
// `tessel-opt --run-reproducer FILE` parses the line and runs the pipeline with
// the recorded arguments on the module.
//
// Scope: by default the reproducer is narrowed to the failing pass and its input
// (quickest to debug); with `full`, it holds the pipeline's input and the whole
// pipeline text.
#ifndef TESSEL_PASSES_INSTRUMENTS_REPRODUCER_H_
#define TESSEL_PASSES_INSTRUMENTS_REPRODUCER_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/instrument.h"

namespace tessel::passes {

struct ReproducerOptions {
  std::string path;               // Where to write the file.
  bool full = false;              // Whole pipeline and its input, not just the failing pass.
  std::vector<std::string> args;  // Tool arguments to record (e.g. "--verify-each").
};

// Writes the file on failure and tells `diag` where it is.
std::shared_ptr<PassInstrument> MakeReproducerInstrument(ReproducerOptions options,
                                                         std::ostream* diag);

// The contents of a reproducer file.
struct Reproducer {
  std::string pipeline;
  std::vector<std::string> args;
  std::string error;        // The recorded error, for information.
  std::string module_text;  // The whole file: the header is a comment.
};

// The first line of a reproducer: "// tessel-reproducer: pipeline='...' arg='...'".
inline constexpr char kReproducerMarker[] = "// tessel-reproducer:";

std::string FormatReproducer(const std::string& pipeline, const std::vector<std::string>& args,
                             const std::string& error, const std::string& module_text);
// Errors when the header line is missing or malformed.
absl::StatusOr<Reproducer> ParseReproducer(absl::string_view text);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_INSTRUMENTS_REPRODUCER_H_
