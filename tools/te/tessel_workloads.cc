// tessel-workloads: lists the named workloads of ir/te/workloads.h and prints any
// of them as .tsl, for lit tests, examples and bug reports.
//
//   $ tessel-workloads --list
//   matmul_1024x1024x1024_f32   2.147e+09 flops  1.258e+07 bytes  C[1024, 1024] = A[1024, 1024] @ ...
//   ...
//   $ tessel-workloads matmul_64x64x64_f32
//   func @matmul_64x64x64_f32(A: f32[64, 64], B: f32[64, 64], C: f32[64, 64]) { ... }
//
// Exit status: 0 on success, 1 for an unknown name or a workload that fails to
// build or verify, 2 for bad usage.
#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"
#include "ir/printer.h"
#include "ir/te/workloads.h"
#include "ir/verifier.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: tessel-workloads --list | tessel-workloads NAME\n"
               "  --list   one line per workload: name, FLOPs, bytes, description\n"
               "  NAME     print the workload's module as .tsl\n");
  return 2;
}

int List() {
  for (const tessel::ir::te::Workload& w : tessel::ir::te::AllWorkloads()) {
    std::printf("%s\n", absl::StrFormat("%-34s %10.4g flops %10.4g bytes  %s%s", w.name, w.flops,
                                        w.bytes, w.description, w.small ? "  [small]" : "")
                            .c_str());
  }
  return 0;
}

int Print(const std::string& name) {
  absl::StatusOr<tessel::ir::IRModule> mod = tessel::ir::te::BuildWorkload(name);
  if (!mod.ok()) {
    std::fprintf(stderr, "tessel-workloads: %s\n", std::string(mod.status().message()).c_str());
    return 1;
  }
  if (absl::Status s = tessel::ir::VerifyModule(*mod); !s.ok()) {
    std::fprintf(stderr, "tessel-workloads: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::fputs(tessel::ir::PrintModule(*mod).c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return Usage();
  std::string arg = argv[1];
  if (arg == "--list") return List();
  if (arg == "--help" || arg == "-h" || arg.empty() || arg[0] == '-') return Usage();
  return Print(arg);
}
