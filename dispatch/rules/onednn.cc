// onednn: every library op oneDNN serves, found stage by stage in one function
// (a convolution first, then a matmul, each with its epilogue as post-ops, then
// a softmax).
//
//   conv2d_pad, conv2d, bias, relu, then dense + bias + gelu, then softmax
//     -> @tessel_onednn_conv2d(...): packed; @tessel_onednn_matmul(...): packed;
//        @tessel_onednn_softmax(...): packed
#include "dispatch/rules/onednn_sites.h"

namespace tessel::dispatch {
namespace {

absl::StatusOr<DispatchResult> Match(const ir::PrimFunc& func, const std::string&) {
  static const SiteMatcher* conv = new SiteMatcher(OneDnnConv2dSites());
  static const SiteMatcher* matmul = new SiteMatcher(OneDnnMatmulSites());
  static const SiteMatcher* softmax = new SiteMatcher(OneDnnSoftmaxSites());
  return RewriteStages(func, "onednn",
                       [](const ir::PrimFunc& f, const StageList& list,
                          size_t s) -> std::variant<SiteRewrite, std::string> {
                         std::variant<SiteRewrite, std::string> c = (*conv)(f, list, s);
                         if (std::holds_alternative<SiteRewrite>(c)) return c;
                         std::variant<SiteRewrite, std::string> m = (*matmul)(f, list, s);
                         if (std::holds_alternative<SiteRewrite>(m)) return m;
                         std::variant<SiteRewrite, std::string> sm = (*softmax)(f, list, s);
                         if (std::holds_alternative<SiteRewrite>(sm)) return sm;
                         // A max reduction that is no softmax says why; otherwise the
                         // matmul's reason, unless the block reads a window (a convolution).
                         if (std::get<std::string>(sm).rfind("no max reduction", 0) != 0) return sm;
                         const std::string& cw = std::get<std::string>(c);
                         return cw == "no operand reads a window" ? m : c;
                       });
}

const DispatchRuleRegistrar kOneDnn(DispatchRule("onednn", {"llvm"}, 20, Match));

}  // namespace
}  // namespace tessel::dispatch
