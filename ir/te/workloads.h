// Named workloads: the standard programs tests, benchmarks and tuning refer to
// by name, each built with the op library, with its FLOP and byte counts for
// roofline figures.
//
//   const Workload* w = FindWorkload("matmul_1024x1024x1024_f32");
//   absl::StatusOr<IRModule> m = w->build();        // one function, named like the workload
//   double intensity = w->flops / w->bytes;        // 2 * 1024^3 / (3 * 4 * 1024^2)
//
// Counting conventions (docs/te.md): a multiply-accumulate is 2 FLOPs; every other
// arithmetic operation, comparison or math intrinsic (exp, erf, rsqrt ...) on an
// element is 1. `bytes` is the compulsory traffic: every parameter buffer read or
// written once (intermediates assumed to stay in cache).
//
// The names say the shapes: matmul_MxNxK_dtype, gemv_MxK, softmax_RxC,
// layernorm_RxC, bert_ffn_TOKENSxFFNxHIDDEN, attention_BxHxSxD. The small ones
// (e.g. matmul_64x64x64_f32) are for tests that run the interpreter; the large
// ones are only built and printed there.
#ifndef TESSEL_IR_TE_WORKLOADS_H_
#define TESSEL_IR_TE_WORKLOADS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"

namespace tessel::ir::te {

struct Workload {
  std::string name;
  std::string description;  // One line: the math and the shapes.
  double flops;
  double bytes;
  bool small;  // Cheap enough to run in the reference interpreter in a test.
  std::function<absl::StatusOr<IRModule>()> build;
};

// Every workload, in a fixed order.
const std::vector<Workload>& AllWorkloads();
// Null when there is none of that name.
const Workload* FindWorkload(const std::string& name);
// FindWorkload + build, with an error listing the names when there is none.
absl::StatusOr<IRModule> BuildWorkload(const std::string& name);

// The compulsory bytes of a function: the sizes of its buffer parameters (their
// shapes must be constant).
absl::StatusOr<double> ParamBytes(const PrimFunc& func);

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_WORKLOADS_H_
