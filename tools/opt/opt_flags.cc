// tessel-opt's flags: one table entry per flag, so that parsing, --help and the
// did-you-mean list cannot drift apart.
#include "tools/opt/opt_flags.h"

#include <functional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "passes/did_you_mean.h"

namespace tessel::opt {

namespace {

struct Flag {
  const char* name;   // Without the leading "--".
  const char* value;  // Placeholder for a value flag ("FILE"), null for a switch.
  bool run_arg;       // Recorded in reproducers.
  const char* help;
  std::function<absl::Status(OptFlags*, const std::string&)> apply;
};

std::vector<std::string> SplitList(const std::string& v) {
  std::vector<std::string> out;
  for (absl::string_view s : absl::StrSplit(v, ',', absl::SkipEmpty())) out.emplace_back(s);
  return out;
}

const std::vector<Flag>& Flags() {
  static const std::
      vector<Flag>*
          flags =
              new std::
                  vector<Flag>{
                      {"pipeline", "TEXT", false,
                       "Passes to run, e.g. 'simplify,remove-no-op' (default: none)",
                       [](OptFlags* f, const std::string& v) {
                         f->has_pipeline = true;
                         f->pipeline = v;
                         return absl::OkStatus();
                       }},
                      {"emit", "STAGE", false,
                       "Compile the result and print a stage instead of .tsl: mlir, mlir-llvm, "
                       "llvm, asm, obj or so (obj and so need -o FILE); for a cuda target mlir, "
                       "ptx or launches (the kernels' launch manifest, JSON); a result with "
                       "blocks or N-D accesses is lowered first, as tessel.build does",
                       [](OptFlags* f, const std::string& v) {
                         for (const char* s : {"mlir", "mlir-llvm", "llvm", "asm", "obj", "so",
                                               "ptx", "launches"}) {
                           if (v == s) {
                             f->emit = v;
                             return absl::OkStatus();
                           }
                         }
                         return absl::InvalidArgumentError(absl::StrCat(
                             "--emit: unknown stage '", v,
                             "' (expected mlir, mlir-llvm, llvm, asm, obj, so, ptx or launches)"));
                       }},
                      {"target", "TEXT", false,
                       "The codegen target for --emit, e.g. 'llvm -mcpu=znver4' (default: llvm)",
                       [](OptFlags* f, const std::string& v) {
                         f->target = v;
                         return absl::OkStatus();
                       }},
                      {"bundle-runtime", nullptr, false,
                       "With --emit=so: copy libtessel_runtime (and libtessel_dispatch_runtime "
                       "when "
                       "needed) beside the library, whose only RUNPATH is then $ORIGIN",
                       [](OptFlags* f, const std::string&) {
                         f->bundle_runtime = true;
                         return absl::OkStatus();
                       }},
                      {"print-pipeline", nullptr, false,
                       "Print the --pipeline back in canonical form (no input is read) and exit",
                       [](OptFlags* f, const std::string&) {
                         f->print_pipeline = true;
                         return absl::OkStatus();
                       }},
                      {"output", "FILE", false,
                       "Write the result to FILE instead of stdout (also -o FILE)",
                       [](OptFlags* f, const std::string& v) {
                         f->output = v;
                         return absl::OkStatus();
                       }},
                      {"split-input-file", nullptr, false,
                       "Treat each chunk between '// -----' lines as its own module",
                       [](OptFlags* f, const std::string&) {
                         f->split_input_file = true;
                         return absl::OkStatus();
                       }},
                      {"no-verify", nullptr, false, "Do not verify the input after parsing",
                       [](OptFlags* f, const std::string&) {
                         f->verify = false;
                         return absl::OkStatus();
                       }},
                      {"verify-each", nullptr, true, "Run the verifier after every pass",
                       [](OptFlags* f, const std::string&) {
                         f->verify_each = true;
                         return absl::OkStatus();
                       }},
                      {"check-semantics", nullptr, true,
                       "Compare interpreter results after every pass with those before the "
                       "pipeline",
                       [](OptFlags* f, const std::string&) {
                         f->check_semantics = true;
                         return absl::OkStatus();
                       }},
                      {"print-ir-before", "PASSES", false, "Print the IR before the named passes",
                       [](OptFlags* f, const std::string& v) {
                         f->print_before = SplitList(v);
                         return absl::OkStatus();
                       }},
                      {"print-ir-before-all", nullptr, false, "Print the IR before every pass",
                       [](OptFlags* f, const std::string&) {
                         f->print_before_all = true;
                         return absl::OkStatus();
                       }},
                      {"print-ir-after", "PASSES", false, "Print the IR after the named passes",
                       [](OptFlags* f, const std::string& v) {
                         f->print_after = SplitList(v);
                         return absl::OkStatus();
                       }},
                      {"print-ir-after-all", nullptr, false, "Print the IR after every pass",
                       [](OptFlags* f, const std::string&) {
                         f->print_after_all = true;
                         return absl::OkStatus();
                       }},
                      {"print-ir-after-change", nullptr, false,
                       "Print the IR after a pass only if it changed the module",
                       [](OptFlags* f, const std::string&) {
                         f->print_after_change = true;
                         return absl::OkStatus();
                       }},
                      {"timing", nullptr,
                       false, "Print the wall time of every pass as a tree at the end",
                       [](OptFlags* f, const std::string&) {
                         f->timing = true;
                         return absl::OkStatus();
                       }},
                      {"print-pass-log", nullptr,
                       false, "Print which passes ran, what they changed and which rules applied",
                       [](OptFlags* f, const std::string&) {
                         f->print_pass_log = true;
                         return absl::OkStatus();
                       }},
                      {"dump-dir", "DIR", false,
                       "Write the module after every pass to DIR/NNN_<pass>.tsl",
                       [](OptFlags* f, const std::string& v) {
                         f->dump_dir = v;
                         return absl::OkStatus();
                       }},
                      {"reproducer", "FILE", false, "On failure, write a reproducer to FILE",
                       [](OptFlags* f, const std::string& v) {
                         f->reproducer = v;
                         return absl::OkStatus();
                       }},
                      {"reproducer-full", nullptr, false,
                       "Reproducers hold the whole pipeline and its input, not just the failing "
                       "pass",
                       [](OptFlags* f, const std::string&) {
                         f->reproducer_full = true;
                         return absl::OkStatus();
                       }},
                      {"run-reproducer", "FILE", false,
                       "Re-run a reproducer written by --reproducer",
                       [](OptFlags* f, const std::string& v) {
                         f->run_reproducer = v;
                         return absl::OkStatus();
                       }},
                      {"opt-level", "N", true, "Skip passes whose opt level is above N (default 2)",
                       [](OptFlags* f, const std::string& v) {
                         int n = 0;
                         if (!absl::SimpleAtoi(v, &n) || n < 0) {
                           return absl::InvalidArgumentError(absl::StrCat(
                               "--opt-level expects a non-negative integer, got '", v, "'"));
                         }
                         f->opt_level = n;
                         return absl::OkStatus();
                       }},
                      {"disable-pass", "PASSES", true, "Never run the named passes",
                       [](OptFlags* f, const std::string& v) {
                         for (std::string& s : SplitList(v)) f->disabled.push_back(std::move(s));
                         return absl::OkStatus();
                       }},
                      {"require-pass", "PASSES",
                       true, "Run the named passes whatever their opt level",
                       [](OptFlags* f, const std::string& v) {
                         for (std::string& s : SplitList(v)) f->required.push_back(std::move(s));
                         return absl::OkStatus();
                       }},
                      {"config", "KEY=VALUE", true,
                       "Set a PassContext config (repeatable; see --list-configs)",
                       [](OptFlags* f, const std::string& v) {
                         size_t eq = v.find('=');
                         if (eq == std::string::npos || eq == 0) {
                           return absl::InvalidArgumentError(
                               absl::StrCat("--config expects KEY=VALUE, got '", v, "'"));
                         }
                         f->configs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
                         return absl::OkStatus();
                       }},
                      {"list-passes", nullptr,
                       false, "List the registered passes with their options",
                       [](OptFlags* f, const std::string&) {
                         f->list_passes = true;
                         return absl::OkStatus();
                       }},
                      {"list-configs", nullptr, false, "List the PassContext config keys",
                       [](OptFlags* f, const std::string&) {
                         f->list_configs = true;
                         return absl::OkStatus();
                       }},
                      {"load-test-passes", nullptr, true, "Register the test-only passes (test-*)",
                       [](OptFlags* f, const std::string&) {
                         f->load_test_passes = true;
                         return absl::OkStatus();
                       }},
                      {"help", nullptr, false, "Show this help",
                       [](OptFlags* f, const std::string&) {
                         f->help = true;
                         return absl::OkStatus();
                       }},
                  };
  return *flags;
}

const Flag* FindFlag(const std::string& name) {
  for (const Flag& f : Flags()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

absl::Status Parse(const std::vector<std::string>& args, bool run_args_only, OptFlags* out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-o") {
      if (run_args_only) return absl::InvalidArgumentError("-o is not allowed here");
      if (i + 1 >= args.size()) return absl::InvalidArgumentError("-o needs a file name");
      out->output = args[++i];
      continue;
    }
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      std::string body = a.substr(2);
      size_t eq = body.find('=');
      std::string name = body.substr(0, eq);
      const Flag* flag = FindFlag(name);
      if (flag == nullptr) {
        std::vector<std::string> names;
        for (const Flag& f : Flags()) names.push_back(f.name);
        return absl::InvalidArgumentError(absl::StrCat("unknown flag '--", name, "'",
                                                       passes::DidYouMean(name, names),
                                                       " (--help lists them)"));
      }
      if (run_args_only && !flag->run_arg) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag '--", name, "' is not allowed in a reproducer"));
      }
      std::string value;
      if (flag->value != nullptr) {
        if (eq != std::string::npos) {
          value = body.substr(eq + 1);
        } else if (i + 1 < args.size()) {
          value = args[++i];
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("flag '--", name, "' needs a value: --", name, "=", flag->value));
        }
      } else if (eq != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("flag '--", name, "' takes no value"));
      }
      absl::Status s = flag->apply(out, value);
      if (!s.ok()) return s;
      if (flag->run_arg) {
        out->run_args.push_back(flag->value != nullptr ? absl::StrCat("--", name, "=", value)
                                                       : absl::StrCat("--", name));
      }
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", a, "' (--help lists them)"));
    }
    if (run_args_only) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", a, "'"));
    }
    if (!out->input.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("more than one input: '", out->input, "' and '", a, "'"));
    }
    out->input = a;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OptFlags> ParseOptFlags(const std::vector<std::string>& args,
                                       bool reproducer_args_only) {
  OptFlags f;
  absl::Status s = Parse(args, reproducer_args_only, &f);
  if (!s.ok()) return s;
  if (f.input.empty()) f.input.assign(1, '-');  // assign: GCC 12 warns falsely on = "-"
  return f;
}

absl::Status ApplyRunArgs(const std::vector<std::string>& args, OptFlags* flags) {
  return Parse(args, /*run_args_only=*/true, flags);
}

std::string Usage() {
  std::string out =
      "usage: tessel-opt [INPUT.tsl | -] [flags]\n"
      "\n"
      "Parses and verifies a .tsl module, runs a pass pipeline on it and prints the\n"
      "result. '-' (the default) reads stdin. Exit status is non-zero on any error.\n"
      "\n"
      "flags:\n"
      "  -o FILE\n      Write the result to FILE instead of stdout\n";
  for (const Flag& f : Flags()) {
    absl::StrAppend(&out, "  --", f.name, f.value ? absl::StrCat("=", f.value) : "", "\n      ",
                    f.help, "\n");
  }
  return out;
}

}  // namespace tessel::opt
