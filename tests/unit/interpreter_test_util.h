// Small builders shared by the interpreter's unit tests, e.g.
//
//   Buffer a = Buf("A", kF32, {4, 4});
//   Var i = IVar("i");
//   PrimFunc f = Fn({a}, Loop(i, 4, Store(a, FloatImm(kF32, 1), {i, i})));
#ifndef TESSEL_TESTS_UNIT_INTERPRETER_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_INTERPRETER_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/interpreter.h"

namespace tessel::ir::testing {

inline const DataType kF32 = DataType::Float(32);
inline const DataType kF64 = DataType::Float(64);
inline const DataType kF16 = DataType::Float(16);
inline const DataType kBF16 = DataType::BFloat(16);
inline const DataType kI32 = DataType::Int(32);
inline const DataType kI64 = DataType::Int(64);

inline std::string Msg(const absl::Status& s) { return std::string(s.message()); }

inline Buffer Buf(const std::string& name, DataType t, const std::vector<int64_t>& shape) {
  std::vector<Expr> dims;
  for (int64_t d : shape) dims.push_back(IntImm32(d));
  return MakeBuffer(name, t, dims);
}

inline Var IVar(const std::string& name) { return MakeVar(name, kI32); }

inline Stmt Loop(const Var& v, int64_t extent, Stmt body, ForKind kind = ForKind::kSerial) {
  return For(v, IntImm32(0), IntImm32(extent), std::move(body), kind);
}

inline PrimFunc Fn(const std::vector<Buffer>& buffers, Stmt body,
                   const std::vector<Var>& scalars = {}) {
  std::vector<Param> params;
  for (const Buffer& b : buffers) params.push_back(Param::OfBuffer(b));
  for (const Var& v : scalars) params.push_back(Param::OfVar(v));
  return MakePrimFunc(std::move(params), std::move(body));
}

inline IterVar Iter(Var v, int64_t min, int64_t extent, IterKind kind = IterKind::kSpatial) {
  return IterVar{std::move(v), Range{IntImm32(min), IntImm32(extent)}, kind};
}

inline Stmt Realize(std::vector<Expr> values, Block block, Expr predicate = nullptr) {
  return ValueOrDie(MakeBlockRealize(std::move(values), std::move(predicate), std::move(block)));
}

inline Block MakeSimpleBlock(std::string name, std::vector<IterVar> iters, Stmt body,
                             Stmt init = nullptr, std::vector<Buffer> allocs = {}) {
  return ValueOrDie(MakeBlock(std::move(name), std::move(iters), {}, {}, std::move(body),
                              std::move(init), std::move(allocs)));
}

// A buffer filled with `values` converted to its dtype.
inline HostBuffer FloatBuffer(DataType t, const std::vector<double>& values) {
  HostBuffer b = HostBuffer::Zeros(t, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) b.SetFloat(static_cast<int64_t>(i), values[i]);
  return b;
}
inline HostBuffer IntBuffer(DataType t, const std::vector<int64_t>& values) {
  HostBuffer b = HostBuffer::Zeros(t, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) b.SetInt(static_cast<int64_t>(i), values[i]);
  return b;
}

}  // namespace tessel::ir::testing

#endif  // TESSEL_TESTS_UNIT_INTERPRETER_TEST_UTIL_H_
