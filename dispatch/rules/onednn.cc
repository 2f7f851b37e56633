// onednn: every library op oneDNN serves, found stage by stage in one function:
// a convolution or a matmul, each with its epilogue as post-ops, a softmax or
// log-softmax, a layer normalisation, a 2-D max or average pooling.
//
//   conv2d_pad, conv2d, bias, relu, then dense + bias + gelu, then softmax
//     -> @tessel_onednn_conv2d(...): packed; @tessel_onednn_matmul(...): packed;
//        @tessel_onednn_softmax(...): packed
#include "dispatch/rules/onednn_sites.h"

namespace tessel::dispatch {
namespace {

std::variant<SiteRewrite, std::string> Site(const ir::PrimFunc& f, const StageList& list,
                                            size_t s) {
  static const SiteMatcher* conv = new SiteMatcher(OneDnnConv2dSites());
  static const SiteMatcher* matmul = new SiteMatcher(OneDnnMatmulSites());
  static const SiteMatcher* softmax = new SiteMatcher(OneDnnSoftmaxSites());
  static const SiteMatcher* layer_norm = new SiteMatcher(OneDnnLayerNormSites());
  static const SiteMatcher* pool = new SiteMatcher(OneDnnPool2dSites());
  std::variant<SiteRewrite, std::string> c = (*conv)(f, list, s);
  if (std::holds_alternative<SiteRewrite>(c)) return c;
  std::variant<SiteRewrite, std::string> m = (*matmul)(f, list, s);
  if (std::holds_alternative<SiteRewrite>(m)) return m;
  std::variant<SiteRewrite, std::string> sm = (*softmax)(f, list, s);
  if (std::holds_alternative<SiteRewrite>(sm)) return sm;
  std::variant<SiteRewrite, std::string> ln = (*layer_norm)(f, list, s);
  if (std::holds_alternative<SiteRewrite>(ln)) return ln;
  std::variant<SiteRewrite, std::string> pl = (*pool)(f, list, s);
  if (std::holds_alternative<SiteRewrite>(pl)) return pl;
  // The reason of the op the block looks like: a window reduction that is no
  // pooling, a max reduction that is no softmax, row sums that are no layer norm,
  // else the matmul's (a convolution's when the block reads a window).
  if (std::get<std::string>(pl).rfind("not a reduction over a 2-D window", 0) != 0 &&
      std::get<std::string>(pl).rfind("not a max or sum", 0) != 0) {
    return pl;
  }
  if (std::get<std::string>(sm).rfind("no max reduction", 0) != 0) return sm;
  const std::string& lw = std::get<std::string>(ln);
  if (lw.rfind("no row sums", 0) != 0 && lw.rfind("no sums of both", 0) != 0) return ln;
  const std::string& cw = std::get<std::string>(c);
  return cw == "no operand reads a window" ? m : c;
}

absl::StatusOr<DispatchResult> Match(const ir::PrimFunc& func, const std::string&) {
  return RewriteStages(func, "onednn", Site);
}

const DispatchRuleRegistrar kOneDnn(DispatchRule("onednn", {"llvm"}, 20, Match));

}  // namespace
}  // namespace tessel::dispatch
