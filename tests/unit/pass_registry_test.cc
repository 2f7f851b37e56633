// The pass registry: built-in passes survive linking (the library is linked
// whole-archive), one-line registration from this file works, aliases expand,
// listings show options, and misuse is reported.
#include "passes/pass_registry.h"

#include "gtest/gtest.h"
#include "passes/pass_config.h"
#include "passes/pass_context.h"
#include "passes/pipeline.h"
#include "passes/sequential.h"

namespace tessel::passes {
namespace {

// A module pass registered from a test file in one line, as users do.
class UnitNotePass : public ModulePass {
 public:
  static PassInfo Info() {
    return {.name = "unit-note",
            .description = "Unit test: notes its option in the log",
            .opt_level = 1,
            .options = {StringOption("text", "hello", "What to note"),
                        IntOption("repeat", 1, "How often")}};
  }
  explicit UnitNotePass(PassOptions o) : ModulePass(Info(), std::move(o)) {}
  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    for (int64_t i = 0; i < options().GetInt("repeat"); ++i) {
      ctx.log().RecordNote(name(), options().GetString("text"));
    }
    return mod;
  }
};
TESSEL_REGISTER_PASS(UnitNotePass);
TESSEL_REGISTER_PASS_ALIAS("unit-alias", "unit-note{text=from-alias},simplify",
                           "Unit test: an alias");
TESSEL_REGISTER_PASS_ALIAS("unit-broken-alias", "simplify,no-such-pass", "Unit test: broken");
TESSEL_REGISTER_CONFIG(BoolOption("unit.flag", true, "Unit test: a config key"));

TEST(PassRegistry, BuiltInPassesAreRegistered) {
  for (const char* name : {"simplify", "remove-no-op", "canonicalize-names"}) {
    const RegistryEntry* e = PassRegistry::Global().Lookup(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->kind, RegistryEntry::Kind::kPass);
    EXPECT_FALSE(e->info.description.empty());
  }
  for (const char* name : {"nested", "fixed-point"}) {
    const RegistryEntry* e = PassRegistry::Global().Lookup(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->kind, RegistryEntry::Kind::kCombinator);
  }
  EXPECT_EQ(PassRegistry::Global().Lookup("no-such-pass"), nullptr);
  // Test-only passes are not registered unless asked for.
  EXPECT_EQ(PassRegistry::Global().Lookup("test-change-results"), nullptr);
}

TEST(PassRegistry, OneLineRegistrationFromAnyFile) {
  const RegistryEntry* e = PassRegistry::Global().Lookup("unit-note");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->info.opt_level, 1);
  ASSERT_EQ(e->info.options.size(), 2u);
  absl::StatusOr<PassPtr> p = ParsePipeline("unit-note{repeat=2,text=\"a b\"}");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->ToString(), "unit-note{repeat=2,text=\"a b\"}");
  const auto* seq = dynamic_cast<const Sequential*>(p->get());
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->passes()[0]->options().GetString("text"), "a b");
  EXPECT_EQ(seq->passes()[0]->options().GetInt("repeat"), 2);
}

TEST(PassRegistry, AliasesExpandWhenBuiltAndPrintByName) {
  absl::StatusOr<PassPtr> p = ParsePipeline("unit-alias,remove-no-op");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->ToString(), "unit-alias,remove-no-op");
  const auto* top = dynamic_cast<const Sequential*>(p->get());
  ASSERT_NE(top, nullptr);
  const auto* alias = dynamic_cast<const Sequential*>(top->passes()[0].get());
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->form(), Sequential::Form::kAlias);
  ASSERT_EQ(alias->passes().size(), 2u);
  EXPECT_EQ(alias->passes()[0]->ToString(), "unit-note{text=from-alias}");
  EXPECT_EQ(alias->passes()[1]->name(), "simplify");
}

TEST(PassRegistry, ErrorsInsideAnAliasNameTheAlias) {
  absl::StatusOr<PassPtr> p = ParsePipeline("simplify,unit-broken-alias");
  ASSERT_FALSE(p.ok());
  std::string msg(p.status().message());
  EXPECT_EQ(msg.substr(0, msg.find('\n')),
            "pipeline:1:10: in alias 'unit-broken-alias': pipeline:1:10: unknown pass "
            "'no-such-pass' (--list-passes shows them all)");
}

TEST(PassRegistry, UnknownNamesGetASuggestion) {
  EXPECT_EQ(PassRegistry::Global().UnknownNameMessage("unit-nte"),
            "unknown pass 'unit-nte'; did you mean 'unit-note'? (--list-passes shows them all)");
  EXPECT_EQ(PassRegistry::Global().UnknownNameMessage("qqqqqqqqqq"),
            "unknown pass 'qqqqqqqqqq' (--list-passes shows them all)");
}

TEST(PassRegistry, ListingShowsEveryKindWithOptions) {
  std::string list = PassRegistry::Global().ListPasses();
  EXPECT_NE(list.find("Passes:\n"), std::string::npos);
  EXPECT_NE(list.find("  unit-note\n      Unit test: notes its option in the log [opt level 1]\n"
                      "      text: string = hello -- What to note\n"
                      "      repeat: int = 1 -- How often\n"),
            std::string::npos)
      << list;
  EXPECT_NE(list.find("  fixed-point(...)\n"), std::string::npos);
  EXPECT_NE(list.find("Aliases:\n"), std::string::npos);
  EXPECT_NE(list.find("  unit-alias = unit-note{text=from-alias},simplify\n"
                      "      Unit test: an alias\n"),
            std::string::npos);
  // Sections come in order: passes, pipelines, aliases.
  EXPECT_LT(list.find("Passes:"), list.find("Pipelines"));
  EXPECT_LT(list.find("Pipelines"), list.find("Aliases:"));
}

TEST(PassRegistry, NamesAreSorted) {
  std::vector<std::string> names = PassRegistry::Global().Names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(names.size(), PassRegistry::Global().Entries().size());
}

TEST(PassRegistryDeathTest, RegisteringANameTwiceIsAProgrammingError) {
  EXPECT_DEATH(PassRegistry::Global().RegisterAlias("simplify", "remove-no-op", "again"),
               "pass name 'simplify' is registered twice");
  EXPECT_DEATH(ConfigRegistry::Global().Register(BoolOption("unit.flag", false, "again")),
               "config 'unit.flag' is registered twice");
}

TEST(ConfigRegistry, KeysRegisteredBesideTheirReaders) {
  const OptionSpec* spec = ConfigRegistry::Global().Lookup("unit.flag");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->type, OptionType::kBool);
  ASSERT_NE(ConfigRegistry::Global().Lookup("check-semantics.work-limit"), nullptr);
  std::string list = ListConfigs();
  EXPECT_NE(list.find("  unit.flag: bool = true -- Unit test: a config key\n"), std::string::npos);
  EXPECT_EQ(ConfigRegistry::Global().UnknownKeyMessage("unit.flg"),
            "unknown config 'unit.flg'; did you mean 'unit.flag'? (--list-configs shows them all)");
}

}  // namespace
}  // namespace tessel::passes
