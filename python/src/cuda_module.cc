// tessel.build(target="cuda ...") for Python: the lowered module's kernels compiled
// to PTX (codegen's BuildGpuProgram) and held as a runtime CudaProgram, whose
// functions Python calls with host arrays: each buffer is copied to the device,
// the kernels run, and what the function may write is copied back.
//
//   >>> ex = tessel.build(mod, target="cuda -arch=sm_90")
//   >>> ex["matmul"](a, b, c)        # numpy arrays; c is written in place
//   tessel.RuntimeError: matmul: no CUDA driver: cannot load libcuda.so.1 (...)
//
// Arguments are converted and checked as for a CPU call (call_args.h) before any
// driver call; compiling and running happen without the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codegen/gpu_codegen.h"
#include "codegen/runtime/cuda_program.h"
#include "codegen/runtime/export_library.h"
#include "codegen/runtime/graph_executor.h"
#include "codegen/runtime/signature.h"
#include "codegen/runtime/tessel_cuda.h"
#include "codegen/runtime/tessel_runtime.h"
#include "codegen/target.h"
#include "python/src/call_args.h"
#include "python/src/common.h"
#include "python/src/runtime_common.h"

namespace tessel::python {

namespace {

using runtime::CudaFunction;
using runtime::CudaProgram;

// Python's handle of a GPU program, shared with the graph executors over it.
struct CudaModule {
  std::shared_ptr<CudaProgram> program = std::make_shared<CudaProgram>();
};

const CudaFunction& FindFunction(const CudaModule& m, const std::string& name) {
  const CudaFunction* f = m.program->Find(name);
  if (f == nullptr) {
    std::string names;
    for (const CudaFunction& g : m.program->functions()) {
      names += (names.empty() ? "" : ", ") + g.signature.name;
    }
    Throw(ErrorKind::kArgument, "no GPU function named '" + name + "' (the module has " +
                                    (names.empty() ? std::string("none") : names) + ")");
  }
  return *f;
}

// A refused argument (nothing reached the device) is the caller's mistake; anything
// else, the device's.
[[noreturn]] void ThrowOutcome(const runtime::CallOutcome& r) {
  Throw(r.kind == runtime::CallOutcome::kBadArgument ? ErrorKind::kArgument : ErrorKind::kRuntime,
        r.message);
}

CudaModule BuildCuda(ir::IRModule mod, const std::string& target_text) {
  const codegen::Target target = Unwrap(codegen::Target::Parse(target_text), ErrorKind::kBuild);
  if (!target.is_cuda()) {
    Throw(ErrorKind::kBuild, "build_cuda: '" + target_text + "' is not a cuda target");
  }
  absl::StatusOr<codegen::GpuProgram> program;
  {
    py::gil_scoped_release release;
    program = codegen::BuildGpuProgram(mod, target);
  }
  codegen::GpuProgram built = Unwrap(std::move(program), ErrorKind::kBuild);
  CudaModule out;
  if (std::string e = CudaProgram::Parse(std::move(built.ptx), codegen::LaunchManifest(built),
                                         out.program.get());
      !e.empty()) {
    Throw(ErrorKind::kBuild, "build: " + e);
  }
  return out;
}

void Call(const CudaModule& m, const std::string& name, py::sequence args) {
  const CudaFunction& f = FindFunction(m, name);
  CallArgs call(f.signature, args);
  runtime::CallOutcome r;
  {
    py::gil_scoped_release release;
    r = m.program->Call(name, call.tensors().data(), static_cast<int32_t>(call.tensors().size()));
  }
  if (r.kind != runtime::CallOutcome::kOk) ThrowOutcome(r);
  call.CopyBack();
}

// A CUDA stream of the runtime's context (tessel_cuda_stream_create), destroyed with
// its Python object.
struct CudaStream {
  void* handle = nullptr;
  CudaStream() {
    if (tessel_cuda_init(0) != 0 || tessel_cuda_stream_create(&handle) != 0) {
      Throw(ErrorKind::kRuntime, std::string("Stream: ") + tessel_last_error());
    }
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() { tessel_cuda_stream_destroy(handle); }
  void Synchronize() const {
    int32_t rc;
    {
      py::gil_scoped_release release;
      rc = tessel_cuda_stream_synchronize(handle);
    }
    if (rc != 0) Throw(ErrorKind::kRuntime, tessel_last_error());
  }
};

// `name`'s kernels enqueued on `stream` (None: the default stream), not waited for.
void Enqueue(const CudaModule& m, const std::string& name, py::sequence args,
             const CudaStream* stream) {
  const CudaFunction& f = FindFunction(m, name);
  CallArgs call(f.signature, args);
  runtime::CallOutcome r;
  {
    py::gil_scoped_release release;
    r = m.program->Enqueue(name, call.tensors().data(), static_cast<int32_t>(call.tensors().size()),
                           stream != nullptr ? stream->handle : nullptr);
  }
  if (r.kind != runtime::CallOutcome::kOk) ThrowOutcome(r);
}

std::vector<double> TimeMs(const CudaModule& m, const std::string& name, py::sequence args,
                           int warmup, int repeat) {
  if (warmup < 0 || repeat < 1) {
    Throw(ErrorKind::kArgument, "time_evaluator: warmup >= 0 and repeat >= 1");
  }
  const CudaFunction& f = FindFunction(m, name);
  CallArgs call(f.signature, args);
  runtime::CallOutcome r;
  std::vector<double> ms;
  {
    py::gil_scoped_release release;
    r = m.program->Time(name, call.tensors().data(), static_cast<int32_t>(call.tensors().size()),
                        warmup, repeat, &ms);
  }
  if (r.kind != runtime::CallOutcome::kOk) ThrowOutcome(r);
  return ms;
}

void Export(const CudaModule& self, const std::string& path, const std::string& header_path,
            bool bundle_runtime) {
  runtime::ExportOptions options;
  options.header_path = header_path;
  options.bundle_runtime = bundle_runtime;
  options.cuda_ptx = self.program->ptx();
  options.cuda_manifest = self.program->manifest();
  absl::Status s;
  {
    py::gil_scoped_release release;
    s = runtime::ExportLibrary({}, {}, path, options);
  }
  Check(s, ErrorKind::kBuild);
}

// The GPU program a library carries, or None when it has none.
py::object LoadCudaLibrary(const std::string& path) {
  CudaModule out;
  bool carries = false;
  std::string error = CudaProgram::FromLibrary(path, out.program.get(), &carries);
  if (!carries) return py::none();
  if (!error.empty()) Throw(ErrorKind::kRuntime, error);
  return py::cast(std::move(out));
}

}  // namespace

void BindCudaModule(py::module_& m) {
  py::class_<CudaModule>(m, "CudaModule")
      .def("function_names",
           [](const CudaModule& self) {
             std::vector<std::string> names;
             for (const CudaFunction& f : self.program->functions()) {
               names.push_back(f.signature.name);
             }
             return names;
           })
      .def("signature",
           [](const CudaModule& self, const std::string& name) {
             return runtime::DescribeSignature(FindFunction(self, name).signature);
           })
      .def("kernel_names",
           [](const CudaModule& self, const std::string& name) {
             std::vector<std::string> names;
             for (const runtime::CudaKernel& k : FindFunction(self, name).kernels) {
               names.push_back(k.name);
             }
             return names;
           })
      .def_property_readonly("ptx", [](const CudaModule& self) { return self.program->ptx(); })
      .def_property_readonly("manifest",
                             [](const CudaModule& self) { return self.program->manifest(); })
      .def("call", &Call, py::arg("name"), py::arg("args"))
      .def("enqueue", &Enqueue, py::arg("name"), py::arg("args"), py::arg("stream").none(true))
      .def("export_library", &Export, py::arg("path"), py::arg("header_path") = "",
           py::arg("bundle_runtime") = false)
      .def("time_ms", &TimeMs, py::arg("name"), py::arg("args"), py::arg("warmup"),
           py::arg("repeat"));
  py::class_<CudaStream>(m, "CudaStream")
      .def(py::init<>())
      .def("synchronize", &CudaStream::Synchronize);
  m.def(
      "cuda_graph_executor",
      [](ir::IRModule mod, const std::string& name, const CudaModule& kernels) {
        return Unwrap(runtime::GraphExecutor::CreateOnCuda(mod, name, kernels.program),
                      ErrorKind::kBuild);
      },
      py::arg("mod"), py::arg("name"), py::arg("kernels"),
      "Graph function `name` of `mod` over the GPU program `kernels` built from it.");
  m.def("load_cuda_library", &LoadCudaLibrary, py::arg("path"),
        "The GPU program an exported library carries, or None.");
  m.def("build_cuda", &BuildCuda, py::arg("mod"), py::arg("target"),
        "PTX and launches for the kernels of a lowered module, as a CudaModule.");
}

}  // namespace tessel::python
