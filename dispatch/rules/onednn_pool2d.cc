// The pooling part of the onednn rule: 2-D max pooling and average pooling
// (padding included or excluded) with stride, dilation and padding, in any layout
// (by strides), through tessel_onednn_pool2d (dispatch/runtime/onednn_pool_shim.cc).
//
//   ops.max_pool2d(X: f32[1, 64, 112, 112], 3, 2, 1)
//     -> @tessel_onednn_pool2d(0, 1, 64, 112, 112, 56, 56,    max, N C H W, OH OW
//                              3, 3, 2, 2, 1, 1, 1, 1, 0, 0,    kernel, strides, dilations, pads
//                              address_of(X[0, 0, 0, 0]), 802816, 12544, 112, 1,
//                              address_of(P[0, 0, 0, 0]), 200704, 3136, 56, 1): packed
#include "absl/strings/str_cat.h"
#include "dispatch/pooling.h"
#include "dispatch/rules/onednn_sites.h"

namespace tessel::dispatch {
namespace {

std::variant<SiteRewrite, std::string> Site(const ir::PrimFunc& func, const StageList& list,
                                            size_t s) {
  std::variant<Pool2d, std::string> m = MatchPool2d(func, list, s);
  if (auto* why = std::get_if<std::string>(&m)) return *why;
  const Pool2d& p = std::get<Pool2d>(m);
  std::vector<ir::Expr> args = {I64(p.kind)};
  for (int64_t v : p.in) args.push_back(I64(v));
  for (int k = 2; k < 4; ++k) args.push_back(I64(p.out[k]));
  for (const auto& pair : {p.kernel, p.stride, p.dilation, p.pad_lo, p.pad_hi}) {
    for (int64_t v : pair) args.push_back(I64(v));
  }
  args.push_back(ir::AddressOf(p.src));
  for (int64_t v : p.src_strides) args.push_back(I64(v));
  args.push_back(ir::AddressOf(p.dst));
  for (int64_t v : p.dst_strides) args.push_back(I64(v));
  std::variant<ir::Stmt, std::string> call =
      PackedCallStmt("tessel_onednn_pool2d", std::move(args));
  if (auto* why = std::get_if<std::string>(&call)) return *why;
  SiteRewrite r{std::get<ir::Stmt>(call), std::vector<size_t>(p.stages.begin() + 1, p.stages.end()),
                p.dropped, ""};
  r.summary = absl::StrCat("block '", list.stages[s].block->name, "' (", p.ToString(), ")");
  return r;
}

}  // namespace

SiteMatcher OneDnnPool2dSites() { return Site; }

}  // namespace tessel::dispatch
