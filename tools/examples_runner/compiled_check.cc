#include "tools/examples_runner/compiled_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <variant>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codegen/build.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/ndarray.h"
#include "codegen/runtime/time_evaluator.h"
#include "codegen/target.h"
#include "ir/interpreter.h"

namespace tessel::examples {
namespace {

// Compiled code and the interpreter both compute in f32 without reassociation, but
// LLVM may contract a*b+c into an FMA and libm's exp/sqrt differ from the vector
// versions in the last bits: 1e-4 relative, 1e-5 absolute covers that and nothing
// like a wrong index or a missing init.
constexpr ir::CompareOptions kTolerance{.rtol = 1e-4, .atol = 1e-5};

struct Compiled {
  runtime::Module module;
  double compile_ms = 0;
};

// `lower` and codegen's JIT over the whole module (one compile per file), timed:
// compile ms covers both.
absl::StatusOr<Compiled> LowerAndCompile(const ir::IRModule& mod) {
  absl::StatusOr<codegen::Target> target = codegen::Target::Parse("llvm");
  if (!target.ok()) return target.status();
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<runtime::Module> module = codegen::Build(mod, *target);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!module.ok()) return module.status();
  return Compiled{*std::move(module), ms};
}

// The arguments as NDArrays (copies of the host buffers).
absl::StatusOr<std::vector<runtime::NDArray>> ToArrays(const std::vector<ir::Arg>& args) {
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto* buffer = std::get_if<ir::HostBuffer>(&args[i]);
    if (buffer == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat("parameter ", i, " is a scalar; this check passes buffers only"));
    }
    absl::StatusOr<runtime::NDArray> array = runtime::NDArray::FromHostBuffer(*buffer);
    if (!array.ok()) return array.status();
    arrays.push_back(*std::move(array));
  }
  return arrays;
}

// Copies the arrays back into host buffers, in place of `args`.
absl::Status FromArrays(const std::vector<runtime::NDArray>& arrays, std::vector<ir::Arg>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StatusOr<ir::HostBuffer> out = arrays[i].ToHostBuffer();
    if (!out.ok()) return out.status();
    args[i] = *std::move(out);
  }
  return absl::OkStatus();
}

// Largest |expected - actual| over the float buffers (0 when there are none).
double MaxError(const std::vector<ir::Arg>& expected, const std::vector<ir::Arg>& actual) {
  double worst = 0;
  for (size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
    const auto* e = std::get_if<ir::HostBuffer>(&expected[i]);
    const auto* a = std::get_if<ir::HostBuffer>(&actual[i]);
    if (e == nullptr || a == nullptr || !e->dtype().is_float() || e->size() != a->size()) continue;
    for (int64_t j = 0; j < e->size(); ++j) worst = std::max(worst, std::fabs(e->GetFloat(j) - a->GetFloat(j)));
  }
  return worst;
}

std::string FormatSeconds(double s) {
  if (s < 1e-6) return absl::StrFormat("%.0f ns", s * 1e9);
  if (s < 1e-3) return absl::StrFormat("%.2f us", s * 1e6);
  if (s < 1) return absl::StrFormat("%.2f ms", s * 1e3);
  return absl::StrFormat("%.2f s", s);
}

CompiledRow CheckFunction(const absl::StatusOr<Compiled>& compiled, const std::string& file,
                          const std::string& name, const ir::PrimFunc& func,
                          const std::vector<ir::Arg>& inputs, const absl::Status& interp,
                          const std::vector<ir::Arg>& expected) {
  CompiledRow row;
  row.file = file;
  row.function = name;
  auto fail = [&row](const absl::Status& s) {
    row.result = absl::StrCat("FAIL: ", s.message());
    row.ok = false;
    return row;
  };
  if (!compiled.ok()) return fail(compiled.status());
  row.compile_ms = absl::StrFormat("%.1f", compiled->compile_ms);
  absl::StatusOr<std::vector<runtime::NDArray>> arrays = ToArrays(inputs);
  if (!arrays.ok()) return fail(arrays.status());
  bool checked = interp.ok();
  if (checked) {
    std::vector<ir::Arg> actual = ir::CloneArgs(inputs);
    if (absl::Status s = compiled->module.Call(name, *arrays); !s.ok()) return fail(s);
    if (absl::Status s = FromArrays(*arrays, actual); !s.ok()) return fail(s);
    row.max_error = absl::StrFormat("%.1e", MaxError(expected, actual));
    if (absl::Status s = ir::CompareArgs(expected, actual, func, kTolerance); !s.ok()) return fail(s);
  }
  // A small function, warmed by the checked call above, is timed three times over at
  // least 10 ms each, keeping the fastest; a large one (seconds, when unscheduled) runs
  // once, and that run is its time.
  runtime::TimeOptions timing;
  timing.repeat = checked ? 3 : 1;
  timing.min_repeat_ms = checked ? 10.0 : 0.0;
  timing.warmup = 0;
  absl::StatusOr<runtime::TimeResult> t = runtime::TimeFunction(compiled->module, name, *arrays, timing);
  if (!t.ok()) return fail(t.status());
  row.run = FormatSeconds(*std::min_element(t->seconds_per_call.begin(), t->seconds_per_call.end()));
  row.result = checked ? "OK" : "unchecked: interpreter work over budget";
  return row;
}

}  // namespace

std::vector<CompiledRow> CheckCompiled(const ir::IRModule& mod, const std::string& file,
                                       const CompiledOptions& options) {
  std::vector<CompiledRow> rows;
  std::unique_ptr<absl::StatusOr<Compiled>> compiled;  // Made when the first row needs it.
  for (const auto& [name, func] : mod->functions) {
    absl::StatusOr<std::vector<ir::Arg>> inputs = ir::RandomArgs(func, options.seed);
    if (!inputs.ok()) {
      rows.push_back({.file = file, .function = name, .result = absl::StrCat("FAIL: ", inputs.status().message()),
                      .ok = false});
      continue;
    }
    // The interpreter runs the function as written, before any lowering.
    std::vector<ir::Arg> expected = ir::CloneArgs(*inputs);
    ir::RunOptions budget;
    budget.max_steps = options.interp_budget;
    absl::Status interp = ir::Run(func, expected, budget, name);
    bool over_budget = !interp.ok() && absl::StrContains(interp.message(), "exceeded max_steps");
    if (over_budget && options.small_only) continue;
    if (!interp.ok() && !over_budget) {
      rows.push_back({.file = file, .function = name, .result = absl::StrCat("FAIL: interpreter: ", interp.message()),
                      .ok = false});
      continue;
    }
    if (compiled == nullptr) compiled = std::make_unique<absl::StatusOr<Compiled>>(LowerAndCompile(mod));
    rows.push_back(CheckFunction(*compiled, file, name, func, *inputs, interp, expected));
  }
  return rows;
}

}  // namespace tessel::examples
