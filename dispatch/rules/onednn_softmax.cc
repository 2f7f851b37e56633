// The softmax part of the onednn rule: softmax and log-softmax along any axis of
// an f32 tensor of up to 6 dimensions, in any layout (by strides), through
// tessel_onednn_softmax (dispatch/runtime/onednn_softmax_shim.cc).
//
//   M = max_k X; E = exp(X - M); S = sum_k E; Y = E / S       (X, Y: f32[128, 1000])
//     -> @tessel_onednn_softmax(2, 1, 0, 128, 1000, 1, 1, 1, 1,   ndim, axis, softmax, dims
//                               address_of(X[0, 0]), 1000, 1, 0, 0, 0, 0,
//                               address_of(Y[0, 0]), 1000, 1, 0, 0, 0, 0): packed
#include "absl/strings/str_cat.h"
#include "dispatch/rules/onednn_sites.h"
#include "dispatch/softmax.h"

namespace tessel::dispatch {
namespace {

constexpr int kMaxDims = 6;

std::variant<SiteRewrite, std::string> Site(const ir::PrimFunc& func, const StageList& list,
                                            size_t s) {
  std::variant<Softmax, std::string> m = MatchSoftmax(func, list, s);
  if (auto* why = std::get_if<std::string>(&m)) return *why;
  const Softmax& sm = std::get<Softmax>(m);
  std::variant<std::vector<int64_t>, std::string> src = ElementStrides(sm.src);
  if (auto* why = std::get_if<std::string>(&src)) return *why;
  std::variant<std::vector<int64_t>, std::string> dst = ElementStrides(sm.dst);
  if (auto* why = std::get_if<std::string>(&dst)) return *why;
  std::vector<ir::Expr> args = {I64(static_cast<int64_t>(sm.dims.size())), I64(sm.axis),
                                I64(sm.log ? 1 : 0)};
  auto padded = [&](const std::vector<int64_t>& v, int64_t fill) {
    for (int d = 0; d < kMaxDims; ++d) {
      args.push_back(I64(d < static_cast<int>(v.size()) ? v[d] : fill));
    }
  };
  padded(sm.dims, 1);
  args.push_back(ir::AddressOf(sm.src));
  padded(std::get<std::vector<int64_t>>(src), 0);
  args.push_back(ir::AddressOf(sm.dst));
  padded(std::get<std::vector<int64_t>>(dst), 0);
  std::variant<ir::Stmt, std::string> call =
      PackedCallStmt("tessel_onednn_softmax", std::move(args));
  if (auto* why = std::get_if<std::string>(&call)) return *why;
  SiteRewrite r{std::get<ir::Stmt>(call),
                std::vector<size_t>(sm.stages.begin() + 1, sm.stages.end()), sm.dropped, ""};
  r.summary = absl::StrCat("block '", list.stages[s].block->name, "' (", sm.ToString(), ")");
  return r;
}

}  // namespace

SiteMatcher OneDnnSoftmaxSites() { return Site; }

}  // namespace tessel::dispatch
