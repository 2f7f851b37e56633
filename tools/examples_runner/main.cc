// tessel-examples: tessel's main job for now. For each `.tsl` program in a folder:
// parse it, verify it, print it and check the print parses back to the same text
// and the same structure, then run every function in the reference interpreter on
// seeded random inputs and compare with a direct C++ computation of it. Then compile
// every function of those programs and of the --workloads folders (`lower`, then
// codegen's JIT), run it on random inputs and compare with the interpreter
// (compiled_check.h).
//
//   $ tessel-examples tools/examples --workloads=tools/examples/workloads
//   file              function           verify  round-trip  hash              interp ms  result
//   matmul.tsl        matmul             ok      ok          9f3c...           41.2       match: C = A @ B (64x64x64)
//   ...
//   compiled (lower + codegen, target llvm) vs the interpreter
//   file              function           compile ms  run        max err  result
//   matmul.tsl        matmul             88.0        211.3 us   0.0e+00  OK
//   ...
//
// Exit status 0 only when every program passes every check.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/match.h"
#include "absl/strings/ascii.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "ir/verifier.h"
#include "tools/examples_runner/compiled_check.h"
#include "tools/examples_runner/references.h"

namespace tessel::examples {
namespace {

struct Row {
  std::string file, function, verify, round_trip, hash, millis, result;
  bool ok = true;
};

// The source as the printer would write it: comment lines and the blank lines
// that lead the file dropped (the printer does not keep comments).
std::string WithoutComments(const std::string& source) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(source, '\n')) {
    absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(trimmed, "//")) continue;
    if (out.empty() && trimmed.empty()) continue;
    absl::StrAppend(&out, line, "\n");
  }
  while (absl::EndsWith(out, "\n\n")) out.pop_back();
  return out;
}

// Checks that the printer writes the file back exactly (comments aside), and that
// its output parses to identical text and structure.
std::string CheckRoundTrip(const ir::IRModule& mod, const std::string& file, const std::string& source) {
  std::string text = ir::PrintModule(mod);
  if (text != WithoutComments(source)) return "printed text differs from the file";
  absl::StatusOr<ir::IRModule> again = ir::ParseModule(text, file + " (printed)");
  if (!again.ok()) return absl::StrCat("reparse failed: ", again.status().message());
  if (ir::PrintModule(*again) != text) return "text differs";
  if (absl::Status s = ir::AssertStructuralEqual(mod, *again); !s.ok()) {
    return absl::StrCat("structure differs: ", s.message());
  }
  return "ok";
}

Row RunFunction(const std::string& file, const std::string& name, const ir::PrimFunc& func,
                uint64_t seed) {
  Row row{file, name, "ok", "ok", absl::StrFormat("%016x", ir::StructuralHash(func)), "-", ""};
  const Reference* ref = FindReference(name);
  if (ref == nullptr) {
    row.result = "FAIL: no C++ reference for this function";
    row.ok = false;
    return row;
  }
  absl::StatusOr<std::vector<ir::Arg>> inputs = ir::RandomArgs(func, seed);
  if (!inputs.ok()) {
    row.result = absl::StrCat("FAIL: ", inputs.status().message());
    row.ok = false;
    return row;
  }
  std::vector<ir::Arg> expected = ir::CloneArgs(*inputs);
  std::vector<ir::Arg> actual = ir::CloneArgs(*inputs);
  if (absl::Status s = ref->compute(expected); !s.ok()) {
    row.result = absl::StrCat("FAIL: reference: ", s.message());
    row.ok = false;
    return row;
  }
  auto start = std::chrono::steady_clock::now();
  absl::Status run = ir::Run(func, actual, {}, name);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  row.millis = absl::StrFormat("%.1f", ms);
  if (!run.ok()) {
    row.result = absl::StrCat("FAIL: ", run.message());
    row.ok = false;
    return row;
  }
  // The reference accumulates in the same order in f32; exp/sqrt may differ in the last bits.
  if (absl::Status s = ir::CompareArgs(expected, actual, func, {.rtol = 1e-4, .atol = 1e-5}); !s.ok()) {
    row.result = absl::StrCat("FAIL: ", s.message());
    row.ok = false;
    return row;
  }
  row.result = absl::StrCat("match: ", ref->what);
  return row;
}

std::vector<Row> RunFile(const std::filesystem::path& path, uint64_t seed) {
  std::string file = path.filename().string();
  std::ifstream in(path);
  std::stringstream source;
  source << in.rdbuf();
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(source.str(), path.string());
  if (!mod.ok()) return {Row{file, "-", "-", "-", "-", "-", absl::StrCat("FAIL: ", mod.status().message()), false}};
  std::vector<Row> rows;
  absl::Status verified = ir::VerifyModule(*mod);
  std::string round_trip = CheckRoundTrip(*mod, file, source.str());
  for (const auto& [name, func] : (*mod)->functions) {
    Row row = RunFunction(file, name, func, seed);
    if (!verified.ok()) {
      row.verify = "FAIL";
      row.result = absl::StrCat("FAIL: ", verified.message());
      row.ok = false;
    }
    if (round_trip != "ok") {
      row.round_trip = "FAIL";
      row.result = absl::StrCat("FAIL: round trip: ", round_trip);
      row.ok = false;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The .tsl files of `dir`, sorted; an error message when it cannot be read or has none.
std::vector<std::filesystem::path> TslFiles(const std::string& dir, std::string* error) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".tsl") files.push_back(entry.path());
  }
  if (ec) {
    *error = absl::StrCat("cannot read '", dir, "': ", ec.message());
  } else if (files.empty()) {
    *error = absl::StrCat("no .tsl files in '", dir, "'");
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Compiles every function of `path` and checks it against the interpreter.
std::vector<CompiledRow> CompileFile(const std::filesystem::path& path, const CompiledOptions& options) {
  std::string file = path.filename().string();
  std::ifstream in(path);
  std::stringstream source;
  source << in.rdbuf();
  absl::StatusOr<ir::IRModule> mod = ir::ParseModule(source.str(), path.string());
  if (!mod.ok()) return {CompiledRow{.file = file, .function = "-", .result = absl::StrCat("FAIL: ", mod.status().message()), .ok = false}};
  if (absl::Status v = ir::VerifyModule(*mod); !v.ok()) {
    return {CompiledRow{.file = file, .function = "-", .result = absl::StrCat("FAIL: ", v.message()), .ok = false}};
  }
  return CheckCompiled(*mod, file, options);
}

int Main(int argc, char** argv) {
  std::string dir = "tools/examples";
  std::vector<std::string> workload_dirs;
  uint64_t seed = 42;
  CompiledOptions compiled;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--seed=", 0) == 0) {
      if (!absl::SimpleAtoi(arg.substr(7), &seed)) {
        std::fprintf(stderr, "tessel-examples: bad --seed value '%s'\n", arg.c_str() + 7);
        return 2;
      }
    } else if (arg.rfind("--workloads=", 0) == 0) {
      workload_dirs.push_back(arg.substr(12));
    } else if (arg.rfind("--interp-budget=", 0) == 0) {
      if (!absl::SimpleAtoi(arg.substr(16), &compiled.interp_budget) || compiled.interp_budget < 1) {
        std::fprintf(stderr, "tessel-examples: bad --interp-budget value '%s' (a positive count)\n",
                     arg.c_str() + 16);
        return 2;
      }
    } else if (arg == "--small-only") {
      compiled.small_only = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: tessel-examples [DIR] [--workloads=DIR]... [--seed=N] [--interp-budget=N] [--small-only]\n"
          "  DIR                 programs checked against their C++ references, then compiled\n"
          "  --workloads=DIR     more programs, compiled and checked against the interpreter\n"
          "  --interp-budget=N   interpreter statements per function before its compiled\n"
          "                      result goes unchecked (default 2000000)\n"
          "  --small-only        leave out the functions over that budget\n");
      return 0;
    } else if (absl::StartsWith(arg, "-")) {
      std::fprintf(stderr, "tessel-examples: unknown flag '%s' (--help lists them)\n", arg.c_str());
      return 2;
    } else {
      dir = arg;
    }
  }
  compiled.seed = seed;
  std::string error;
  std::vector<std::filesystem::path> files = TslFiles(dir, &error);
  if (!error.empty()) {
    std::fprintf(stderr, "tessel-examples: %s\n", error.c_str());
    return 2;
  }
  std::vector<std::filesystem::path> compile_files = files;
  for (const std::string& w : workload_dirs) {
    std::vector<std::filesystem::path> more = TslFiles(w, &error);
    if (!error.empty()) {
      std::fprintf(stderr, "tessel-examples: %s\n", error.c_str());
      return 2;
    }
    compile_files.insert(compile_files.end(), more.begin(), more.end());
  }

  std::vector<Row> rows;
  for (const auto& f : files) {
    for (Row& r : RunFile(f, seed)) rows.push_back(std::move(r));
  }
  const char* fmt = "%-22s %-18s %-7s %-11s %-17s %10s  %s\n";
  std::printf(fmt, "file", "function", "verify", "round-trip", "structural hash", "interp ms", "result");
  int failed = 0, total = static_cast<int>(rows.size());
  for (const Row& r : rows) {
    std::printf(fmt, r.file.c_str(), r.function.c_str(), r.verify.c_str(), r.round_trip.c_str(),
                r.hash.c_str(), r.millis.c_str(), r.result.c_str());
    failed += r.ok ? 0 : 1;
  }

  std::printf("\ncompiled (lower + codegen, target llvm) vs the interpreter on the same random inputs\n");
  const char* cfmt = "%-36s %-28s %10s %10s %8s  %s\n";
  std::printf(cfmt, "file", "function", "compile ms", "run", "max err", "result");
  for (const auto& f : compile_files) {
    for (const CompiledRow& r : CompileFile(f, compiled)) {
      // A parse error's caret lines would break the table: its first line names the place.
      std::string result = r.result.substr(0, r.result.find('\n'));
      std::printf(cfmt, r.file.c_str(), r.function.c_str(), r.compile_ms.c_str(), r.run.c_str(),
                  r.max_error.c_str(), result.c_str());
      std::fflush(stdout);
      failed += r.ok ? 0 : 1;
      ++total;
    }
  }
  std::printf("%d passed, %d failed\n", total - failed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tessel::examples

int main(int argc, char** argv) { return tessel::examples::Main(argc, argv); }
