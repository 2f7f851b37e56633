// tessel-gpu-run: runs one function of a GPU program (the PTX and launch manifest
// `tessel-opt --target=cuda... --emit=ptx|launches` wrote) on the GPU, checks its
// outputs against reference files and times it with CUDA events. It links only
// libtessel_runtime, so it runs on a GPU machine that has nothing else of tessel.
//
//   tessel-gpu-run --ptx add.ptx --launches add.json --function add --data DIR --repeat 50
//
// DIR holds PARAM.in (the raw bytes of each buffer parameter's input) and, for those
// to check, PARAM.expected. It prints one JSON line: the device, each checked
// buffer's largest error, and the median and minimum time of the function's launches
// (all its kernels, in order) in milliseconds. Exit status 0 when every check passed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
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
  std::string ptx, launches, function, data;
  int repeat = 20;
};

int Run(const Options& o) {
  std::string ptx, manifest_text;
  if (!ReadFile(o.ptx, &ptx)) return Fail("cannot read " + o.ptx);
  if (!ReadFile(o.launches, &manifest_text)) return Fail("cannot read " + o.launches);
  tessel::runtime::CudaProgram program;
  if (std::string e = tessel::runtime::CudaProgram::Parse(ptx, manifest_text, &program);
      !e.empty()) {
    return Fail(o.launches + ": " + e);
  }
  const tessel::runtime::CudaFunction* func = program.Find(o.function);
  if (func == nullptr) return Fail("no function '" + o.function + "' in " + o.launches);

  if (tessel_cuda_init(0) != 0) return Fail(tessel_last_error());
  char name[256] = {0};
  int32_t major = 0, minor = 0, sms = 0;
  if (tessel_cuda_device_info(name, sizeof(name), &major, &minor, &sms) != 0) {
    return Fail(tessel_last_error());
  }
  // One device buffer per parameter, filled from PARAM.in (zeros without one).
  const std::vector<tessel::runtime::ParamSignature>& params = func->signature.params;
  std::vector<void*> device(params.size(), nullptr);
  std::vector<size_t> bytes(params.size(), 0);
  for (size_t i = 0; i < params.size(); ++i) {
    const tessel::runtime::ParamSignature& p = params[i];
    if (!p.is_buffer)
      return Fail("scalar parameter '" + p.name + "': not supported by tessel-gpu-run yet");
    size_t count = 1;
    for (const tessel::runtime::Dim& d : p.shape) {
      if (d.is_var()) {
        return Fail("parameter '" + p.name + "' has extent " + d.var +
                    "; tessel-gpu-run takes constant shapes");
      }
      count *= static_cast<size_t>(d.value);
    }
    bytes[i] = count * static_cast<size_t>(tessel::runtime::DTypeBytes(p.dtype));
    if (tessel_cuda_alloc(bytes[i], &device[i]) != 0) return Fail(tessel_last_error());
    std::string input;
    if (ReadFile(o.data + "/" + p.name + ".in", &input)) {
      if (input.size() != bytes[i]) return Fail(p.name + ".in has the wrong size");
      if (tessel_cuda_copy_to_device(device[i], input.data(), bytes[i]) != 0)
        return Fail(tessel_last_error());
    } else if (tessel_cuda_memset(device[i], 0, bytes[i]) != 0) {
      return Fail(tessel_last_error());
    }
  }
  // Workspaces: device buffers for the intermediates between kernels.
  for (const tessel::runtime::CudaFunction::Workspace& w : func->workspaces) {
    size_t n = static_cast<size_t>(w.elements * tessel::runtime::DTypeBytes(w.dtype));
    device.push_back(nullptr);
    bytes.push_back(n);
    if (tessel_cuda_alloc(n, &device.back()) != 0) return Fail(tessel_last_error());
  }
  auto launch_all = [&]() -> int32_t { return program.Launch(*func, device, {}, {}, nullptr); };
  if (launch_all() != 0 || tessel_cuda_synchronize() != 0) return Fail(tessel_last_error());

  nlohmann::json report = {{"function", o.function},
                           {"device", name},
                           {"capability", std::to_string(major) + "." + std::to_string(minor)},
                           {"multiprocessors", sms}};
  bool all_ok = true;
  nlohmann::json checks = nlohmann::json::object();
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string pname = params[i].name;
    std::string want;  // Workspaces are never checked: they follow the parameters.
    if (!ReadFile(o.data + "/" + pname + ".expected", &want)) continue;
    std::string got(bytes[i], '\0');
    if (tessel_cuda_copy_to_host(got.data(), device[i], bytes[i]) != 0)
      return Fail(tessel_last_error());
    if (want.size() != got.size()) return Fail(pname + ".expected has the wrong size");
    bool ok = false;
    double err = MaxError(tessel::runtime::DTypeToString(params[i].dtype), got, want, &ok);
    checks[pname] = {{"max_abs_error", err}, {"ok", ok}};
    all_ok = all_ok && ok;
  }
  report["checks"] = checks;
  report["ok"] = all_ok;

  void *start = nullptr, *end = nullptr;
  if (tessel_cuda_event_create(&start) != 0 || tessel_cuda_event_create(&end) != 0) {
    return Fail(tessel_last_error());
  }
  std::vector<double> ms;
  for (int r = 0; r < o.repeat; ++r) {
    float t = 0;
    if (tessel_cuda_event_record(start, nullptr) != 0 || launch_all() != 0 ||
        tessel_cuda_event_record(end, nullptr) != 0 ||
        tessel_cuda_event_elapsed_ms(start, end, &t) != 0) {
      return Fail(tessel_last_error());
    }
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) {
    report["median_ms"] = ms[ms.size() / 2];
    report["min_ms"] = ms.front();
    report["repeat"] = o.repeat;
  }
  std::printf("%s\n", report.dump().c_str());
  for (void* p : device) tessel_cuda_free(p);
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
    else if (a == "--function")
      ok = value(&o.function);
    else if (a == "--data")
      ok = value(&o.data);
    else if (a == "--repeat" && (ok = value(&repeat)))
      o.repeat = std::max(0, std::atoi(repeat.c_str()));
    else
      return Fail("unknown argument '" + a + "' (see the comment atop tessel_gpu_run.cc)");
    if (!ok) return Fail(a + " needs a value");
  }
  if (o.ptx.empty() || o.launches.empty() || o.function.empty() || o.data.empty()) {
    return Fail(
        "usage: tessel-gpu-run --ptx FILE --launches FILE --function NAME --data DIR "
        "[--repeat N]");
  }
  return Run(o);
}
