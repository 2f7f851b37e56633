// The layer-norm part of the onednn rule: layer normalisation over the last axis
// of an f32 tensor of 2 to 6 dimensions, with gamma and beta each optional, through
// tessel_onednn_layer_norm (dispatch/runtime/onednn_layer_norm_shim.cc). oneDNN
// writes in its source's layout, so the output must have the input's strides.
//
//   ops.layer_norm(X: f32[128, 768], G, B)
//     -> @tessel_onednn_layer_norm(2, 3, eps, 128, 768, 1, 1, 1, 1,     ndim, scale|shift, eps,
//     dims
//                                  address_of(X[0, 0]), 768, 1, 0, 0, 0, 0,
//                                  address_of(Y[0, 0]), address_of(G[0]), address_of(B[0])): packed
#include "absl/strings/str_cat.h"
#include "dispatch/layer_norm.h"
#include "dispatch/rules/onednn_sites.h"

namespace tessel::dispatch {
namespace {

constexpr int kMaxDims = 6;

std::variant<SiteRewrite, std::string> Site(const ir::PrimFunc& func, const StageList& list,
                                            size_t s) {
  std::variant<LayerNorm, std::string> m = MatchLayerNorm(func, list, s);
  if (auto* why = std::get_if<std::string>(&m)) return *why;
  const LayerNorm& ln = std::get<LayerNorm>(m);
  std::variant<std::vector<int64_t>, std::string> src = ElementStrides(ln.src);
  if (auto* why = std::get_if<std::string>(&src)) return *why;
  std::variant<std::vector<int64_t>, std::string> dst = ElementStrides(ln.dst);
  if (auto* why = std::get_if<std::string>(&dst)) return *why;
  if (std::get<std::vector<int64_t>>(src) != std::get<std::vector<int64_t>>(dst)) {
    return absl::StrCat("'", ln.dst->name, "' is laid out unlike '", ln.src->name,
                        "' (oneDNN's layer norm writes in its source's layout)");
  }
  for (const ir::Buffer& v : {ln.gamma, ln.beta}) {
    if (!v) continue;
    std::variant<std::vector<int64_t>, std::string> vs = ElementStrides(v);
    if (auto* why = std::get_if<std::string>(&vs)) return *why;
    if (std::get<std::vector<int64_t>>(vs) != std::vector<int64_t>{1}) {
      return absl::StrCat("'", v->name, "' is not a dense vector");
    }
  }
  const int64_t flags = (ln.gamma ? 1 : 0) | (ln.beta ? 2 : 0);
  std::vector<ir::Expr> args = {I64(static_cast<int64_t>(ln.dims.size())), I64(flags),
                                F32Bits(ln.eps)};
  for (int d = 0; d < kMaxDims; ++d) {
    args.push_back(I64(d < static_cast<int>(ln.dims.size()) ? ln.dims[d] : 1));
  }
  args.push_back(ir::AddressOf(ln.src));
  const std::vector<int64_t>& strides = std::get<std::vector<int64_t>>(src);
  for (int d = 0; d < kMaxDims; ++d) {
    args.push_back(I64(d < static_cast<int>(strides.size()) ? strides[d] : 0));
  }
  args.push_back(ir::AddressOf(ln.dst));
  args.push_back(ln.gamma ? ir::AddressOf(ln.gamma) : I64(0));
  args.push_back(ln.beta ? ir::AddressOf(ln.beta) : I64(0));
  std::variant<ir::Stmt, std::string> call =
      PackedCallStmt("tessel_onednn_layer_norm", std::move(args));
  if (auto* why = std::get_if<std::string>(&call)) return *why;
  SiteRewrite r{std::get<ir::Stmt>(call),
                std::vector<size_t>(ln.stages.begin() + 1, ln.stages.end()), ln.dropped, ""};
  r.summary = absl::StrCat("block '", list.stages[s].block->name, "' (", ln.ToString(), ")");
  return r;
}

}  // namespace

SiteMatcher OneDnnLayerNormSites() { return Site; }

}  // namespace tessel::dispatch
