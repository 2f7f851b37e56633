// Lets the schedule rules' machine model (metaschedule/machine.h) read a named
// CPU's features from LLVM: `default-schedule{target="llvm -mcpu=skylake-avx512"}`
// then schedules for 512-bit vectors. Programs that link codegen call this once
// (tessel-opt, the Python module); without it a named CPU is refused there.
#ifndef TESSEL_CODEGEN_CPU_FEATURE_RESOLVER_H_
#define TESSEL_CODEGEN_CPU_FEATURE_RESOLVER_H_

namespace tessel::codegen {

void InstallCpuFeatureResolver();

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_CPU_FEATURE_RESOLVER_H_
