// Sequential: a pipeline of passes run one after another, itself a pass, so
// pipelines nest.
//
//   PassPtr p = MakeSequential({simplify, remove_no_op});   // "simplify,remove-no-op"
//
// Three forms, differing only in how they print:
// - top level:  the whole pipeline, "a,b,c"
// - combinator: a registered name wrapping nested passes, "nested(a,b)",
//               "fixed-point{max-iterations=4}(a,b)"
// - alias:      a registered name standing for pipeline text, "cleanup"
//
// Each nested pass runs through the pass manager (ExecutePass), so gating,
// instruments and the log see every pass inside.
#ifndef TESSEL_PASSES_SEQUENTIAL_H_
#define TESSEL_PASSES_SEQUENTIAL_H_

#include <string>
#include <vector>

#include "passes/pass.h"

namespace tessel::passes {

// The name a top-level pipeline has in messages and timing reports.
inline constexpr char kTopLevelPipelineName[] = "pipeline";

class Sequential : public Pass {
 public:
  enum class Form { kTopLevel, kCombinator, kAlias };

  // A top-level pipeline.
  explicit Sequential(std::vector<PassPtr> passes);
  Sequential(PassInfo info, PassOptions options, std::vector<PassPtr> passes, Form form);

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override;
  bool is_pipeline() const override { return true; }
  std::string ToString() const override;

  const std::vector<PassPtr>& passes() const { return passes_; }
  Form form() const { return form_; }

 protected:
  // One run over every nested pass, in order.
  absl::StatusOr<ir::IRModule> RunOnce(const ir::IRModule& mod, PassContext& ctx) const;

 private:
  std::vector<PassPtr> passes_;
  Form form_;
};

PassPtr MakeSequential(std::vector<PassPtr> passes);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_SEQUENTIAL_H_
