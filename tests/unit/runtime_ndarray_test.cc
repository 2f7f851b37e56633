// NDArray: allocation (alignment, zeroing, every dtype), refusals, DLPack export and
// import without copies, and that each side's deleter runs exactly once, in either
// release order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "codegen/runtime/ndarray.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

constexpr DLDataType kF32{kDLFloat, 32, 1};

TEST(NDArray, AllocatesAlignedZeroedArraysOfEveryDType) {
  for (ir::DataType t : {ir::DataType::Int(8), ir::DataType::Int(16), ir::DataType::Int(32),
                         ir::DataType::Int(64), ir::DataType::UInt(8), ir::DataType::UInt(64),
                         ir::DataType::Float(16), ir::DataType::BFloat(16), ir::DataType::Float(32),
                         ir::DataType::Float(64), ir::DataType::Bool()}) {
    absl::StatusOr<NDArray> a = NDArray::Zeros({3, 5, 7}, t);
    ASSERT_TRUE(a.ok()) << t.ToString() << ": " << a.status();
    EXPECT_TRUE(a->IsAligned(64));
    EXPECT_TRUE(a->IsContiguous());
    EXPECT_TRUE(a->owns_memory());
    EXPECT_EQ(a->numel(), 105);
    EXPECT_EQ(a->nbytes(), 105 * t.bytes());
    EXPECT_EQ(a->shape(), (std::vector<int64_t>{3, 5, 7}));
    EXPECT_EQ(a->dltensor()->device.device_type, kDLCPU);
    EXPECT_EQ(a->dltensor()->strides, nullptr);
    const auto* bytes = static_cast<const uint8_t*>(a->data());
    for (int64_t i = 0; i < a->nbytes(); ++i) ASSERT_EQ(bytes[i], 0);
  }
  absl::StatusOr<NDArray> scalar = NDArray::Zeros({}, kF32);
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->numel(), 1);
  EXPECT_EQ(scalar->ndim(), 0);
  absl::StatusOr<NDArray> empty = NDArray::Zeros({0, 4}, kF32);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->nbytes(), 0);
  EXPECT_NE(empty->data(), nullptr);
}

TEST(NDArray, RefusesBadShapesAndDTypes) {
  EXPECT_THAT(NDArray::Zeros({2, -1}, kF32).status().message(),
              HasSubstr("shape [2, -1] is negative or overflows"));
  EXPECT_THAT(NDArray::Zeros({int64_t{1} << 40, int64_t{1} << 40}, kF32).status().message(),
              HasSubstr("overflows"));
  EXPECT_THAT(NDArray::Zeros({int64_t{1} << 50}, kF32).status().message(), HasSubstr("too large"));
  EXPECT_THAT(NDArray::Zeros({2}, DLDataType{kDLComplex, 64, 1}).status().message(),
              HasSubstr("unsupported dtype dtype(code=5"));
  EXPECT_THAT(NDArray::Zeros({2}, DLDataType{kDLFloat, 32, 4}).status().message(),
              HasSubstr("unsupported dtype f32x4"));
  EXPECT_THAT(NDArray::Zeros({2}, ir::DataType::Float(32, 4)).status().message(),
              HasSubstr("element type f32x4 is not a scalar"));
  EXPECT_FALSE(NDArray::Zeros({2}, ir::DataType::Handle()).ok());
}

TEST(NDArray, ExportSharesMemoryAndOutlivesTheArray) {
  DLManagedTensor* managed;
  void* data;
  {
    NDArray a = *NDArray::Zeros({4}, kF32);
    static_cast<float*>(a.data())[2] = 7.0f;
    managed = a.ToDLPack();
    data = a.data();
  }  // The array is gone; the export keeps the memory.
  EXPECT_EQ(managed->dl_tensor.data, data);
  EXPECT_EQ(static_cast<float*>(managed->dl_tensor.data)[2], 7.0f);
  EXPECT_EQ(managed->dl_tensor.shape[0], 4);
  managed->deleter(managed);
  EXPECT_EQ(NDArray().ToDLPack(), nullptr);
}

// A producer's tensor that records when its deleter runs.
struct Producer {
  int deleted = 0;
  alignas(64) float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {3, 1};
  DLManagedTensor managed{};
  Producer() {
    managed.dl_tensor.data = data;
    managed.dl_tensor.device = DLDevice{kDLCPU, 0};
    managed.dl_tensor.ndim = 2;
    managed.dl_tensor.dtype = kF32;
    managed.dl_tensor.shape = shape;
    managed.dl_tensor.strides = strides;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
    };
  }
};

TEST(NDArray, ImportIsZeroCopyAndReleasesOnce) {
  Producer p;
  {
    absl::StatusOr<NDArray> a = NDArray::FromDLPack(&p.managed);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->data(), p.data);
    EXPECT_FALSE(a->owns_memory());
    EXPECT_TRUE(a->IsContiguous());
    EXPECT_EQ(a->shape(), (std::vector<int64_t>{2, 3}));
    NDArray copy = *a;
    static_cast<float*>(copy.data())[0] = 9;
    EXPECT_EQ(p.data[0], 9);
    // Re-exported: the consumer's tensor keeps the producer's alive.
    DLManagedTensor* again = copy.ToDLPack();
    a = NDArray();
    copy = NDArray();
    EXPECT_EQ(p.deleted, 0);
    again->deleter(again);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(NDArray, ImportKeepsStridesAndOffsets) {
  Producer p;
  p.strides[0] = 1;
  p.strides[1] = 2;  // Column-major: imported as is; a call would refuse it.
  p.managed.dl_tensor.byte_offset = 4;
  NDArray a = *NDArray::FromDLPack(&p.managed);
  EXPECT_FALSE(a.IsContiguous());
  EXPECT_FALSE(a.IsAligned());
  EXPECT_EQ(a.data(), reinterpret_cast<char*>(p.data) + 4);
  std::vector<uint8_t> out(24);
  EXPECT_THAT(a.CopyToBytes(absl::MakeSpan(out)).message(), HasSubstr("not contiguous"));
}

TEST(NDArray, CopyOfMakesDenseAlignedCopiesOfStridedTensors) {
  Producer p;  // [[1, 2, 3], [4, 5, 6]] viewed as its transpose through strides.
  int64_t shape[2] = {3, 2};
  int64_t strides[2] = {1, 3};
  DLTensor t = p.managed.dl_tensor;
  t.shape = shape;
  t.strides = strides;
  NDArray a = *NDArray::CopyOf(t);
  EXPECT_TRUE(a.IsContiguous());
  EXPECT_TRUE(a.IsAligned());
  EXPECT_TRUE(a.owns_memory());
  const float* v = static_cast<const float*>(a.data());
  EXPECT_EQ(std::vector<float>(v, v + 6), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  // An unaligned, offset row: the second row of the original.
  DLTensor row = p.managed.dl_tensor;
  int64_t row_shape[1] = {3};
  row.ndim = 1;
  row.shape = row_shape;
  row.strides = nullptr;
  row.byte_offset = 12;
  NDArray r = *NDArray::CopyOf(row);
  v = static_cast<const float*>(r.data());
  EXPECT_EQ(std::vector<float>(v, v + 3), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(p.deleted, 0) << "a copy never takes ownership";
  row.device = DLDevice{kDLCUDA, 0};
  EXPECT_THAT(NDArray::CopyOf(row).status().message(),
              HasSubstr("NDArray::CopyOf: only CPU tensors are supported"));
}

// Another library's CUDA tensor is imported in place (a GPU call takes it; the host
// never reads it) and released once.
TEST(NDArray, ACudaTensorImportsInPlace) {
  Producer p;
  p.managed.dl_tensor.device = DLDevice{kDLCUDA, 0};
  {
    NDArray a = *NDArray::FromDLPack(&p.managed);
    EXPECT_FALSE(a.on_cpu());
    EXPECT_EQ(a.device().device_type, kDLCUDA);
    EXPECT_FALSE(a.owns_memory());
    EXPECT_EQ(a.data(), p.data);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(NDArray, ImportRefusalsLeaveOwnershipWithTheCaller) {
  EXPECT_THAT(NDArray::FromDLPack(nullptr).status().message(), HasSubstr("NULL tensor"));
  Producer p;
  p.managed.dl_tensor.device = DLDevice{kDLOpenCL, 0};
  EXPECT_THAT(NDArray::FromDLPack(&p.managed).status().message(),
              HasSubstr("only CPU and CUDA tensors are supported, given one on opencl:0"));
  p.managed.dl_tensor.device = DLDevice{kDLCPU, 0};
  p.managed.dl_tensor.dtype = DLDataType{kDLComplex, 64, 1};
  EXPECT_THAT(NDArray::FromDLPack(&p.managed).status().message(), HasSubstr("unsupported dtype"));
  p.managed.dl_tensor.dtype = kF32;
  p.managed.dl_tensor.shape = nullptr;
  EXPECT_THAT(NDArray::FromDLPack(&p.managed).status().message(), HasSubstr("malformed tensor"));
  p.managed.dl_tensor.shape = p.shape;
  p.shape[1] = -3;
  EXPECT_THAT(NDArray::FromDLPack(&p.managed).status().message(),
              HasSubstr("negative or overflows"));
  p.shape[1] = 3;
  p.managed.dl_tensor.data = nullptr;
  EXPECT_THAT(NDArray::FromDLPack(&p.managed).status().message(), HasSubstr("NULL data"));
  EXPECT_EQ(p.deleted, 0);
}

TEST(NDArray, CopiesBytesAndHostBuffers) {
  NDArray a = *NDArray::Zeros({2, 2}, ir::DataType::Int(16));
  std::vector<uint8_t> in = {1, 0, 2, 0, 3, 0, 4, 0};
  ASSERT_TRUE(a.CopyFromBytes(in).ok());
  ir::HostBuffer h = *a.ToHostBuffer();
  EXPECT_EQ(h.dtype(), ir::DataType::Int(16));
  EXPECT_EQ(h.GetInt(3), 4);
  h.SetInt(0, -9);
  NDArray b = *NDArray::FromHostBuffer(h);
  std::vector<uint8_t> out(8);
  ASSERT_TRUE(b.CopyToBytes(absl::MakeSpan(out)).ok());
  int16_t first;
  std::memcpy(&first, out.data(), 2);
  EXPECT_EQ(first, -9);
  EXPECT_THAT(a.CopyFromBytes(std::vector<uint8_t>(3)).message(),
              HasSubstr("given 3 bytes, the array holds 8"));
  EXPECT_THAT(NDArray().ToHostBuffer().status().message(), HasSubstr("undefined array"));
}

}  // namespace
}  // namespace tessel::runtime
