// The matmul sites of a dispatch rule (dispatch/site_rewrite.h drives them):
// a contraction stage (dispatch/contraction.h), its epilogue chain, and the
// rule's `build` emitting the library call for the site.
//
//   C = A B^T; D = C + bias; Y = gelu(D)  ->  MatmulSite{c: batch 1, M x N x K,
//                                                       epilogue [add(bias), gelu_erf],
//                                                       out: Y}
#ifndef TESSEL_DISPATCH_MATMUL_REWRITE_H_
#define TESSEL_DISPATCH_MATMUL_REWRITE_H_

#include <array>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "dispatch/contraction.h"
#include "dispatch/site_rewrite.h"

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

// The 16 arguments of a BLAS-style gemm call for a site (tessel_blas_gemm's and
// tessel_cublas_gemm's layout): dtype bits, batch, M, N, K, then A, B (each an
// address and its batch, row and column strides) and C (its address, batch and row
// strides), strides in elements.
std::vector<ir::Expr> GemmCallArgs(const MatmulSite& s);

// The matmul sites of `options` (contraction + epilogue chain + options.build).
SiteMatcher MatmulSites(MatmulRewriteOptions options);

absl::StatusOr<DispatchResult> RewriteMatmuls(const ir::PrimFunc& func,
                                              const MatmulRewriteOptions& options);

// (batch, M, N) strides of a buffer shaped like C from its strides per dimension
// (several batch dimensions fold into one where they are laid out as one).
std::variant<std::array<int64_t, 3>, std::string> RoleStridesOfOutput(
    const Contraction& c, const std::vector<int64_t>& strides);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_MATMUL_REWRITE_H_
