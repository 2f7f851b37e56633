// The driver every dispatch rule that rewrites stages shares: offer each stage
// of a function to a site matcher (a matmul, a convolution, ...), chain the
// elementwise stages after a site that a library can apply as post-ops, and
// rebuild the function around the calls. What no matcher takes stays tessel
// code over the calls' outputs (partial dispatch), so it can still be scheduled,
// tuned or fused.
//
//   up = X W1^T; up_bias = up + b1; gelu = GELU(up_bias); down = gelu W2^T; ...
//   onednn: stage `up` + add(b1), gelu_erf -> one call writing `gelu`;
//           stage `down` + add(b2)        -> one call writing `down_bias`
//
// An intermediate is absorbed only when nothing else reads it: not a parameter
// (the caller would see it unwritten), not read by any other stage. Otherwise the
// chain stops there and the log says why.
#ifndef TESSEL_DISPATCH_SITE_REWRITE_H_
#define TESSEL_DISPATCH_SITE_REWRITE_H_

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "dispatch/dispatch_rule.h"
#include "dispatch/epilogue.h"
#include "dispatch/stages.h"

namespace tessel::dispatch {

// The elementwise stages after stage `s` (whose result is `result`) that apply as
// post-ops, at most `max_ops`: an intermediate is absorbed only when it is not a
// parameter and no stage outside the chain reads it.
struct EpilogueChain {
  std::vector<EpilogueOp> ops;
  std::vector<size_t> stages;  // The absorbed stages, in order.
  ir::Buffer out;              // What the last absorbed stage writes (`result` if none).
  std::string stop;            // Why the chain stopped, when a stage could have continued it.
};
EpilogueChain ChainEpilogue(const ir::PrimFunc& func, const StageList& list, size_t s,
                            const ir::Buffer& result, int max_ops);

// One library call found at stage s: the call, the stages it absorbs (after s,
// or a pad stage before it), the allocations that go with them, the log text.
struct SiteRewrite {
  ir::Stmt call;
  std::vector<size_t> absorbed;
  std::vector<const ir::BufferNode*> dropped;
  std::string summary;
};
using SiteMatcher = std::function<std::variant<SiteRewrite, std::string>(
    const ir::PrimFunc& func, const StageList& list, size_t s)>;

// Offers every stage not yet taken to `match`, in order, and rebuilds the
// function around the calls: `dispatched = library`, and `scheduled = true` when
// only calls are left. Not applicable (with each stage's reason) when no stage
// matched.
absl::StatusOr<DispatchResult> RewriteStages(const ir::PrimFunc& func, const std::string& library,
                                             const SiteMatcher& match);
// Helpers for building packed calls.
ir::Expr I64(int64_t v);
ir::Expr F32Bits(float v);  // An f32 immediate: packed by its bits.
// `@name(args): packed` as a statement.
std::variant<ir::Stmt, std::string> PackedCallStmt(const std::string& name,
                                                   std::vector<ir::Expr> args);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_SITE_REWRITE_H_
