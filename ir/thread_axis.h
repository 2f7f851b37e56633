// The thread axes a loop can be bound to (ForKind::kThreadBinding), named once for
// the verifier, the `bind` primitive, the interpreter and the GPU path.
//
//   for bx in 0..64 thread("blockIdx.x") {      LaunchAxisOf("blockIdx.x")  == 0
//     for tx in 0..256 thread("threadIdx.x") {  LaunchAxisOf("threadIdx.x") == 3
//       ...                                     LaunchAxisOf("vthread")     == nullopt
//
// blockIdx.x/y/z and threadIdx.x/y/z are the six launch axes of a kernel: a loop
// bound to one runs once per block or thread, with the loop variable at
// min + that index. vthread loops are virtual threads: serial loops that a GPU
// backend may interleave, never launch axes.
#ifndef TESSEL_IR_THREAD_AXIS_H_
#define TESSEL_IR_THREAD_AXIS_H_

#include <array>
#include <optional>

#include "absl/strings/string_view.h"

namespace tessel::ir {

// Every tag a loop may be bound to: the six launch axes, then vthread[.x|.y|.z].
inline constexpr std::array<const char*, 10> kThreadTags = {
    "blockIdx.x",  "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
    "threadIdx.z", "vthread",    "vthread.x",  "vthread.y",   "vthread.z"};
inline constexpr int kNumLaunchAxes = 6;

bool IsThreadTag(absl::string_view tag);
// 0..2 for blockIdx.x/y/z, 3..5 for threadIdx.x/y/z; nullopt for vthread or an
// unknown tag.
std::optional<int> LaunchAxisOf(absl::string_view tag);
inline bool IsThreadIdxAxis(int axis) { return axis >= 3; }
// The tag of launch axis 0..5.
inline const char* LaunchAxisName(int axis) { return kThreadTags[axis]; }

}  // namespace tessel::ir

#endif  // TESSEL_IR_THREAD_AXIS_H_
