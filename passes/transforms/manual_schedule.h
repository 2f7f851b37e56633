// The inline form of manual-schedule's trace: `// SCHEDULE:` comment lines of
// a .tsl input hold the Python trace that a `manual-schedule` with none of the
// options trace, script or schedule applies (passes/transforms/manual_schedule.cc).
//
//   // SCHEDULE: b0 = sch.get_block(name="B")         <- line 3 of split.tsl
//   // SCHEDULE: l1, = sch.get_loops(block=b0)
//   // SCHEDULE: l2, l3 = sch.split(loop=l1, factors=[None, 16])
//   func @f(A: f32[64], B: f32[64]) { ... }
//
//   std::string script = InlineScheduleScript(text);   // the three calls, on lines 3-5
//   ctx.SetConfig(kInlineScheduleConfig, script);
//   ctx.SetConfig(kInlineScheduleSourceConfig, std::string("split.tsl"));
//
// tessel-opt does this for each input (each chunk, with --split-input-file),
// so a lit case carries its own schedule. The script keeps the input's line
// and column numbers -- every other line is blank and the comment prefix is
// blanked out -- so a parse error points into the .tsl file itself.
#ifndef TESSEL_PASSES_TRANSFORMS_MANUAL_SCHEDULE_H_
#define TESSEL_PASSES_TRANSFORMS_MANUAL_SCHEDULE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tessel::passes {

// The PassContext config keys (string) the pass reads the inline trace from.
inline constexpr char kInlineScheduleConfig[] = "manual-schedule.inline-script";
inline constexpr char kInlineScheduleSourceConfig[] = "manual-schedule.inline-source";

// The marker of an inline trace line, after optional indentation.
inline constexpr char kInlineScheduleMarker[] = "// SCHEDULE:";

// The Python trace held by `input`'s `// SCHEDULE:` lines, at their line and
// column; "" when there are none.
std::string InlineScheduleScript(absl::string_view input);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_TRANSFORMS_MANUAL_SCHEDULE_H_
