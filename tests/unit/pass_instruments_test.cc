// The standard instruments driven from C++: print-ir (after-change by pointer and
// structure), timing, dump-dir, reproducers (format and instrument) and
// verify-each.
#include <filesystem>
#include <fstream>
#include <chrono>
#include <sstream>
#include <thread>

#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "passes/instruments/dump_dir.h"
#include "passes/instruments/print_ir.h"
#include "passes/instruments/reproducer.h"
#include "passes/instruments/timing.h"
#include "passes/instruments/verify_each.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"
#include "passes/sequential.h"
#include "tests/unit/pass_test_util.h"

namespace tessel::passes {
namespace {

using testing::ParseOrDie;

constexpr char kInput[] =
    "func @f(A: i32[8]) {\n  for i in range(0, 8) {\n    A[i] = i + 1 + 2\n  }\n"
    "  for j in range(0, 0) {\n    A[j] = 0\n  }\n}\n";

// Rebuilds every function as a new but equal object.
PassPtr Rebuild() {
  return MakeFunctionPass(PassInfo{.name = "rebuild"}, [](const ir::PrimFunc& f, const std::string&,
                                                          const PassOptions&, PassContext&) {
    return absl::StatusOr<ir::PrimFunc>(ir::PrimFunc(ir::MakeNode<ir::PrimFuncNode>(*f)));
  });
}

std::string TempDir(const std::string& leaf) {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("tessel_pass_tests_" + std::to_string(::getpid()) + "_" + leaf);
  std::filesystem::remove_all(p);
  return p.string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(ModuleChanged, PointerThenStructure) {
  ir::IRModule m = ParseOrDie(kInput);
  EXPECT_FALSE(ModuleChanged(m, m));
  ir::IRModule copy = ir::MakeIRModule(m->functions, m->attrs);
  EXPECT_FALSE(ModuleChanged(m, copy));  // A new object, structurally equal.
  EXPECT_TRUE(ModuleChanged(m, ParseOrDie("func @f(A: i32[8]) {\n  A[0] = 1\n}\n")));
}

TEST(PrintIR, AfterChangeSkipsPassesThatRebuiltAnEqualModule) {
  std::ostringstream out;
  PrintIROptions o;
  o.after_change = true;
  PassContext ctx;
  ctx.instruments.push_back(MakePrintIRInstrument(o, &out));
  absl::StatusOr<PassPtr> simplify = CreatePass("simplify");
  ASSERT_TRUE(simplify.ok());
  ASSERT_TRUE(RunPipeline(*MakeSequential({Rebuild(), *simplify}), ParseOrDie(kInput), ctx).ok());
  EXPECT_EQ(out.str(),
            "// ----- IR after simplify ----- //\n"
            "func @f(A: i32[8]) {\n  for i in range(0, 8) {\n    A[i] = i + 3\n  }\n"
            "  for j in range(0, 0) {\n    A[j] = 0\n  }\n}\n");
}

TEST(PrintIR, BeforeAndAfterNamedPasses) {
  std::ostringstream out;
  PrintIROptions o;
  o.before = {"remove-no-op"};
  o.after = {"remove-no-op"};
  PassContext ctx;
  ctx.instruments.push_back(MakePrintIRInstrument(o, &out));
  ASSERT_TRUE(RunPipeline("simplify,remove-no-op", ParseOrDie(kInput), ctx).ok());
  std::string s = out.str();
  size_t before = s.find("// ----- IR before remove-no-op ----- //\nfunc @f");
  size_t after = s.find("// ----- IR after remove-no-op ----- //\nfunc @f");
  ASSERT_NE(before, std::string::npos) << s;
  ASSERT_NE(after, std::string::npos) << s;
  EXPECT_LT(before, after);
  EXPECT_EQ(s.find("simplify"), std::string::npos);
  EXPECT_NE(s.substr(before, after - before).find("range(0, 0)"), std::string::npos);
  EXPECT_EQ(s.substr(after).find("range(0, 0)"), std::string::npos);
}

TEST(Timing, ReportsATreeWhenThePipelineEnds) {
  std::ostringstream out;
  PassContext ctx;
  ctx.instruments.push_back(MakeTimingInstrument(&out));
  ASSERT_TRUE(RunPipeline("simplify,nested(remove-no-op,nested(simplify)),simplify",
                          ParseOrDie(kInput), ctx)
                  .ok());
  std::vector<std::string> names;
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "===== tessel pass timing (wall clock) =====");
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    size_t pct = line.find("%  ");
    ASSERT_NE(pct, std::string::npos) << line;
    names.push_back(line.substr(pct + 3));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"total", "simplify (x2)", "nested", "  remove-no-op",
                                             "  nested", "    simplify",
                                             "(pass manager)"}));
}

// An instrument that takes 30 ms after every pass.
class SlowInstrument : public PassInstrument {
 public:
  std::string name() const override { return "slow"; }
  absl::Status AfterPass(const Pass&, const ir::IRModule&, const ir::IRModule&,
                         PassContext&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    return absl::OkStatus();
  }
};

// The milliseconds of the row labelled `label` (after "%  "), or -1.
double RowMs(const std::string& report, const std::string& label) {
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    size_t pct = line.find("%  ");
    if (pct != std::string::npos && line.substr(pct + 3) == label) return std::stod(line);
  }
  return -1;
}

TEST(Timing, OtherInstrumentsAreARowOfTheirOwn) {
  // The slow instrument runs after the timing one's AfterPass of each inner
  // pass (After* hooks run in reverse), inside the `nested` row's interval.
  std::ostringstream out;
  PassContext ctx;
  ctx.instruments.push_back(std::make_shared<SlowInstrument>());
  ctx.instruments.push_back(MakeTimingInstrument(&out));
  ASSERT_TRUE(RunPipeline("nested(simplify,remove-no-op)", ParseOrDie(kInput), ctx).ok());
  const std::string report = out.str();
  EXPECT_GE(RowMs(report, "(instrument slow)"), 90.0) << report;  // 3 passes x 30 ms
  EXPECT_LT(RowMs(report, "nested"), 30.0) << report;
  EXPECT_GE(RowMs(report, "total"), 90.0) << report;
  EXPECT_GE(RowMs(report, "(pass manager)"), 0.0) << report;
}

TEST(Timing, AFailedPipelineStillReportsWhatRan) {
  std::ostringstream out;
  PassContext ctx;
  ctx.instruments.push_back(MakeTimingInstrument(&out));
  PassPtr boom = MakeModulePass(
      PassInfo{.name = "boom"},
      [](const ir::IRModule&, const PassOptions&, PassContext&) -> absl::StatusOr<ir::IRModule> {
        return absl::InternalError("no");
      });
  absl::StatusOr<PassPtr> simplify = CreatePass("simplify");
  ASSERT_FALSE(RunPipeline(*MakeSequential({*simplify, boom}), ParseOrDie(kInput), ctx).ok());
  EXPECT_NE(out.str().find("(pipeline failed)"), std::string::npos);
  EXPECT_NE(out.str().find("%  simplify\n"), std::string::npos);
  EXPECT_NE(out.str().find("%  boom\n"), std::string::npos);
}

TEST(DumpDir, EveryStepIsAReparseableFile) {
  std::string dir = TempDir("dump");
  PassContext ctx;
  ctx.instruments.push_back(MakeDumpDirInstrument(dir));
  ir::IRModule input = ParseOrDie(kInput);
  absl::StatusOr<ir::IRModule> out = RunPipeline("simplify,nested(remove-no-op)", input, ctx);
  ASSERT_TRUE(out.ok());
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"000_input.tsl", "001_simplify.tsl",
                                             "002_remove-no-op.tsl"}));
  absl::StatusOr<ir::IRModule> first = ir::LoadModule(dir + "/000_input.tsl");
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(ir::StructuralEqual(*first, input));
  absl::StatusOr<ir::IRModule> last = ir::LoadModule(dir + "/002_remove-no-op.tsl");
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(ir::StructuralEqual(*last, *out));
  std::filesystem::remove_all(dir);
}

TEST(Reproducer, HeaderRoundTripsQuotesAndBackslashes) {
  std::string text = FormatReproducer("a{s=\"it's\"},b{p=\"x\\\\y\"}", {"--config=k=v w", "--x"},
                                      "line one\nline two", "func @f() {\n}\n");
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "// tessel-reproducer: pipeline='a{s=\"it\\'s\"},b{p=\"x\\\\\\\\y\"}' "
            "arg='--config=k=v w' arg='--x'");
  absl::StatusOr<Reproducer> r = ParseReproducer(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pipeline, "a{s=\"it's\"},b{p=\"x\\\\y\"}");
  EXPECT_EQ(r->args, (std::vector<std::string>{"--config=k=v w", "--x"}));
  EXPECT_EQ(r->error, "line one\nline two");
  // The whole file is still a module.
  absl::StatusOr<ir::IRModule> m = ir::ParseModule(r->module_text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->functions.size(), 1u);
}

TEST(Reproducer, MalformedHeadersAreErrors) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"func @f() {\n}\n",
       "not a reproducer: the first line must start with '// tessel-reproducer:'"},
      {"// tessel-reproducer: arg='--x'\n", "reproducer header: no pipeline='...' field"},
      {"// tessel-reproducer: pipeline='a\n",
       "reproducer header: unterminated value of 'pipeline'"},
      {"// tessel-reproducer: pipeline='a' seed='1'\n",
       "reproducer header: unknown field 'seed' (expected pipeline or arg)"},
      {"// tessel-reproducer: pipeline=a\n",
       "reproducer header: expected name='value' at column 23"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Reproducer> r = ParseReproducer(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().message(), c.message) << c.text;
  }
}

PassPtr FailOn(const std::string& name) {
  return MakeModulePass(
      PassInfo{.name = name},
      [](const ir::IRModule&, const PassOptions&, PassContext&) -> absl::StatusOr<ir::IRModule> {
        return absl::InternalError("bad");
      });
}

TEST(Reproducer, InstrumentWritesTheFailingPassAndItsInput) {
  std::string dir = TempDir("repro");
  std::filesystem::create_directories(dir);
  std::ostringstream diag;
  for (bool full : {false, true}) {
    ReproducerOptions o;
    o.path = dir + (full ? "/full.tsl" : "/local.tsl");
    o.full = full;
    o.args = {"--verify-each"};
    PassContext ctx;
    ctx.instruments.push_back(MakeReproducerInstrument(o, &diag));
    absl::StatusOr<PassPtr> simplify = CreatePass("simplify");
    ir::IRModule input = ParseOrDie(kInput);
    ASSERT_FALSE(RunPipeline(*MakeSequential({*simplify, FailOn("boom")}), input, ctx).ok());
    absl::StatusOr<Reproducer> r = ParseReproducer(ReadFile(o.path));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->pipeline, full ? "simplify,boom" : "boom");
    EXPECT_EQ(r->args, std::vector<std::string>{"--verify-each"});
    EXPECT_EQ(r->error, "pass 'boom' failed: bad");
    absl::StatusOr<ir::IRModule> m = ir::ParseModule(r->module_text);
    ASSERT_TRUE(m.ok());
    // Local: boom's input (simplified); full: the pipeline's input.
    EXPECT_EQ(ir::StructuralEqual(*m, input), full);
  }
  EXPECT_NE(diag.str().find("tessel: reproducer written to " + dir +
                            "/local.tsl; re-run it with: "
                            "tessel-opt --run-reproducer " +
                            dir + "/local.tsl\n"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(VerifyEach, NamesThePassWhoseOutputIsInvalid) {
  PassPtr bad = MakeFunctionPass(
      PassInfo{.name = "bad"},
      [](const ir::PrimFunc& f, const std::string&, const PassOptions&,
         PassContext&) -> absl::StatusOr<ir::PrimFunc> {
        // A store to a buffer that nothing binds.
        ir::Buffer ghost = ir::MakeBuffer("ghost", ir::DataType::Int(32), {ir::IntImm32(1)});
        auto n = ir::MakeNode<ir::PrimFuncNode>(*f);
        n->body = ir::Seq({f->body, ir::Store(ghost, ir::IntImm32(0), {ir::IntImm32(0)})});
        return ir::PrimFunc(std::move(n));
      });
  PassContext ctx;
  ctx.instruments.push_back(MakeVerifyEachInstrument());
  absl::StatusOr<PassPtr> simplify = CreatePass("simplify");
  absl::StatusOr<ir::IRModule> out =
      RunPipeline(*MakeSequential({*simplify, bad}), ParseOrDie(kInput), ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message().rfind(
                "verify-each: the IR is invalid after pass 'bad': verify: function 'f': ", 0),
            0u)
      << out.status();
  EXPECT_NE(out.status().message().find("ghost"), std::string::npos);
  // Valid output passes.
  out = RunPipeline(*MakeSequential({*simplify}), ParseOrDie(kInput), ctx);
  EXPECT_TRUE(out.ok());
}

}  // namespace
}  // namespace tessel::passes
