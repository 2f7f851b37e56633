// Wall time of every pass, as a tree following the nesting of pipelines,
// printed when the pipeline ends.
//
//   ctx.instruments.push_back(MakeTimingInstrument(&std::cerr));
//
//   ===== tessel pass timing (wall clock) =====
//     time (ms)    share  pass
//         0.412   100.0%  total
//         0.100    24.3%  simplify
//         0.200    48.5%  fixed-point
//         0.050    12.1%    remove-no-op (x2)
//         0.112    27.2%  (instruments and pass manager)
//
// Runs of the same pass under the same parent are merged and counted. Put the
// timing instrument last in ctx.instruments so that it is innermost: the times
// are then those of the passes alone, and the time other instruments take shows
// up in the last line.
#ifndef TESSEL_PASSES_INSTRUMENTS_TIMING_H_
#define TESSEL_PASSES_INSTRUMENTS_TIMING_H_

#include <memory>
#include <ostream>

#include "passes/instrument.h"

namespace tessel::passes {

std::shared_ptr<PassInstrument> MakeTimingInstrument(std::ostream* out);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_INSTRUMENTS_TIMING_H_
