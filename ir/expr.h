// Expressions: variables, constants, arithmetic, comparisons, logic, selects,
// casts, buffer loads, vector ramps/broadcasts and calls.
//
//   Var i = MakeVar("i", DataType::Int(32));
//   absl::StatusOr<Expr> e = MakeBinary(NodeKind::kAdd, i, IntImm32(1));  // checked
//   Expr f = Add(i, IntImm32(1));                          // C++ convenience, see below
//
// Two ways to build:
// - `Make*` factories check operand dtypes and arities and return a clear error on
//   misuse. Everything fed by user input (the parser, Python, passes acting on
//   parsed IR) uses them.
// - The short builders (`Add`, `Mul`, `LT`, `Load`, ...) call the factories and
//   abort with the factory's message on failure. They are for C++ code whose types
//   are known to be right by construction (the operator library, tests).
//
// Integer division: `Div`/`Mod` truncate toward zero as in C; `FloorDiv`/`FloorMod`
// round toward negative infinity (floormod has the divisor's sign). Index
// arithmetic produced by tessel uses the floor forms, which stay affine-friendly.
#ifndef TESSEL_IR_EXPR_H_
#define TESSEL_IR_EXPR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/dtype.h"
#include "ir/node.h"

namespace tessel::ir {

class BufferNode;
using Buffer = Ref<const BufferNode>;

class ExprNode : public Node {
 public:
  DataType dtype;
  static bool classof(NodeKind k) { return k >= kFirstExpr && k <= kLastExpr; }

 protected:
  ExprNode(NodeKind kind, DataType t) : Node(kind), dtype(t) {}
};
using Expr = Ref<const ExprNode>;

// A variable. Identity is the object: two Vars with the same name are different
// variables. Structural equality relates them by where they are bound.
class VarNode : public ExprNode {
 public:
  std::string name;
  VarNode(std::string n, DataType t) : ExprNode(NodeKind::kVar, t), name(std::move(n)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kVar; }
};
using Var = Ref<const VarNode>;

class IntImmNode : public ExprNode {
 public:
  int64_t value;  // u64 values are stored by their bit pattern.
  IntImmNode(DataType t, int64_t v) : ExprNode(NodeKind::kIntImm, t), value(v) {}
  static bool classof(NodeKind k) { return k == NodeKind::kIntImm; }
};

class FloatImmNode : public ExprNode {
 public:
  double value;  // Exactly representable in the dtype (f16/bf16/f32 are rounded at creation).
  FloatImmNode(DataType t, double v) : ExprNode(NodeKind::kFloatImm, t), value(v) {}
  static bool classof(NodeKind k) { return k == NodeKind::kFloatImm; }
};

// Every two-operand expression: arithmetic, comparison, and/or. `kind()` says which.
class BinaryNode : public ExprNode {
 public:
  Expr a, b;
  BinaryNode(NodeKind k, DataType t, Expr x, Expr y)
      : ExprNode(k, t), a(std::move(x)), b(std::move(y)) {}
  static bool classof(NodeKind k) { return k >= kFirstBinary && k <= kLastBinary; }
};

class NotNode : public ExprNode {
 public:
  Expr a;
  NotNode(DataType t, Expr x) : ExprNode(NodeKind::kNot, t), a(std::move(x)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kNot; }
};

// Both arms are evaluated; the condition picks one (lane by lane for vectors).
class SelectNode : public ExprNode {
 public:
  Expr condition, true_value, false_value;
  SelectNode(DataType t, Expr c, Expr tv, Expr fv)
      : ExprNode(NodeKind::kSelect, t),
        condition(std::move(c)),
        true_value(std::move(tv)),
        false_value(std::move(fv)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kSelect; }
};

class CastNode : public ExprNode {
 public:
  Expr value;
  CastNode(DataType t, Expr v) : ExprNode(NodeKind::kCast, t), value(std::move(v)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kCast; }
};

// buffer[indices]. With a vector index (a Ramp), the load yields a vector.
class BufferLoadNode : public ExprNode {
 public:
  Buffer buffer;
  std::vector<Expr> indices;
  BufferLoadNode(DataType t, Buffer b, std::vector<Expr> idx);
  BufferLoadNode(const BufferLoadNode& other);
  ~BufferLoadNode() override;
  static bool classof(NodeKind k) { return k == NodeKind::kBufferLoad; }
};

// The vector [base, base + stride, ..., base + (lanes-1) * stride].
class RampNode : public ExprNode {
 public:
  Expr base, stride;
  int lanes;
  RampNode(DataType t, Expr b, Expr s, int l)
      : ExprNode(NodeKind::kRamp, t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  static bool classof(NodeKind k) { return k == NodeKind::kRamp; }
};

// The vector [value, value, ..., value].
class BroadcastNode : public ExprNode {
 public:
  Expr value;
  int lanes;
  BroadcastNode(DataType t, Expr v, int l)
      : ExprNode(NodeKind::kBroadcast, t), value(std::move(v)), lanes(l) {}
  static bool classof(NodeKind k) { return k == NodeKind::kBroadcast; }
};

// A call of a math intrinsic (see ir/intrinsics.h), of an external C symbol, of an
// external symbol through the packed convention, or the address of a buffer element.
//
//   exp(x)                                  kIntrinsic: pure math, float operands
//   @my_fn(x, 3): f32                       kExtern: `float my_fn(float, int32_t)`
//   @tessel_blas_sgemm(address_of(A[0, 0]), 64, ...): packed
//                                           kPacked: `int32_t f(const int64_t* args,
//                                           int32_t num_args)`, each argument in one i64
//                                           slot (integers sign-extended, floats by their
//                                           bits, addresses as integers); it returns 0 or
//                                           non-zero after tessel_set_last_error. Only as
//                                           a statement (Evaluate); result dtype i32.
//   address_of(A[i, j])                     kAddressOf: a handle to that element, as an
//                                           argument of a packed call only; the callee
//                                           may read and write all of A.
//   sync_threads()                          kSyncThreads: a barrier of the threads of a
//                                           GPU block (CUDA's __syncthreads), as a
//                                           statement (Evaluate) of its own; result i32.
//                                           Every thread of the block must reach it.
//   thread_sum_x(v)                         kThreadReduce: v combined (thread_sum_x,
//                                           thread_prod_x, thread_max_x, thread_min_x)
//                                           over the threads of the block that differ
//                                           only in threadIdx.x; each gets the result.
//                                           A collective: the whole value of a store,
//                                           reached by every thread of the block.
//   mma_m16n8k16(a, b, c)                   kWarpMma: a tensor-core product of a warp,
//                                           D[16, 8] = C + A[16, 16] * B[16, 8] (f16
//                                           inputs, f32 accumulators), each of its 32
//                                           lanes holding a fragment: a f16x8 of A, b
//                                           f16x4 of B, c and the result f32x4 of C and
//                                           D in PTX's mma.m16n8k16 layout (lane = the
//                                           linear thread id % 32, g = lane / 4,
//                                           t = lane % 4): a[r] = A[g + 8 * (r / 2 % 2),
//                                           2t + r % 2 + 8 * (r / 4)], b[r] = B[2t + r % 2
//                                           + 8 * (r / 2), g], c[r] = C[g + 8 * (r / 2),
//                                           2t + r % 2]. A collective like thread_sum_x:
//                                           the whole value of a store, reached by every
//                                           thread of the block, in whole warps.
//
// Packed calls are how library dispatch calls its runtime shims (dispatch/runtime/):
// one calling convention for every shim, so codegen packs arguments the same way for
// all of them and the interpreter runs them through ir/packed_functions.h.
class CallNode : public ExprNode {
 public:
  enum class Callee : uint8_t {
    kIntrinsic,
    kExtern,
    kPacked,
    kAddressOf,
    kSyncThreads,
    kThreadReduce,
    kWarpMma
  };
  Callee callee;
  std::string name;
  std::vector<Expr> args;
  CallNode(DataType t, Callee c, std::string n, std::vector<Expr> a)
      : ExprNode(NodeKind::kCall, t), callee(c), name(std::move(n)), args(std::move(a)) {}
  static bool classof(NodeKind k) { return k == NodeKind::kCall; }
};

// ---- Checked factories -------------------------------------------------------------

Var MakeVar(std::string name, DataType dtype);
// Refuses values that the dtype cannot hold (e.g. 300 as u8, true as i32).
absl::StatusOr<Expr> MakeIntImm(DataType dtype, int64_t value);
// Rounds to the dtype's precision (f16, bf16, f32); refuses non-float dtypes.
absl::StatusOr<Expr> MakeFloatImm(DataType dtype, double value);
// `kind` is any of kAdd..kOr.
absl::StatusOr<Expr> MakeBinary(NodeKind kind, Expr a, Expr b);
absl::StatusOr<Expr> MakeNot(Expr a);
absl::StatusOr<Expr> MakeSelect(Expr condition, Expr true_value, Expr false_value);
absl::StatusOr<Expr> MakeCast(DataType dtype, Expr value);
absl::StatusOr<Expr> MakeBufferLoad(Buffer buffer, std::vector<Expr> indices);
absl::StatusOr<Expr> MakeRamp(Expr base, Expr stride, int lanes);
absl::StatusOr<Expr> MakeBroadcast(Expr value, int lanes);
// Intrinsics are checked against ir/intrinsics.h (name, arity, float operands);
// a packed call returns i32 and takes scalars and address_of arguments; address_of
// takes one scalar BufferLoad and is a handle.
absl::StatusOr<Expr> MakeCall(DataType dtype, CallNode::Callee callee, std::string name,
                              std::vector<Expr> args);
// The combiner of a thread reduction's name ("thread_sum_x" -> kAdd, then kMul,
// kMax, kMin); nullopt for any other name.
std::optional<NodeKind> ThreadReduceCombiner(absl::string_view name);
// The one warp matrix product (kWarpMma): m16n8k16, f16 x f16 + f32.
inline constexpr char kMmaM16N8K16[] = "mma_m16n8k16";

// ---- Short builders (abort on misuse; for C++ code only) --------------------------

Expr IntImm32(int64_t v);
Expr IntImm(DataType dtype, int64_t v);
Expr FloatImm(DataType dtype, double v);
Expr AddressOf(Buffer buffer);  // address_of(buffer[0, ..., 0])
Expr Bool(bool v);
Expr Add(Expr a, Expr b);
Expr Sub(Expr a, Expr b);
Expr Mul(Expr a, Expr b);
Expr Div(Expr a, Expr b);
Expr Mod(Expr a, Expr b);
Expr FloorDiv(Expr a, Expr b);
Expr FloorMod(Expr a, Expr b);
Expr Min(Expr a, Expr b);
Expr Max(Expr a, Expr b);
Expr EQ(Expr a, Expr b);
Expr NE(Expr a, Expr b);
Expr LT(Expr a, Expr b);
Expr LE(Expr a, Expr b);
Expr GT(Expr a, Expr b);
Expr GE(Expr a, Expr b);
Expr And(Expr a, Expr b);
Expr Or(Expr a, Expr b);
Expr Not(Expr a);
Expr Select(Expr c, Expr t, Expr f);
Expr Cast(DataType t, Expr v);
Expr Load(Buffer buffer, std::vector<Expr> indices);
Expr Ramp(Expr base, Expr stride, int lanes);
Expr Broadcast(Expr value, int lanes);
Expr Intrinsic(std::string name, std::vector<Expr> args);  // dtype of the first arg

// The operator spelling used by the printer and the parser for a binary kind:
// "+", "-", "*", "/", "%", "//", "%%", "min", "max", "==", ..., "&&", "||".
const char* BinaryOpSymbol(NodeKind kind);

// Aborts with `status`'s message if it is not OK; the short builders use it.
template <typename T>
T ValueOrDie(absl::StatusOr<T> v);
[[noreturn]] void DieWithStatus(const absl::Status& status);
template <typename T>
T ValueOrDie(absl::StatusOr<T> v) {
  if (!v.ok()) DieWithStatus(v.status());
  return *std::move(v);
}

}  // namespace tessel::ir

#endif  // TESSEL_IR_EXPR_H_
