// The driver the matmul-shaped rules share: find every contraction stage of a
// function, chain the elementwise stages after it that a library can apply as
// post-ops, let the rule emit one call per site, and rebuild the function around
// the calls. What no rule takes stays tessel code over the call's output
// (partial dispatch), so it can still be scheduled, tuned or fused.
//
//   up = X W1^T; up_bias = up + b1; gelu = GELU(up_bias); down = gelu W2^T; ...
//   onednn: stage `up` + add(b1), gelu_erf -> one call writing `gelu`;
//           stage `down` + add(b2)        -> one call writing `down_bias`
//
// An intermediate is absorbed only when nothing else reads it: not a parameter
// (the caller would see it unwritten), not read by any other stage. Otherwise the
// chain stops there and the log says why.
#ifndef TESSEL_DISPATCH_MATMUL_REWRITE_H_
#define TESSEL_DISPATCH_MATMUL_REWRITE_H_

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "dispatch/contraction.h"
#include "dispatch/dispatch_rule.h"
#include "dispatch/epilogue.h"

namespace tessel::dispatch {

struct MatmulSite {
  Contraction c;
  std::vector<EpilogueOp> epilogue = {};  // Absorbed, in order.
  MatrixView out = {};                    // What the call writes: C, or the last epilogue's output.
};

struct MatmulRewriteOptions {
  std::string library;  // For the `dispatched` attribute and the log: "onednn".
  int max_epilogue = 0;
  // "" when the library takes the contraction, else why not.
  std::function<std::string(const Contraction&)> check;
  // The call statement for a site, or why the library cannot take it.
  std::function<std::variant<ir::Stmt, std::string>(const MatmulSite&)> build;
};

absl::StatusOr<DispatchResult> RewriteMatmuls(const ir::PrimFunc& func,
                                              const MatmulRewriteOptions& options);

// Helpers for building packed calls.
ir::Expr I64(int64_t v);
ir::Expr F32Bits(float v);  // An f32 immediate: packed by its bits.
// `@name(args): packed` as a statement.
std::variant<ir::Stmt, std::string> PackedCallStmt(const std::string& name,
                                                   std::vector<ir::Expr> args);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_MATMUL_REWRITE_H_
