// The machine codegen compiles for, parsed from a target string:
//
//   llvm                                    the host CPU with all its features
//   llvm -mcpu=znver4                       a named CPU (its features)
//   llvm -mcpu=x86-64 -mattr=+avx2,+fma     a CPU plus/minus LLVM feature names
//   llvm -num-threads=2                     threads for parallel loops (0: runtime default)
//   llvm -num-cores=8 -l2-cache=1048576     the machine model's options (metaschedule/machine.h):
//                                           kept and printed, not used by codegen, so one
//                                           string serves default-schedule and build
//   cuda -arch=sm_90                        an NVIDIA GPU (sm_80, sm_86, sm_89, sm_90): kernels
//                                           become PTX (codegen/gpu_codegen.h)
//   cuda -arch=sm_80 -max-threads-per-block=512 -max-shared-memory-per-block=49152
//                                           the limits the GPU verifier checks
//
//   absl::StatusOr<Target> t = Target::Parse("llvm -mcpu=skylake-avx512");
//   t->ToString()   // "llvm -mcpu=skylake-avx512" (canonical: the cache key of the JIT)
//
// Unknown options, unknown CPUs and unknown features are errors that name the
// word and list what is accepted. Only the host's architecture is supported,
// and a CPU and features that cannot run its code (a 32-bit CPU, -mattr=-sse2,
// a mode feature) are refused here: LLVM would end the process on them.
#ifndef TESSEL_CODEGEN_TARGET_H_
#define TESSEL_CODEGEN_TARGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessel::codegen {

struct Target {
  std::string kind = "llvm";
  std::string cpu;       // "" means the host CPU.
  std::string features;  // LLVM feature string "+avx2,-avx512f"; added to the CPU's.
  int num_threads = 0;   // 0: the runtime's default (TESSEL_NUM_THREADS or all cores).
  // The schedule rules' machine model: cores to parallelise for and cache sizes in
  // bytes (0: not set, the host's).
  int num_cores = 0;
  int64_t l1d_cache = 0, l2_cache = 0, l3_cache = 0;
  // kind "cuda": the compute capability ("sm_90") and the limits of one thread block.
  std::string arch;
  int max_threads_per_block = 1024;
  int64_t max_shared_memory_per_block = 48 * 1024;

  bool is_cuda() const { return kind == "cuda"; }

  static absl::StatusOr<Target> Parse(absl::string_view text);
  static Target Host() { return Target(); }

  // Canonical text, parsed back by Parse.
  std::string ToString() const;

  // What LLVM is given: the host's name and features where not set.
  std::string ResolvedCpu() const;
  std::string ResolvedFeatures() const;
  std::string Triple() const;  // The host's target triple; nvptx64-nvidia-cuda for cuda.
  // True when the resolved features include `feature` (e.g. "fma", "avx512f").
  bool HasFeature(absl::string_view feature) const;
  // The instruction-set features (those CPUID reports) the resolved CPU and features
  // enable, sorted: what code built for this target may use, recorded in exported
  // libraries so that a load on another CPU can refuse them.
  std::vector<std::string> IsaFeatures() const;
  // The instruction-set features the resolved CPU and features enable that the CPU
  // this process runs on lacks, sorted ("avx512fp16", "amx-tile" for -mcpu=
  // sapphirerapids on a Zen 4): code built for them may stop the process with
  // SIGILL here. Empty for the host target. Checked as loading an exported library
  // checks (runtime/cpu_features.h): features no CPUID table there knows (such as
  // "waitpkg", which tensor code never uses) do not count.
  std::vector<std::string> FeaturesMissingOnHost() const;
};

// Initialises LLVM's native target, asm printer and parser once per process.
void InitializeLLVMTargets();

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_TARGET_H_
