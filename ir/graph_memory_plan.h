// The storage plan of a graph function: which intermediate values share memory.
// `plan-memory` writes it as the function's `storage` attribute, one list of value
// names per storage, each in definition order; the executor allocates one block
// per storage, as large as its largest value, once:
//
//   graph @g(x: f32[64]) attrs {storage = [["a", "c"], ["b"]]} {
//     a: f32[64] = call_tir @relu(x)     a: defined by binding 0, last read by 1
//     b: f32[64] = call_tir @exp(a)      b: 1 to 2
//     c: f32[64] = call_tir @relu(b)     c: 2 to 3; a is dead by then: c takes its storage
//     d: f32[64] = call_tir @exp(c)
//     return d
//   }
//
// Only intermediates are planned (binding outputs that are not results): the
// caller owns parameters and results. A value is live from the binding that
// defines it through the last binding that reads it, so a kernel never writes
// storage that one of its own arguments lives in.
#ifndef TESSEL_IR_GRAPH_MEMORY_PLAN_H_
#define TESSEL_IR_GRAPH_MEMORY_PLAN_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/graph_function.h"

namespace tessel::ir {

inline constexpr char kStorageAttr[] = "storage";

// Binding indices: the value is written by binding `def` and read up to `last_use`
// (== def when nothing reads it).
struct ValueLifetime {
  int def = 0;
  int last_use = 0;
};

// The lifetime of every intermediate of `g`: each value a kernel writes that is
// not a result (constants are the module's data, not intermediates).
absl::flat_hash_map<const BufferNode*, ValueLifetime> IntermediateLifetimes(const GraphFunc& g);

// The values of each storage, in definition order.
using MemoryPlan = std::vector<std::vector<Buffer>>;

// `plan` as the `storage` attribute's value.
AttrValue MemoryPlanAttr(const MemoryPlan& plan);

// The `storage` attribute of `g` as a plan (empty when `g` has none). Fails, naming
// the value, when the attribute is not a list of lists of names, names something
// that is not exactly one intermediate, lists a value twice, or puts two values
// whose lifetimes overlap in one storage.
absl::StatusOr<MemoryPlan> ReadMemoryPlan(const GraphFunc& g);

}  // namespace tessel::ir

#endif  // TESSEL_IR_GRAPH_MEMORY_PLAN_H_
