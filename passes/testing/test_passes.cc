// The test-only passes (see the header). They are built from plain functions
// (MakeFunctionPass / MakeModulePass style) so they also exercise that API.
#include "passes/testing/test_passes.h"

#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/mutator.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {

namespace {

// Adds one to every stored number.
class AddOneToStores : public ir::IRMutator {
 public:
  ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
    ir::Stmt s = IRMutator::VisitBufferStore(op);
    const auto* st = ir::cast<ir::BufferStoreNode>(s);
    ir::DataType t = st->value->dtype;
    if (t.is_bool() || t.is_handle()) return s;
    absl::StatusOr<ir::Expr> one =
        t.is_float() ? ir::MakeFloatImm(t.element_of(), 1.0) : ir::MakeIntImm(t.element_of(), 1);
    if (!one.ok()) return s;
    ir::Expr inc = *one;
    if (t.is_vector()) {
      absl::StatusOr<ir::Expr> b = ir::MakeBroadcast(inc, t.lanes());
      if (!b.ok()) return s;
      inc = *b;
    }
    absl::StatusOr<ir::Expr> v = ir::MakeBinary(ir::NodeKind::kAdd, st->value, inc);
    if (!v.ok()) return s;
    auto n = ir::MakeNode<ir::BufferStoreNode>(*st);
    n->value = *v;
    return ir::Stmt(std::move(n));
  }
};

PassInfo ChangeResultsInfo() {
  return {.name = "test-change-results",
          .description = "Test only: adds 1 to every stored value (a deliberate miscompile)",
          .options = {StringOption("only", "", "Change only this function (empty: all)")}};
}

class ChangeResults : public FunctionPass {
 public:
  explicit ChangeResults(PassOptions o) : FunctionPass(ChangeResultsInfo(), std::move(o)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext&) const override {
    const std::string& only = options().GetString("only");
    if (!only.empty() && only != name) return func;
    AddOneToStores m;
    return m.VisitPrimFunc(func);
  }
};

PassInfo FailInfo() {
  return {.name = "test-fail",
          .description = "Test only: always fails with the given message",
          .options = {StringOption("message", "deliberate failure", "The error message")}};
}

PassInfo BreakIRInfo() {
  return {.name = "test-break-ir",
          .description = "Test only: adds a store to a buffer bound nowhere (invalid IR)"};
}

absl::StatusOr<ir::PrimFunc> BreakIR(const ir::PrimFunc& func, const std::string&,
                                     const PassOptions&, PassContext&) {
  absl::StatusOr<ir::Buffer> ghost =
      ir::MakeBufferChecked("ghost", ir::DataType::Int(32), {ir::IntImm32(1)});
  if (!ghost.ok()) return ghost.status();
  absl::StatusOr<ir::Stmt> store = ir::MakeBufferStore(*ghost, ir::IntImm32(0), {ir::IntImm32(0)});
  if (!store.ok()) return store.status();
  absl::StatusOr<ir::Stmt> body = ir::MakeSeqStmt({func->body, *store});
  if (!body.ok()) return body.status();
  auto n = ir::MakeNode<ir::PrimFuncNode>(*func);
  n->body = *body;
  return ir::PrimFunc(std::move(n));
}

PassInfo OptionsInfo() {
  return {
      .name = "test-options",
      .description = "Test only: writes its options to the pass log",
      .options = {IntOption("count", 1, "An int"), BoolOption("flag", false, "A bool"),
                  StringOption("label", "none", "A string"), ListOption("names", {}, "A list")}};
}

absl::StatusOr<ir::IRModule> LogOptions(const ir::IRModule& mod, const PassOptions& o,
                                        PassContext& ctx) {
  ctx.log().RecordNote("test-options", absl::StrCat("count=", o.GetInt("count"),
                                                    " flag=", o.GetBool("flag") ? "true" : "false",
                                                    " label=", o.GetString("label"), " names=",
                                                    absl::StrJoin(o.GetList("names"), "|")));
  return mod;
}

absl::StatusOr<ir::IRModule> Identity(const ir::IRModule& mod, const PassOptions&, PassContext&) {
  return mod;
}

}  // namespace

void RegisterTestPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    PassRegistry& r = PassRegistry::Global();
    r.RegisterPass(ChangeResultsInfo(), [](PassOptions o) -> absl::StatusOr<PassPtr> {
      return std::make_shared<const ChangeResults>(std::move(o));
    });
    r.RegisterPass(FailInfo(), [](PassOptions o) -> absl::StatusOr<PassPtr> {
      return MakeModulePass(FailInfo(), std::move(o),
                            [](const ir::IRModule&, const PassOptions& opts,
                               PassContext&) -> absl::StatusOr<ir::IRModule> {
                              return absl::InternalError(opts.GetString("message"));
                            });
    });
    r.RegisterPass(BreakIRInfo(), [](PassOptions o) -> absl::StatusOr<PassPtr> {
      return MakeFunctionPass(BreakIRInfo(), std::move(o), BreakIR);
    });
    r.RegisterPass(OptionsInfo(), [](PassOptions o) -> absl::StatusOr<PassPtr> {
      if (o.GetInt("count") < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "option 'count' of pass 'test-options' must be >= 0, got ", o.GetInt("count")));
      }
      return MakeModulePass(OptionsInfo(), std::move(o), LogOptions);
    });
    PassInfo requires_info{.name = "test-requires-simplify",
                           .description = "Test only: requires simplify; changes nothing",
                           .required = {"simplify"}};
    r.RegisterPass(requires_info, [requires_info](PassOptions o) -> absl::StatusOr<PassPtr> {
      return MakeModulePass(requires_info, std::move(o), Identity);
    });
    PassInfo high_info{.name = "test-high-opt",
                       .description = "Test only: opt level 3; changes nothing",
                       .opt_level = 3};
    r.RegisterPass(high_info, [high_info](PassOptions o) -> absl::StatusOr<PassPtr> {
      return MakeModulePass(high_info, std::move(o), Identity);
    });
    r.RegisterAlias("test-cleanup", "simplify,remove-no-op",
                    "Test only: simplify, then remove-no-op");
    r.RegisterAlias("test-self-alias", "simplify,test-self-alias", "Test only: names itself");
  });
}

}  // namespace tessel::passes
