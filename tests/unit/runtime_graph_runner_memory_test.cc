// A GraphRunner whose storage and constants live in another device's memory (a
// GPU's, for a cuda program's graph functions). The memory here is host memory
// that says it is cuda:0 and counts what is done with it, and the kernels are whole
// calls (Kernel::call) that refuse tensors not on that device: so the runner's part
// -- where it allocates, what it uploads and when, what it copies, what it refuses
// and what it frees -- is checked without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "codegen/runtime/graph_runner.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDevice kCuda{kDLCUDA, 0};

struct Counts {
  int allocs = 0, frees = 0, uploads = 0, copies = 0;
  bool fail_upload = false;
  int fail_upload_after = -1;  // >= 0: uploads after that many fail.
};

GraphMemory CountedDeviceMemory(Counts* counts) {
  GraphMemory m;
  m.device = kCuda;
  m.alloc = [counts](size_t bytes, std::string*) -> void* {
    ++counts->allocs;
    return std::aligned_alloc(64, (bytes + 64) / 64 * 64);
  };
  m.free = [counts](void* p) {
    ++counts->frees;
    std::free(p);
  };
  m.upload = [counts](void* dst, const void* src, size_t bytes) -> std::string {
    if (counts->fail_upload ||
        (counts->fail_upload_after >= 0 && counts->uploads >= counts->fail_upload_after)) {
      return "out of device memory";
    }
    ++counts->uploads;
    std::memcpy(dst, src, bytes);
    return "";
  };
  m.copy = [counts](void* dst, const void* src, size_t bytes) -> std::string {
    ++counts->copies;
    std::memmove(dst, src, bytes);
    return "";
  };
  return m;
}

const FunctionSignature kAdd{"add",
                             {ParamSignature::Buffer("A", kF32, {Dim::Var("n")}, false),
                              ParamSignature::Buffer("B", kF32, {Dim::Var("n")}, false),
                              ParamSignature::Buffer("C", kF32, {Dim::Var("n")})}};

// C = A + B, refusing a tensor that is not on the device.
CallOutcome AddOnDevice(DLTensor* const* args, int32_t num_args) {
  for (int32_t a = 0; a < num_args; ++a) {
    if (args[a]->device.device_type != kDLCUDA) {
      return {CallOutcome::kBadArgument, "argument " + std::to_string(a) + " is not on cuda:0"};
    }
  }
  for (int64_t i = 0; i < args[0]->shape[0]; ++i) {
    static_cast<float*>(args[2]->data)[i] =
        static_cast<const float*>(args[0]->data)[i] + static_cast<const float*>(args[1]->data)[i];
  }
  return {CallOutcome::kOk, ""};
}

// t = x + c; y = t + c; returns y and x (a parameter returned as it is).
GraphProgram TwoAdds(const float* c) {
  GraphProgram g;
  g.name = "two_adds";
  g.num_inputs = 1;
  g.num_storages = 1;
  g.values = {{"x", kF32, {ProductDim{4, {}}}, GraphProgram::kInput},
              {"c", kF32, {ProductDim{4, {}}}, GraphProgram::kConstant, c, 0},
              {"t", kF32, {ProductDim{4, {}}}, 0},
              {"y", kF32, {ProductDim{4, {}}}, GraphProgram::kResult}};
  g.kernels = {{"add", {0, 1, 2}, 1}, {"add", {2, 1, 3}, 1}};
  g.results = {3, 0};
  return g;
}

std::string Resolve(const std::string& f, GraphRunner::Kernel* out) {
  if (f != "add") return "no function " + f;
  out->signature = &kAdd;
  out->call = AddOnDevice;
  return "";
}

class RuntimeGraphRunnerMemory : public ::testing::Test {
 protected:
  DLTensor Tensor(float* data, DLDevice device) {
    DLTensor t{};
    t.data = data;
    t.device = device;
    t.ndim = 1;
    t.dtype = kF32;
    t.shape = shape_.data();
    return t;
  }
  // Runs on x = 1, 2, 3, 4 with every tensor on `device`.
  CallOutcome Run(const GraphRunner& r, DLDevice device) {
    for (int i = 0; i < 4; ++i) {
      x_[i] = static_cast<float>(i + 1);
      y_[i] = x_back_[i] = 0;
    }
    tensors_ = {Tensor(x_, device), Tensor(y_, device), Tensor(x_back_, device)};
    DLTensor* args[3] = {&tensors_[0], &tensors_[1], &tensors_[2]};
    return r.Run(args, 3);
  }

  alignas(64) float c_[16] = {10, 20, 30, 40};
  alignas(64) float x_[16], y_[16], x_back_[16];
  std::vector<int64_t> shape_ = {4};
  std::vector<DLTensor> tensors_;
};

TEST_F(RuntimeGraphRunnerMemory, KeepsStorageAndConstantsOnTheDevice) {
  Counts counts;
  {
    GraphRunner r;
    ASSERT_EQ(GraphRunner::Create(TwoAdds(c_), Resolve, &r, CountedDeviceMemory(&counts)), "");
    EXPECT_EQ(counts.uploads, 0);  // Nothing touches the device before a call.
    ASSERT_EQ(Run(r, kCuda).message, "");
    EXPECT_EQ(std::vector<float>(y_, y_ + 4), (std::vector<float>{21, 42, 63, 84}));
    EXPECT_EQ(std::vector<float>(x_back_, x_back_ + 4), (std::vector<float>{1, 2, 3, 4}));
    // The constant uploaded once, the storage and the constant allocated once, the
    // returned parameter copied on the device.
    EXPECT_EQ(counts.uploads, 1);
    EXPECT_EQ(counts.allocs, 2);
    EXPECT_EQ(counts.copies, 1);
    ASSERT_EQ(Run(r, kCuda).message, "");
    EXPECT_EQ(counts.uploads, 1);
    EXPECT_EQ(counts.allocs, 2);
    EXPECT_EQ(y_[3], 84.0f);
    // The constant's host bytes are the program's, never written.
    EXPECT_EQ(std::vector<float>(c_, c_ + 4), (std::vector<float>{10, 20, 30, 40}));
  }
  EXPECT_EQ(counts.frees, counts.allocs);
}

TEST_F(RuntimeGraphRunnerMemory, RefusesHostTensorsBeforeAnythingRuns) {
  Counts counts;
  GraphRunner r;
  ASSERT_EQ(GraphRunner::Create(TwoAdds(c_), Resolve, &r, CountedDeviceMemory(&counts)), "");
  const CallOutcome o = Run(r, DLDevice{kDLCPU, 0});
  EXPECT_EQ(o.kind, CallOutcome::kBadArgument);
  EXPECT_THAT(o.message, HasSubstr("two_adds"));
  EXPECT_EQ(std::vector<float>(y_, y_ + 4), std::vector<float>(4, 0));
  EXPECT_EQ(counts.allocs, 0);
  EXPECT_EQ(counts.uploads, 0);
}

TEST_F(RuntimeGraphRunnerMemory, AFailedUploadFailsTheCallAndLeavesNothingAllocated) {
  Counts counts;
  counts.fail_upload = true;
  {
    GraphRunner r;
    ASSERT_EQ(GraphRunner::Create(TwoAdds(c_), Resolve, &r, CountedDeviceMemory(&counts)), "");
    const CallOutcome o = Run(r, kCuda);
    EXPECT_EQ(o.kind, CallOutcome::kKernelFailed);
    EXPECT_EQ(o.message, "graph two_adds: constant 'c': out of device memory");
    EXPECT_EQ(std::vector<float>(y_, y_ + 4), std::vector<float>(4, 0));
    // The next call tries again.
    counts.fail_upload = false;
    ASSERT_EQ(Run(r, kCuda).message, "");
    EXPECT_EQ(y_[0], 21.0f);
  }
  EXPECT_EQ(counts.frees, counts.allocs);
}

// t = x + c; y = t + d: two constants, so that the second's upload can fail after
// the first's.
GraphProgram TwoConstants(const float* c, const float* d) {
  GraphProgram g = TwoAdds(c);
  g.values.push_back({"d", kF32, {ProductDim{4, {}}}, GraphProgram::kConstant, d, 0});
  g.kernels[1].args = {2, 4, 3};
  g.results = {3, 0};
  return g;
}

TEST_F(RuntimeGraphRunnerMemory, AConstantFailingAfterAnotherLeavesNeitherPlaced) {
  Counts counts;
  counts.fail_upload_after = 1;
  alignas(64) float d[16] = {1, 1, 1, 1};
  {
    GraphRunner r;
    ASSERT_EQ(GraphRunner::Create(TwoConstants(c_, d), Resolve, &r, CountedDeviceMemory(&counts)),
              "");
    EXPECT_EQ(Run(r, kCuda).message, "graph two_adds: constant 'd': out of device memory");
    // The storage (kept for the next call) and the two constants' allocations were
    // made; the first constant's is freed again, the second's too.
    EXPECT_EQ(counts.allocs, 3);
    EXPECT_EQ(counts.frees, 2);
    counts.fail_upload_after = -1;
    ASSERT_EQ(Run(r, kCuda).message, "");
    EXPECT_EQ(std::vector<float>(y_, y_ + 4), (std::vector<float>{12, 23, 34, 45}));
  }
  EXPECT_EQ(counts.frees, counts.allocs);
}

TEST_F(RuntimeGraphRunnerMemory, AssigningOverARunnerFreesWhatItHeld) {
  Counts first, second;
  GraphRunner r, other;
  ASSERT_EQ(GraphRunner::Create(TwoAdds(c_), Resolve, &r, CountedDeviceMemory(&first)), "");
  ASSERT_EQ(GraphRunner::Create(TwoAdds(c_), Resolve, &other, CountedDeviceMemory(&second)), "");
  ASSERT_EQ(Run(r, kCuda).message, "");
  r = std::move(other);  // r's storage and constant go back to the memory they came from.
  EXPECT_EQ(first.frees, first.allocs);
  ASSERT_EQ(Run(r, kCuda).message, "");
  EXPECT_EQ(second.allocs, 2);
  EXPECT_EQ(y_[0], 21.0f);
}

TEST(RuntimeGraphRunnerCreate, RefusesAMemoryItCannotUse) {
  Counts counts;
  alignas(64) float c[4] = {0};
  GraphMemory no_upload = CountedDeviceMemory(&counts);
  no_upload.upload = nullptr;  // A device's memory with no way to place constants.
  GraphRunner r;
  EXPECT_EQ(GraphRunner::Create(TwoAdds(c), Resolve, &r, no_upload),
            "graph two_adds: its memory lacks an allocator, a free, a copy or an upload");
  GraphMemory no_alloc = GraphMemory::Host();
  no_alloc.alloc = nullptr;
  EXPECT_THAT(GraphRunner::Create(TwoAdds(c), Resolve, &r, no_alloc), HasSubstr("lacks"));
}

TEST(RuntimeGraphRunnerCreate, RefusesAKernelWithNeitherEntryPointNorCall) {
  GraphRunner r;
  alignas(64) float c[4] = {0};
  auto neither = [](const std::string&, GraphRunner::Kernel* out) -> std::string {
    out->signature = &kAdd;
    return "";
  };
  EXPECT_THAT(GraphRunner::Create(TwoAdds(c), neither, &r),
              HasSubstr("kernel add has no entry point"));
}

}  // namespace
}  // namespace tessel::runtime
