// tessel-opt: parse, verify, transform and print .tsl modules.
//
//   tessel-opt matmul.tsl                                  # parse, verify, print
//   tessel-opt matmul.tsl --pipeline='simplify,remove-no-op' -o out.tsl
//   tessel-opt - < in.tsl --split-input-file               # chunks split by '// -----'
//   tessel-opt in.tsl --pipeline=... --verify-each --check-semantics --reproducer=r.tsl
//   tessel-opt --run-reproducer r.tsl
//   tessel-opt --list-passes
//   tessel-opt matmul.tsl --emit=asm                       # lowered first (as tessel.build)
//
// Every error (bad flags, parse or verify errors, a failing pass, an instrument
// that stops the pipeline) prints a message to stderr and exits non-zero. With
// --split-input-file, a failing chunk does not stop the others; the exit status
// says whether all succeeded, and -o FILE is written only when all did.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu_feature_resolver.h"
#include "codegen/emit.h"
#include "codegen/gpu_codegen.h"
#include "codegen/runtime/export_library.h"
#include "codegen/target.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/read_file.h"
#include "ir/verifier.h"
#include "passes/instruments/dump_dir.h"
#include "passes/instruments/print_ir.h"
#include "passes/instruments/reproducer.h"
#include "passes/instruments/semantic_check.h"
#include "passes/instruments/timing.h"
#include "passes/instruments/verify_each.h"
#include "passes/lowering/lowered_form.h"
#include "passes/pass_config.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "passes/pipeline.h"
#include "passes/transforms/manual_schedule.h"
#include "tools/opt/opt_flags.h"
#ifdef TESSEL_HAVE_TEST_PASSES
#include "passes/testing/test_passes.h"
#endif

namespace tessel::opt {
namespace {

using passes::PassContext;
using passes::PassPtr;

int Error(const std::string& message) {
  std::cerr << "tessel-opt: error: " << message << "\n";
  return 1;
}

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path == "-") return ir::ReadStreamBounded(std::cin, ir::kMaxSourceBytes, "<stdin>");
  return ir::ReadFileBounded(path, ir::kMaxSourceBytes);
}

// Checks that the names in --disable-pass / --require-pass exist.
absl::Status CheckPassNames(const std::vector<std::string>& names, const char* flag) {
  for (const std::string& n : names) {
    if (passes::PassRegistry::Global().Lookup(n) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": ", passes::PassRegistry::Global().UnknownNameMessage(n)));
    }
  }
  return absl::OkStatus();
}

absl::Status SetUpContext(const OptFlags& flags, PassContext* ctx) {
  ctx->opt_level = flags.opt_level;
  absl::Status s = CheckPassNames(flags.disabled, "--disable-pass");
  if (!s.ok()) return s;
  s = CheckPassNames(flags.required, "--require-pass");
  if (!s.ok()) return s;
  // A misspelt name here would silently print nothing.
  s = CheckPassNames(flags.print_before, "--print-ir-before");
  if (!s.ok()) return s;
  s = CheckPassNames(flags.print_after, "--print-ir-after");
  if (!s.ok()) return s;
  ctx->disabled_passes = flags.disabled;
  ctx->required_passes = flags.required;
  for (const auto& [key, value] : flags.configs) {
    s = ctx->SetConfigFromText(key, value);
    if (!s.ok()) return s;
  }
  // Instruments, outermost first: After hooks run in reverse, so the IR is
  // printed and dumped before verify-each or check-semantics can stop the run,
  // and timing (last, innermost) measures the passes alone.
  if (!flags.reproducer.empty()) {
    passes::ReproducerOptions r;
    r.path = flags.reproducer;
    r.full = flags.reproducer_full;
    r.args = flags.run_args;
    ctx->instruments.push_back(passes::MakeReproducerInstrument(r, &std::cerr));
  }
  if (flags.verify_each) ctx->instruments.push_back(passes::MakeVerifyEachInstrument());
  if (flags.check_semantics) {
    ctx->instruments.push_back(passes::MakeSemanticCheckInstrument(&std::cerr));
  }
  if (!flags.dump_dir.empty()) {
    ctx->instruments.push_back(passes::MakeDumpDirInstrument(flags.dump_dir));
  }
  if (flags.print_before_all || flags.print_after_all || flags.print_after_change ||
      !flags.print_before.empty() || !flags.print_after.empty()) {
    passes::PrintIROptions p;
    p.before_all = flags.print_before_all;
    p.before = flags.print_before;
    p.after_all = flags.print_after_all;
    p.after = flags.print_after;
    p.after_change = flags.print_after_change;
    ctx->instruments.push_back(passes::MakePrintIRInstrument(p, &std::cerr));
  }
  if (flags.timing) ctx->instruments.push_back(passes::MakeTimingInstrument(&std::cerr));
  return absl::OkStatus();
}

constexpr char kLoweredNote[] =
    "tessel-opt: the input was not lowered: ran the 'lower' pipeline first (as tessel.build does)";

// Whether --emit must lower `mod` first: codegen takes no blocks and no N-D
// accesses, and tessel.build lowers by default, so the two agree.
bool EmitNeedsLowering(const ir::IRModule& mod) {
  for (const auto& [name, func] : mod->functions) {
    if (passes::lowering::NeedsLowering(func)) return true;
  }
  return false;
}

// `text` with a first line saying that tessel-opt lowered the input, in the
// comment syntax of the stage.
std::string WithLoweredNote(const std::string& stage, std::string text) {
  const char* comment = stage == "llvm" ? "; " : stage == "asm" ? "# " : "// ";
  if (stage == "launches") return text;  // JSON has no comments.
  return absl::StrCat(comment, kLoweredNote, "\n", text);
}

// --emit: one stage of compiling `mod` (docs/codegen.md). Text stages are
// returned; obj and so are written to `output`.
absl::StatusOr<std::string> EmitText(const OptFlags& flags, const ir::IRModule& mod) {
  absl::StatusOr<codegen::Target> target = codegen::Target::Parse(flags.target);
  if (!target.ok()) return target.status();
  if (target->is_cuda()) {
    if (flags.emit == "mlir") return codegen::EmitGpuMLIR(mod, *target);
    if (flags.emit != "ptx" && flags.emit != "launches") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--emit=", flags.emit, " is a CPU stage; a cuda target emits mlir, ptx or launches"));
    }
    absl::StatusOr<codegen::GpuProgram> program = codegen::BuildGpuProgram(mod, *target);
    if (!program.ok()) return program.status();
    return flags.emit == "ptx" ? program->ptx : codegen::LaunchManifest(*program) + "\n";
  }
  if (flags.emit == "ptx" || flags.emit == "launches") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--emit=", flags.emit, " needs a cuda target, e.g. --target='cuda -arch=sm_90'"));
  }
  if (flags.emit == "mlir") return codegen::EmitMLIR(mod, *target);
  if (flags.emit == "mlir-llvm") return codegen::EmitMLIR(mod, *target, /*llvm_dialect=*/true);
  if (flags.emit == "llvm") return codegen::EmitLLVMIR(mod, *target);
  if (flags.emit == "asm") return codegen::EmitAssembly(mod, *target);
  if (flags.output.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--emit=", flags.emit, " writes a binary: give -o FILE"));
  }
  absl::StatusOr<std::string> obj = codegen::EmitObject(mod, *target);
  if (!obj.ok()) return obj.status();
  // A library libtessel_runtime loads (signatures embedded) and its C header.
  runtime::ExportOptions options;
  options.cpu_features = target->IsaFeatures();  // A load on a CPU without them refuses calls.
  options.bundle_runtime = flags.bundle_runtime;
  absl::Status s = flags.emit == "so" ? runtime::ExportModule(mod, *obj, flags.output, options)
                                      : codegen::WriteFile(flags.output, *obj);
  if (!s.ok()) return s;
  return std::string();
}

// EmitText after lowering `mod` (in `ctx`, so that the instruments see it) when
// it needs it; the output's first line, or a note on stderr for binary
// stages, then says so.
absl::StatusOr<std::string> EmitStage(const OptFlags& flags, const ir::IRModule& mod,
                                      PassContext& ctx) {
  if (!EmitNeedsLowering(mod)) return EmitText(flags, mod);
  absl::StatusOr<ir::IRModule> lowered = passes::RunPipeline("lower", mod, ctx);
  if (flags.print_pass_log) std::cerr << "// ----- pass log ----- //\n" << ctx.log().ToString();
  if (!lowered.ok()) {
    return absl::Status(lowered.status().code(),
                        absl::StrCat("--emit=", flags.emit, ": lowering the input failed: ",
                                     lowered.status().message()));
  }
  absl::StatusOr<std::string> out = EmitText(flags, *lowered);
  if (!out.ok()) return out;
  if (flags.emit == "obj" || flags.emit == "so") {
    std::cerr << kLoweredNote << "\n";
    return out;
  }
  return WithLoweredNote(flags.emit, *std::move(out));
}

int Main(const std::vector<std::string>& args) {
  absl::StatusOr<OptFlags> parsed = ParseOptFlags(args);
  if (!parsed.ok()) return Error(std::string(parsed.status().message()));
  OptFlags flags = *std::move(parsed);
  if (flags.help) {
    std::cout << Usage();
    return 0;
  }

  std::string text;
  std::string filename = flags.input == "-" ? "<stdin>" : flags.input;
  if (!flags.run_reproducer.empty()) {
    if (flags.input != "-") {
      return Error("--run-reproducer takes the module from the reproducer; drop the input file");
    }
    if (flags.has_pipeline) return Error("--run-reproducer takes the pipeline from the reproducer");
    absl::StatusOr<std::string> file = ReadInput(flags.run_reproducer);
    if (!file.ok()) return Error(std::string(file.status().message()));
    absl::StatusOr<passes::Reproducer> r = passes::ParseReproducer(*file);
    if (!r.ok()) return Error(absl::StrCat(flags.run_reproducer, ": ", r.status().message()));
    absl::Status s = ApplyRunArgs(r->args, &flags);
    if (!s.ok()) return Error(absl::StrCat(flags.run_reproducer, ": ", s.message()));
    flags.has_pipeline = true;
    flags.pipeline = r->pipeline;
    text = r->module_text;
    filename = flags.run_reproducer;
  }

  if (flags.load_test_passes) {
#ifdef TESSEL_HAVE_TEST_PASSES
    passes::RegisterTestPasses();
#else
    return Error("--load-test-passes: this tessel-opt was built with TESSEL_TEST_PASSES=OFF");
#endif
  }
  if (flags.list_passes || flags.list_configs) {
    if (flags.list_passes) std::cout << passes::PassRegistry::Global().ListPasses();
    if (flags.list_passes && flags.list_configs) std::cout << "\n";
    if (flags.list_configs) std::cout << "Configs (--config=KEY=VALUE):\n" << passes::ListConfigs();
    return 0;
  }

  PassPtr pipeline;
  if (flags.has_pipeline) {
    absl::StatusOr<PassPtr> p = passes::ParsePipeline(flags.pipeline);
    if (!p.ok()) return Error(std::string(p.status().message()));
    pipeline = *std::move(p);
  }
  if (flags.print_pipeline) {
    if (!pipeline) return Error("--print-pipeline needs --pipeline");
    std::cout << pipeline->ToString() << "\n";
    return 0;
  }
  PassContext ctx;
  absl::Status s = SetUpContext(flags, &ctx);
  if (!s.ok()) return Error(std::string(s.message()));

  if (flags.run_reproducer.empty()) {
    absl::StatusOr<std::string> input = ReadInput(flags.input);
    if (!input.ok()) return Error(std::string(input.status().message()));
    text = *std::move(input);
  }
  std::vector<std::string> chunks;
  if (flags.split_input_file) {
    chunks = ir::SplitInputFile(text);
  } else {
    chunks.push_back(std::move(text));
  }

  bool failed = false;
  std::vector<std::string> outputs;
  // A --config value of the inline trace holds for chunks without their own.
  const std::string inline_default = ctx.GetConfigString(passes::kInlineScheduleConfig);
  const std::string source_default = ctx.GetConfigString(passes::kInlineScheduleSourceConfig);
  for (const std::string& chunk : chunks) {
    // Each chunk's // SCHEDULE: lines are the trace of a manual-schedule given
    // no trace, script or schedule option (passes/transforms/manual_schedule.h).
    std::string script = passes::InlineScheduleScript(chunk);
    const bool own = !script.empty();
    absl::Status set =
        ctx.SetConfig(passes::kInlineScheduleConfig, own ? std::move(script) : inline_default);
    if (set.ok()) {
      set = ctx.SetConfig(passes::kInlineScheduleSourceConfig, own ? filename : source_default);
    }
    if (!set.ok()) return Error(std::string(set.message()));
    absl::StatusOr<ir::IRModule> mod = ir::ParseModule(chunk, filename);
    if (!mod.ok()) {
      Error(std::string(mod.status().message()));
      failed = true;
      continue;
    }
    if (flags.verify) {
      absl::Status v = ir::VerifyModule(*mod);
      if (!v.ok()) {
        Error(absl::StrCat(filename, ": ", v.message()));
        failed = true;
        continue;
      }
    }
    ir::IRModule result = *mod;
    if (pipeline) {
      absl::StatusOr<ir::IRModule> out = passes::RunPipeline(*pipeline, *mod, ctx);
      if (flags.print_pass_log) std::cerr << "// ----- pass log ----- //\n" << ctx.log().ToString();
      if (!out.ok()) {
        Error(std::string(out.status().message()));
        failed = true;
        continue;
      }
      result = *std::move(out);
    }
    if (!flags.emit.empty()) {
      absl::StatusOr<std::string> emitted = EmitStage(flags, result, ctx);
      if (!emitted.ok()) {
        Error(std::string(emitted.status().message()));
        failed = true;
        continue;
      }
      outputs.push_back(*std::move(emitted));
      continue;
    }
    outputs.push_back(ir::PrintModule(result));
  }
  if (flags.emit == "obj" || flags.emit == "so") return failed ? 1 : 0;  // Already written.

  std::string text_out = absl::StrJoin(outputs, "// -----\n");
  if (flags.output.empty()) {
    std::cout << text_out;
    std::cout.flush();
  } else if (!failed) {
    std::ofstream f(flags.output, std::ios::binary | std::ios::trunc);
    f << text_out;
    f.close();
    if (!f) return Error(absl::StrCat("cannot write '", flags.output, "'"));
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace tessel::opt

int main(int argc, char** argv) {
  tessel::codegen::InstallCpuFeatureResolver();  // default-schedule{target="llvm -mcpu=..."}
  std::vector<std::string> args(argv + 1, argv + argc);
  return tessel::opt::Main(args);
}
