// The time evaluator: how many calls it makes and how many figures it returns (never
// how fast anything ran), min_repeat_ms growth, cache flush, refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "codegen/runtime/time_evaluator.h"

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

std::atomic<int64_t> calls{0};
std::atomic<int64_t> fail_after{-1};

// count(X: f32[4]): counts its calls, sleeps a little, fails once told to.
int32_t CountKernel(void* const* args, int32_t) {
  int64_t n = calls.fetch_add(1) + 1;
  static_cast<float*>(tessel_arg_data(args[0]))[0] += 1.0f;
  if (fail_after.load() >= 0 && n > fail_after.load()) return tessel_set_last_error("worn out");
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  return 0;
}

class TimeEvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    calls = 0;
    fail_after = -1;
    FunctionSignature sig{
        "count", {ParamSignature::Buffer("X", DLDataType{kDLFloat, 32, 1}, {Dim::Const(4)})}};
    module_ = *Module::FromFunctions({Module::Function{sig, CountKernel, 0, ""}}, nullptr);
    x_ = *NDArray::Zeros({4}, DLDataType{kDLFloat, 32, 1});
  }
  Module module_;
  NDArray x_;
};

TEST_F(TimeEvaluatorTest, MakesNumberTimesRepeatCallsPlusWarmup) {
  TimeOptions o;
  o.number = 3;
  o.repeat = 4;
  absl::StatusOr<TimeResult> r = TimeFunction(module_, "count", {x_}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->seconds_per_call.size(), 4u);
  EXPECT_EQ(r->number, 3);
  EXPECT_EQ(r->total_calls, 13);
  EXPECT_EQ(calls.load(), 13);
  EXPECT_EQ(static_cast<float*>(x_.data())[0], 13.0f) << "the kernel really ran on the argument";
  for (double s : r->seconds_per_call) EXPECT_GT(s, 0);

  o.warmup = 0;
  o.flush_cache = true;
  calls = 0;
  r = TimeFunction(module_, "count", {x_}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(calls.load(), 12);
}

TEST_F(TimeEvaluatorTest, GrowsNumberUntilARepeatLastsMinRepeatMs) {
  TimeOptions o;
  o.number = 1;
  o.repeat = 2;
  o.min_repeat_ms = 5;  // Each call sleeps >= 0.2 ms: at least 25 calls per repeat.
  absl::StatusOr<TimeResult> r = TimeFunction(module_, "count", {x_}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->seconds_per_call.size(), 2u);
  EXPECT_GT(r->number, 1);
  EXPECT_EQ(r->total_calls, calls.load());
  EXPECT_GE(r->total_calls, 1 + 2 * r->number + 1) << "discarded short repeats also count";
  // The calibration's discarded runs grew from 1 by at least 1.6x each: 1 + n1 + n2 + ...
  // before the final number, so the total is below warmup + 2 * number + a geometric sum.
  EXPECT_LE(r->total_calls, 1 + 2 * r->number + 3 * r->number);

  // Without min_repeat_ms, number stays as given however fast the calls are.
  o.min_repeat_ms = 0;
  o.number = 2;
  calls = 0;
  r = TimeFunction(module_, "count", {x_}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->number, 2);
  EXPECT_EQ(calls.load(), 5);
}

TEST_F(TimeEvaluatorTest, RefusesBadOptionsAndArguments) {
  TimeOptions o;
  o.number = 0;
  EXPECT_THAT(TimeFunction(module_, "count", {x_}, o).status().message(),
              HasSubstr("time evaluator for count: number (0) and repeat (1) must be at least 1"));
  o = TimeOptions();
  o.repeat = -1;
  EXPECT_FALSE(TimeFunction(module_, "count", {x_}, o).ok());
  o = TimeOptions();
  o.min_repeat_ms = -2;
  EXPECT_FALSE(TimeFunction(module_, "count", {x_}, o).ok());
  o = TimeOptions();
  o.warmup = -1;
  EXPECT_FALSE(TimeFunction(module_, "count", {x_}, o).ok());
  NDArray wrong = *NDArray::Zeros({5}, DLDataType{kDLFloat, 32, 1});
  EXPECT_THAT(TimeFunction(module_, "count", {wrong}, TimeOptions()).status().message(),
              HasSubstr("argument 0 (X): expected shape [4], given [5]"));
  EXPECT_THAT(TimeFunction(module_, "nope", {x_}, TimeOptions()).status().message(),
              HasSubstr("no function 'nope'"));
  EXPECT_EQ(calls.load(), 0) << "nothing ran";
}

TEST_F(TimeEvaluatorTest, AKernelFailureStopsTheMeasurement) {
  fail_after = 5;
  TimeOptions o;
  o.number = 10;
  absl::StatusOr<TimeResult> r = TimeFunction(module_, "count", {x_}, o);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(r.status().message(), HasSubstr("count: worn out"));
  EXPECT_EQ(calls.load(), 6);
}

TEST(TimeEvaluator, FlushesMoreThanTheCache) { EXPECT_GE(CacheFlushBytes(), int64_t{32} << 20); }

}  // namespace
}  // namespace tessel::runtime
