// A copy of a statement in which everything the statement itself binds (loop
// and let variables, allocated and declared buffers) is a new object, so that
// the copy can sit beside the original in one function: the verifier wants each
// variable and buffer bound exactly once (ir/verifier.h).
//
//   for k in range(0, 4) { allocate t: f32[4] { t[k] = A[k] } }
//   FreshCopy(s, {{i, 2}})  ->  for k_1 in range(0, 4) { allocate t_1: f32[4] { t_1[k_1] = A[k_1] }
//   } (names are the printer's to disambiguate; what counts is that k_1 is a new Var)
//
// `replace` substitutes free variables at the same time (an unrolled loop's
// variable by its value in each copy).
//
// Blocks need new names too (a block's name is unique in its function): with
// `rename_block`, each block inside is copied under the name it returns, with
// new iter vars and new alloc_buffers; without it, a block is an error.
//
//   for i { block B(vi = i) { B[vi] = A[vi] } }
//   FreshCopy(s, {{i, 32 + i_1}}, [](auto& n) { return n + "_1"; })
//     ->  for i { block B_1(vi_1 = 32 + i_1) { B[vi_1] = A[vi_1] } }    (loop var i fresh too)
#ifndef TESSEL_IR_FRESH_COPY_H_
#define TESSEL_IR_FRESH_COPY_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "ir/stmt.h"
#include "ir/substitute.h"

namespace tessel::ir {

using RenameBlockFn = std::function<std::string(const std::string&)>;

absl::StatusOr<Stmt> FreshCopy(const Stmt& s, const VarMap& replace,
                               const RenameBlockFn& rename_block = nullptr);

}  // namespace tessel::ir

#endif  // TESSEL_IR_FRESH_COPY_H_
