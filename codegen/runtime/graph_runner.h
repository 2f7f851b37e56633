// GraphRunner: a GraphProgram (graph_program.h) with its kernels resolved to entry
// points, run call after call over storage it keeps between calls.
//
//   GraphRunner r;
//   std::string why = GraphRunner::Create(program, resolve, &r);   // kernels by symbol
//   std::vector<std::vector<int64_t>> shapes;
//   r.ResultShapes(inputs, 1, &shapes);        // what the caller allocates
//   CallOutcome o = r.Run(args, 2);            // inputs, then results
//
// Its storage and constants live in a GraphMemory: host memory, or a device's (a
// GPU program's graph functions, cuda_graph.h), whose calls take tensors on that
// device and whose kernels are whole calls (Kernel::call) rather than packed entry
// points.
#ifndef TESSEL_CODEGEN_RUNTIME_GRAPH_RUNNER_H_
#define TESSEL_CODEGEN_RUNTIME_GRAPH_RUNNER_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/graph_program.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_runtime.h"

namespace tessel::runtime {

// Where a runner keeps its storage and constants.
struct GraphMemory {
  DLDevice device{kDLCPU, 0};
  // `bytes` (64-byte aligned), or NULL with the reason in `*error`.
  std::function<void*(size_t bytes, std::string* error)> alloc;
  std::function<void(void* p)> free;
  // Copies `bytes` from host memory into this memory (a constant, on the first call):
  // "" or why not. Unset for host memory, where constants are used in place.
  std::function<std::string(void* dst, const void* host_src, size_t bytes)> upload;
  // Copies `bytes` within this memory (a result that is an input, a constant or a
  // value returned twice): "" or why not.
  std::function<std::string(void* dst, const void* src, size_t bytes)> copy;

  // std::aligned_alloc, std::free and std::memmove.
  static GraphMemory Host();
};

// A program's kernels resolved to entry points, and the storage of its last call.
class GraphRunner {
 public:
  struct Kernel {
    const FunctionSignature* signature = nullptr;
    TesselPackedFunc packed = nullptr;
    int32_t num_threads = 0;  // Threads of its parallel loops (0: the process's setting).
    std::string cannot_run;   // Non-empty: why this process may not call it (Run refuses).
    // Set instead of `packed`: the whole call, argument checks included (a GPU
    // program's function, CudaProgram::Call).
    std::function<CallOutcome(DLTensor* const* args, int32_t num_args)> call;
  };
  using Resolve = std::function<std::string(const std::string& function, Kernel* out)>;

  // "" and `*out` set, or why not: an invalid program, a kernel `resolve` refuses, or
  // one whose signature does not fit the graph's call (another argument count, or a
  // kernel that may write an argument the graph only reads: an input or a value a
  // later kernel still needs).
  // `memory` says where the storage and the constants live, and so where a call's
  // tensors must be.
  static std::string Create(GraphProgram program, const Resolve& resolve, GraphRunner* out,
                            GraphMemory memory = GraphMemory::Host());

  const GraphProgram& program() const { return program_; }
  const FunctionSignature& call_signature() const { return call_signature_; }
  // Its inputs' part: what a caller passes before the results.
  const FunctionSignature& input_signature() const { return input_signature_; }

  // Checks `args` (inputs then results, as call_signature() says), runs the kernels
  // and writes the results. kBadArgument when an argument is refused or its shapes
  // need more memory than there is (nothing ran); kKernelFailed when a kernel
  // failed or may not run here (the results may be partly written). Calls on one
  // runner are serialized. With `kernel_seconds`, each kernel's wall time, in order.
  CallOutcome Run(DLTensor* const* args, int32_t num_args,
                  std::vector<double>* kernel_seconds = nullptr) const;

  // The result shapes a call on `inputs` (checked as Run checks them) takes: what a
  // caller allocates before Run. "" or the message.
  // The inputs are checked as tensors on `inputs_on` (default: where the runner's
  // memory is), so that a caller may check host inputs before moving them there.
  std::string ResultShapes(DLTensor* const* inputs, int32_t num_inputs,
                           std::vector<std::vector<int64_t>>* out,
                           const DLDevice* inputs_on = nullptr) const;

  // The shapes (by value) and storage bytes of the last call, read at once.
  struct LastCall {
    std::vector<std::vector<int64_t>> shapes;  // Empty before a call.
    int64_t planned_bytes = 0, unplanned_bytes = 0;
  };
  LastCall last_call() const;

  GraphRunner() = default;
  GraphRunner(GraphRunner&& other) noexcept;
  GraphRunner& operator=(GraphRunner&& other) noexcept;
  ~GraphRunner();

 private:
  std::string Prepare(DLTensor* const* args) const;
  // The constants in `memory_`, copied there on the first call (host: in place).
  std::string PlaceConstantsInMemory() const;
  void FreeMemory();

  GraphProgram program_;
  FunctionSignature call_signature_;
  FunctionSignature input_signature_;  // The inputs' part of call_signature_.
  std::vector<Kernel> kernels_;
  mutable std::mutex mu_;
  mutable std::vector<std::vector<int64_t>> shapes_;  // By value, for the last call.
  mutable std::vector<void*> storage_;
  mutable std::vector<int64_t> storage_bytes_;
  mutable int64_t planned_ = 0, unplanned_ = 0;
  GraphMemory memory_ = GraphMemory::Host();
  mutable std::vector<void*> constants_;  // By value id; set once uploaded (not host).
};

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_GRAPH_RUNNER_H_
