// The reference interpreter: the oracle every transform is tested against
// (DESIGN.md decision 8). It runs any PrimFunc -- unscheduled, scheduled or
// lowered -- on host buffers, bounds-checking every access.
//
//   HostBuffer a = HostBuffer::Zeros(DataType::Float(32), {128, 128});
//   absl::Status s = Run(func, {Arg(a), Arg(b), Arg(c)});
//   // an out-of-bounds access: "interpreter: function 'main': BufferStore to 'C'
//   //   index [128, 0] is outside shape [128, 128] in: C[i, j] = ..."
//
// Semantics: blocks run their `init` when every reduce iter var is at its domain
// minimum; parallel, vectorized and thread-bound loops run sequentially; vector
// expressions run lane by lane; intrinsics use libm; integer arithmetic wraps at
// the dtype's width; integer division by zero is an error, not a crash.
#ifndef TESSEL_IR_INTERPRETER_H_
#define TESSEL_IR_INTERPRETER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/host_buffer.h"

namespace tessel::ir {

// An argument: a buffer for a buffer parameter, an integer or float for a scalar one.
using Arg = std::variant<HostBuffer, int64_t, double>;

// Shared-memory bank conflicts of a run's GPU kernels (RunOptions::bank_conflicts),
// one site per statement, buffer and direction. A warp's request is the n-th
// execution of one statement by its lanes; it takes as many wavefronts (shared-memory
// cycles) as the most distinct 4-byte words any of the 32 banks holds for it, and
// would take ceil(distinct words / 32) without conflicts:
//
//   S[tx * 32] (f32, 32 lanes)   1 request, 32 wavefronts, 1 without conflicts
//   S[tx], S[tx // 2], S[0]      1 request,  1 wavefront
struct BankConflictSite {
  std::string buffer;     // The shared buffer (its storage's name).
  std::string statement;  // The first line of the statement.
  bool store = false;
  int64_t requests = 0;
  int64_t wavefronts = 0;
  int64_t ideal = 0;  // Wavefronts without conflicts.
};
struct BankConflicts {
  std::vector<BankConflictSite> sites;  // In the order first seen.
};

struct RunOptions {
  // Abort a run after this many executed statements (0 = unlimited): guards the
  // fuzzers and semantic checks against runaway loops.
  int64_t max_steps = 0;
  // Polled about every million statements; a run it answers true for stops with a
  // Cancelled error (Python's bindings stop on Ctrl-C this way).
  std::function<bool()> interrupted;
  // When set, GPU kernels' shared-memory requests are tallied into it (a run
  // takes about twice as long).
  BankConflicts* bank_conflicts = nullptr;
};

// Runs `func` on `args` (one per parameter, in order). Buffer arguments are
// written in place. Symbolic shape variables take their values from the shapes
// of the buffer arguments.
absl::Status Run(const PrimFunc& func, const std::vector<Arg>& args, RunOptions opts = {},
                 const std::string& name = "main");

// Allocates one argument per parameter of `func`: buffers of their shapes
// filled with seeded random values (floats uniform in [-1, 1), integers in
// [-8, 8], bools 0/1). A scalar parameter or symbolic shape variable named in
// `symbolic_values` (name -> value) takes that value; other integer scalars are
// random in [1, 8] and float scalars in [-1, 1). Fails when a buffer's shape
// depends on a variable that is neither given nor a parameter.
absl::StatusOr<std::vector<Arg>> RandomArgs(const PrimFunc& func, uint64_t seed,
                                            const std::vector<std::pair<std::string, int64_t>>&
                                                symbolic_values = {});

// Deep copies (buffers cloned) so two runs can start from the same inputs.
std::vector<Arg> CloneArgs(const std::vector<Arg>& args);

struct CompareOptions {
  double rtol = 1e-5;
  double atol = 1e-6;
};

// OK when every buffer holds the same values within tolerance (NaN equals NaN);
// otherwise names the parameter, the first differing index and both values.
// |actual - expected| <= atol * scale + rtol * |expected|, where `scale` is the
// largest finite magnitude in the expected buffer (at least 1): a reduction whose
// order a schedule changed (split across threads or vector lanes) is exact to
// within the size of its terms, not of a result they cancel down to. A float type
// narrower than f32 is held to no more than 8 units of its precision (f16: rtol
// and atol at least 2^-7; bf16: 2^-4), which is all it can hold.
absl::Status CompareArgs(const std::vector<Arg>& expected, const std::vector<Arg>& actual,
                         const PrimFunc& func, CompareOptions opts = {});

// Runs `a` and `b` on the same seeded random inputs and compares every buffer
// afterwards: the differential test used for every transform.
absl::Status CheckSameResults(const PrimFunc& a, const PrimFunc& b, uint64_t seed,
                              CompareOptions opts = {}, RunOptions run = {});

}  // namespace tessel::ir

#endif  // TESSEL_IR_INTERPRETER_H_
