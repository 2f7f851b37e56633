// CudaProgram: a launch manifest parsed into checked functions (every malformed
// part refused with a message naming it, nothing crashing), and calls that check
// their arguments before the driver and, without one (CI), fail with its message.
// On a machine with a GPU the Python tests (test_cuda_build.py) run kernels.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/runtime/cuda_program.h"
#include "codegen/runtime/export_library.h"
#include "codegen/runtime/ndarray.h"
#include "codegen/runtime/tessel_cuda.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

constexpr char kPtx[] = ".version 8.0\n.target sm_90\n.visible .entry add_kernel0() { ret; }\n";

// A manifest of one function add(A: f32[n], B: f32[n], n: i32) whose kernel
// `kernel` (a JSON object) is spliced in.
std::string Manifest(
    const std::string& kernel,
    const std::string& params = R"([{"name": "A", "dtype": "f32", "shape": ["n"], "written": false},
                         {"name": "B", "dtype": "f32", "shape": ["n"]},
                         {"name": "n", "dtype": "i32", "scalar": true}])") {
  return R"({"version": 1, "functions": [{"name": "add", "params": )" + params +
         R"(, "workspaces": [{"name": "T", "dtype": "f32", "elements": 64}], "kernels": [)" +
         kernel + "]}]}";
}

constexpr char kKernel[] = R"({"name": "add_kernel0", "grid": [4, 1, 1], "block": [128, 1, 1],
    "shared_bytes": 0, "buffer_args": [0, 1, 3], "scalars": [{"name": "n", "dtype": "i32"}]})";

TEST(CudaProgram, ParsesAManifest) {
  CudaProgram p;
  ASSERT_EQ(CudaProgram::Parse(kPtx, Manifest(kKernel), &p), "");
  ASSERT_NE(p.Find("add"), nullptr);
  EXPECT_EQ(p.Find("sub"), nullptr);
  const CudaFunction& f = *p.Find("add");
  EXPECT_EQ(DescribeSignature(f.signature), "add(A: f32[n], B: f32[n], n: i32)");
  EXPECT_FALSE(f.signature.params[0].written);  // Only read: never copied back.
  EXPECT_TRUE(f.signature.params[1].written);   // Unsaid: treated as written.
  ASSERT_EQ(f.workspaces.size(), 1u);
  EXPECT_EQ(f.workspaces[0].elements, 64);
  ASSERT_EQ(f.kernels.size(), 1u);
  EXPECT_EQ(f.kernels[0].grid[0], 4);
  EXPECT_EQ(f.kernels[0].block[0], 128);
  EXPECT_EQ(f.kernels[0].buffer_args, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(f.kernels[0].scalar_names, (std::vector<std::string>{"n"}));
}

TEST(CudaProgram, RefusesMalformedManifests) {
  struct Case {
    std::string manifest, error;
  };
  const std::vector<Case> cases = {
      {"{not json", "the launch manifest is not JSON"},
      {R"({"version": 2, "functions": []})", "not version 1"},
      {R"({"version": 1})", "lists no functions"},
      {Manifest(R"({"name": "k", "grid": [4, 1], "block": [1, 1, 1], "shared_bytes": 0,
                    "buffer_args": [], "scalars": []})"),
       "kernel k: grid and block are three extents each"},
      {Manifest(R"({"name": "k", "grid": [0, 1, 1], "block": [1, 1, 1], "shared_bytes": 0,
                    "buffer_args": [], "scalars": []})"),
       "grid extents are positive integers or expressions"},
      {Manifest(R"({"name": "k", "grid": [1, 1, 1], "block": [1, 0, 1], "shared_bytes": 0,
                    "buffer_args": [], "scalars": []})"),
       "block extents are positive integers"},
      {Manifest(R"({"name": "k", "grid": ["(n + 255) // ", 1, 1], "block": [1, 1, 1],
                    "shared_bytes": 0, "buffer_args": [], "scalars": []})"),
       "kernel k: extent '(n + 255) // ': an operand is missing"},
      {R"({"version": 1, "functions": [{"name": "f", "params": [{"name": "A", "dtype": "f32",
           "shape": ["n"]}], "workspaces": [{"name": "T", "dtype": "f32", "elements": "(m) * 2"}],
           "kernels": []}]})",
       "workspace T reads 'm', which is no scalar parameter or shape variable"},
      {R"({"version": 1, "functions": [{"name": "f", "params": [{"name": "A", "dtype": "f32",
           "shape": ["n"]}], "workspaces": [{"name": "T", "dtype": "f32", "elements": "(n) *"}],
           "kernels": []}]})",
       "workspace T: extent '(n) *': an operand is missing"},
      {Manifest(R"({"name": "k", "grid": ["(m + 255) // 256", 1, 1], "block": [1, 1, 1],
                    "shared_bytes": 0, "buffer_args": [], "scalars": []})"),
       "the grid extent '(m + 255) // 256' reads 'm', which is no scalar parameter or shape "
       "variable"},
      {Manifest(R"({"name": "k", "grid": [1, 1, 1], "block": [1, 1, 1], "shared_bytes": 0,
                    "buffer_args": [4], "scalars": []})"),
       "kernel k: a buffer argument out of range"},
      {Manifest(R"({"name": "k", "grid": [1, 1, 1], "block": [1, 1, 1], "shared_bytes": 0,
                    "buffer_args": [2], "scalars": []})"),
       "kernel k: the buffer argument 2 is the scalar n"},
      {Manifest(R"({"name": "k", "grid": [1, 1, 1], "block": [1, 1, 1], "shared_bytes": -1,
                    "buffer_args": [], "scalars": []})"),
       "shared_bytes is a non-negative integer"},
      {Manifest(R"({"name": "k", "grid": [1, 1, 1], "block": [1, 1, 1], "shared_bytes": 0,
                    "buffer_args": [], "scalars": [{"name": "m", "dtype": "i32"}]})"),
       "the scalar 'm' is no parameter or shape variable of add(A: f32[n], B: f32[n], n: i32)"},
      {Manifest(kKernel, R"([{"name": "A", "dtype": "f32", "shape": ["n + 1"]}])"),
       "parameter 'A' has the extent 'n + 1'"},
      {Manifest(kKernel, R"([{"name": "A", "dtype": "q7", "shape": [4]}])"),
       "parameter 'A' has the unknown dtype q7"},
  };
  for (const Case& c : cases) {
    CudaProgram p;
    EXPECT_THAT(CudaProgram::Parse(kPtx, c.manifest, &p), HasSubstr(c.error)) << c.manifest;
    EXPECT_EQ(p.Find("add"), nullptr);  // Nothing half-parsed was kept.
  }
  CudaProgram p;
  EXPECT_EQ(CudaProgram::Parse("// no kernels", Manifest(kKernel), &p),
            "the PTX has no kernel entry");
}

TEST(CudaProgram, ACallChecksItsArgumentsThenNeedsADriver) {
  CudaProgram p;
  ASSERT_EQ(CudaProgram::Parse(kPtx, Manifest(kKernel), &p), "");
  NDArray a = *NDArray::Zeros({8}, DLDataType{kDLFloat, 32, 1});
  NDArray b = *NDArray::Zeros({8}, DLDataType{kDLFloat, 32, 1});
  NDArray wrong = *NDArray::Zeros({8}, DLDataType{kDLFloat, 64, 1});
  NDArray n = *NDArray::Zeros({}, DLDataType{kDLInt, 32, 1});
  *static_cast<int32_t*>(n.data()) = 8;
  std::vector<DLTensor*> bad = {a.dltensor(), wrong.dltensor(), n.dltensor()};
  EXPECT_EQ(p.Call("add", bad.data(), 3).kind, CallOutcome::kBadArgument);
  EXPECT_THAT(p.Call("add", bad.data(), 3).message,
              HasSubstr("argument 1 (B): expected dtype f32, given f64"));
  EXPECT_THAT(p.Call("sub", bad.data(), 3).message, HasSubstr("no GPU function named 'sub'"));
  std::vector<double> ms;
  EXPECT_THAT(p.Time("add", bad.data(), 2, 0, 1, &ms).message, HasSubstr("expected 3 arguments"));
  if (tessel_cuda_init(0) == 0) GTEST_SKIP() << "a CUDA device is present";
  std::vector<DLTensor*> good = {a.dltensor(), b.dltensor(), n.dltensor()};
  const CallOutcome r = p.Call("add", good.data(), 3);
  EXPECT_EQ(r.kind, CallOutcome::kKernelFailed);
  const std::string why = r.message;
  EXPECT_THAT(why, HasSubstr("add: "));
  EXPECT_THAT(why, ::testing::AnyOf(HasSubstr("no CUDA driver"), HasSubstr("cuInit"),
                                    HasSubstr("no CUDA device 0")));
  EXPECT_THAT(p.Time("add", good.data(), 3, 1, 2, &ms).message, HasSubstr("add: "));
}

// A library step (a dispatched cuBLAS gemm) among the kernels: parsed with its
// arguments, refused by name when the runtime has no such function or an argument
// is out of range, and a program of library steps alone needs no PTX entry.
TEST(CudaProgram, ParsesLibrarySteps) {
  const std::string params =
      R"([{"name": "A", "dtype": "f32", "shape": ["2", "2"]},
          {"name": "B", "dtype": "f32", "shape": ["2", "2"]},
          {"name": "C", "dtype": "f32", "shape": ["2", "2"]}])";
  auto step = [](const std::string& library, const std::string& c) {
    return R"({"name": "gemm", "library": ")" + library + R"(", "args": [{"value": 32},
        {"value": 1}, {"value": 2}, {"value": 2}, {"value": 2}, {"storage": 0, "offset": 0},
        {"value": 0}, {"value": 2}, {"value": 1}, {"storage": 1, "offset": 0}, {"value": 0},
        {"value": 2}, {"value": 1}, )" +
           c + R"(, {"value": 0}, {"value": 2}]})";
  };
  const std::string c = R"({"storage": 2, "offset": 0})";
  CudaProgram p;
  ASSERT_EQ(
      CudaProgram::Parse("// no kernels", Manifest(step("tessel_cublas_gemm", c), params), &p), "");
  const CudaKernel& k = p.Find("add")->kernels[0];
  EXPECT_EQ(k.library, "tessel_cublas_gemm");
  ASSERT_EQ(k.library_args.size(), 16u);
  EXPECT_EQ(k.library_args[0].value, 32);
  EXPECT_EQ(k.library_args[13].storage, 2);
  EXPECT_THAT(CudaProgram::Parse(kPtx, Manifest(step("tessel_magic", c), params), &p),
              HasSubstr("library step gemm: no device library function named 'tessel_magic'"));
  EXPECT_THAT(
      CudaProgram::Parse(
          kPtx, Manifest(step("tessel_cublas_gemm", R"({"storage": 9, "offset": 0})"), params), &p),
      HasSubstr("a storage argument is an id in range and a non-negative offset"));
  EXPECT_THAT(
      CudaProgram::Parse(kPtx, Manifest(step("tessel_cublas_gemm", R"({"bits": 1})"), params), &p),
      HasSubstr("an argument is {storage, offset} or {value}"));
  // Called, it needs the driver first (and cuBLAS after it).
  ASSERT_EQ(
      CudaProgram::Parse("// no kernels", Manifest(step("tessel_cublas_gemm", c), params), &p), "");
  if (tessel_cuda_init(0) == 0) GTEST_SKIP() << "a CUDA device is present";
  NDArray a = *NDArray::Zeros({2, 2}, DLDataType{kDLFloat, 32, 1});
  NDArray b = *NDArray::Zeros({2, 2}, DLDataType{kDLFloat, 32, 1});
  NDArray out = *NDArray::Zeros({2, 2}, DLDataType{kDLFloat, 32, 1});
  std::vector<DLTensor*> args = {a.dltensor(), b.dltensor(), out.dltensor()};
  const CallOutcome r = p.Call("add", args.data(), 3);
  EXPECT_EQ(r.kind, CallOutcome::kKernelFailed);
  EXPECT_THAT(r.message, HasSubstr("add: "));
}

// A DLTensor on cuda:0 over memory the host never touches: the checks read only its
// fields (the address is 256-byte aligned, as cuMemAlloc's are).
DLTensor DeviceTensor(int64_t* shape, int ndim = 1) {
  DLTensor t{};
  t.data = reinterpret_cast<void*>(uintptr_t{1} << 32);
  t.device = DLDevice{kDLCUDA, 0};
  t.ndim = ndim;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape;
  return t;
}

// The program of add(A, B, n) and arguments for it: two device tensors a and b of
// 8 elements, a host array, and n = 8.
class CudaProgramDeviceArgs : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(CudaProgram::Parse(kPtx, Manifest(kKernel), &p), "");
    b.data = static_cast<char*>(a.data) + 4096;
    *static_cast<int32_t*>(n.data()) = 8;
  }
  CudaProgram p;
  int64_t shape[1] = {8};
  DLTensor a = DeviceTensor(shape);
  DLTensor b = DeviceTensor(shape);
  NDArray host = *NDArray::Zeros({8}, DLDataType{kDLFloat, 32, 1});
  NDArray n = *NDArray::Zeros({}, DLDataType{kDLInt, 32, 1});
};

// Device tensors are taken in place: the checks pass them (the call then needs the
// driver), and a call mixing them with host buffers, a device tensor as a scalar
// or one on another device is refused before anything reaches the device.
TEST_F(CudaProgramDeviceArgs, ACallTakesDeviceTensorsAndRefusesAMix) {

  std::vector<DLTensor*> mixed = {&a, host.dltensor(), n.dltensor()};
  CallOutcome r = p.Call("add", mixed.data(), 3);
  EXPECT_EQ(r.kind, CallOutcome::kBadArgument);
  EXPECT_THAT(r.message,
              HasSubstr("argument 1 (B): expected a tensor on cuda:0, given one on cpu:0"));
  std::vector<DLTensor*> host_first = {host.dltensor(), &b, n.dltensor()};
  EXPECT_THAT(p.Call("add", host_first.data(), 3).message,
              HasSubstr("argument 1 (B): expected a tensor on the CPU, given one on cuda:0"));
  DLTensor scalar = DeviceTensor(nullptr, 0);
  scalar.dtype = DLDataType{kDLInt, 32, 1};
  std::vector<DLTensor*> device_scalar = {&a, &b, &scalar};
  EXPECT_THAT(p.Call("add", device_scalar.data(), 3).message,
              HasSubstr("argument 2 (n): expected a tensor on the CPU, given one on cuda:0"));
  DLTensor other = b;
  other.device.device_id = 1;
  std::vector<DLTensor*> two_devices = {&a, &other, n.dltensor()};
  EXPECT_THAT(p.Call("add", two_devices.data(), 3).message,
              HasSubstr("argument 1 (B): expected a tensor on cuda:0, given one on cuda:1"));
  DLTensor overlapping = b;
  overlapping.data = a.data;
  std::vector<DLTensor*> shared = {&a, &overlapping, n.dltensor()};
  EXPECT_THAT(p.Call("add", shared.data(), 3).message, HasSubstr("shares memory with argument 0"));

  if (tessel_cuda_init(0) == 0) GTEST_SKIP() << "a CUDA device is present";
  std::vector<DLTensor*> device = {&a, &b, n.dltensor()};
  r = p.Call("add", device.data(), 3);
  EXPECT_EQ(r.kind, CallOutcome::kKernelFailed) << "the checks passed: the driver is next";
  EXPECT_THAT(r.message, HasSubstr("add: "));
}

// Enqueued on a stream, a call takes device tensors only (a host tensor would need
// copies that wait), checks them as a call does, then needs the driver; the C entry
// point refuses what it cannot use.
TEST_F(CudaProgramDeviceArgs, EnqueueTakesDeviceTensorsOnly) {
  NDArray x = *NDArray::Zeros({8}, DLDataType{kDLFloat, 32, 1});
  std::vector<DLTensor*> hosts = {x.dltensor(), host.dltensor(), n.dltensor()};
  CallOutcome r = p.Enqueue("add", hosts.data(), 3, nullptr);
  EXPECT_EQ(r.kind, CallOutcome::kBadArgument);
  EXPECT_THAT(r.message, HasSubstr("add: enqueued on a stream, a call takes device tensors"));
  std::vector<DLTensor*> mixed = {&a, host.dltensor(), n.dltensor()};
  EXPECT_THAT(p.Enqueue("add", mixed.data(), 3, nullptr).message,
              HasSubstr("argument 1 (B): expected a tensor on cuda:0, given one on cpu:0"));
  EXPECT_THAT(p.Enqueue("sub", mixed.data(), 3, nullptr).message,
              HasSubstr("no GPU function named 'sub'"));
  TesselCudaProgram* none = nullptr;
  EXPECT_NE(tessel_cuda_program_enqueue(none, "add", hosts.data(), 3, nullptr), 0);
  EXPECT_THAT(tessel_last_error(), HasSubstr("the program or the name is NULL"));
  if (tessel_cuda_init(0) == 0) GTEST_SKIP() << "a CUDA device is present";
  std::vector<DLTensor*> device = {&a, &b, n.dltensor()};
  r = p.Enqueue("add", device.data(), 3, nullptr);
  EXPECT_EQ(r.kind, CallOutcome::kKernelFailed) << "the checks passed: the driver is next";
  EXPECT_THAT(r.message, HasSubstr("add: "));
}

// A device NDArray is made where there is a device; elsewhere the reason is the
// runtime's. Devices other than the CPU and cuda:0 are refused.
TEST(CudaProgram, DeviceArraysRoundTripOrSayWhyNot) {
  const DLDataType f32{kDLFloat, 32, 1};
  absl::StatusOr<NDArray> other = NDArray::Zeros({4}, f32, DLDevice{kDLCUDA, 1});
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.status().message(), HasSubstr("not on cuda:1"));
  EXPECT_EQ(NDArray::Zeros({4}, f32, DLDevice{kDLOpenCL, 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NDArray::Zeros({-1}, f32, DLDevice{kDLCUDA, 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<NDArray> d = NDArray::Zeros({4}, f32, DLDevice{kDLCUDA, 0});
  if (!d.ok()) {
    EXPECT_EQ(d.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(d.status().message(),
                ::testing::AnyOf(HasSubstr("no CUDA driver"), HasSubstr("cuInit"),
                                 HasSubstr("no CUDA device 0")));
    return;
  }
  EXPECT_FALSE(d->on_cpu());
  EXPECT_TRUE(d->owns_memory());
  const float in[4] = {1, 2, 3, 4};
  float out[4] = {};
  ASSERT_TRUE(d->CopyFromBytes({reinterpret_cast<const uint8_t*>(in), sizeof(in)}).ok());
  ASSERT_TRUE(d->CopyToBytes({reinterpret_cast<uint8_t*>(out), sizeof(out)}).ok());
  EXPECT_EQ(out[3], 4.0f);
}

// An exported library carries the program: read back whole, from C++ and from C,
// with the header wrapping each GPU function.
TEST(CudaProgram, AnExportedLibraryCarriesItsProgram) {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "tessel_cuda_export_XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string lib = dir + "/gpu_kernels.so";
  ExportOptions options;
  options.cuda_ptx = kPtx;
  options.cuda_manifest = Manifest(kKernel);
  absl::Status s = ExportLibrary({}, {}, lib, options);
  ASSERT_TRUE(s.ok()) << s;

  CudaProgram p;
  bool carries = false;
  ASSERT_EQ(CudaProgram::FromLibrary(lib, &p, &carries), "");
  EXPECT_TRUE(carries);
  EXPECT_EQ(p.ptx(), kPtx);
  EXPECT_EQ(p.manifest(), Manifest(kKernel));
  ASSERT_NE(p.Find("add"), nullptr);

  std::ifstream h(dir + "/gpu_kernels.h");
  std::stringstream header;
  header << h.rdbuf();
  EXPECT_THAT(header.str(), HasSubstr("#include \"tessel_cuda.h\""));
  EXPECT_THAT(header.str(), HasSubstr("static inline int32_t gpu_kernels_add(TesselCudaProgram* "
                                      "tessel_program_, DLTensor* A, DLTensor* B, DLTensor* n)"));

  TesselCudaProgram* c = tessel_cuda_program_load(lib.c_str());
  ASSERT_NE(c, nullptr) << tessel_last_error();
  EXPECT_NE(tessel_cuda_program_call(c, "add", nullptr, 3), 0);
  EXPECT_THAT(tessel_last_error(), HasSubstr("no argument array"));
  NDArray a = *NDArray::Zeros({8}, DLDataType{kDLFloat, 32, 1});
  DLTensor* one[] = {a.dltensor()};
  EXPECT_NE(tessel_cuda_program_call(c, "add", one, 1), 0);
  EXPECT_THAT(tessel_last_error(), HasSubstr("expected 3 arguments"));
  tessel_cuda_program_free(c);

  // A library without a GPU program, and no library at all: clear errors.
  const std::string cpu_only = dir + "/cpu_only.so";
  ASSERT_TRUE(ExportLibrary({}, {}, cpu_only).ok());
  EXPECT_THAT(CudaProgram::FromLibrary(cpu_only, &p, &carries),
              HasSubstr("carries no GPU program"));
  EXPECT_FALSE(carries);
  EXPECT_EQ(tessel_cuda_program_load((dir + "/missing.so").c_str()), nullptr);
  EXPECT_THAT(tessel_last_error(), HasSubstr("tessel_cuda_program_load: cannot load"));
  EXPECT_EQ(tessel_cuda_program_load(nullptr), nullptr);

  // A manifest export_library would write wrong is refused before linking.
  options.cuda_manifest = "{}";
  EXPECT_THAT(std::string(ExportLibrary({}, {}, dir + "/bad.so", options).message()),
              HasSubstr("not version 1"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace tessel::runtime
