// A graph function of a GPU program: its GraphProgram (graph_program.h) run by a
// GraphRunner whose storage and constants are device memory of the CUDA driver
// (tessel_cuda.h) and whose kernels are the program's functions, each a whole
// CudaProgram::Call on device tensors.
//
//   graph @ffn(x: f32[n, 768], ...) {                 CudaProgram p (its PrimFuncs' kernels)
//     h: f32[n, 3072] = call_tir @fused_dense_gelu(x, w1, b1)
//     y: f32[n, 768] = call_tir @dense(h, w2)        GraphRunner r;
//     return y                                        CreateCudaGraphRunner(&p, graph, &r);
//   }                                                 r.Run(args, 5);   // tensors on cuda:0
//
// Intermediates live in device storage sized per call; constants (bound weights) are
// uploaded on the first call and kept; nothing is copied between the host and the
// device during a call. Without a driver the first call fails with the runtime's one
// message and nothing else happens.
#ifndef TESSEL_CODEGEN_RUNTIME_CUDA_GRAPH_H_
#define TESSEL_CODEGEN_RUNTIME_CUDA_GRAPH_H_

#include <string>

#include "codegen/runtime/cuda_program.h"
#include "codegen/runtime/graph_runner.h"

namespace tessel::runtime {

// Device memory of cuda:0 through the driver; the driver is initialised on the
// first allocation.
GraphMemory CudaGraphMemory();

// "" and `*out` a runner of `graph`, whose kernel k calls the function of
// `program` named k.function, or why not (a function the program lacks, or one
// that does not fit the call). `program` must outlive the runner.
std::string CreateCudaGraphRunner(const CudaProgram* program, GraphProgram graph, GraphRunner* out);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_CUDA_GRAPH_H_
