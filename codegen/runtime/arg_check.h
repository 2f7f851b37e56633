// Checking a call's DLTensor arguments against a signature and packing them into
// the array a compiled kernel receives (see TesselPackedFunc in tessel_runtime.h).
// Written once: the C API (tessel_module_call) and the C++ Module both call it.
//
//   scale(A: f32[n], s: f32) called with A = f32 tensor of shape [7], s = 0-d f32 tensor:
//     PackArguments(sig, args, 2, &packed) == ""
//     packed.values = {A (the DLTensor*), &<copy of s's value>}
//   called with A of dtype i32:
//     "scale(A: f32[n], s: f32): argument 0 (A): expected dtype f32, given i32"
//
// A scalar parameter is passed as a 0-d DLTensor of the parameter's dtype; integer
// scalars reach the kernel widened to int64_t, others as their own C type. A buffer
// reaches it as the caller's DLTensor*, which must outlive the call.
#ifndef TESSEL_CODEGEN_RUNTIME_ARG_CHECK_H_
#define TESSEL_CODEGEN_RUNTIME_ARG_CHECK_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_runtime.h"

namespace tessel::runtime {

inline constexpr int64_t kArgumentAlignment = 64;

struct PackedArgs {
  std::vector<void*> values;      // One per parameter, what tessel_packed_<name> receives.
  std::vector<uint64_t> scalars;  // Storage the scalar entries of `values` point into.
  int32_t size() const { return static_cast<int32_t>(values.size()); }
};

// Checks count, non-null tensors, device (scalars on the CPU, buffers on
// `buffers_on`: the CPU for compiled CPU code, cuda:0 for a GPU call on device
// arrays), dtype, rank, shape (constants and
// consistent symbolic extents), strides (NULL or compact row-major; the stride of an
// extent-1 dimension is free), 64-byte alignment of data + byte_offset, non-null
// data for non-empty buffers, and that no buffer the function writes shares memory
// with another buffer argument (CheckWrittenDisjoint). Returns "" and fills `out` when every
// argument fits; otherwise the message names the function, the argument and expected vs given, and
// `out` is untouched. Reads only the DLTensor fields it documents: pointers in them must be valid
// (NULL is reported, not followed).
std::string PackArguments(const FunctionSignature& sig, DLTensor* const* args, int32_t num_args,
                          PackedArgs* out, DLDevice buffers_on = DLDevice{kDLCPU, 0});

// The bytes one argument spans, [begin, end); empty (begin == end) for a scalar or an
// empty buffer.
struct ByteRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};
// "" when no buffer the function writes (ParamSignature::written) overlaps another
// buffer argument; otherwise a message naming both (`mm(A, B, A)`: "argument 2 (C)
// shares memory with argument 0 (A); ..."). `ranges` holds one entry per parameter.
// Reading an input that an output overwrites mid-call gives results that depend on
// the schedule and on alignment, so such calls are refused rather than run.
std::string CheckWrittenDisjoint(const FunctionSignature& sig, const std::vector<ByteRange>& ranges);

// PackArguments, then `packed` on the packed arguments. The message is the check's,
// or "<name>: " and the kernel's last error when it returned non-zero.
struct CallOutcome {
  enum Kind { kOk, kBadArgument, kKernelFailed };
  Kind kind = kOk;
  std::string message;
};
CallOutcome CheckAndCall(const FunctionSignature& sig, TesselPackedFunc packed,
                         DLTensor* const* args, int32_t num_args);

// "cpu:0", "cuda:1", ... for messages.
std::string DescribeDevice(DLDevice device);

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_ARG_CHECK_H_
