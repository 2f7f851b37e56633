// The CUDA runtime without a GPU (CI): every call fails with one clear message and
// nothing crashes. On a machine with a driver and a device the calls work instead;
// tools/scripts/gpu_check.py runs kernels there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "codegen/runtime/tessel_cuda.h"
#include "codegen/runtime/tessel_runtime.h"

namespace {

using ::testing::HasSubstr;

TEST(RuntimeCuda, WithoutADeviceEveryCallFailsClearly) {
  if (tessel_cuda_init(0) == 0) GTEST_SKIP() << "a CUDA device is present";
  const std::string why = tessel_last_error();
  // No driver (CI), or a driver without a device.
  EXPECT_THAT(why, ::testing::AnyOf(HasSubstr("no CUDA driver: cannot load libcuda.so.1"),
                                    HasSubstr("cuInit"), HasSubstr("no CUDA device 0")));
  void* p = nullptr;
  EXPECT_NE(tessel_cuda_alloc(16, &p), 0);
  EXPECT_THAT(tessel_last_error(), HasSubstr("tessel_cuda_alloc: CUDA is not initialised"));
  EXPECT_EQ(p, nullptr);
  void* module = nullptr;
  EXPECT_NE(tessel_cuda_module_load(".version 8.0", &module), 0);
  EXPECT_THAT(tessel_last_error(), HasSubstr("tessel_cuda_module_load"));
  const int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  EXPECT_NE(tessel_cuda_launch(module, "k", grid, block, 0, nullptr, 0, nullptr), 0);
  EXPECT_NE(tessel_cuda_synchronize(), 0);
  float ms = 0;
  EXPECT_NE(tessel_cuda_event_elapsed_ms(nullptr, nullptr, &ms), 0);
  EXPECT_EQ(tessel_cuda_free(nullptr), 0);  // Freeing nothing is always fine.
  void* stream = nullptr;
  EXPECT_NE(tessel_cuda_stream_create(&stream), 0);
  EXPECT_THAT(tessel_last_error(), HasSubstr("tessel_cuda_stream_create: CUDA is not initialised"));
  EXPECT_NE(tessel_cuda_stream_synchronize(nullptr), 0);
  EXPECT_EQ(tessel_cuda_stream_destroy(nullptr), 0);
  EXPECT_NE(tessel_cuda_alloc_async(16, &p, nullptr), 0);
  EXPECT_THAT(tessel_last_error(), HasSubstr("tessel_cuda_alloc_async: CUDA is not initialised"));
  EXPECT_EQ(tessel_cuda_free_async(nullptr, nullptr), 0);
  // A second init gives the same answer, and does not retry a missing driver.
  EXPECT_NE(tessel_cuda_init(0), 0);
  EXPECT_EQ(std::string(tessel_last_error()), why);
}

}  // namespace
