// Every op of the op library and every small workload through
// default-schedule{target="cuda ..."} and lower: the interpreter's result on the
// thread-bound function equals the unscheduled function's, codegen makes PTX for it,
// and ptxas (where the CUDA toolkit is installed) accepts the PTX for sm_90. This is
// the GPU path's check on machines without a GPU; tools/scripts/gpu_check.py runs
// the same functions on one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "codegen/gpu_codegen.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "ir/te/create_prim_func.h"
#include "ir/te/workloads.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "tests/unit/op_library_cases.h"

namespace tessel::codegen {
namespace {

constexpr const char* kTarget = "cuda -arch=sm_90";

bool HasLibdevice() {
  return std::filesystem::exists(CudaToolkitPath() + "/nvvm/libdevice/libdevice.10.bc");
}

std::string Ptxas() {
  std::string path = CudaToolkitPath() + "/bin/ptxas";
  return std::filesystem::exists(path) ? path : "";
}

// An empty string when `mod` passes every check, else what failed.
std::string CheckOnGpuPath(const ir::IRModule& mod, const std::string& ptxas) {
  passes::PassContext ctx;
  absl::StatusOr<ir::IRModule> lowered = passes::RunPipeline(
      absl::StrCat("default-schedule{target=\"", kTarget, "\"},lower"), mod, ctx);
  if (!lowered.ok()) return absl::StrCat("schedule/lower: ", lowered.status().message());
  const auto& [name, func] = mod->functions[0];
  absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(func, 5);
  if (!args.ok()) return std::string(args.status().message());
  std::vector<ir::Arg> expected = ir::CloneArgs(*args);
  if (absl::Status s = ir::Run(func, expected, {}, name); !s.ok())
    return "reference: " + s.ToString();
  if (absl::Status s = ir::Run((*lowered)->functions[0].second, *args, {}, name); !s.ok()) {
    return "interpreter on the scheduled function: " + s.ToString();
  }
  if (absl::Status s = ir::CompareArgs(expected, *args, func, {.rtol = 1e-4, .atol = 1e-5});
      !s.ok()) {
    return "scheduled != unscheduled: " + s.ToString();
  }
  absl::StatusOr<Target> target = Target::Parse(kTarget);
  absl::StatusOr<GpuProgram> program = BuildGpuProgram(*lowered, *target);
  // Without the CUDA toolkit, math that libdevice provides (fabsf, floorf, ...) is a
  // clear error, which is the behaviour to check there.
  if (!HasLibdevice() && absl::IsFailedPrecondition(program.status()) &&
      absl::StrContains(program.status().message(), "link libdevice")) {
    return "";
  }
  if (!program.ok()) return "codegen: " + program.status().ToString();
  if (ptxas.empty()) return "";
  const std::string file = ::testing::TempDir() + "/gpu_library.ptx";
  std::ofstream(file) << program->ptx;
  const std::string cmd = ptxas + " -arch=sm_90 " + file + " -o /dev/null 2>" + file + ".log";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream log(file + ".log");
    std::string text((std::istreambuf_iterator<char>(log)), {});
    return "ptxas refused the PTX: " + text;
  }
  return "";
}

TEST(GpuLibrary, EveryOpScheduledForCudaMatchesTheInterpreterAndPassesPtxas) {
  const std::string ptxas = Ptxas();
  if (ptxas.empty()) std::cerr << "no ptxas under " << CudaToolkitPath() << ": PTX not assembled\n";
  if (!HasLibdevice()) {
    std::cerr << "no libdevice under " << CudaToolkitPath()
              << ": functions whose math needs it must fail with a clear error\n";
  }
  int checked = 0;
  std::vector<std::string> failures;
  for (const auto& [name, build] : tessel::testing::OpLibraryCases()) {
    tessel::testing::Built args = build();
    ASSERT_TRUE(args.ok()) << name;
    absl::StatusOr<ir::IRModule> mod = ir::te::CreateModule(*args, name);
    ASSERT_TRUE(mod.ok()) << name;
    ++checked;
    if (std::string why = CheckOnGpuPath(*mod, ptxas); !why.empty()) {
      failures.push_back(name + ": " + why);
    }
  }
  for (const ir::te::Workload& w : ir::te::AllWorkloads()) {
    if (!w.small) continue;
    absl::StatusOr<ir::IRModule> mod = w.build();
    ASSERT_TRUE(mod.ok()) << w.name;
    ++checked;
    if (std::string why = CheckOnGpuPath(*mod, ptxas); !why.empty()) {
      failures.push_back(w.name + ": " + why);
    }
  }
  EXPECT_GE(checked, 40);
  std::string all;
  for (const std::string& f : failures) all += "\n  " + f.substr(0, 400);
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << checked << " failed:" << all;
}

}  // namespace
}  // namespace tessel::codegen
