// libFuzzer target for the `.tsl` parser: any bytes either fail to parse with an
// error or give a module that verifies or not (either is fine), prints, parses
// back to a structurally equal module and prints the same text again. A crash, a
// sanitizer report, a hang (-timeout) or a failed round trip is a finding.
//
//   bash tools/scripts/run-sanitizers.sh                  # 30 s in CI
//   FUZZ_SECONDS=3600 bash tools/scripts/run-sanitizers.sh  # a longer run
//   build-sanitize/bin/tessel_parser_fuzzer crash-<sha1>   # replays one input
//
// The seeded mutation test (tests/unit/parser_fuzz_test.cc) covers the same
// property deterministically on every build; this target searches with coverage.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"

namespace {

[[noreturn]] void Finding(const char* what, const std::string& text) {
  std::fprintf(stderr, "parser fuzzer: %s\n--- text ---\n%s\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tessel::ir::IRModule> mod = tessel::ir::ParseModule(text, "fuzz.tsl");
  if (!mod.ok()) return 0;
  (void)tessel::ir::VerifyModule(*mod);  // Must return, whatever it decides.
  std::string printed = tessel::ir::PrintModule(*mod);
  absl::StatusOr<tessel::ir::IRModule> again = tessel::ir::ParseModule(printed, "printed.tsl");
  if (!again.ok()) Finding("the printed module does not parse back", printed);
  if (!tessel::ir::StructuralEqual(*mod, *again)) {
    Finding("the printed module parses to a different module", printed);
  }
  if (tessel::ir::PrintModule(*again) != printed) Finding("printing is not stable", printed);
  return 0;
}
