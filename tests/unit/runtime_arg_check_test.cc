// Argument checks: what a well-formed call packs, then one test per refusal, each
// showing the message and that the packed output was left alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "codegen/runtime/arg_check.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};
constexpr DLDataType kU8{kDLUInt, 8, 1};
constexpr DLDataType kF64{kDLFloat, 64, 1};

// f(A: f32[n, 4], B: f32[n, 4], n: i32, s: f64)
FunctionSignature Sig() {
  return FunctionSignature{"f",
                           {ParamSignature::Buffer("A", kF32, {Dim::Var("n"), Dim::Const(4)}),
                            ParamSignature::Buffer("B", kF32, {Dim::Var("n"), Dim::Const(4)}),
                            ParamSignature::Scalar("n", kI32), ParamSignature::Scalar("s", kF64)}};
}

class ArgCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = Tensor(a_data_, kF32, 2, shape_);
    b_ = Tensor(b_data_, kF32, 2, shape_);
    n_ = Tensor(&n_value_, kI32, 0, nullptr);
    s_ = Tensor(&s_value_, kF64, 0, nullptr);
    args_ = {&a_, &b_, &n_, &s_};
  }

  static DLTensor Tensor(void* data, DLDataType dtype, int ndim, int64_t* shape) {
    DLTensor t{};
    t.data = data;
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = ndim;
    t.dtype = dtype;
    t.shape = shape;
    return t;
  }

  // Expects a refusal containing `needle`, with the output untouched.
  void ExpectRefused(const std::string& needle) {
    PackedArgs packed;
    packed.values = {&marker_};
    std::string error =
        PackArguments(Sig(), args_.data(), static_cast<int32_t>(args_.size()), &packed);
    EXPECT_THAT(error, HasSubstr(needle));
    EXPECT_THAT(error, HasSubstr("f(A: f32[n, 4], B: f32[n, 4], n: i32, s: f64): "))
        << "names the function";
    ASSERT_EQ(packed.values.size(), 1u);
    EXPECT_EQ(packed.values[0], &marker_);
  }

  alignas(64) float a_data_[12] = {};
  alignas(64) float b_data_[16] = {};
  int64_t shape_[2] = {3, 4};
  int32_t n_value_ = 3;
  double s_value_ = 2.5;
  int marker_ = 0;
  DLTensor a_, b_, n_, s_;
  std::vector<DLTensor*> args_;
};

TEST_F(ArgCheck, PacksAWellFormedCall) {
  PackedArgs packed;
  ASSERT_EQ(PackArguments(Sig(), args_.data(), 4, &packed), "");
  ASSERT_EQ(packed.size(), 4);
  EXPECT_EQ(packed.values[0], &a_) << "a buffer reaches the kernel as its DLTensor";
  EXPECT_EQ(packed.values[1], &b_);
  EXPECT_EQ(tessel_arg_data(packed.values[1]), b_data_);
  EXPECT_EQ(tessel_arg_extent(packed.values[0], 0), 3);
  EXPECT_EQ(*static_cast<int64_t*>(packed.values[2]), 3) << "integer scalars widen to int64_t";
  EXPECT_EQ(*static_cast<double*>(packed.values[3]), 2.5);
}

TEST_F(ArgCheck, AcceptsCompactStridesExtentOneStridesAndByteOffset) {
  int64_t strides[2] = {4, 1};
  a_.strides = strides;
  int64_t one_shape[2] = {1, 4};
  int64_t free_strides[2] = {99, 1};  // The stride of an extent-1 dimension is never used.
  n_value_ = 1;
  a_.shape = one_shape;
  a_.strides = free_strides;
  b_.shape = one_shape;
  alignas(64) float big[32] = {};
  b_.data = big;
  b_.byte_offset = 64;
  PackedArgs packed;
  EXPECT_EQ(PackArguments(Sig(), args_.data(), 4, &packed), "");
  EXPECT_EQ(tessel_arg_data(packed.values[1]), big + 16) << "data + byte_offset";
}

TEST_F(ArgCheck, SignedAndUnsignedScalarsWiden) {
  FunctionSignature sig{"g", {ParamSignature::Scalar("i", kI32), ParamSignature::Scalar("u", kU8)}};
  int32_t i = -5;
  uint8_t u = 200;
  DLTensor ti = Tensor(&i, kI32, 0, nullptr), tu = Tensor(&u, kU8, 0, nullptr);
  DLTensor* args[2] = {&ti, &tu};
  PackedArgs packed;
  ASSERT_EQ(PackArguments(sig, args, 2, &packed), "");
  EXPECT_EQ(*static_cast<int64_t*>(packed.values[0]), -5);
  EXPECT_EQ(*static_cast<int64_t*>(packed.values[1]), 200);
}

TEST_F(ArgCheck, EmptyBufferMayHaveNullData) {
  n_value_ = 0;
  int64_t empty[2] = {0, 4};
  a_.shape = empty;
  b_.shape = empty;
  a_.data = nullptr;
  b_.data = reinterpret_cast<char*>(b_data_) + 4;  // Unaligned, but never dereferenced.
  PackedArgs packed;
  EXPECT_EQ(PackArguments(Sig(), args_.data(), 4, &packed), "");
}

TEST_F(ArgCheck, WrongCount) {
  args_.pop_back();
  ExpectRefused("expected 4 arguments, given 3");
}

TEST_F(ArgCheck, NullArgumentArray) {
  PackedArgs packed;
  EXPECT_THAT(PackArguments(Sig(), nullptr, 4, &packed), HasSubstr("the argument array is NULL"));
  EXPECT_THAT(PackArguments(Sig(), nullptr, -1, &packed),
              HasSubstr("expected 4 arguments, given -1"));
}

TEST_F(ArgCheck, NullTensor) {
  args_[1] = nullptr;
  ExpectRefused("argument 1 (B): the DLTensor pointer is NULL");
}

TEST_F(ArgCheck, WrongDevice) {
  a_.device = DLDevice{kDLCUDA, 1};
  ExpectRefused("argument 0 (A): expected a tensor on the CPU, given one on cuda:1");
  a_.device = DLDevice{static_cast<DLDeviceType>(42), 0};
  ExpectRefused("given one on device_type 42:0");
}

TEST_F(ArgCheck, WrongDType) {
  b_.dtype = kI32;
  ExpectRefused("argument 1 (B): expected dtype f32, given i32");
  b_.dtype = DLDataType{kDLFloat, 32, 4};
  ExpectRefused("expected dtype f32, given f32x4");
  s_.dtype = kF32;
  b_.dtype = kF32;
  ExpectRefused("argument 3 (s): expected dtype f64, given f32");
}

TEST_F(ArgCheck, WrongRank) {
  a_.ndim = 1;
  ExpectRefused("argument 0 (A): expected 2 dimensions (A: f32[n, 4]), given 1");
  a_.ndim = -1;
  ExpectRefused("given -1");
}

TEST_F(ArgCheck, NullShape) {
  a_.shape = nullptr;
  ExpectRefused("argument 0 (A): the shape array is NULL");
}

TEST_F(ArgCheck, NegativeOrOverflowingExtent) {
  int64_t negative[2] = {-3, 4};
  a_.shape = negative;
  ExpectRefused("argument 0 (A): negative extent in shape [-3, 4]");
  int64_t huge[2] = {int64_t{1} << 62, 4};
  a_.shape = huge;
  ExpectRefused("argument 0 (A): the shape [4611686018427387904, 4] overflows int64");
}

TEST_F(ArgCheck, WrongConstantExtent) {
  int64_t shape[2] = {3, 5};
  b_.shape = shape;
  ExpectRefused("argument 1 (B): expected shape [n, 4], given [3, 5] (dimension 1)");
}

TEST_F(ArgCheck, InconsistentSymbolicExtent) {
  int64_t shape[2] = {2, 4};
  b_.shape = shape;
  ExpectRefused("argument 1 (B): dimension 0 is n = 2, but argument 2 (n) gave n = 3");
}

TEST_F(ArgCheck, InconsistentExtentsBetweenBuffers) {
  FunctionSignature sig{"h",
                        {ParamSignature::Buffer("A", kF32, {Dim::Var("m")}),
                         ParamSignature::Buffer("B", kF32, {Dim::Var("m")})}};
  int64_t s1[1] = {12}, s2[1] = {8};
  DLTensor a = Tensor(a_data_, kF32, 1, s1), b = Tensor(b_data_, kF32, 1, s2);
  DLTensor* args[2] = {&a, &b};
  PackedArgs packed;
  EXPECT_EQ(PackArguments(sig, args, 2, &packed),
            "h(A: f32[m], B: f32[m]): argument 1 (B): dimension 0 is m = 8, but argument 0 (A) "
            "dimension 0 gave m = 12");
}

TEST_F(ArgCheck, NonCompactStrides) {
  int64_t strides[2] = {1, 3};
  a_.strides = strides;
  ExpectRefused(
      "argument 0 (A): expected compact row-major strides [4, 1] (or NULL), given [1, 3]");
}

TEST_F(ArgCheck, Misaligned) {
  b_.byte_offset = 4;
  ExpectRefused("argument 1 (B): expected data + byte_offset aligned to 64 bytes");
  b_.byte_offset = 0;
  b_.data = reinterpret_cast<char*>(b_data_) + 16;
  ExpectRefused("(16 bytes past a boundary)");
}

TEST_F(ArgCheck, NullData) {
  a_.data = nullptr;
  ExpectRefused("argument 0 (A): the tensor's data is NULL");
  a_.data = a_data_;
  s_.data = nullptr;
  ExpectRefused("argument 3 (s): the tensor's data is NULL");
}

// A buffer the function writes may not share a byte with another buffer argument;
// buffers it only reads may.
TEST_F(ArgCheck, WrittenBufferOverlappingAnotherIsRefused) {
  b_.data = a_data_;  // B is A.
  ExpectRefused("argument 0 (A) shares memory with argument 1 (B); the function writes A");
  alignas(64) float big[32] = {};
  a_.data = big;
  b_.data = big;
  b_.byte_offset = 64;  // B starts at big[16]: A's last element is big[11]; apart.
  PackedArgs packed;
  EXPECT_EQ(PackArguments(Sig(), args_.data(), 4, &packed), "");
  shape_[0] = 5;  // A spans big[0, 20) now, B big[16, 36): overlapping by four floats.
  n_value_ = 5;
  alignas(64) float bigger[64] = {};
  a_.data = bigger;
  b_.data = bigger;
  ExpectRefused("argument 0 (A) shares memory with argument 1 (B)");

  FunctionSignature read_only = Sig();
  read_only.params[0].written = false;
  read_only.params[1].written = false;
  EXPECT_EQ(PackArguments(read_only, args_.data(), 4, &packed), "") << "inputs may alias";
}

TEST(ArgCheckCall, CheckWrittenDisjointLooksAtWrittenBuffersOnly) {
  FunctionSignature sig{"mm",
                        {ParamSignature::Buffer("A", kF32, {Dim::Const(4)}, /*written=*/false),
                         ParamSignature::Buffer("B", kF32, {Dim::Const(4)}, /*written=*/false),
                         ParamSignature::Buffer("C", kF32, {Dim::Const(4)}, /*written=*/true),
                         ParamSignature::Scalar("s", kF32)}};
  std::vector<ByteRange> ranges = {{100, 116}, {100, 116}, {200, 216}, {}};
  EXPECT_EQ(CheckWrittenDisjoint(sig, ranges), "");
  ranges[2] = {112, 128};  // C's first element is A's last.
  EXPECT_THAT(CheckWrittenDisjoint(sig, ranges),
              HasSubstr("mm(A: f32[4], B: f32[4], C: f32[4], s: f32): argument 2 (C) shares "
                        "memory with argument 0 (A); the function writes C, so it may not overlap "
                        "another argument (pass a copy)"));
  ranges[2] = {116, 116};  // Empty: touches nothing.
  EXPECT_EQ(CheckWrittenDisjoint(sig, ranges), "");
}

TEST_F(ArgCheck, ScalarGivenATensor) {
  int64_t one[1] = {1};
  s_.ndim = 1;
  s_.shape = one;
  ExpectRefused("argument 3 (s): a scalar parameter takes a 0-d tensor, given 1 dimension");
}

TEST(ArgCheckCall, KernelFailureCarriesItsMessage) {
  FunctionSignature sig{"boom", {}};
  TesselPackedFunc boom = [](void* const*, int32_t) -> int32_t {
    return tessel_set_last_error("out of cheese");
  };
  CallOutcome out = CheckAndCall(sig, boom, nullptr, 0);
  EXPECT_EQ(out.kind, CallOutcome::kKernelFailed);
  EXPECT_EQ(out.message, "boom: out of cheese");
  out = CheckAndCall(sig, boom, nullptr, 1);
  EXPECT_EQ(out.kind, CallOutcome::kBadArgument);
  EXPECT_THAT(out.message, HasSubstr("expected 0 arguments, given 1"));
  TesselPackedFunc ok = [](void* const*, int32_t) -> int32_t { return 0; };
  EXPECT_EQ(CheckAndCall(sig, ok, nullptr, 0).kind, CallOutcome::kOk);
}

TEST(ArgCheckCall, DescribeDevice) {
  EXPECT_EQ(DescribeDevice(DLDevice{kDLCPU, 0}), "cpu:0");
  EXPECT_EQ(DescribeDevice(DLDevice{kDLROCM, 2}), "rocm:2");
}

}  // namespace
}  // namespace tessel::runtime
