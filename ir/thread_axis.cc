#include "ir/thread_axis.h"

namespace tessel::ir {

bool IsThreadTag(absl::string_view tag) {
  for (const char* t : kThreadTags) {
    if (tag == t) return true;
  }
  return false;
}

std::optional<int> LaunchAxisOf(absl::string_view tag) {
  for (int i = 0; i < kNumLaunchAxes; ++i) {
    if (tag == kThreadTags[i]) return i;
  }
  return std::nullopt;
}

}  // namespace tessel::ir
