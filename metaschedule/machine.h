// What the schedule rules know of the CPU they schedule for: SIMD width, cores
// and cache sizes. Rules derive their decisions from it (register tiles from the
// vector width, parallel extents from the cores); nothing is measured.
//
//   Machine m = Machine::Host();                 // this CPU: cpuid, sysfs, affinity
//   m.vector_bits   // 512 on a Zen 4, 256 on an AVX2-only CPU
//   absl::StatusOr<Machine> t = Machine::FromTarget("llvm -mattr=+avx2,-avx512f -num-cores=8");
//   t->ToString()   // "vector-bits=256 vector-registers=16 cores=8 l1d=49152 l2=1048576 ..."
//   t->ToTarget()   // "llvm -mattr=+avx,+avx2,+fma,-avx512f -num-cores=8 -l1d-cache=49152 ..."
//
// A target string is codegen's (codegen/target.h), whose options -num-cores=N
// (the cores rules parallelise for; default: -num-threads, else this process's
// CPUs) and -l1d-cache=, -l2-cache=, -l3-cache= (bytes; default: the host's)
// are the machine model's. ToTarget prints a machine as the target string that
// FromTarget reads back to it, so a schedule's machine can be written down and
// reproduced on another host. `-mcpu=NAME` needs the CPU's features, which only LLVM knows: the
// library that links codegen installs a resolver (SetCpuFeatureResolver);
// without one, a named CPU is refused with the reason.
#ifndef TESSEL_METASCHEDULE_MACHINE_H_
#define TESSEL_METASCHEDULE_MACHINE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/dtype.h"

namespace tessel::metaschedule {

struct Machine {
  int vector_bits = 128;      // The widest SIMD register the code may use.
  int vector_registers = 16;  // How many of them (32 with AVX-512).
  bool fma = false;
  int num_cores = 1;
  int64_t l1d_bytes = 32 * 1024;
  int64_t l2_bytes = 512 * 1024;
  int64_t l3_bytes = 8 * 1024 * 1024;
  // A cuda target ("cuda -arch=sm_90 -max-threads-per-block=N"): the GPU rules read
  // the thread-block limit; the CPU fields keep the host's.
  bool gpu = false;
  int max_threads_per_block = 1024;

  static Machine Host();
  static absl::StatusOr<Machine> FromTarget(absl::string_view target);

  // Lanes of one vector of `dtype` (at least 1).
  int Lanes(ir::DataType dtype) const;
  std::string ToString() const;
  // The target string FromTarget reads back to this machine (its vector width
  // and FMA as -mattr over kMachineFeatures, its cores and caches).
  std::string ToTarget() const;

  bool operator==(const Machine& o) const {
    return vector_bits == o.vector_bits && vector_registers == o.vector_registers && fma == o.fma &&
           num_cores == o.num_cores && l1d_bytes == o.l1d_bytes && l2_bytes == o.l2_bytes &&
           l3_bytes == o.l3_bytes && gpu == o.gpu &&
           max_threads_per_block == o.max_threads_per_block;
  }
};

// The ISA features the machine model reads (vector width, FMA).
inline constexpr const char* kMachineFeatures[] = {"avx", "avx2", "fma", "avx512f"};

// Turns `-mcpu=` and `-mattr=` into which of kMachineFeatures are enabled.
using CpuFeatureResolver = std::function<absl::StatusOr<std::vector<std::string>>(
    const std::string& cpu, const std::string& mattr)>;
void SetCpuFeatureResolver(CpuFeatureResolver resolver);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_MACHINE_H_
