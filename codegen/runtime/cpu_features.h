// Which of a library's instruction-set features this CPU lacks, without LLVM:
// the runtime library asks CPUID, the way LLVM's host detection does (so a library
// exported for the host is never refused on it).
//
//   CpuFeaturesMissing({"avx2", "avx512f", "amx-tile"})   // {"amx-tile"} on a Zen 4
//
// Names are LLVM's (what codegen's Target::IsaFeatures() records in an exported
// library). A vector feature counts only when the OS saves its registers (XCR0),
// as LLVM requires. A name the table does not know is not checked. Plain C++.
#ifndef TESSEL_CODEGEN_RUNTIME_CPU_FEATURES_H_
#define TESSEL_CODEGEN_RUNTIME_CPU_FEATURES_H_

#include <set>
#include <string>
#include <vector>

namespace tessel::runtime {

std::vector<std::string> CpuFeaturesMissing(const std::vector<std::string>& required);

// The same against a given host: `host` the known features it has (for tests).
std::vector<std::string> CpuFeaturesMissing(const std::vector<std::string>& required,
                                            const std::set<std::string>& host);

// The features of the table this CPU has.
std::set<std::string> HostCpuFeatures();

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_CPU_FEATURES_H_
