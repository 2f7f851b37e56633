// The work of one tuning worker process (tessel-tune-worker): building a
// candidate into a shared library, making the reference a candidate is checked
// against, and running a built candidate -- checked, then timed.
//
//   WorkerResult r = DoWork(*WorkerRequest::FromJson(text));
//
// build:     the workload parsed, the trace replayed onto its function, `lower`,
//            object code for the target, a library written (runtime/export_library.h).
// reference: the function as written run on seeded random inputs -- by the
//            interpreter when it finishes within interp_budget statements, else
//            compiled unscheduled -- and every buffer written to `reference`.
// run:       the library loaded, called once on the same inputs, every buffer
//            compared with the reference (a mismatch is "wrong_result", never
//            timed), then timed with the time evaluator.
// Failures are results with a status and an error, never a crash of the tuner:
// that is why this runs in a process of its own.
#ifndef TESSEL_METASCHEDULE_MEASURE_WORKER_H_
#define TESSEL_METASCHEDULE_MEASURE_WORKER_H_

#include "metaschedule/measure/worker_request.h"

namespace tessel::metaschedule {

WorkerResult DoWork(const WorkerRequest& request);

// Outputs may differ from the reference by this much: reductions a schedule
// reorders (rfactor, vector lanes, tiles) and vector exp/erf differ in the last
// bits. The absolute part is scaled by the largest magnitude among the buffers
// (at least 1): a 3072-long dot product summed sequentially and blocked differs by
// about 1e-4 of its partial sums' size where it cancels to near zero.
inline constexpr double kCandidateRtol = 1e-3;
inline constexpr double kCandidateAtol = 1e-4;

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_MEASURE_WORKER_H_
