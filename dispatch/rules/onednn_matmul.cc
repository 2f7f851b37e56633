// The matmul part of the onednn rule: matmul, batch_matmul and dense (any transposition expressed
// by strides, a broadcast batch) with their epilogue as oneDNN post-ops, through
// tessel_onednn_matmul (dispatch/runtime/onednn_shims.cc). f32 only.
//
//   for i, j, k: up[i, j] += X[i, k] * W1[j, k]
//   for i, j: up_bias[i, j] = up[i, j] + b1[j]
//   for i, j: gelu[i, j] = 0.5 * up_bias[i, j] * (1 + erf(up_bias[i, j] * 0.70710677))
//     ->
//   @tessel_onednn_matmul(1, 128, 3072, 768,                   batch, M, N, K
//                         address_of(X[0, 0]), 0, 768, 1,       A and its strides
//                         address_of(W1[0, 0]), 0, 1, 768,      B: W1 read transposed
//                         address_of(gelu[0, 0]), 0, 3072, 1,   the output
//                         2, 10, 0.0, 0.0, address_of(b1[0]), 0, 0, 1,   add(b1)
//                            1, 0.0, 0.0, 0, 0, 0, 0): packed            gelu_erf
#include "absl/strings/str_cat.h"
#include "dispatch/rules/onednn_sites.h"

namespace tessel::dispatch {
namespace {

constexpr int kMaxPostOps = 8;  // The shim's limit.

std::string Check(const Contraction& c) {
  if (c.dtype != ir::DataType::Float(32)) {
    return absl::StrCat("dtype ", c.dtype.ToString(), " (the oneDNN rule takes f32)");
  }
  return "";
}

std::variant<ir::Stmt, std::string> Build(const MatmulSite& s) {
  const Contraction& c = s.c;
  std::vector<ir::Expr> args = {I64(c.batch), I64(c.m), I64(c.n), I64(c.k)};
  auto view = [&](const MatrixView& v) {
    args.push_back(ir::AddressOf(v.buffer));
    args.push_back(I64(v.batch_stride));
    args.push_back(I64(v.row_stride));
    args.push_back(I64(v.col_stride));
  };
  view(c.a);
  view(c.b);
  view(s.out);
  args.push_back(I64(static_cast<int64_t>(s.epilogue.size())));
  for (const EpilogueOp& e : s.epilogue) {
    args.push_back(I64(static_cast<int64_t>(e.kind)));
    args.push_back(F32Bits(e.alpha));
    args.push_back(F32Bits(e.beta));
    args.push_back(e.operand ? ir::AddressOf(e.operand) : I64(0));
    std::variant<std::array<int64_t, 3>, std::string> roles = RoleStridesOfOutput(c, e.out_strides);
    if (auto* why = std::get_if<std::string>(&roles)) {
      return absl::StrCat("operand '", e.operand ? e.operand->name : "", "': ", *why);
    }
    for (int64_t st : std::get<std::array<int64_t, 3>>(roles)) args.push_back(I64(st));
  }
  return PackedCallStmt("tessel_onednn_matmul", std::move(args));
}

}  // namespace

SiteMatcher OneDnnMatmulSites() {
  return MatmulSites(
      {.library = "onednn", .max_epilogue = kMaxPostOps, .check = Check, .build = Build});
}

}  // namespace tessel::dispatch
