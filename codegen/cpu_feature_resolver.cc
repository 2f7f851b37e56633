// InstallCpuFeatureResolver (cpu_feature_resolver.h): LLVM's subtarget answers
// which of the features the machine model reads a CPU has.
#include "codegen/cpu_feature_resolver.h"

#include <string>
#include <vector>

#include "codegen/target.h"
#include "metaschedule/machine.h"

namespace tessel::codegen {

void InstallCpuFeatureResolver() {
  metaschedule::SetCpuFeatureResolver(
      [](const std::string& cpu,
         const std::string& mattr) -> absl::StatusOr<std::vector<std::string>> {
        std::string text = "llvm -mcpu=" + cpu;
        if (!mattr.empty()) text += " -mattr=" + mattr;
        absl::StatusOr<Target> t = Target::Parse(text);
        if (!t.ok()) return t.status();
        std::vector<std::string> features;
        for (const char* f : metaschedule::kMachineFeatures) {
          if (t->HasFeature(f)) features.push_back(f);
        }
        return features;
      });
}

}  // namespace tessel::codegen
