// IR expressions -> MLIR values (arith, math, vector, memref).
//
//   C[ramp(i * 16, 1, 16)] = A[ramp(i * 16, 1, 16)] * B[ramp(i * 16, 1, 16)] + 1.0
//     %a = vector.load %A[%i16] : memref<1000xf32>, vector<16xf32>
//     %b = vector.load %B[%i16] : memref<1000xf32>, vector<16xf32>
//     %c = math.fma %a, %b, %one : vector<16xf32>       (a * b + c with FMA available)
//
// Semantics follow the interpreter (ir/interpreter_ops.cc): integers wrap, float
// min/max are minimumf/maximumf, f16/bf16 compute in f32 rounded once per
// operation, float->int casts saturate (NaN -> 0). Where the interpreter reports
// an error at run time (integer division by zero) compiled code divides by 1 so
// that it never traps. Float arithmetic carries the `contract` flag (FMA).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "codegen/mlir_translator.h"
#include "ir/printer.h"
#include "ir/status_macros.h"

namespace tessel::codegen::detail {
namespace {

using ir::DataType;
using ir::NodeKind;

bool Is16BitFloat(DataType t) { return t.is_float() && t.bits() == 16; }

mlir::arith::FastMathFlagsAttr Contract(mlir::MLIRContext* ctx) {
  return mlir::arith::FastMathFlagsAttr::get(ctx, mlir::arith::FastMathFlags::contract);
}

mlir::arith::CmpIPredicate IntPredicate(NodeKind k, bool is_signed) {
  using P = mlir::arith::CmpIPredicate;
  switch (k) {
    case NodeKind::kEQ: return P::eq;
    case NodeKind::kNE: return P::ne;
    case NodeKind::kLT: return is_signed ? P::slt : P::ult;
    case NodeKind::kLE: return is_signed ? P::sle : P::ule;
    case NodeKind::kGT: return is_signed ? P::sgt : P::ugt;
    default: return is_signed ? P::sge : P::uge;
  }
}

// Ordered comparisons except !=, which is true for NaN as in C.
mlir::arith::CmpFPredicate FloatPredicate(NodeKind k) {
  using P = mlir::arith::CmpFPredicate;
  switch (k) {
    case NodeKind::kEQ: return P::OEQ;
    case NodeKind::kNE: return P::UNE;
    case NodeKind::kLT: return P::OLT;
    case NodeKind::kLE: return P::OLE;
    case NodeKind::kGT: return P::OGT;
    default: return P::OGE;
  }
}

bool IsComparison(NodeKind k) { return k >= NodeKind::kEQ && k <= NodeKind::kGE; }

}  // namespace

absl::Status FuncTranslator::Error(const ir::Node* where, const std::string& message) const {
  std::string at;
  if (const auto* e = ir::dyn_cast<ir::ExprNode>(where)) {
    at = absl::StrCat(" in: ", ir::PrintExpr(ir::GetRef(e)));
  } else if (const auto* s = ir::dyn_cast<ir::StmtNode>(where)) {
    std::string text = ir::PrintStmt(ir::GetRef(s));
    if (text.size() > 400) text = text.substr(0, 400) + " ...";
    at = absl::StrCat(" in:\n", text);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("codegen: function '", func_name_, "': ", message, at));
}

mlir::Type FuncTranslator::ScalarType(DataType t) {
  switch (t.code()) {
    case DataType::Code::kInt:
    case DataType::Code::kUInt: return b_.getIntegerType(t.bits());
    case DataType::Code::kFloat:
      if (t.bits() == 16) return b_.getF16Type();
      if (t.bits() == 32) return b_.getF32Type();
      return b_.getF64Type();
    case DataType::Code::kBFloat: return b_.getBF16Type();
    case DataType::Code::kBool: return b_.getI1Type();
    case DataType::Code::kHandle: return mlir::LLVM::LLVMPointerType::get(b_.getContext());
  }
  return b_.getI1Type();
}

mlir::Type FuncTranslator::ValueType(DataType t) {
  mlir::Type s = ScalarType(t);
  return t.lanes() > 1 ? mlir::Type(mlir::VectorType::get({t.lanes()}, s)) : s;
}

mlir::Type FuncTranslator::StorageType(DataType t) {
  return t.is_bool() ? b_.getI8Type() : ScalarType(t);
}

mlir::MemRefType FuncTranslator::MemRefTypeOf(const ir::Buffer& buffer) {
  int64_t size = 1;
  for (const ir::Expr& e : buffer->shape) {
    const auto* imm = ir::dyn_cast<ir::IntImmNode>(e);
    if (imm == nullptr || imm->value < 0 || size > (int64_t{1} << 40)) {
      size = mlir::ShapedType::kDynamic;
      break;
    }
    size *= imm->value;
  }
  if (size != mlir::ShapedType::kDynamic && !buffer->strides.empty()) size = mlir::ShapedType::kDynamic;
  return mlir::MemRefType::get({size}, StorageType(buffer->dtype));
}

mlir::Value FuncTranslator::IndexValue(mlir::Value v) {
  if (v.getType().isIndex()) return v;
  return b_.create<mlir::arith::IndexCastOp>(loc_, b_.getIndexType(), v);
}

mlir::Value FuncTranslator::IntConst(mlir::Type t, int64_t v) {
  auto vt = mlir::dyn_cast<mlir::VectorType>(t);
  mlir::Type et = vt ? vt.getElementType() : t;
  mlir::TypedAttr attr = et.isIndex() ? mlir::TypedAttr(b_.getIndexAttr(v))
                                      : mlir::TypedAttr(b_.getIntegerAttr(et, v));
  if (vt) attr = mlir::DenseElementsAttr::get(vt, attr);
  return b_.create<mlir::arith::ConstantOp>(loc_, attr);
}

namespace {

// Value helpers bound to one translator.
struct Ops {
  FuncTranslator& t;
  mlir::OpBuilder& b;
  mlir::Location loc;

  mlir::Type F32Like(mlir::Type type) {
    auto vt = mlir::dyn_cast<mlir::VectorType>(type);
    return vt ? mlir::Type(mlir::VectorType::get(vt.getShape(), b.getF32Type())) : b.getF32Type();
  }
  // f16/bf16 -> f32 for computing; back afterwards.
  mlir::Value Widen(mlir::Value v, DataType dt) {
    if (!Is16BitFloat(dt)) return v;
    return b.create<mlir::arith::ExtFOp>(loc, F32Like(v.getType()), v);
  }
  mlir::Value Narrow(mlir::Value v, DataType dt) {
    if (!Is16BitFloat(dt)) return v;
    return b.create<mlir::arith::TruncFOp>(loc, t.ValueType(dt), v);
  }
  mlir::Value FloatConst(mlir::Type type, double v) {
    auto vt = mlir::dyn_cast<mlir::VectorType>(type);
    mlir::Type et = vt ? vt.getElementType() : type;
    mlir::TypedAttr attr = b.getFloatAttr(et, v);
    if (vt) attr = mlir::DenseElementsAttr::get(vt, attr);
    return b.create<mlir::arith::ConstantOp>(loc, attr);
  }
  mlir::Value Select(mlir::Value c, mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::SelectOp>(loc, c, x, y);
  }
  mlir::Value CmpI(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::CmpIOp>(loc, p, x, y);
  }
};

}  // namespace

// Division and remainder of integers. A divisor that is not a known non-zero
// constant other than -1 is replaced by 1 where it is 0 (the interpreter's error
// case; x86 would trap) or where the quotient overflows (MIN / -1, which wraps to
// MIN as in the interpreter: MIN / 1 == MIN, MIN % 1 == 0).
static mlir::Value IntDivision(Ops& o, NodeKind k, bool is_signed, int bits, mlir::Value a,
                               mlir::Value d, bool divisor_safe) {
  using P = mlir::arith::CmpIPredicate;
  mlir::Type type = a.getType();
  if (!divisor_safe) {
    mlir::Value zero = o.t.IntConst(type, 0), one = o.t.IntConst(type, 1);
    mlir::Value bad = o.CmpI(P::eq, d, zero);
    if (is_signed) {
      mlir::Value min = o.t.IntConst(type, bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)));
      mlir::Value overflow = o.b.create<mlir::arith::AndIOp>(
          o.loc, o.CmpI(P::eq, d, o.t.IntConst(type, -1)), o.CmpI(P::eq, a, min));
      bad = o.b.create<mlir::arith::OrIOp>(o.loc, bad, overflow);
    }
    d = o.Select(bad, one, d);
  }
  mlir::OpBuilder& b = o.b;
  if (!is_signed) {
    if (k == NodeKind::kDiv || k == NodeKind::kFloorDiv) return b.create<mlir::arith::DivUIOp>(o.loc, a, d);
    return b.create<mlir::arith::RemUIOp>(o.loc, a, d);
  }
  switch (k) {
    case NodeKind::kDiv: return b.create<mlir::arith::DivSIOp>(o.loc, a, d);
    case NodeKind::kMod: return b.create<mlir::arith::RemSIOp>(o.loc, a, d);
    case NodeKind::kFloorDiv: return b.create<mlir::arith::FloorDivSIOp>(o.loc, a, d);
    default: {
      // floormod: the remainder moved to the divisor's sign.
      mlir::Value m = b.create<mlir::arith::RemSIOp>(o.loc, a, d);
      mlir::Value zero = o.t.IntConst(type, 0);
      mlir::Value nonzero = o.CmpI(P::ne, m, zero);
      mlir::Value signs_differ =
          o.CmpI(P::ne, o.CmpI(P::slt, m, zero), o.CmpI(P::slt, d, zero));
      mlir::Value adjust = b.create<mlir::arith::AndIOp>(o.loc, nonzero, signs_differ);
      return o.Select(adjust, b.create<mlir::arith::AddIOp>(o.loc, m, d), m);
    }
  }
}

static bool IsSafeDivisor(const ir::Expr& e) {
  const auto* imm = ir::dyn_cast<ir::IntImmNode>(e);
  return imm != nullptr && imm->value != 0 && imm->value != -1;
}

static absl::StatusOr<mlir::Value> Binary(FuncTranslator& t, const ir::BinaryNode* op) {
  Ops o{t, t.b_, t.loc_};
  mlir::OpBuilder& b = t.b_;
  DataType dt = op->a->dtype;
  NodeKind k = op->kind();
  // a * b + c (either side) becomes one fused multiply-add when the CPU has FMA.
  if (k == NodeKind::kAdd && dt.is_float() && !Is16BitFloat(dt) && t.target_.HasFeature("fma")) {
    for (int side = 0; side < 2; ++side) {
      const auto* mul = ir::dyn_cast<ir::BinaryNode>(side == 0 ? op->a : op->b);
      if (mul == nullptr || mul->kind() != NodeKind::kMul) continue;
      TESSEL_ASSIGN_OR_RETURN(mlir::Value x, t.Expr(mul->a));
      TESSEL_ASSIGN_OR_RETURN(mlir::Value y, t.Expr(mul->b));
      TESSEL_ASSIGN_OR_RETURN(mlir::Value z, t.Expr(side == 0 ? op->b : op->a));
      return mlir::Value(b.create<mlir::math::FmaOp>(t.loc_, x, y, z, Contract(b.getContext())));
    }
  }
  TESSEL_ASSIGN_OR_RETURN(mlir::Value a, t.Expr(op->a));
  TESSEL_ASSIGN_OR_RETURN(mlir::Value c, t.Expr(op->b));
  if (dt.is_float()) {
    a = o.Widen(a, dt);
    c = o.Widen(c, dt);
    if (IsComparison(k)) return mlir::Value(b.create<mlir::arith::CmpFOp>(t.loc_, FloatPredicate(k), a, c));
    auto fm = Contract(b.getContext());
    mlir::Value r;
    switch (k) {
      case NodeKind::kAdd: r = b.create<mlir::arith::AddFOp>(t.loc_, a, c, fm); break;
      case NodeKind::kSub: r = b.create<mlir::arith::SubFOp>(t.loc_, a, c, fm); break;
      case NodeKind::kMul: r = b.create<mlir::arith::MulFOp>(t.loc_, a, c, fm); break;
      case NodeKind::kDiv: r = b.create<mlir::arith::DivFOp>(t.loc_, a, c, fm); break;
      case NodeKind::kMod: r = b.create<mlir::arith::RemFOp>(t.loc_, a, c, fm); break;
      case NodeKind::kMin: r = b.create<mlir::arith::MinimumFOp>(t.loc_, a, c); break;
      case NodeKind::kMax: r = b.create<mlir::arith::MaximumFOp>(t.loc_, a, c); break;
      case NodeKind::kFloorDiv:
      case NodeKind::kFloorMod: {
        mlir::Value q = b.create<mlir::math::FloorOp>(
            t.loc_, b.create<mlir::arith::DivFOp>(t.loc_, a, c, fm));
        r = k == NodeKind::kFloorDiv
                ? q
                : mlir::Value(b.create<mlir::arith::SubFOp>(
                      t.loc_, a, b.create<mlir::arith::MulFOp>(t.loc_, c, q, fm), fm));
        break;
      }
      default:
        return t.Error(op, absl::StrCat("operator '", ir::BinaryOpSymbol(k), "' on floats"));
    }
    return o.Narrow(r, dt);
  }
  // Integers and bools.
  bool is_signed = dt.is_int();
  if (IsComparison(k)) return o.CmpI(IntPredicate(k, is_signed), a, c);
  switch (k) {
    case NodeKind::kAdd: return mlir::Value(b.create<mlir::arith::AddIOp>(t.loc_, a, c));
    case NodeKind::kSub: return mlir::Value(b.create<mlir::arith::SubIOp>(t.loc_, a, c));
    case NodeKind::kMul: return mlir::Value(b.create<mlir::arith::MulIOp>(t.loc_, a, c));
    case NodeKind::kAnd: return mlir::Value(b.create<mlir::arith::AndIOp>(t.loc_, a, c));
    case NodeKind::kOr: return mlir::Value(b.create<mlir::arith::OrIOp>(t.loc_, a, c));
    case NodeKind::kMin:
      return is_signed ? mlir::Value(b.create<mlir::arith::MinSIOp>(t.loc_, a, c))
                       : mlir::Value(b.create<mlir::arith::MinUIOp>(t.loc_, a, c));
    case NodeKind::kMax:
      return is_signed ? mlir::Value(b.create<mlir::arith::MaxSIOp>(t.loc_, a, c))
                       : mlir::Value(b.create<mlir::arith::MaxUIOp>(t.loc_, a, c));
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
      return IntDivision(o, k, is_signed, dt.bits(), a, c, IsSafeDivisor(op->b));
    default:
      return t.Error(op, absl::StrCat("operator '", ir::BinaryOpSymbol(k), "' on ", dt.ToString()));
  }
}

// Float -> integer, saturating with NaN -> 0 like the interpreter (fptosi alone
// is poison out of range; select does not propagate the unselected poison).
static mlir::Value FloatToInt(Ops& o, mlir::Value v, DataType to) {
  using P = mlir::arith::CmpFPredicate;
  mlir::Type it = o.t.ValueType(to);
  mlir::Type ft = v.getType();
  int bits = to.bits();
  auto cmp = [&](P p, mlir::Value x, mlir::Value y) -> mlir::Value {
    return o.b.create<mlir::arith::CmpFOp>(o.loc, p, x, y);
  };
  if (to.is_uint()) {
    mlir::Value r = o.b.create<mlir::arith::FPToUIOp>(o.loc, it, v);
    mlir::Value hi = o.FloatConst(ft, std::ldexp(1.0, bits));
    r = o.Select(cmp(P::OGE, v, hi), o.t.IntConst(it, -1), r);
    return o.Select(cmp(P::ULE, v, o.FloatConst(ft, 0.0)), o.t.IntConst(it, 0), r);
  }
  mlir::Value r = o.b.create<mlir::arith::FPToSIOp>(o.loc, it, v);
  double lim = std::ldexp(1.0, bits - 1);
  int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  r = o.Select(cmp(P::OGE, v, o.FloatConst(ft, lim)), o.t.IntConst(it, max), r);
  r = o.Select(cmp(P::OLT, v, o.FloatConst(ft, -lim)), o.t.IntConst(it, -max - 1), r);
  return o.Select(cmp(P::UNO, v, v), o.t.IntConst(it, 0), r);
}

static absl::StatusOr<mlir::Value> Cast(FuncTranslator& t, const ir::CastNode* op) {
  Ops o{t, t.b_, t.loc_};
  mlir::OpBuilder& b = t.b_;
  DataType from = op->value->dtype, to = op->dtype;
  TESSEL_ASSIGN_OR_RETURN(mlir::Value v, t.Expr(op->value));
  mlir::Type rt = t.ValueType(to);
  if (from.element_of() == to.element_of()) return v;
  if (to.is_bool()) {
    if (from.is_float()) {
      v = o.Widen(v, from);
      return mlir::Value(b.create<mlir::arith::CmpFOp>(t.loc_, mlir::arith::CmpFPredicate::UNE, v,
                                                       o.FloatConst(v.getType(), 0.0)));
    }
    return o.CmpI(mlir::arith::CmpIPredicate::ne, v, t.IntConst(v.getType(), 0));
  }
  if (to.is_float()) {
    if (from.is_float()) {
      if (from.bits() == to.bits()) {  // f16 <-> bf16 through f32.
        return o.Narrow(o.Widen(v, from), to);
      }
      if (from.bits() < to.bits()) return mlir::Value(b.create<mlir::arith::ExtFOp>(t.loc_, rt, v));
      if (to.is_bfloat() && from.bits() == 64) {  // No direct lowering of f64 -> bf16: via f32.
        v = b.create<mlir::arith::TruncFOp>(t.loc_, o.F32Like(v.getType()), v);
      }
      return mlir::Value(b.create<mlir::arith::TruncFOp>(t.loc_, rt, v));
    }
    // Integer or bool -> float. bf16 goes through f32.
    mlir::Type via = to.is_bfloat() ? o.F32Like(rt) : rt;
    mlir::Value f = from.is_int() ? mlir::Value(b.create<mlir::arith::SIToFPOp>(t.loc_, via, v))
                                  : mlir::Value(b.create<mlir::arith::UIToFPOp>(t.loc_, via, v));
    return to.is_bfloat() ? mlir::Value(b.create<mlir::arith::TruncFOp>(t.loc_, rt, f)) : f;
  }
  // To an integer.
  if (from.is_float()) return FloatToInt(o, o.Widen(v, from), to);
  int fb = from.bits(), tb = to.bits();
  if (fb == tb) return v;
  if (fb > tb) return mlir::Value(b.create<mlir::arith::TruncIOp>(t.loc_, rt, v));
  if (from.is_int()) return mlir::Value(b.create<mlir::arith::ExtSIOp>(t.loc_, rt, v));
  return mlir::Value(b.create<mlir::arith::ExtUIOp>(t.loc_, rt, v));
}

// A call of a libm function, lane by lane for vectors (f64 tanh and erf, which
// MLIR neither approximates nor maps to an LLVM intrinsic).
static mlir::Value LibmCall(FuncTranslator& t, const std::string& name, mlir::Value v) {
  mlir::OpBuilder& b = t.b_;
  mlir::Type f64 = b.getF64Type();
  if (!t.module_.lookupSymbol<mlir::func::FuncOp>(name)) {
    mlir::OpBuilder mb(t.module_.getBodyRegion());
    auto decl = mb.create<mlir::func::FuncOp>(t.loc_, name, b.getFunctionType({f64}, {f64}));
    decl.setPrivate();
  }
  auto vt = mlir::dyn_cast<mlir::VectorType>(v.getType());
  if (!vt) return b.create<mlir::func::CallOp>(t.loc_, name, mlir::TypeRange{f64}, v).getResult(0);
  mlir::Value out = v;
  for (int64_t l = 0; l < vt.getNumElements(); ++l) {
    mlir::Value x = b.create<mlir::vector::ExtractOp>(t.loc_, v, l);
    mlir::Value y = b.create<mlir::func::CallOp>(t.loc_, name, mlir::TypeRange{f64}, x).getResult(0);
    out = b.create<mlir::vector::InsertOp>(t.loc_, y, out, l);
  }
  return out;
}

static absl::StatusOr<mlir::Value> ExternCall(FuncTranslator& t, const ir::CallNode* op) {
  mlir::OpBuilder& b = t.b_;
  std::vector<mlir::Value> args;
  std::vector<mlir::Type> types;
  for (const ir::Expr& a : op->args) {
    if (a->dtype.is_vector()) {
      return t.Error(op, absl::StrCat("extern call '", op->name,
                                      "': vector arguments are not supported (pass scalars)"));
    }
    TESSEL_ASSIGN_OR_RETURN(mlir::Value v, t.Expr(a));
    args.push_back(v);
    types.push_back(v.getType());
  }
  if (op->dtype.is_vector()) {
    return t.Error(op, absl::StrCat("extern call '", op->name, "': a vector result is not supported"));
  }
  std::vector<mlir::Type> results;
  if (!op->dtype.is_void()) results.push_back(t.ValueType(op->dtype));
  mlir::FunctionType ft = b.getFunctionType(types, results);
  if (auto existing = t.module_.lookupSymbol<mlir::func::FuncOp>(op->name)) {
    if (existing.getFunctionType() != ft) {
      return t.Error(op, absl::StrCat("extern symbol '", op->name,
                                      "' is called with two different signatures in one module"));
    }
  } else {
    mlir::OpBuilder mb(t.module_.getBodyRegion());
    auto decl = mb.create<mlir::func::FuncOp>(t.loc_, op->name, ft);
    decl.setPrivate();
  }
  auto call = b.create<mlir::func::CallOp>(t.loc_, op->name, results, args);
  if (results.empty()) return mlir::Value();
  return call.getResult(0);
}

// A packed call (ir/expr.h): every argument in one i64 slot of an array on the
// stack, `int32_t sym(const int64_t* args, int32_t n)`, and a non-zero result
// recorded in the status word (the first failure wins), as a parallel body's is.
static absl::StatusOr<mlir::Value> PackedCall(FuncTranslator& t, const ir::CallNode* op) {
  mlir::OpBuilder& b = t.b_;
  mlir::Type i64 = b.getI64Type(), i32 = b.getI32Type();
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(b.getContext());
  mlir::Value array;
  {
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(t.entry_);
    int64_t n = std::max<int64_t>(static_cast<int64_t>(op->args.size()), 1);
    mlir::Value count = b.create<mlir::LLVM::ConstantOp>(t.loc_, i64, b.getI64IntegerAttr(n));
    array = b.create<mlir::LLVM::AllocaOp>(t.loc_, ptr, i64, count, 8);
  }
  for (size_t i = 0; i < op->args.size(); ++i) {
    const ir::Expr& a = op->args[i];
    mlir::Value slot;
    const auto* addr = ir::dyn_cast<ir::CallNode>(a);
    if (addr != nullptr && addr->callee == ir::CallNode::Callee::kAddressOf) {
      TESSEL_ASSIGN_OR_RETURN(slot, t.ElementAddress(addr));
    } else {
      TESSEL_ASSIGN_OR_RETURN(mlir::Value v, t.Expr(a));
      mlir::Type type = v.getType();
      if (auto ft = mlir::dyn_cast<mlir::FloatType>(type)) {
        v = b.create<mlir::arith::BitcastOp>(t.loc_, b.getIntegerType(ft.getWidth()), v);
      }
      unsigned bits = v.getType().getIntOrFloatBitWidth();
      bool sign_extend = a->dtype.is_int() && bits < 64;
      if (bits == 64) {
        slot = v;
      } else if (sign_extend) {
        slot = b.create<mlir::arith::ExtSIOp>(t.loc_, i64, v);
      } else {
        slot = b.create<mlir::arith::ExtUIOp>(t.loc_, i64, v);
      }
    }
    mlir::Value p = b.create<mlir::LLVM::GEPOp>(
        t.loc_, ptr, i64, array, llvm::ArrayRef<mlir::LLVM::GEPArg>{static_cast<int32_t>(i)});
    b.create<mlir::LLVM::StoreOp>(t.loc_, slot, p);
  }
  mlir::func::FuncOp callee = t.DeclareExternal(op->name, b.getFunctionType({ptr, i32}, {i32}));
  if (callee.getFunctionType() != b.getFunctionType({ptr, i32}, {i32})) {
    return t.Error(op, absl::StrCat("extern symbol '", op->name,
                                    "' is called both packed and with a plain signature"));
  }
  mlir::Value n = t.IntConst(i32, static_cast<int64_t>(op->args.size()));
  mlir::Value rc =
      b.create<mlir::func::CallOp>(t.loc_, callee, mlir::ValueRange{array, n}).getResult(0);
  mlir::Value before = t.LoadStatus();
  mlir::Value clean = b.create<mlir::arith::CmpIOp>(t.loc_, mlir::arith::CmpIPredicate::eq, before,
                                                    t.IntConst(i32, 0));
  b.create<mlir::LLVM::StoreOp>(t.loc_, b.create<mlir::arith::SelectOp>(t.loc_, clean, rc, before),
                                t.status_);
  return rc;
}

static absl::StatusOr<mlir::Value> Intrinsic(FuncTranslator& t, const ir::CallNode* op) {
  Ops o{t, t.b_, t.loc_};
  mlir::OpBuilder& b = t.b_;
  DataType dt = op->dtype;
  std::vector<mlir::Value> args;
  for (const ir::Expr& a : op->args) {
    TESSEL_ASSIGN_OR_RETURN(mlir::Value v, t.Expr(a));
    args.push_back(dt.is_float() ? o.Widen(v, dt) : v);
  }
  const std::string& n = op->name;
  mlir::Location loc = t.loc_;
  auto fm = mlir::arith::FastMathFlagsAttr::get(b.getContext(), mlir::arith::FastMathFlags::contract);
  if (n == "fabs" && !dt.is_float()) {
    if (dt.is_uint()) return args[0];
    return mlir::Value(b.create<mlir::math::AbsIOp>(loc, args[0]));
  }
  mlir::Value x = args[0], r;
  bool f64 = dt.is_float() && dt.bits() == 64;
  if (n == "exp") r = b.create<mlir::math::ExpOp>(loc, x, fm);
  else if (n == "log") r = b.create<mlir::math::LogOp>(loc, x, fm);
  else if (n == "sqrt") r = b.create<mlir::math::SqrtOp>(loc, x, fm);
  else if (n == "rsqrt") r = b.create<mlir::math::RsqrtOp>(loc, x, fm);
  else if (n == "tanh") r = f64 ? LibmCall(t, "tanh", x) : mlir::Value(b.create<mlir::math::TanhOp>(loc, x, fm));
  else if (n == "erf") r = f64 ? LibmCall(t, "erf", x) : mlir::Value(b.create<mlir::math::ErfOp>(loc, x, fm));
  else if (n == "fabs") r = b.create<mlir::math::AbsFOp>(loc, x, fm);
  else if (n == "floor") r = b.create<mlir::math::FloorOp>(loc, x, fm);
  else if (n == "ceil") r = b.create<mlir::math::CeilOp>(loc, x, fm);
  else if (n == "pow") r = b.create<mlir::math::PowFOp>(loc, x, args[1], fm);
  else if (n == "fma") r = b.create<mlir::math::FmaOp>(loc, x, args[1], args[2], fm);
  else if (n == "sigmoid") {
    // 1 / (1 + exp(-x)), the interpreter's formula.
    mlir::Value one = o.FloatConst(x.getType(), 1.0);
    mlir::Value e = b.create<mlir::math::ExpOp>(loc, b.create<mlir::arith::NegFOp>(loc, x, fm), fm);
    r = b.create<mlir::arith::DivFOp>(loc, one, b.create<mlir::arith::AddFOp>(loc, one, e, fm), fm);
  } else {
    return t.Error(op, absl::StrCat("intrinsic '", n, "' has no lowering"));
  }
  return o.Narrow(r, dt);
}

absl::StatusOr<mlir::Value> FuncTranslator::Expr(const ir::Expr& e) {
  Ops o{*this, b_, loc_};
  switch (e->kind()) {
    case NodeKind::kVar: {
      const auto* v = ir::cast<ir::VarNode>(e);
      auto it = vars_.find(v);
      if (it == vars_.end()) {
        return Error(v, absl::StrCat("variable '", v->name,
                                     "' has no value here (not a parameter, nor a buffer "
                                     "parameter's extent, nor bound by a loop or let)"));
      }
      return it->second;
    }
    case NodeKind::kIntImm: {
      const auto* imm = ir::cast<ir::IntImmNode>(e);
      return IntConst(ValueType(e->dtype), imm->value);
    }
    case NodeKind::kFloatImm:
      return o.FloatConst(ValueType(e->dtype), ir::cast<ir::FloatImmNode>(e)->value);
    case NodeKind::kNot: {
      TESSEL_ASSIGN_OR_RETURN(mlir::Value a, Expr(ir::cast<ir::NotNode>(e)->a));
      return mlir::Value(b_.create<mlir::arith::XOrIOp>(loc_, a, IntConst(a.getType(), 1)));
    }
    case NodeKind::kSelect: {
      const auto* s = ir::cast<ir::SelectNode>(e);
      TESSEL_ASSIGN_OR_RETURN(mlir::Value c, Expr(s->condition));
      TESSEL_ASSIGN_OR_RETURN(mlir::Value x, Expr(s->true_value));
      TESSEL_ASSIGN_OR_RETURN(mlir::Value y, Expr(s->false_value));
      return o.Select(c, x, y);
    }
    case NodeKind::kCast: return Cast(*this, ir::cast<ir::CastNode>(e));
    case NodeKind::kBufferLoad: return LoadBuffer(ir::cast<ir::BufferLoadNode>(e));
    case NodeKind::kRamp: {
      const auto* r = ir::cast<ir::RampNode>(e);
      TESSEL_ASSIGN_OR_RETURN(mlir::Value base, Expr(r->base));
      TESSEL_ASSIGN_OR_RETURN(mlir::Value stride, Expr(r->stride));
      auto vt = mlir::VectorType::get({r->lanes}, base.getType());
      std::vector<mlir::Attribute> steps;
      for (int l = 0; l < r->lanes; ++l) steps.push_back(b_.getIntegerAttr(base.getType(), l));
      mlir::Value iota = b_.create<mlir::arith::ConstantOp>(loc_, mlir::DenseElementsAttr::get(vt, steps));
      mlir::Value bs = b_.create<mlir::vector::BroadcastOp>(loc_, vt, stride);
      mlir::Value bb = b_.create<mlir::vector::BroadcastOp>(loc_, vt, base);
      return mlir::Value(b_.create<mlir::arith::AddIOp>(
          loc_, bb, b_.create<mlir::arith::MulIOp>(loc_, iota, bs)));
    }
    case NodeKind::kBroadcast: {
      const auto* br = ir::cast<ir::BroadcastNode>(e);
      TESSEL_ASSIGN_OR_RETURN(mlir::Value v, Expr(br->value));
      return mlir::Value(b_.create<mlir::vector::BroadcastOp>(loc_, ValueType(e->dtype), v));
    }
    case NodeKind::kCall: {
      const auto* c = ir::cast<ir::CallNode>(e);
      if (c->callee == ir::CallNode::Callee::kExtern) return ExternCall(*this, c);
      if (c->callee == ir::CallNode::Callee::kPacked) return PackedCall(*this, c);
      if (c->callee == ir::CallNode::Callee::kAddressOf) {
        return Error(c, "address_of is only an argument of a packed call");
      }
      if (c->callee == ir::CallNode::Callee::kThreadReduce) return ThreadReduce(c);
      if (c->callee == ir::CallNode::Callee::kWarpMma) return WarpMma(c);
      if (c->callee == ir::CallNode::Callee::kSyncThreads) {
        return Error(c, "sync_threads() is a statement of its own (evaluate sync_threads())");
      }
      return Intrinsic(*this, c);
    }
    default:
      if (const auto* bin = ir::dyn_cast<ir::BinaryNode>(e)) return Binary(*this, bin);
      return Error(e.get(), absl::StrCat("unsupported expression ", ir::NodeKindName(e->kind())));
  }
}

}  // namespace tessel::codegen::detail
