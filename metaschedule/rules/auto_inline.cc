// auto-inline: folds elementwise producers into their consumers, and an
// elementwise epilogue that writes the output into its elementwise producer,
// where that recomputes nothing costly.
//
//   block up_bias(vi, vj: spatial)          block gelu(vi, vj: spatial)
//     up_bias[vi, vj] = up[vi, vj] + b[vj]    gelu[vi, vj] = f(up[vi, vj] + b[vj])
//   block gelu(vi, vj: spatial)        ->
//     gelu[vi, vj] = f(up_bias[vi, vj])
//
// A producer (spatial iter vars only, no init, writing a buffer of the function's
// own) is inlined when its consumers together read each of its elements at most
// once per element written (so an elementwise chain, or a row reduction over it),
// or at most twice when it calls no function (exp, erf: costly to compute twice).
// A producer the consumers would re-evaluate many times -- the input of a matmul
// -- stays, for multi-level tiling and compute location to place. compute_inline
// decides legality; its refusal is this rule's "not applicable". Reverse: a block
// writing a parameter, whose only input of the function's own is written by a
// spatial block, folds into that block (reverse_compute_inline).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/block_dataflow.h"
#include "metaschedule/rules/block_analysis.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace {

class AutoInline : public ScheduleRule {
 public:
  std::string name() const override { return "auto-inline"; }

  absl::StatusOr<RuleOutcome> Apply(const RuleContext&, sch::Schedule& s,
                                    const std::string& block) const override {
    const sch::StmtIndex& index = s.state().index();
    int sref = index.FindBlock(block);
    const ir::BlockNode* b = index.block(sref);
    if (!AllSpatial(b) || b->init != nullptr) {
      return RuleOutcome::NotApplicable("it reduces");
    }
    if (b->writes.size() != 1) return RuleOutcome::NotApplicable("it writes more than one buffer");
    const ir::BufferNode* out = b->writes[0].buffer.get();
    if (sch::IsParam(s.func(), out)) return ReverseInline(s, block, b);
    std::optional<int64_t> elements = ElementCount(out);
    if (!elements) return RuleOutcome::NotApplicable("its buffer has a symbolic shape");
    std::vector<std::string> readers = sch::ReadersOf(index, out);
    if (readers.empty()) return RuleOutcome::NotApplicable("nothing reads what it writes");
    int64_t reads = 0;
    for (const std::string& r : readers) {
      std::optional<int64_t> dom = DomainSize(index.block(index.FindBlock(r)));
      if (!dom) return RuleOutcome::NotApplicable("a consumer has a symbolic domain");
      reads += *dom;
    }
    const int64_t limit = CallsFunction(b) ? 1 : 2;
    if (reads > limit * *elements) {
      return RuleOutcome::NotApplicable(absl::StrCat(
          "its consumers would compute each element ", reads / *elements, " times"));
    }
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV rv, s.GetBlock(block));
    TESSEL_RETURN_IF_ERROR(s.ComputeInline(rv));
    return RuleOutcome::Applied(absl::StrCat("inlined into ", absl::StrJoin(readers, ", ")));
  }

 private:
  static absl::StatusOr<RuleOutcome> ReverseInline(sch::Schedule& s, const std::string& block,
                                                   const ir::BlockNode* b) {
    const sch::StmtIndex& index = s.state().index();
    const ir::BufferNode* input = nullptr;
    for (const ir::BufferRegion& r : b->reads) {
      if (sch::IsParam(s.func(), r.buffer.get())) continue;
      if (input != nullptr && input != r.buffer.get()) {
        return RuleOutcome::NotApplicable("it reads two buffers of the function's own");
      }
      input = r.buffer.get();
    }
    if (input == nullptr) return RuleOutcome::NotApplicable("it reads only parameters");
    std::vector<std::string> writers = sch::WritersOf(index, input);
    if (writers.size() != 1) return RuleOutcome::NotApplicable("its input has several writers");
    const ir::BlockNode* producer = index.block(index.FindBlock(writers[0]));
    if (!AllSpatial(producer) || producer->init != nullptr) {
      return RuleOutcome::NotApplicable("its producer reduces (multi-level tiling fuses it)");
    }
    TESSEL_ASSIGN_OR_RETURN(sch::BlockRV rv, s.GetBlock(block));
    TESSEL_RETURN_IF_ERROR(s.ReverseComputeInline(rv));
    return RuleOutcome::Applied(absl::StrCat("folded into its producer ", writers[0]));
  }
};

TESSEL_REGISTER_SCHEDULE_RULE("llvm", 400, AutoInline);
// On a GPU too, before the GPU rules: bias + GELU is then one kernel, and a
// matmul's epilogue chain one block for gpu-matmul to fold into its write-back.
TESSEL_REGISTER_SCHEDULE_RULE("cuda", 40, AutoInline);

}  // namespace

}  // namespace tessel::metaschedule
