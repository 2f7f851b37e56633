// One worker request carried out (see worker.h).
#include "metaschedule/measure/worker.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/build.h"
#include "codegen/emit.h"
#include "codegen/runtime/export_library.h"
#include "codegen/runtime/module.h"
#include "codegen/runtime/ndarray.h"
#include "codegen/runtime/tessel_runtime.h"
#include "codegen/runtime/time_evaluator.h"
#include "codegen/target.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/read_file.h"
#include "ir/schedule/schedule.h"
#include "ir/status_macros.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"

namespace tessel::metaschedule {

namespace {

constexpr const char* kReferenceMagic = "tessel-reference 1\n";

// What failing on purpose looks like (tests only; see worker_request.h).
void MaybeFault(const WorkerRequest& r) {
  if (r.fault == "crash") std::raise(SIGSEGV);
  if (r.fault == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

absl::StatusOr<ir::PrimFunc> Workload(const WorkerRequest& r, ir::IRModule* mod) {
  TESSEL_ASSIGN_OR_RETURN(*mod, ir::ParseModule(r.workload, "workload"));
  ir::PrimFunc f = (*mod)->Lookup(r.function);
  if (!f)
    return absl::InvalidArgumentError(
        absl::StrCat("the workload has no function '", r.function, "'"));
  return f;
}

// The seeded inputs of `func`: buffers only (tuning passes no scalars).
absl::StatusOr<std::vector<ir::Arg>> Inputs(const ir::PrimFunc& func, uint64_t seed) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<ir::Arg> args, ir::RandomArgs(func, seed));
  for (size_t i = 0; i < args.size(); ++i) {
    if (!std::holds_alternative<ir::HostBuffer>(args[i])) {
      return absl::UnimplementedError(
          absl::StrCat("parameter ", i, " is a scalar; tuning measures functions of buffers only"));
    }
  }
  return args;
}

absl::StatusOr<std::vector<runtime::NDArray>> ToArrays(const std::vector<ir::Arg>& args) {
  std::vector<runtime::NDArray> arrays;
  for (const ir::Arg& a : args) {
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray x,
                            runtime::NDArray::FromHostBuffer(std::get<ir::HostBuffer>(a)));
    arrays.push_back(std::move(x));
  }
  return arrays;
}

absl::StatusOr<std::vector<ir::Arg>> FromArrays(const std::vector<runtime::NDArray>& arrays) {
  std::vector<ir::Arg> out;
  for (const runtime::NDArray& a : arrays) {
    TESSEL_ASSIGN_OR_RETURN(ir::HostBuffer b, a.ToHostBuffer());
    out.push_back(std::move(b));
  }
  return out;
}

int64_t Bytes(const ir::HostBuffer& b) { return b.size() * b.dtype().bytes(); }

absl::Status WriteReference(const std::string& path, const std::vector<ir::Arg>& args) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << kReferenceMagic << args.size() << "\n";
  for (const ir::Arg& a : args) {
    const ir::HostBuffer& b = std::get<ir::HostBuffer>(a);
    out << Bytes(b) << "\n";
    out.write(static_cast<const char*>(b.data()), Bytes(b));
  }
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write the reference ", path));
  return absl::OkStatus();
}

// The reference's buffers, into copies shaped like `like` (the same seeded inputs).
absl::StatusOr<std::vector<ir::Arg>> ReadReference(const std::string& path,
                                                   const std::vector<ir::Arg>& like) {
  TESSEL_ASSIGN_OR_RETURN(std::string bytes, ir::ReadFileBounded(path, int64_t{1} << 40));
  std::string magic = kReferenceMagic;
  auto bad = [&](const std::string& why) {
    return absl::DataLossError(absl::StrCat("reference ", path, ": ", why));
  };
  if (!bytes.starts_with(magic)) return bad("not a tessel reference");
  size_t pos = magic.size();
  auto read_number = [&](int64_t* v) {
    size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) return false;
    *v = std::strtoll(bytes.c_str() + pos, nullptr, 10);
    pos = end + 1;
    return true;
  };
  int64_t count = 0;
  if (!read_number(&count) || count != static_cast<int64_t>(like.size())) {
    return bad("its buffer count differs from the function's parameters");
  }
  std::vector<ir::Arg> out = ir::CloneArgs(like);
  for (ir::Arg& a : out) {
    ir::HostBuffer& b = std::get<ir::HostBuffer>(a);
    int64_t size = 0;
    if (!read_number(&size) || size != Bytes(b) || pos + size > bytes.size()) {
      return bad("a buffer's size differs from the parameter's");
    }
    std::memcpy(b.data(), bytes.data() + pos, size);
    pos += size;
  }
  return out;
}

double MaxError(const std::vector<ir::Arg>& expected, const std::vector<ir::Arg>& actual) {
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const ir::HostBuffer& e = std::get<ir::HostBuffer>(expected[i]);
    const ir::HostBuffer& a = std::get<ir::HostBuffer>(actual[i]);
    if (!e.dtype().is_float()) continue;
    for (int64_t j = 0; j < e.size(); ++j) {
      double d = std::fabs(e.GetFloat(j) - a.GetFloat(j));
      if (std::isnan(d)) return d;
      worst = std::max(worst, d);
    }
  }
  return worst;
}

// The largest |value| of the float buffers (0 when there are none).
double MaxMagnitude(const std::vector<ir::Arg>& args) {
  double m = 0;
  for (const ir::Arg& a : args) {
    const ir::HostBuffer& b = std::get<ir::HostBuffer>(a);
    if (!b.dtype().is_float()) continue;
    for (int64_t j = 0; j < b.size(); ++j) {
      double v = std::fabs(b.GetFloat(j));
      if (std::isfinite(v)) m = std::max(m, v);
    }
  }
  return m;
}

absl::Status Reference(const WorkerRequest& r, WorkerResult* result) {
  ir::IRModule mod;
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func, Workload(r, &mod));
  TESSEL_ASSIGN_OR_RETURN(std::vector<ir::Arg> args, Inputs(func, r.seed));
  std::vector<ir::Arg> expected = ir::CloneArgs(args);
  ir::RunOptions budget;
  budget.max_steps = r.interp_budget;
  absl::Status interp = ir::Run(func, expected, budget, r.function);
  if (interp.ok()) {
    result->checked_by = "interpreter";
    return WriteReference(r.reference, expected);
  }
  if (!absl::StrContains(interp.message(), "exceeded max_steps")) return interp;
  // Too long for the interpreter: the function as written, compiled.
  TESSEL_ASSIGN_OR_RETURN(codegen::Target target, codegen::Target::Parse(r.target));
  TESSEL_ASSIGN_OR_RETURN(runtime::Module m, codegen::Build(mod, target));
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> arrays, ToArrays(args));
  TESSEL_RETURN_IF_ERROR(m.Call(r.function, arrays));
  TESSEL_ASSIGN_OR_RETURN(expected, FromArrays(arrays));
  result->checked_by = "unscheduled code";
  return WriteReference(r.reference, expected);
}

absl::Status Build(const WorkerRequest& r) {
  ir::IRModule mod;
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func, Workload(r, &mod));
  TESSEL_ASSIGN_OR_RETURN(ir::schedule::Trace trace,
                          ir::schedule::Trace::FromJson(r.trace, "candidate trace"));
  TESSEL_ASSIGN_OR_RETURN(ir::schedule::Schedule s,
                          ir::schedule::Schedule::Create(mod, r.function));
  TESSEL_RETURN_IF_ERROR(trace.ApplyToSchedule(&s));
  MaybeFault(r);
  passes::PassContext ctx;
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule lowered, passes::RunPipeline("lower", s.mod(), ctx));
  TESSEL_ASSIGN_OR_RETURN(codegen::Target target, codegen::Target::Parse(r.target));
  TESSEL_ASSIGN_OR_RETURN(std::string object, codegen::EmitObject(lowered, target));
  runtime::ExportOptions options;
  options.cpu_features = target.IsaFeatures();
  return runtime::ExportModule(lowered, object, r.library, options);
}

// Fills `result` (status, seconds) for a run; errors are the run's own failures.
absl::Status Run(const WorkerRequest& r, WorkerResult* result) {
  ir::IRModule mod;
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func, Workload(r, &mod));
  TESSEL_ASSIGN_OR_RETURN(std::vector<ir::Arg> args, Inputs(func, r.seed));
  TESSEL_ASSIGN_OR_RETURN(std::vector<ir::Arg> expected, ReadReference(r.reference, args));
  TESSEL_ASSIGN_OR_RETURN(runtime::Module m, runtime::Module::LoadLibrary(r.library));
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> arrays, ToArrays(args));
  // The target's -num-threads, as a build for it would run (0: every core).
  if (!r.target.empty()) {
    TESSEL_ASSIGN_OR_RETURN(codegen::Target target, codegen::Target::Parse(r.target));
    if (target.num_threads > 0) tessel_set_num_threads(target.num_threads);
  }
  MaybeFault(r);
  TESSEL_RETURN_IF_ERROR(m.Call(r.function, arrays));
  TESSEL_ASSIGN_OR_RETURN(std::vector<ir::Arg> actual, FromArrays(arrays));
  if (r.fault == "wrong") {
    ir::HostBuffer& last = std::get<ir::HostBuffer>(actual.back());
    last.SetFloat(0, last.GetFloat(0) + 1.0);
  }
  result->max_error = MaxError(expected, actual);
  // The absolute tolerance grows with the outputs' magnitude: a long reduction
  // summed in another order (a blocked sum against the reference's sequential one)
  // differs by rounding that scales with its partial sums, not with its result. A
  // wrong index or a missing init still differs by the values themselves.
  absl::Status same = ir::CompareArgs(
      expected, actual, func,
      {.rtol = kCandidateRtol, .atol = kCandidateAtol * std::max(1.0, MaxMagnitude(expected))});
  if (!same.ok()) {
    result->status = "wrong_result";
    result->error = std::string(same.message());
    return absl::OkStatus();
  }
  runtime::TimeOptions timing;
  timing.number = r.number;
  timing.repeat = r.repeat;
  timing.min_repeat_ms = r.min_repeat_ms;
  timing.flush_cache = r.flush_cache;
  TESSEL_ASSIGN_OR_RETURN(runtime::TimeResult t,
                          runtime::TimeFunction(m, r.function, arrays, timing));
  result->seconds = t.seconds_per_call;
  return absl::OkStatus();
}

}  // namespace

WorkerResult DoWork(const WorkerRequest& request) {
  WorkerResult result;
  auto start = std::chrono::steady_clock::now();
  absl::Status s;
  if (request.kind == "build") {
    s = Build(request);
    if (!s.ok()) result.status = "build_error";
  } else if (request.kind == "run") {
    s = Run(request, &result);
    if (!s.ok()) result.status = "run_error";
  } else {
    s = Reference(request, &result);
    if (!s.ok()) result.status = "run_error";
  }
  if (!s.ok()) result.error = std::string(s.message());
  result.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tessel::metaschedule
