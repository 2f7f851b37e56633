// The reference run of graph functions: each binding in order, operators through
// their legalized PrimFunc, call_tir through the PrimFunc of the module, every
// kernel on the PrimFunc interpreter (ir/interpreter.h). The oracle for the graph
// passes: `legalize`, `fuse-ops`, `fuse-tir` and `plan-memory` must keep what it
// computes.
//
//   absl::StatusOr<std::vector<HostBuffer>> y = RunGraph(mod, "main", {x, w});
//   // a wrong input: "graph function 'main': input 1 ('w') is f32[16, 8];
//   //   the parameter is f32[16, 4]"
#ifndef TESSEL_IR_GRAPH_INTERPRETER_H_
#define TESSEL_IR_GRAPH_INTERPRETER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/host_buffer.h"
#include "ir/interpreter.h"

namespace tessel::ir::graph {

// Runs graph function `name` of `mod` on one buffer per parameter; returns one
// buffer per result. Inputs are never written.
absl::StatusOr<std::vector<HostBuffer>> RunGraph(const IRModule& mod, const std::string& name,
                                                 const std::vector<HostBuffer>& inputs,
                                                 RunOptions opts = {});

// One seeded random buffer per parameter, as RandomArgs draws them; shape
// variables named in `symbolic_values` take those values.
absl::StatusOr<std::vector<HostBuffer>> RandomGraphInputs(
    const GraphFunc& func, uint64_t seed,
    const std::vector<std::pair<std::string, int64_t>>& symbolic_values = {});

// OK when `got` equals `want` result by result, within CompareArgs's tolerance;
// otherwise names the result and the first differing index.
absl::Status CompareGraphResults(const std::vector<HostBuffer>& want,
                                 const std::vector<HostBuffer>& got, const GraphFunc& func,
                                 CompareOptions opts = {});

// Runs graph function `name` of both modules on the same random inputs and
// compares the results: the differential test of every graph pass.
absl::Status CheckSameGraphResults(const IRModule& a, const IRModule& b, const std::string& name,
                                   uint64_t seed, CompareOptions opts = {}, RunOptions run = {});

}  // namespace tessel::ir::graph

#endif  // TESSEL_IR_GRAPH_INTERPRETER_H_
