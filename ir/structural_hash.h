// Structural hash, consistent with StructuralEqual: equal IR hashes equal.
//
//   uint64_t h = StructuralHash(func);          // same on every platform and process
//
// The hash is a fixed, documented 64-bit algorithm (kStructuralHashVersion below;
// its definition is in structural_hash.cc and docs/tsl.md), independent of
// addresses, names of variables and buffers, and the process, so it can key the
// tuning database. Bump the version whenever the algorithm or the IR changes.
#ifndef TESSEL_IR_STRUCTURAL_HASH_H_
#define TESSEL_IR_STRUCTURAL_HASH_H_

#include <cstdint>

#include "ir/function.h"

namespace tessel::ir {

inline constexpr int kStructuralHashVersion = 1;

// With `map_free_vars`, free variables hash by order of first use (matching
// StructuralEqual's option); without, by name and dtype.
uint64_t StructuralHash(const IRModule& mod, bool map_free_vars = false);
uint64_t StructuralHash(const PrimFunc& func, bool map_free_vars = false);
uint64_t StructuralHash(const Stmt& stmt, bool map_free_vars = false);
uint64_t StructuralHash(const Expr& expr, bool map_free_vars = false);

}  // namespace tessel::ir

#endif  // TESSEL_IR_STRUCTURAL_HASH_H_
