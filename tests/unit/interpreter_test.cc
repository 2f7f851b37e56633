// Units for the reference interpreter (ir/interpreter.h) running whole programs:
// block-form matmul with init (checked and timed), predicate-guarded blocks,
// vector code, Allocate and DeclBuffer views, lets, conditionals, symbolic
// shapes, and every error the interpreter reports. Each result is checked against
// a direct C++ computation of the same thing.
//
//   PrimFunc mm = MatmulFunc(128);
//   ASSERT_TRUE(ir::Run(mm, {Arg(a), Arg(b), Arg(c)}).ok());
//   // c[i, j] == sum over k of a[i, k] * b[k, j], accumulated in float like the IR
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"
#include "tests/unit/interpreter_test_util.h"

namespace tessel::ir {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace ::tessel::ir::testing;  // NOLINT: the shared builders.

// The speed bound holds for optimised builds; debug and sanitizer builds only
// check the result.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TESSEL_INTERP_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TESSEL_INTERP_TEST_SANITIZED 1
#endif
#if defined(NDEBUG) && !defined(TESSEL_INTERP_TEST_SANITIZED)
constexpr bool kCheckSpeed = true;
#else
constexpr bool kCheckSpeed = false;
#endif

// C[i, j] = sum_k A[i, k] * B[k, j], in block form with init.
PrimFunc MatmulFunc(int64_t n) {
  Buffer a = Buf("A", kF32, {n, n}), b = Buf("B", kF32, {n, n}), c = Buf("C", kF32, {n, n});
  Var i = IVar("i"), j = IVar("j"), k = IVar("k");
  Var vi = IVar("vi"), vj = IVar("vj"), vk = IVar("vk");
  Stmt init = Store(c, FloatImm(kF32, 0), {vi, vj});
  Stmt body = Store(c, Add(Load(c, {vi, vj}), Mul(Load(a, {vi, vk}), Load(b, {vk, vj}))), {vi, vj});
  Block blk = ValueOrDie(MakeBlock(
      "C", {Iter(vi, 0, n), Iter(vj, 0, n), Iter(vk, 0, n, IterKind::kReduce)},
      {PointRegion(a, {vi, vk}), PointRegion(b, {vk, vj})}, {PointRegion(c, {vi, vj})}, body, init));
  return Fn({a, b, c}, Loop(i, n, Loop(j, n, Loop(k, n, Realize({i, j, k}, blk)))));
}

TEST(InterpProgramTest, MatmulBlockWithInitMatchesDirectLoopsAndIsFast) {
  const int64_t n = 128;
  PrimFunc mm = MatmulFunc(n);
  HostBuffer a = HostBuffer::Zeros(kF32, {n, n}), b = HostBuffer::Zeros(kF32, {n, n});
  HostBuffer c = HostBuffer::Zeros(kF32, {n, n});
  for (int64_t x = 0; x < n * n; ++x) {
    a.SetFloat(x, std::sin(0.37 * static_cast<double>(x)));
    b.SetFloat(x, std::cos(0.11 * static_cast<double>(x)));
    c.SetFloat(x, 1e6);  // Garbage that init must overwrite.
  }
  auto start = std::chrono::steady_clock::now();
  absl::Status s = ir::Run(mm, {Arg(a), Arg(b), Arg(c)});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(s.ok()) << s;
  if (kCheckSpeed) {
    EXPECT_LT(seconds, 2.0) << "128^3 matmul took " << seconds << " s";
  }
  const float* pa = static_cast<const float*>(a.data());
  const float* pb = static_cast<const float*>(b.data());
  const float* pc = static_cast<const float*>(c.data());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; ++k) {
        float p = pa[i * n + k] * pb[k * n + j];
        acc = acc + p;
      }
      wrong += acc != pc[i * n + j];
    }
  }
  EXPECT_EQ(wrong, 0) << "elements differing from float accumulation in k order";
}

TEST(InterpProgramTest, InitRunsWhenEveryReduceVarIsAtItsDomainMin) {
  // Out[vi] = 100 + sum over vk in [2, 5), vr in [1, 3) of In[vi, vk] * vr,
  // with init Out[vi] = 100 and the reduce domains starting above 0.
  Buffer in = Buf("In", kI32, {2, 5}), out = Buf("Out", kI32, {2});
  Var i = IVar("i"), k = IVar("k"), r = IVar("r"), vi = IVar("vi"), vk = IVar("vk"), vr = IVar("vr");
  Block blk = MakeSimpleBlock(
      "S", {Iter(vi, 0, 2), Iter(vk, 2, 3, IterKind::kReduce), Iter(vr, 1, 2, IterKind::kReduce)},
      Store(out, Add(Load(out, {vi}), Mul(Load(in, {vi, vk}), vr)), {vi}),
      Store(out, IntImm32(100), {vi}));
  Stmt body = Loop(i, 2, Loop(k, 3, Loop(r, 2, Realize({i, Add(k, IntImm32(2)), Add(r, IntImm32(1))}, blk))));
  HostBuffer hin = HostBuffer::Zeros(kI32, {2, 5}), hout = IntBuffer(kI32, {-5, -5});
  for (int64_t x = 0; x < 10; ++x) hin.SetInt(x, x + 1);
  ASSERT_TRUE(ir::Run(Fn({in, out}, body), {Arg(hin), Arg(hout)}).ok());
  for (int64_t row = 0; row < 2; ++row) {
    int64_t expect = 100;
    for (int64_t kk = 2; kk < 5; ++kk) {
      for (int64_t rr = 1; rr < 3; ++rr) expect += (row * 5 + kk + 1) * rr;
    }
    EXPECT_EQ(hout.GetInt(row), expect) << "row " << row;
  }
}

// B[vi] = A[vi] + 1 for vi = io * 4 + ii over io < 3, ii < 4, guarded to vi < 10.
PrimFunc GuardedFunc(bool with_predicate) {
  Buffer a = Buf("A", kF32, {10}), b = Buf("B", kF32, {10});
  Var io = IVar("io"), ii = IVar("ii"), vi = IVar("vi");
  Expr v = Add(Mul(io, IntImm32(4)), ii);
  Block blk = MakeSimpleBlock("B", {Iter(vi, 0, 10)},
                              Store(b, Add(Load(a, {vi}), FloatImm(kF32, 1)), {vi}));
  Expr pred = with_predicate ? LT(v, IntImm32(10)) : Bool(true);
  return Fn({a, b}, Loop(io, 3, Loop(ii, 4, Realize({v}, blk, pred))));
}

TEST(InterpProgramTest, PredicateGuardsBlocksAndBindingsAreCheckedAgainstDomains) {
  HostBuffer a = HostBuffer::Zeros(kF32, {10}), b = HostBuffer::Zeros(kF32, {10});
  for (int64_t x = 0; x < 10; ++x) a.SetFloat(x, 0.5 * static_cast<double>(x));
  ASSERT_TRUE(ir::Run(GuardedFunc(true), {Arg(a), Arg(b)}).ok());
  for (int64_t x = 0; x < 10; ++x) EXPECT_EQ(b.GetFloat(x), 0.5 * static_cast<double>(x) + 1);
  absl::Status s = ir::Run(GuardedFunc(false), {Arg(a), Arg(b)}, {}, "split");
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(Msg(s), AllOf(HasSubstr("function 'split'"), HasSubstr("block 'B'"),
                            HasSubstr("iter var 'vi' = 10 is outside its domain [0, 10)")));
}

TEST(InterpProgramTest, VectorRampAndBroadcastLoadsAndStores) {
  // for i in 0..4: C[ramp(i*4, 1, 4)] = A[ramp(i*4, 1, 4)] * broadcast(2) + A[ramp(i, 4, 4)]
  // then D[1, ramp(0, 1, 4)] = select(ramp(0,1,4) < broadcast(2), A[0..4), broadcast(-1))
  Buffer a = Buf("A", kF32, {16}), c = Buf("C", kF32, {16}), d = Buf("D", kF32, {2, 4});
  Var i = IVar("i");
  Expr base = Mul(i, IntImm32(4));
  Expr contiguous = Load(a, {Ramp(base, IntImm32(1), 4)});
  Expr strided = Load(a, {Ramp(i, IntImm32(4), 4)});
  Stmt s1 = Loop(i, 4, Store(c, Add(Mul(contiguous, Broadcast(FloatImm(kF32, 2), 4)), strided),
                             {Ramp(base, IntImm32(1), 4)}), ForKind::kVectorized);
  Expr lane = Ramp(IntImm32(0), IntImm32(1), 4);
  Stmt s2 = Store(d, Select(LT(lane, Broadcast(IntImm32(2), 4)), Load(a, {lane}),
                            Broadcast(FloatImm(kF32, -1), 4)),
                  {IntImm32(1), lane});
  HostBuffer ha = HostBuffer::Zeros(kF32, {16}), hc = HostBuffer::Zeros(kF32, {16});
  HostBuffer hd = HostBuffer::Zeros(kF32, {2, 4});
  for (int64_t x = 0; x < 16; ++x) ha.SetFloat(x, static_cast<double>(x) * 0.25 - 1);
  ASSERT_TRUE(ir::Run(Fn({a, c, d}, Seq({s1, s2})), {Arg(ha), Arg(hc), Arg(hd)}).ok());
  for (int64_t ii = 0; ii < 4; ++ii) {
    for (int64_t l = 0; l < 4; ++l) {
      double expect = ha.GetFloat(ii * 4 + l) * 2 + ha.GetFloat(ii + 4 * l);
      EXPECT_EQ(hc.GetFloat(ii * 4 + l), expect) << ii << "," << l;
    }
  }
  for (int64_t l = 0; l < 4; ++l) {
    EXPECT_EQ(hd.GetFloat(l), 0) << "row 0 untouched";
    EXPECT_EQ(hd.GetFloat(4 + l), l < 2 ? ha.GetFloat(l) : -1.0) << "lane " << l;
  }
}

TEST(InterpProgramTest, AllocateAndDeclBufferViewsShareStorage) {
  // tmp: f32[16] allocated; t2 = view [4, 4] of tmp; At = view of A with strides
  // [1, 4] (the transpose); row = view of A's row 2 (shape [4], elem_offset 8).
  //   for i, j: t2[i, j] = At[i, j]       (tmp holds A transposed)
  //   for x:    B[x] = tmp[x] + row[x % 4]
  Buffer a = Buf("A", kF32, {4, 4}), b = Buf("B", kF32, {16});
  Buffer tmp = Buf("tmp", kF32, {16});
  Buffer t2 = Buf("t2", kF32, {4, 4});
  Buffer at = ValueOrDie(MakeBufferChecked("At", kF32, {IntImm32(4), IntImm32(4)},
                                           {IntImm32(1), IntImm32(4)}));
  Buffer row = ValueOrDie(MakeBufferChecked("row", kF32, {IntImm32(4)}, {}, IntImm32(8)));
  Var i = IVar("i"), j = IVar("j"), x = IVar("x");
  Stmt fill = Loop(i, 4, Loop(j, 4, Store(t2, Load(at, {i, j}), {i, j})));
  Stmt use = Loop(x, 16, Store(b, Add(Load(tmp, {x}), Load(row, {FloorMod(x, IntImm32(4))})), {x}));
  Stmt body = ValueOrDie(MakeAllocate(
      tmp, ValueOrDie(MakeDeclBuffer(
               t2, tmp, ValueOrDie(MakeDeclBuffer(
                            at, a, ValueOrDie(MakeDeclBuffer(row, a, Seq({fill, use})))))))));
  HostBuffer ha = HostBuffer::Zeros(kF32, {4, 4}), hb = HostBuffer::Zeros(kF32, {16});
  for (int64_t v = 0; v < 16; ++v) ha.SetFloat(v, static_cast<double>(v * v));
  ASSERT_TRUE(ir::Run(Fn({a, b}, body), {Arg(ha), Arg(hb)}).ok());
  for (int64_t v = 0; v < 16; ++v) {
    int64_t r = v / 4, col = v % 4;
    double transposed = ha.GetFloat(col * 4 + r);
    EXPECT_EQ(hb.GetFloat(v), transposed + ha.GetFloat(8 + col)) << v;
  }
}

TEST(InterpProgramTest, BlockAllocBuffersAreFreshAndUnwrittenElementsCannotBeRead) {
  // for i: block { alloc acc: i32[1]; acc[0] = 100; acc[0] = acc[0] + A[vi]; B[vi] = acc[0] }
  Buffer a = Buf("A", kI32, {3}), b = Buf("B", kI32, {3}), acc = Buf("acc", kI32, {1});
  Var i = IVar("i"), vi = IVar("vi");
  Expr zero = IntImm32(0);
  Stmt body = Seq({Store(acc, IntImm32(100), {zero}),
                   Store(acc, Add(Load(acc, {zero}), Load(a, {vi})), {zero}),
                   Store(b, Load(acc, {zero}), {vi})});
  Block blk = MakeSimpleBlock("blk", {Iter(vi, 0, 3)}, body, nullptr, {acc});
  HostBuffer ha = IntBuffer(kI32, {5, 7, 9}), hb = HostBuffer::Zeros(kI32, {3});
  ASSERT_TRUE(ir::Run(Fn({a, b}, Loop(i, 3, Realize({i}, blk))), {Arg(ha), Arg(hb)}).ok());
  EXPECT_EQ(hb.GetInt(0), 105);
  EXPECT_EQ(hb.GetInt(1), 107);
  EXPECT_EQ(hb.GetInt(2), 109);
  // Without the first store the accumulator is read before anything was written
  // to it: fresh memory being zero must not make that look right.
  Stmt no_init = Seq({Store(acc, Add(Load(acc, {zero}), Load(a, {vi})), {zero}),
                      Store(b, Load(acc, {zero}), {vi})});
  Block bad = MakeSimpleBlock("blk", {Iter(vi, 0, 3)}, no_init, nullptr, {acc});
  absl::Status s = ir::Run(Fn({a, b}, Loop(i, 3, Realize({i}, bad))), {Arg(ha), Arg(hb)});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(s), AllOf(HasSubstr("BufferLoad from 'acc' index [0] reads an element of 'acc' "
                                      "that was never written since it was allocated"),
                            HasSubstr(" in: acc[0] = ")));
  // Each execution of the block gets new storage: a value written when vi == 0 is
  // gone when vi == 1.
  Stmt split = ValueOrDie(MakeIfThenElse(EQ(vi, zero), Store(acc, IntImm32(1), {zero}),
                                         Store(b, Load(acc, {zero}), {vi})));
  Block fresh = MakeSimpleBlock("blk", {Iter(vi, 0, 3)}, split, nullptr, {acc});
  EXPECT_THAT(Msg(ir::Run(Fn({a, b}, Loop(i, 3, Realize({i}, fresh))), {Arg(ha), Arg(hb)})),
              HasSubstr("never written since it was allocated"));
}

TEST(InterpProgramTest, LetIfThenElseAndSelect) {
  // for i: let x = A[i] * 2 in if x > 0 { B[i] = x } else { B[i] = select(i % 2 == 0, -x, 0) }
  Buffer a = Buf("A", kF32, {6}), b = Buf("B", kF32, {6});
  Var i = IVar("i"), x = MakeVar("x", kF32);
  Stmt then_case = Store(b, x, {i});
  Stmt else_case = Store(b, Select(EQ(FloorMod(i, IntImm32(2)), IntImm32(0)),
                                   Sub(FloatImm(kF32, 0), x), FloatImm(kF32, 0)), {i});
  Stmt let = ValueOrDie(MakeLetStmt(
      x, Mul(Load(a, {i}), FloatImm(kF32, 2)),
      ValueOrDie(MakeIfThenElse(GT(x, FloatImm(kF32, 0)), then_case, else_case))));
  HostBuffer ha = FloatBuffer(kF32, {1.5, -2, -3, 0, 4, -0.5}), hb = FloatBuffer(kF32, {9, 9, 9, 9, 9, 9});
  ASSERT_TRUE(ir::Run(Fn({a, b}, Loop(i, 6, let)), {Arg(ha), Arg(hb)}).ok());
  std::vector<double> expect;
  for (int64_t v = 0; v < 6; ++v) {
    double xv = ha.GetFloat(v) * 2;
    expect.push_back(xv > 0 ? xv : (v % 2 == 0 ? -xv : 0.0));
  }
  for (int64_t v = 0; v < 6; ++v) EXPECT_EQ(hb.GetFloat(v), expect[v]) << v;
}

TEST(InterpProgramTest, LongLetChainsRunWithoutDeepRecursion) {
  // let x0 = 1; let x1 = x0 + 1; ... let x9999 = x9998 + 1; A[0] = x9999
  const int kLets = 10000;
  Buffer a = Buf("A", kI32, {1});
  std::vector<Var> xs;
  for (int k = 0; k < kLets; ++k) xs.push_back(IVar("x" + std::to_string(k)));
  Stmt body = Store(a, xs.back(), {IntImm32(0)});
  for (int k = kLets - 1; k >= 0; --k) {
    Expr value = k == 0 ? IntImm32(1) : Add(xs[k - 1], IntImm32(1));
    body = ValueOrDie(MakeLetStmt(xs[k], value, body));
  }
  HostBuffer ha = HostBuffer::Zeros(kI32, {1});
  ASSERT_TRUE(ir::Run(Fn({a}, body), {Arg(ha)}).ok());
  EXPECT_EQ(ha.GetInt(0), kLets);
}

TEST(InterpErrorTest, NestingDeeperThanTheLimitIsAnErrorNotAStackOverflow) {
  Buffer a = Buf("A", kI32, {1});
  Expr e = IntImm32(0);
  for (int k = 0; k < 5000; ++k) e = Add(e, IntImm32(1));
  HostBuffer ha = HostBuffer::Zeros(kI32, {1});
  EXPECT_THAT(Msg(ir::Run(Fn({a}, Store(a, e, {IntImm32(0)})), {Arg(ha)})),
              HasSubstr("the IR is nested deeper than 1024 levels"));
  Expr ok = IntImm32(0);
  for (int k = 0; k < 1000; ++k) ok = Add(ok, IntImm32(1));
  ASSERT_TRUE(ir::Run(Fn({a}, Store(a, ok, {IntImm32(0)})), {Arg(ha)}).ok());
  EXPECT_EQ(ha.GetInt(0), 1000);
}

TEST(InterpProgramTest, EveryLoopKindRunsSequentially) {
  // Each iteration reads the previous one's result: only a sequential order gives 2^i.
  // A loop bound to threadIdx.x is a GPU kernel instead (interpreter_gpu_test.cc):
  // there the same dependence is a race between threads.
  Buffer a = Buf("A", kI64, {8});
  for (ForKind kind : {ForKind::kSerial, ForKind::kParallel, ForKind::kVectorized,
                       ForKind::kUnrolled, ForKind::kThreadBinding}) {
    Var i = IVar("i");
    Expr prev = Load(a, {Max(Sub(i, IntImm32(1)), IntImm32(0))});
    Stmt body = Store(a, Select(EQ(i, IntImm32(0)), IntImm(kI64, 1), Mul(prev, IntImm(kI64, 2))), {i});
    HostBuffer ha = HostBuffer::Zeros(kI64, {8});
    absl::Status s = ir::Run(Fn({a}, Loop(i, 8, body, kind)), {Arg(ha)});
    if (kind == ForKind::kThreadBinding) {
      EXPECT_THAT(Msg(s), HasSubstr("data race on 'A' index [0]"));
      continue;
    }
    ASSERT_TRUE(s.ok()) << ForKindName(kind) << ": " << s;
    for (int64_t v = 0; v < 8; ++v) EXPECT_EQ(ha.GetInt(v), int64_t{1} << v) << ForKindName(kind);
  }
}

TEST(InterpProgramTest, SymbolicShapesBindFromArgumentsAndMustAgree) {
  // f(A: f32[n], B: f32[n]) { for i in 0..n: B[i] = A[i] * 2 }
  Var n = IVar("n"), i = IVar("i");
  Buffer a = MakeBuffer("A", kF32, {n}), b = MakeBuffer("B", kF32, {n});
  Stmt body = For(i, IntImm32(0), n, Store(b, Mul(Load(a, {i}), FloatImm(kF32, 2)), {i}));
  PrimFunc f = Fn({a, b}, body);
  for (int64_t len : {1, 5, 7}) {
    std::vector<double> in;
    for (int64_t v = 0; v < len; ++v) in.push_back(static_cast<double>(v) - 2.5);
    HostBuffer ha = FloatBuffer(kF32, in), hb = HostBuffer::Zeros(kF32, {len});
    ASSERT_TRUE(ir::Run(f, {Arg(ha), Arg(hb)}).ok()) << len;
    for (int64_t v = 0; v < len; ++v) EXPECT_EQ(hb.GetFloat(v), in[v] * 2);
  }
  absl::Status s = ir::Run(f, {Arg(HostBuffer::Zeros(kF32, {5})), Arg(HostBuffer::Zeros(kF32, {6}))});
  EXPECT_THAT(Msg(s), HasSubstr("argument 1 ('B'): shape [6] does not match the parameter's "
                                "shape [n] = [5]"));
  // The size may also be a scalar parameter; then the buffer must agree with it.
  PrimFunc g = Fn({a, b}, body, {n});
  HostBuffer h5 = HostBuffer::Zeros(kF32, {5}), o5 = HostBuffer::Zeros(kF32, {5});
  EXPECT_TRUE(ir::Run(g, {Arg(h5), Arg(o5), Arg(int64_t{5})}).ok());
  EXPECT_THAT(Msg(ir::Run(g, {Arg(h5), Arg(o5), Arg(int64_t{4})})),
              HasSubstr("argument 0 ('A'): shape [5] does not match the parameter's shape [n] = [4]"));
  // A size that only appears inside an expression cannot be inferred.
  Var m = IVar("m");
  Buffer twice = MakeBuffer("T", kF32, {Mul(m, IntImm32(2))});
  EXPECT_THAT(Msg(ir::Run(Fn({twice}, body), {Arg(HostBuffer::Zeros(kF32, {4}))})),
              HasSubstr("variable 'm' is used but not bound here (in the layout of parameter 0 'T')"));
}

// ---- Errors ----------------------------------------------------------------------

// for i in 0..extent: C[i + shift] = A[i - lshift]
PrimFunc ShiftCopy(int64_t extent, int64_t shift, int64_t lshift) {
  Buffer a = Buf("A", kF32, {4}), c = Buf("C", kF32, {4});
  Var i = IVar("i");
  return Fn({a, c}, Loop(i, extent, Store(c, Load(a, {Sub(i, IntImm32(lshift))}),
                                          {Add(i, IntImm32(shift))})));
}

TEST(InterpErrorTest, OutOfBoundsNamesFunctionBufferIndexAndStatement) {
  HostBuffer a = HostBuffer::Zeros(kF32, {4}), c = HostBuffer::Zeros(kF32, {4});
  absl::Status past = ir::Run(ShiftCopy(4, 1, 0), {Arg(a), Arg(c)}, {}, "shifted");
  EXPECT_EQ(past.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(Msg(past), AllOf(HasSubstr("function 'shifted'"),
                               HasSubstr("BufferStore to 'C' index [4] is outside shape [4]"),
                               HasSubstr(" in: C["), HasSubstr("A[")));
  absl::Status negative = ir::Run(ShiftCopy(4, 0, 1), {Arg(a), Arg(c)});
  EXPECT_THAT(Msg(negative), HasSubstr("BufferLoad from 'A' index [-1] is outside shape [4]"));
  EXPECT_TRUE(ir::Run(ShiftCopy(3, 1, 0), {Arg(a), Arg(c)}).ok());
}

TEST(InterpErrorTest, OutOfBoundsThroughAViewIsCheckedAgainstTheStorage) {
  // A view of A (4 elements) claiming 8: index 5 is inside the view, outside A.
  Buffer a = Buf("A", kF32, {4}), wide = Buf("wide", kF32, {8});
  Var i = IVar("i");
  Stmt body = ValueOrDie(MakeDeclBuffer(wide, a, Loop(i, 8, Store(wide, FloatImm(kF32, 1), {i}))));
  HostBuffer ha = HostBuffer::Zeros(kF32, {4});
  absl::Status s = ir::Run(Fn({a}, body), {Arg(ha)});
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(Msg(s), AllOf(HasSubstr("BufferStore to 'wide' index [4]"),
                            HasSubstr("outside the storage of 'A' holding 4 elements")));
  for (int64_t v = 0; v < 4; ++v) EXPECT_EQ(ha.GetFloat(v), 1.0) << "stores before the bad one ran";
}

TEST(InterpErrorTest, VectorAccessNamesTheLaneAndWritesNothing) {
  Buffer c = Buf("C", kF32, {6});
  Stmt body = Store(c, Broadcast(FloatImm(kF32, 3), 4), {Ramp(IntImm32(3), IntImm32(1), 4)});
  HostBuffer hc = HostBuffer::Zeros(kF32, {6});
  absl::Status s = ir::Run(Fn({c}, body), {Arg(hc)});
  EXPECT_THAT(Msg(s), HasSubstr("BufferStore to 'C' index [6] (lane 3) is outside shape [6]"));
  for (int64_t v = 0; v < 6; ++v) EXPECT_EQ(hc.GetFloat(v), 0.0);
}

TEST(InterpErrorTest, WrongArgumentsAreReported) {
  Var n = IVar("n");
  Buffer a = Buf("A", kF32, {2, 3});
  PrimFunc f = Fn({a}, ValueOrDie(MakeEvaluate(IntImm32(0))), {n});
  HostBuffer good = HostBuffer::Zeros(kF32, {2, 3});
  EXPECT_TRUE(ir::Run(f, {Arg(good), Arg(int64_t{1})}).ok());
  EXPECT_THAT(Msg(ir::Run(f, {Arg(good)})), HasSubstr("takes 2 arguments (A: f32[2, 3], n: i32), got 1"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(int64_t{1}), Arg(int64_t{1})})),
              HasSubstr("argument 0 ('A'): expected a buffer (A: f32[2, 3]), got an integer"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(good), Arg(good)})),
              HasSubstr("argument 1 ('n'): expected an integer (i32), got a buffer"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(good), Arg(1.0)})), HasSubstr("expected an integer (i32), got a float"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(good), Arg(int64_t{1} << 40)})),
              HasSubstr("1099511627776 is not a value of type i32"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(HostBuffer::Zeros(kF64, {2, 3})), Arg(int64_t{1})})),
              HasSubstr("argument 0 ('A'): buffer of type f64, expected f32"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(HostBuffer::Zeros(kF32, {6})), Arg(int64_t{1})})),
              HasSubstr("rank 1 (shape [6]), expected rank 2"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(HostBuffer::Zeros(kF32, {3, 2})), Arg(int64_t{1})})),
              HasSubstr("shape [3, 2] does not match the parameter's shape [2, 3] = [2, 3]"));
  EXPECT_THAT(Msg(ir::Run(f, {Arg(HostBuffer()), Arg(int64_t{1})})), HasSubstr("HostBuffer is empty"));
}

TEST(InterpErrorTest, IntegerDivisionByZeroIsAnErrorForEveryDivisionKind) {
  for (NodeKind k : {NodeKind::kDiv, NodeKind::kMod, NodeKind::kFloorDiv, NodeKind::kFloorMod}) {
    Buffer a = Buf("A", kI32, {3}), b = Buf("B", kI32, {3}), c = Buf("C", kI32, {3});
    Var i = IVar("i");
    Expr e = ValueOrDie(MakeBinary(k, Load(a, {i}), Load(b, {i})));
    HostBuffer ha = IntBuffer(kI32, {7, 8, 9}), hb = IntBuffer(kI32, {2, 0, 1});
    HostBuffer hc = HostBuffer::Zeros(kI32, {3});
    absl::Status s = ir::Run(Fn({a, b, c}, Loop(i, 3, Store(c, e, {i}))), {Arg(ha), Arg(hb), Arg(hc)});
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << NodeKindName(k);
    EXPECT_THAT(Msg(s), AllOf(HasSubstr("integer division by zero"), HasSubstr(" in: C[")))
        << NodeKindName(k);
    EXPECT_EQ(hc.GetInt(1), 0) << "the failing store must not happen";
  }
  // Float division by zero is IEEE: no error.
  Buffer x = Buf("X", kF32, {1});
  HostBuffer hx = FloatBuffer(kF32, {1});
  ASSERT_TRUE(ir::Run(Fn({x}, Store(x, Div(Load(x, {IntImm32(0)}), FloatImm(kF32, 0)), {IntImm32(0)})),
                  {Arg(hx)}).ok());
  EXPECT_TRUE(std::isinf(hx.GetFloat(0)));
}

TEST(InterpErrorTest, MaxStepsStopsRunawayLoops) {
  Buffer a = Buf("A", kI32, {1});
  Var i = IVar("i");
  PrimFunc f = Fn({a}, Loop(i, 1000000000, Store(a, i, {IntImm32(0)})));
  RunOptions opts;
  opts.max_steps = 1000;
  HostBuffer ha = HostBuffer::Zeros(kI32, {1});
  absl::Status s = ir::Run(f, {Arg(ha)}, opts);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Msg(s), HasSubstr("exceeded max_steps = 1000"));
  EXPECT_EQ(ha.GetInt(0), 998) << "the loop statement plus 999 stores ran";
  opts.max_steps = 2000;
  PrimFunc small = Fn({a}, Loop(i, 1000, Store(a, i, {IntImm32(0)})));
  EXPECT_TRUE(ir::Run(small, {Arg(ha)}, opts).ok());
}

TEST(InterpErrorTest, UnboundVariablesAndBuffersAreErrors) {
  Buffer a = Buf("A", kI32, {4}), stray = Buf("stray", kI32, {4});
  Var i = IVar("i"), j = IVar("j");
  HostBuffer ha = HostBuffer::Zeros(kI32, {4});
  EXPECT_THAT(Msg(ir::Run(Fn({a}, Loop(i, 4, Store(a, j, {i}))), {Arg(ha)})),
              AllOf(HasSubstr("variable 'j' is used but not bound here"), HasSubstr(" in: A[")));
  EXPECT_THAT(Msg(ir::Run(Fn({a}, Loop(i, 4, Store(a, Load(stray, {i}), {i}))), {Arg(ha)})),
              HasSubstr("buffer 'stray' is used but not bound here"));
  // A loop variable is unbound after its loop.
  EXPECT_THAT(Msg(ir::Run(Fn({a}, Seq({Loop(i, 4, Store(a, i, {i})), Store(a, i, {IntImm32(0)})})),
                      {Arg(ha)})),
              HasSubstr("variable 'i' is used but not bound here"));
}

TEST(InterpErrorTest, ExternCallsAreRefusedWhenReached) {
  Buffer a = Buf("A", kF32, {1});
  Expr call = ValueOrDie(MakeCall(kF32, CallNode::Callee::kExtern, "my_fn", {FloatImm(kF32, 1)}));
  HostBuffer ha = HostBuffer::Zeros(kF32, {1});
  absl::Status s = ir::Run(Fn({a}, Store(a, call, {IntImm32(0)})), {Arg(ha)});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Msg(s), HasSubstr("extern call 'my_fn' cannot be run by the interpreter"));
  Stmt guarded = ValueOrDie(MakeIfThenElse(Bool(false), Store(a, call, {IntImm32(0)})));
  EXPECT_TRUE(ir::Run(Fn({a}, guarded), {Arg(ha)}).ok());
}

}  // namespace
}  // namespace tessel::ir
