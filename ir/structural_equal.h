// Structural equality: alpha-equivalence of IR (DESIGN.md decision 3).
//
//   for i in 0..n { A[i] = 0 }   equals   for k in 0..n { A[k] = 0 }
//
// Variables and buffers compare by where they are bound (a loop, a let, a block
// iter var, a parameter, an allocation), not by name or address. Free variables
// (used but not bound inside what is compared) are equal only to themselves,
// unless `map_free_vars` is set, in which case they are matched up on first use.
// Names of blocks and functions, attrs and annotations are compared; names of
// variables and buffers are not.
#ifndef TESSEL_IR_STRUCTURAL_EQUAL_H_
#define TESSEL_IR_STRUCTURAL_EQUAL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/function.h"

namespace tessel::ir {

struct StructuralEqualOptions {
  bool map_free_vars = false;
};

bool StructuralEqual(const IRModule& a, const IRModule& b, StructuralEqualOptions opts = {});
bool StructuralEqual(const PrimFunc& a, const PrimFunc& b, StructuralEqualOptions opts = {});
bool StructuralEqual(const Stmt& a, const Stmt& b, StructuralEqualOptions opts = {});
bool StructuralEqual(const Expr& a, const Expr& b, StructuralEqualOptions opts = {});
// Element by element, e.g. a store's and a load's indices: C[vi, vj] read where it is written.
bool StructuralEqual(const std::vector<Expr>& a, const std::vector<Expr>& b,
                     StructuralEqualOptions opts = {});

// OK when equal; otherwise an error naming the first mismatch as a path from the
// root plus both sides as text, e.g.
//   "mismatch at func[matmul].body.body.body.block[C].init.value: 0.0f32 vs 1.0f32"
absl::Status AssertStructuralEqual(const IRModule& a, const IRModule& b, StructuralEqualOptions opts = {});
absl::Status AssertStructuralEqual(const PrimFunc& a, const PrimFunc& b, StructuralEqualOptions opts = {});
absl::Status AssertStructuralEqual(const Stmt& a, const Stmt& b, StructuralEqualOptions opts = {});
absl::Status AssertStructuralEqual(const Expr& a, const Expr& b, StructuralEqualOptions opts = {});

}  // namespace tessel::ir

#endif  // TESSEL_IR_STRUCTURAL_EQUAL_H_
