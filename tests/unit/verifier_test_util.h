// Builders shared by the verifier units (verifier_test.cc, verifier_blocks_test.cc):
// short forms for blocks, realizes and functions, and a 128^3 matmul in block
// form whose pieces a test can swap for broken ones.
//
//   Matmul mm;
//   PrimFunc good = mm.Good();
//   PrimFunc bad = mm.Func(mm.Update(mm.i));   // the block reads loop var 'i'
//   EXPECT_THAT(Error(bad), HasSubstr("variable 'i' is bound by a loop outside block 'C'"));
#ifndef TESSEL_TESTS_UNIT_VERIFIER_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_VERIFIER_TEST_UTIL_H_

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/verifier.h"

namespace tessel::ir::verifier_test {

inline const DataType kF32 = DataType::Float(32);
inline const DataType kI32 = DataType::Int(32);

inline std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// The message of verifying `f` as 'f'; empty when it verifies.
inline std::string Error(const PrimFunc& f) { return Msg(VerifyFunction(f, "f")); }

inline IterVar Iter(Var v, int64_t extent, IterKind kind = IterKind::kSpatial) {
  return IterVar{std::move(v), Range{IntImm32(0), IntImm32(extent)}, kind};
}

inline Stmt Realize(std::vector<Expr> values, Block block, Expr predicate = nullptr) {
  return ValueOrDie(MakeBlockRealize(std::move(values), std::move(predicate), std::move(block)));
}

inline Block SimpleBlock(std::string name, std::vector<IterVar> iters, Stmt body,
                         std::vector<BufferRegion> reads = {}, std::vector<BufferRegion> writes = {},
                         Stmt init = nullptr, std::vector<Buffer> allocs = {}) {
  return ValueOrDie(MakeBlock(std::move(name), std::move(iters), std::move(reads),
                              std::move(writes), std::move(body), std::move(init),
                              std::move(allocs)));
}

// The whole body under a root block without iter vars, as TensorIR writes it.
inline Stmt UnderRoot(Stmt body, std::vector<Buffer> allocs = {}) {
  return Realize({}, SimpleBlock("root", {}, std::move(body), {}, {}, nullptr, std::move(allocs)));
}

inline PrimFunc Func(std::vector<Buffer> buffers, Stmt body, std::vector<Var> vars = {}) {
  std::vector<Param> params;
  for (Buffer& b : buffers) params.push_back(Param::OfBuffer(std::move(b)));
  for (Var& v : vars) params.push_back(Param::OfVar(std::move(v)));
  return MakePrimFunc(std::move(params), std::move(body));
}

// A For built directly, for loops the factory would refuse.
inline Stmt ForNodeWith(Var v, Expr min, Expr extent, ForKind kind, std::string tag, Stmt body) {
  auto n = MakeNode<ForNode>();
  n->loop_var = std::move(v);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->for_kind = kind;
  n->thread_tag = std::move(tag);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

// C[i, j] += A[i, k] * B[k, j] over 128^3, in block form with init.
struct Matmul {
  Buffer a = MakeBuffer("A", kF32, {IntImm32(128), IntImm32(128)});
  Buffer b = MakeBuffer("B", kF32, {IntImm32(128), IntImm32(128)});
  Buffer c = MakeBuffer("C", kF32, {IntImm32(128), IntImm32(128)});
  Var i = MakeVar("i", kI32), j = MakeVar("j", kI32), k = MakeVar("k", kI32);
  Var vi = MakeVar("vi", kI32), vj = MakeVar("vj", kI32), vk = MakeVar("vk", kI32);

  Stmt Update(Expr row) const {
    return Store(c, Add(Load(c, {vi, vj}), Mul(Load(a, {row, vk}), Load(b, {vk, vj}))), {vi, vj});
  }
  Block MakeBlockC(Stmt update, std::string name = "C") const {
    return SimpleBlock(std::move(name),
                       {Iter(vi, 128), Iter(vj, 128), Iter(vk, 128, IterKind::kReduce)},
                       std::move(update), {PointRegion(a, {vi, vk}), PointRegion(b, {vk, vj})},
                       {PointRegion(c, {vi, vj})}, Store(c, FloatImm(kF32, 0.0), {vi, vj}));
  }
  Stmt Nest(Stmt realize) const {
    return For(i, IntImm32(0), IntImm32(128),
               For(j, IntImm32(0), IntImm32(128), For(k, IntImm32(0), IntImm32(128), realize)));
  }
  PrimFunc Func(Stmt update) const {
    return verifier_test::Func({a, b, c}, UnderRoot(Nest(Realize({i, j, k}, MakeBlockC(update)))));
  }
  PrimFunc Good() const { return Func(Update(vi)); }
};

}  // namespace tessel::ir::verifier_test

#endif  // TESSEL_TESTS_UNIT_VERIFIER_TEST_UTIL_H_
