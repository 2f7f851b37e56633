#include "tests/unit/codegen_test_util.h"

#include <dlpack/dlpack.h>

#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "codegen/target.h"
#include "ir/parser.h"
#include "ir/status_macros.h"
#include "ir/verifier.h"

namespace tessel::codegen::testing {

namespace {
std::atomic<int64_t> threaded_chunks{0};
}  // namespace

int32_t SerialParallelFor(int64_t extent, TesselParallelBody body, void* closure) {
  return extent > 0 ? body(0, extent, closure) : 0;
}

int32_t ThreadedParallelFor(int64_t extent, TesselParallelBody body, void* closure) {
  constexpr int64_t kWorkers = 3;
  int64_t chunk = (extent + kWorkers - 1) / kWorkers;
  std::vector<std::thread> threads;
  std::atomic<int32_t> result{0};
  for (int64_t w = 1; w < kWorkers; ++w) {
    int64_t begin = w * chunk, end = std::min(extent, begin + chunk);
    if (begin >= end) break;
    threads.emplace_back([=, &result] {
      ++threaded_chunks;
      int32_t r = body(begin, end, closure);
      if (r != 0) result = r;
    });
  }
  int32_t r = extent > 0 ? body(0, std::min(chunk, extent), closure) : 0;
  for (std::thread& t : threads) t.join();
  return r != 0 ? r : result.load();
}

int64_t ThreadedChunksRun() { return threaded_chunks.load(); }

JitOptions TestJitOptions(bool threads) {
  JitOptions o;
  o.symbols.push_back({"tessel_parallel_for", threads ? reinterpret_cast<void*>(&ThreadedParallelFor)
                                                      : reinterpret_cast<void*>(&SerialParallelFor)});
  return o;
}

absl::StatusOr<ir::IRModule> Parse(const std::string& text) {
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, ir::ParseModule(text, "<test>"));
  TESSEL_RETURN_IF_ERROR(ir::VerifyModule(mod));
  return mod;
}

absl::Status CallJit(const JitModule& jit, const std::string& name, const ir::PrimFunc& func,
                     const std::vector<ir::Arg>& args) {
  TESSEL_ASSIGN_OR_RETURN(TesselPackedFunc f, jit.Lookup(name));
  if (args.size() != func->params.size()) return absl::InvalidArgumentError("argument count");
  std::vector<void*> ptrs(args.size());
  std::vector<DLTensor> tensors(args.size());  // What ABI version 2 passes for a buffer.
  std::vector<int64_t> ints(args.size());
  std::vector<double> doubles(args.size());
  std::vector<float> floats(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (const auto* b = std::get_if<ir::HostBuffer>(&args[i])) {
      // The kernel reads data, byte_offset and shape only (the runtime checks the rest).
      tensors[i] = DLTensor{};
      tensors[i].data = b->data();
      tensors[i].ndim = static_cast<int32_t>(b->shape().size());
      tensors[i].shape = const_cast<int64_t*>(b->shape().data());
      ptrs[i] = &tensors[i];
    } else if (const auto* v = std::get_if<int64_t>(&args[i])) {
      ints[i] = *v;
      ptrs[i] = &ints[i];
    } else {
      double d = std::get<double>(args[i]);
      if (func->params[i].var->dtype.bits() == 32) {
        floats[i] = static_cast<float>(d);
        ptrs[i] = &floats[i];
      } else {
        doubles[i] = d;
        ptrs[i] = &doubles[i];
      }
    }
  }
  int32_t rc = f(ptrs.data(), static_cast<int32_t>(ptrs.size()));
  if (rc != 0) return absl::InternalError(absl::StrCat(name, " returned ", rc));
  return absl::OkStatus();
}

absl::Status CheckAgainstInterpreter(const std::string& text, const CheckOptions& opts) {
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule mod, Parse(text));
  TESSEL_ASSIGN_OR_RETURN(Target target, Target::Parse(opts.target));
  TESSEL_ASSIGN_OR_RETURN(std::shared_ptr<JitModule> jit,
                          JitCompile(mod, target, TestJitOptions(opts.threads)));
  for (const auto& [name, func] : mod->functions) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<ir::Arg> args, ir::RandomArgs(func, opts.seed));
    std::vector<ir::Arg> expected = ir::CloneArgs(args);
    TESSEL_RETURN_IF_ERROR(ir::Run(func, expected, {}, name));
    TESSEL_RETURN_IF_ERROR(CallJit(*jit, name, func, args));
    absl::Status s = ir::CompareArgs(expected, args, func, opts.compare);
    if (!s.ok()) return absl::InternalError(absl::StrCat("function '", name, "': ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tessel::codegen::testing
