// tessel-gpu-run: runs one function of a GPU program (the PTX and launch manifest
// `tessel-opt --target=cuda... --emit=ptx|launches` wrote) on the GPU, checks its
// outputs against reference files and times it with CUDA events. It links only
// libtessel_runtime, so it runs on a GPU machine that has nothing else of tessel.
//
//   tessel-gpu-run --ptx add.ptx --launches add.json --function add --data DIR --repeat 50
//   tessel-gpu-run --library add.so --function add --data DIR --repeat 50
//   tessel-gpu-run --ptx add.ptx --launches add.json --function add --data DIR --var n=1000
//       --device-arrays
//
// The program comes from the PTX and manifest files, or from a library exported
// from a cuda build (--library). Either way the function runs as tessel.build's
// and C's calls do (CudaProgram::Call: host buffers copied over and back) and
// is timed by CudaProgram::Time (buffers copied once, kernels timed). With
// --device-arrays the buffers are copied to device memory first and the call takes
// them in place (the path of tessel.nd.array(..., device="cuda")); --var binds a
// shape variable (f32[n] needs --var n=...).
//
// DIR holds PARAM.in (the raw bytes of each parameter's input: a buffer's, or a
// scalar's one value; an integer scalar may come from --var instead) and, for
// buffers to check, PARAM.expected. It prints one JSON line: the device, each checked
// buffer's largest error, and the median and minimum time of the function's launches
// (all its kernels, in order) in milliseconds. Exit status 0 when every check passed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/runtime/cuda_program.h"
#include "codegen/runtime/tessel_cuda.h"
#include "codegen/runtime/tessel_runtime.h"
#include "nlohmann/json.hpp"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "tessel-gpu-run: %s\n", message.c_str());
  return 1;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

// The largest |got - expected| beyond the tolerance's scale (f32: relative 1e-3 and
// absolute 1e-4 times the largest |expected|; integers: exact), or -1 on a mismatch
// of a value that is not a float.
double MaxError(const std::string& dtype, const std::string& got, const std::string& want,
                bool* ok) {
  *ok = true;
  if (dtype != "f32") {
    *ok = got == want;
    return *ok ? 0.0 : -1.0;
  }
  size_t n = want.size() / 4;
  const float* g = reinterpret_cast<const float*>(got.data());
  const float* w = reinterpret_cast<const float*>(want.data());
  double scale = 1.0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(static_cast<double>(w[i])));
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double err = std::fabs(static_cast<double>(g[i]) - w[i]);
    if (std::isnan(g[i]) != std::isnan(w[i])) err = INFINITY;
    worst = std::max(worst, err);
    if (err > 1e-4 * scale + 1e-3 * std::fabs(static_cast<double>(w[i]))) *ok = false;
  }
  return worst;
}

struct Options {
  std::string ptx, launches, library, function, data;
  int repeat = 20;
  bool device_arrays = false;
  std::map<std::string, int64_t> vars;  // Shape variables' values.
};

using tessel::runtime::ParamSignature;

// The parameters' bytes, from PARAM.in (zeros without one), in 64-byte-aligned
// host memory; "" or why not.
struct HostBuffers {
  std::vector<bool> scalar;  // A scalar parameter: a host tensor of rank 0 in any call.
  std::vector<std::unique_ptr<char, decltype(&std::free)>> data;
  std::vector<size_t> bytes;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DLTensor> tensors;
};
std::string ReadInputs(const std::vector<ParamSignature>& params, const std::string& dir,
                       const std::map<std::string, int64_t>& vars, HostBuffers* out) {
  for (const ParamSignature& p : params) {
    out->scalar.push_back(!p.is_buffer);
    size_t count = 1;
    out->shapes.emplace_back();
    for (const tessel::runtime::Dim& d : p.shape) {
      int64_t extent = d.value;
      if (d.is_var()) {
        auto it = vars.find(d.var);
        if (it == vars.end()) {
          return "parameter '" + p.name + "' has extent " + d.var + "; give it with --var " +
                 d.var + "=VALUE";
        }
        extent = it->second;
      }
      count *= static_cast<size_t>(extent);
      out->shapes.back().push_back(extent);
    }
    const size_t bytes = count * static_cast<size_t>(tessel::runtime::DTypeBytes(p.dtype));
    out->bytes.push_back(bytes);
    out->data.emplace_back(static_cast<char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64)),
                           &std::free);
    if (out->data.back() == nullptr) return "out of host memory for " + p.name;
    std::memset(out->data.back().get(), 0, bytes);
    std::string input;
    if (ReadFile(dir + "/" + p.name + ".in", &input)) {
      if (input.size() != bytes) return p.name + ".in has the wrong size";
      std::memcpy(out->data.back().get(), input.data(), bytes);
    } else if (!p.is_buffer) {
      // A scalar: its bytes, or an integer's value from --var.
      auto it = vars.find(p.name);
      if (it == vars.end() || p.dtype.code != kDLInt ||
          (p.dtype.bits != 32 && p.dtype.bits != 64)) {
        return "scalar parameter '" + p.name + "': give " + p.name +
               ".in (its bytes) or, for an integer, --var " + p.name + "=VALUE";
      }
      if (p.dtype.bits == 32) {
        const auto v = static_cast<int32_t>(it->second);
        std::memcpy(out->data.back().get(), &v, sizeof(v));
      } else {
        std::memcpy(out->data.back().get(), &it->second, sizeof(it->second));
      }
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    DLTensor t{};
    t.data = out->data[i].get();
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int32_t>(out->shapes[i].size());
    t.dtype = params[i].dtype;
    t.shape = out->shapes[i].data();
    out->tensors.push_back(t);
  }
  return "";
}

// Device copies of a call's host buffers (kDLCUDA tensors), freed when it goes.
struct DeviceArrays {
  std::vector<void*> pointers;
  std::vector<DLTensor> tensors;
  ~DeviceArrays() {
    for (void* p : pointers) {
      if (p != nullptr) tessel_cuda_free(p);
    }
  }
  std::string CopyIn(const HostBuffers& host) {
    for (size_t i = 0; i < host.tensors.size(); ++i) {
      if (host.scalar[i]) {  // Scalars stay host values.
        pointers.push_back(nullptr);
        tensors.push_back(host.tensors[i]);
        continue;
      }
      void* p = nullptr;
      if (tessel_cuda_alloc(std::max<size_t>(host.bytes[i], 1), &p) != 0)
        return tessel_last_error();
      pointers.push_back(p);  // Freed with the others from here on.
      if (tessel_cuda_copy_to_device(p, host.data[i].get(), host.bytes[i]) != 0) {
        return tessel_last_error();
      }
      DLTensor t = host.tensors[i];
      t.data = p;
      t.device = DLDevice{kDLCUDA, 0};
      tensors.push_back(t);
    }
    return "";
  }
  std::string CopyOut(HostBuffers* host) const {
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (host->scalar[i]) continue;
      if (tessel_cuda_copy_to_host(host->data[i].get(), pointers[i], host->bytes[i]) != 0) {
        return tessel_last_error();
      }
    }
    return "";
  }
};

// Each parameter with a PARAM.expected file checked against what the call left in
// its host buffer; "" or why a check could not be made.
std::string Checks(const std::vector<ParamSignature>& params, const std::string& dir,
                   const HostBuffers& host, nlohmann::json* checks, bool* all_ok) {
  *all_ok = true;
  *checks = nlohmann::json::object();
  for (size_t i = 0; i < params.size(); ++i) {
    std::string want;
    if (!params[i].is_buffer || !ReadFile(dir + "/" + params[i].name + ".expected", &want))
      continue;
    const std::string got(host.data[i].get(), host.bytes[i]);
    if (want.size() != got.size()) return params[i].name + ".expected has the wrong size";
    bool ok = false;
    double err = MaxError(tessel::runtime::DTypeToString(params[i].dtype), got, want, &ok);
    (*checks)[params[i].name] = {{"max_abs_error", err}, {"ok", ok}};
    *all_ok = *all_ok && ok;
  }
  return "";
}

void AddTimes(std::vector<double> ms, int repeat, nlohmann::json* report) {
  std::sort(ms.begin(), ms.end());
  if (ms.empty()) return;
  (*report)["median_ms"] = ms[ms.size() / 2];
  (*report)["min_ms"] = ms.front();
  (*report)["repeat"] = repeat;
}

int Run(const Options& o) {
  tessel::runtime::CudaProgram program;
  std::string source = o.library;
  if (!o.library.empty()) {
    if (std::string e = tessel::runtime::CudaProgram::FromLibrary(o.library, &program); !e.empty())
      return Fail(e);
  } else {
    std::string ptx, manifest_text;
    if (!ReadFile(o.ptx, &ptx)) return Fail("cannot read " + o.ptx);
    if (!ReadFile(o.launches, &manifest_text)) return Fail("cannot read " + o.launches);
    if (std::string e = tessel::runtime::CudaProgram::Parse(ptx, manifest_text, &program);
        !e.empty()) {
      return Fail(o.launches + ": " + e);
    }
    source = o.launches;
  }
  const tessel::runtime::CudaFunction* func = program.Find(o.function);
  if (func == nullptr) return Fail("no function '" + o.function + "' in " + source);

  // The inputs first: what is missing or wrong is said without a GPU.
  const std::vector<ParamSignature>& params = func->signature.params;
  HostBuffers host;
  if (std::string e = ReadInputs(params, o.data, o.vars, &host); !e.empty()) return Fail(e);
  if (tessel_cuda_init(0) != 0) return Fail(tessel_last_error());
  char name[256] = {0};
  int32_t major = 0, minor = 0, sms = 0;
  if (tessel_cuda_device_info(name, sizeof(name), &major, &minor, &sms) != 0) {
    return Fail(tessel_last_error());
  }
  nlohmann::json report = {{"function", o.function},
                           {"device", name},
                           {"capability", std::to_string(major) + "." + std::to_string(minor)},
                           {"multiprocessors", sms},
                           {"program", o.library.empty() ? "ptx and manifest" : "library"}};
  // With --device-arrays: device copies of the inputs, which the call takes in place.
  DeviceArrays device;
  if (o.device_arrays) {
    if (std::string e = device.CopyIn(host); !e.empty()) return Fail(e);
    report["arrays"] = "device";
  }
  std::vector<DLTensor*> args;
  for (DLTensor& t : o.device_arrays ? device.tensors : host.tensors) args.push_back(&t);
  const int32_t n = static_cast<int32_t>(args.size());
  using tessel::runtime::CallOutcome;
  if (CallOutcome r = program.Call(o.function, args.data(), n); r.kind != CallOutcome::kOk) {
    return Fail(r.message);
  }
  if (o.device_arrays) {
    if (std::string e = device.CopyOut(&host); !e.empty()) return Fail(e);
  }
  bool all_ok = true;
  nlohmann::json checks;
  if (std::string e = Checks(params, o.data, host, &checks, &all_ok); !e.empty()) return Fail(e);
  report["checks"] = checks;
  report["ok"] = all_ok;
  std::vector<double> ms;
  if (CallOutcome r = program.Time(o.function, args.data(), n, 1, o.repeat, &ms);
      r.kind != CallOutcome::kOk) {
    return Fail(r.message);
  }
  AddTimes(ms, o.repeat, &report);
  std::printf("%s\n", report.dump().c_str());
  return all_ok ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string repeat;
    bool ok = true;
    if (a == "--ptx")
      ok = value(&o.ptx);
    else if (a == "--launches")
      ok = value(&o.launches);
    else if (a == "--library")
      ok = value(&o.library);
    else if (a == "--function")
      ok = value(&o.function);
    else if (a == "--data")
      ok = value(&o.data);
    else if (a == "--repeat" && (ok = value(&repeat)))
      o.repeat = std::max(0, std::atoi(repeat.c_str()));
    else if (a == "--device-arrays")
      o.device_arrays = true;
    else if (std::string var; a == "--var" && (ok = value(&var))) {
      const size_t eq = var.find('=');
      char* end = nullptr;
      const long long v =
          eq == std::string::npos ? -1 : std::strtoll(var.c_str() + eq + 1, &end, 10);
      if (eq == std::string::npos || eq == 0 || end == nullptr || *end != '\0' || v < 0) {
        return Fail("--var takes NAME=VALUE (a non-negative integer), given '" + var + "'");
      }
      o.vars[var.substr(0, eq)] = v;
    } else
      return Fail("unknown argument '" + a + "' (see the comment atop tessel_gpu_run.cc)");
    if (!ok) return Fail(a + " needs a value");
  }
  const bool from_files = !o.ptx.empty() && !o.launches.empty();
  if (from_files == !o.library.empty() || o.function.empty() || o.data.empty()) {
    return Fail(
        "usage: tessel-gpu-run (--ptx FILE --launches FILE | --library FILE.so) --function NAME "
        "--data DIR [--repeat N] [--var NAME=VALUE ...] [--device-arrays]");
  }
  return Run(o);
}
