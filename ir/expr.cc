#include "ir/expr.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ir/buffer.h"
#include "ir/intrinsics.h"
#include "ir/scalar_value.h"

namespace tessel::ir {

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kVar: return "Var";
    case NodeKind::kIntImm: return "IntImm";
    case NodeKind::kFloatImm: return "FloatImm";
    case NodeKind::kAdd: return "Add";
    case NodeKind::kSub: return "Sub";
    case NodeKind::kMul: return "Mul";
    case NodeKind::kDiv: return "Div";
    case NodeKind::kMod: return "Mod";
    case NodeKind::kFloorDiv: return "FloorDiv";
    case NodeKind::kFloorMod: return "FloorMod";
    case NodeKind::kMin: return "Min";
    case NodeKind::kMax: return "Max";
    case NodeKind::kEQ: return "EQ";
    case NodeKind::kNE: return "NE";
    case NodeKind::kLT: return "LT";
    case NodeKind::kLE: return "LE";
    case NodeKind::kGT: return "GT";
    case NodeKind::kGE: return "GE";
    case NodeKind::kAnd: return "And";
    case NodeKind::kOr: return "Or";
    case NodeKind::kNot: return "Not";
    case NodeKind::kSelect: return "Select";
    case NodeKind::kCast: return "Cast";
    case NodeKind::kBufferLoad: return "BufferLoad";
    case NodeKind::kRamp: return "Ramp";
    case NodeKind::kBroadcast: return "Broadcast";
    case NodeKind::kCall: return "Call";
    case NodeKind::kBufferStore: return "BufferStore";
    case NodeKind::kFor: return "For";
    case NodeKind::kIfThenElse: return "IfThenElse";
    case NodeKind::kLetStmt: return "LetStmt";
    case NodeKind::kSeqStmt: return "SeqStmt";
    case NodeKind::kEvaluate: return "Evaluate";
    case NodeKind::kAllocate: return "Allocate";
    case NodeKind::kDeclBuffer: return "DeclBuffer";
    case NodeKind::kBlock: return "Block";
    case NodeKind::kBlockRealize: return "BlockRealize";
    case NodeKind::kBuffer: return "Buffer";
    case NodeKind::kPrimFunc: return "PrimFunc";
    case NodeKind::kGraphFunc:
      return "GraphFunc";
    case NodeKind::kIRModule: return "IRModule";
  }
  return "?";
}

const char* BinaryOpSymbol(NodeKind kind) {
  switch (kind) {
    case NodeKind::kAdd: return "+";
    case NodeKind::kSub: return "-";
    case NodeKind::kMul: return "*";
    case NodeKind::kDiv: return "/";
    case NodeKind::kMod: return "%";
    case NodeKind::kFloorDiv: return "//";
    case NodeKind::kFloorMod: return "%%";
    case NodeKind::kMin: return "min";
    case NodeKind::kMax: return "max";
    case NodeKind::kEQ: return "==";
    case NodeKind::kNE: return "!=";
    case NodeKind::kLT: return "<";
    case NodeKind::kLE: return "<=";
    case NodeKind::kGT: return ">";
    case NodeKind::kGE: return ">=";
    case NodeKind::kAnd: return "&&";
    case NodeKind::kOr: return "||";
    default: return "?";
  }
}

void DieWithStatus(const absl::Status& status) {
  std::fprintf(stderr, "tessel: fatal: %s\n", std::string(status.message()).c_str());
  std::abort();
}

BufferLoadNode::BufferLoadNode(DataType t, Buffer b, std::vector<Expr> idx)
    : ExprNode(NodeKind::kBufferLoad, t), buffer(std::move(b)), indices(std::move(idx)) {}
BufferLoadNode::BufferLoadNode(const BufferLoadNode& other) = default;
BufferLoadNode::~BufferLoadNode() = default;

namespace {

absl::Status Missing(const char* what, const char* operand) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": operand '", operand, "' is missing"));
}

bool IsIndexType(DataType t) { return t.is_integer() && !t.is_handle(); }

}  // namespace

Var MakeVar(std::string name, DataType dtype) {
  return Var(MakeNode<VarNode>(std::move(name), dtype));
}

absl::StatusOr<Expr> MakeIntImm(DataType dtype, int64_t value) {
  if (!(dtype.is_integer() || dtype.is_bool()) || !dtype.is_scalar()) {
    return absl::InvalidArgumentError(
        absl::StrCat("IntImm: type ", dtype.ToString(), " is not a scalar integer or bool type"));
  }
  bool fits = true;
  if (dtype.is_bool()) {
    fits = value == 0 || value == 1;
  } else if (dtype.bits() < 64) {
    if (dtype.is_int()) {
      int64_t lo = -(int64_t{1} << (dtype.bits() - 1)), hi = (int64_t{1} << (dtype.bits() - 1)) - 1;
      fits = value >= lo && value <= hi;
    } else {
      fits = value >= 0 && value < (int64_t{1} << dtype.bits());
    }
  }
  if (!fits) {
    return absl::InvalidArgumentError(
        absl::StrCat("IntImm: value ", value, " does not fit in type ", dtype.ToString()));
  }
  return Expr(MakeNode<IntImmNode>(dtype, value));
}


absl::StatusOr<Expr> MakeFloatImm(DataType dtype, double value) {
  if (!dtype.is_float() || !dtype.is_scalar()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FloatImm: type ", dtype.ToString(), " is not a scalar float type"));
  }
  // Rounded once, from the exact value (no detour through f32 for f16/bf16).
  double v = std::isnan(value) ? value : RoundToDtype(value, dtype);
  return Expr(MakeNode<FloatImmNode>(dtype, v));
}

absl::StatusOr<Expr> MakeBinary(NodeKind kind, Expr a, Expr b) {
  if (kind < kFirstBinary || kind > kLastBinary) {
    return absl::InvalidArgumentError(absl::StrCat(NodeKindName(kind), " is not a binary operator"));
  }
  const char* name = NodeKindName(kind);
  if (!a) return Missing(name, "a");
  if (!b) return Missing(name, "b");
  if (a->dtype != b->dtype) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": operand types differ (",
                                                   a->dtype.ToString(), " vs ",
                                                   b->dtype.ToString(), ")"));
  }
  DataType t = a->dtype;
  if (t.is_handle() || t.is_void()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": operands of type ", t.ToString(),
                                                   " cannot be combined"));
  }
  if (kind == NodeKind::kAnd || kind == NodeKind::kOr) {
    if (!t.is_bool()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": operands must be bool, not ", t.ToString()));
    }
    return Expr(MakeNode<BinaryNode>(kind, t, std::move(a), std::move(b)));
  }
  if (kind >= NodeKind::kEQ && kind <= NodeKind::kGE) {
    return Expr(MakeNode<BinaryNode>(kind, DataType::Bool(t.lanes()), std::move(a), std::move(b)));
  }
  if (t.is_bool()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": arithmetic on bool operands"));
  }
  if ((kind == NodeKind::kMod) && t.is_float()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": '%' is for integers; use '%%' (floor modulo) for floats"));
  }
  return Expr(MakeNode<BinaryNode>(kind, t, std::move(a), std::move(b)));
}

absl::StatusOr<Expr> MakeNot(Expr a) {
  if (!a) return Missing("Not", "a");
  if (!a->dtype.is_bool()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Not: operand must be bool, not ", a->dtype.ToString()));
  }
  DataType t = a->dtype;
  return Expr(MakeNode<NotNode>(t, std::move(a)));
}

absl::StatusOr<Expr> MakeSelect(Expr c, Expr t, Expr f) {
  if (!c) return Missing("Select", "condition");
  if (!t) return Missing("Select", "true_value");
  if (!f) return Missing("Select", "false_value");
  if (t->dtype != f->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("Select: arm types differ (", t->dtype.ToString(),
                                                   " vs ", f->dtype.ToString(), ")"));
  }
  if (!c->dtype.is_bool() || (c->dtype.lanes() != 1 && c->dtype.lanes() != t->dtype.lanes())) {
    std::string lanes = t->dtype.lanes() == 1 ? "a scalar bool"
                                              : absl::StrCat("bool with 1 or ", t->dtype.lanes(), " lanes");
    return absl::InvalidArgumentError(
        absl::StrCat("Select: condition must be ", lanes, ", not ", c->dtype.ToString()));
  }
  DataType dt = t->dtype;
  return Expr(MakeNode<SelectNode>(dt, std::move(c), std::move(t), std::move(f)));
}

absl::StatusOr<Expr> MakeCast(DataType dtype, Expr value) {
  if (!value) return Missing("Cast", "value");
  if (dtype.lanes() != value->dtype.lanes()) {
    return absl::InvalidArgumentError(absl::StrCat("Cast: cannot cast ", value->dtype.ToString(),
                                                   " to ", dtype.ToString(),
                                                   " (lane counts differ)"));
  }
  if (dtype.is_handle() || dtype.is_void() || value->dtype.is_handle()) {
    return absl::InvalidArgumentError(absl::StrCat("Cast: cannot cast ", value->dtype.ToString(),
                                                   " to ", dtype.ToString()));
  }
  return Expr(MakeNode<CastNode>(dtype, std::move(value)));
}

// Checks indices against a buffer and returns the lane count of the access.
absl::StatusOr<int> CheckBufferIndices(const char* what, const Buffer& buffer,
                                       const std::vector<Expr>& indices) {
  if (!buffer) return Missing(what, "buffer");
  if (static_cast<int>(indices.size()) != buffer->ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": buffer '", buffer->name, "' has rank ",
                                                   buffer->ndim(), " but ", indices.size(),
                                                   " indices were given"));
  }
  int lanes = 1;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i]) return Missing(what, "index");
    DataType t = indices[i]->dtype;
    if (!IsIndexType(t)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": index ", i, " of buffer '",
                                                     buffer->name, "' has type ", t.ToString(),
                                                     ", expected an integer type"));
    }
    if (t.lanes() > 1) {
      if (lanes > 1 && lanes != t.lanes()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": vector indices of buffer '", buffer->name, "' have different lane counts"));
      }
      lanes = t.lanes();
    }
  }
  return lanes;
}

absl::StatusOr<Expr> MakeBufferLoad(Buffer buffer, std::vector<Expr> indices) {
  absl::StatusOr<int> lanes = CheckBufferIndices("BufferLoad", buffer, indices);
  if (!lanes.ok()) return lanes.status();
  DataType t = buffer->dtype.with_lanes(*lanes);
  return Expr(MakeNode<BufferLoadNode>(t, std::move(buffer), std::move(indices)));
}

absl::StatusOr<Expr> MakeRamp(Expr base, Expr stride, int lanes) {
  if (!base) return Missing("Ramp", "base");
  if (!stride) return Missing("Ramp", "stride");
  if (!IsIndexType(base->dtype) || !base->dtype.is_scalar() || base->dtype != stride->dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Ramp: base and stride must be scalar integers of one type, not ", base->dtype.ToString(),
        " and ", stride->dtype.ToString()));
  }
  if (lanes < 2 || lanes > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("Ramp: lanes must be 2..65535, not ", lanes));
  }
  DataType t = base->dtype.with_lanes(lanes);
  return Expr(MakeNode<RampNode>(t, std::move(base), std::move(stride), lanes));
}

absl::StatusOr<Expr> MakeBroadcast(Expr value, int lanes) {
  if (!value) return Missing("Broadcast", "value");
  if (!value->dtype.is_scalar() || value->dtype.is_handle()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Broadcast: value must be a scalar, not ", value->dtype.ToString()));
  }
  if (lanes < 2 || lanes > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("Broadcast: lanes must be 2..65535, not ", lanes));
  }
  DataType t = value->dtype.with_lanes(lanes);
  return Expr(MakeNode<BroadcastNode>(t, std::move(value), lanes));
}

absl::StatusOr<Expr> MakeCall(DataType dtype, CallNode::Callee callee, std::string name,
                              std::vector<Expr> args) {
  for (const Expr& a : args) {
    if (!a) return absl::InvalidArgumentError(absl::StrCat("Call ", name, ": an argument is missing"));
  }
  if (callee == CallNode::Callee::kIntrinsic) {
    const IntrinsicInfo* info = LookupIntrinsic(name);
    if (info == nullptr) {
      std::string known;
      for (const IntrinsicInfo& i : AllIntrinsics()) absl::StrAppend(&known, known.empty() ? "" : ", ", i.name);
      return absl::InvalidArgumentError(
          absl::StrCat("Call: unknown intrinsic '", name, "' (known: ", known, ")"));
    }
    if (static_cast<int>(args.size()) != info->arity) {
      return absl::InvalidArgumentError(absl::StrCat("Call ", name, ": expects ", info->arity,
                                                     " arguments, got ", args.size()));
    }
    for (const Expr& a : args) {
      if (a->dtype != dtype) {
        return absl::InvalidArgumentError(absl::StrCat("Call ", name, ": argument of type ",
                                                       a->dtype.ToString(), " but result type is ",
                                                       dtype.ToString()));
      }
    }
    if (!dtype.is_float() && !(info->allows_integers && dtype.is_integer())) {
      return absl::InvalidArgumentError(
          absl::StrCat("Call ", name, ": operates on floats, not ", dtype.ToString()));
    }
  } else if (callee == CallNode::Callee::kAddressOf) {
    if (args.size() != 1 || args[0]->kind() != NodeKind::kBufferLoad ||
        args[0]->dtype.is_vector()) {
      return absl::InvalidArgumentError(
          "Call address_of: takes one scalar buffer element, e.g. address_of(A[0, 0])");
    }
    if (!dtype.is_handle()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Call address_of: its type is handle, not ", dtype.ToString()));
    }
    name = "address_of";
  } else if (callee == CallNode::Callee::kSyncThreads) {
    if (!args.empty() || dtype != DataType::Int(32)) {
      return absl::InvalidArgumentError("Call sync_threads: takes no arguments and is an i32");
    }
    name = "sync_threads";
  } else if (callee == CallNode::Callee::kThreadReduce) {
    if (!ThreadReduceCombiner(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Call: unknown thread reduction '", name,
                       "' (known: thread_sum_x, thread_prod_x, thread_max_x, thread_min_x)"));
    }
    if (args.size() != 1 || args[0]->dtype != dtype || !dtype.is_scalar() ||
        !(dtype.is_float() || dtype.is_integer())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Call ", name, ": takes one scalar number and has its type, e.g. ", name, "(x)"));
    }
  } else if (callee == CallNode::Callee::kWarpMma) {
    const DataType f16 = DataType::Float(16), f32 = DataType::Float(32);
    if (name != kMmaM16N8K16) {
      return absl::InvalidArgumentError(
          absl::StrCat("Call: unknown warp matrix product '", name, "' (known: mma_m16n8k16)"));
    }
    if (args.size() != 3 || args[0]->dtype != f16.with_lanes(8) ||
        args[1]->dtype != f16.with_lanes(4) || args[2]->dtype != f32.with_lanes(4) ||
        dtype != f32.with_lanes(4)) {
      return absl::InvalidArgumentError(
          "Call mma_m16n8k16: takes a lane's fragments a: f16x8, b: f16x4, c: f32x4 and is an "
          "f32x4, e.g. D[ramp(0, 1, 4)] = mma_m16n8k16(A[ramp(0, 1, 8)], B[ramp(0, 1, 4)], "
          "D[ramp(0, 1, 4)])");
    }
  } else if (name.empty()) {
    return absl::InvalidArgumentError("Call: an extern call needs a symbol name");
  } else if (callee == CallNode::Callee::kPacked) {
    if (dtype != DataType::Int(32)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Call @", name, ": a packed call returns its status as i32, not ", dtype.ToString()));
    }
    for (const Expr& a : args) {
      if (a->dtype.is_vector() || a->dtype.is_void()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Call @", name, ": a packed call takes scalars and address_of(...), not ",
                         a->dtype.ToString()));
      }
    }
  }
  return Expr(MakeNode<CallNode>(dtype, callee, std::move(name), std::move(args)));
}

std::optional<NodeKind> ThreadReduceCombiner(absl::string_view name) {
  if (name == "thread_sum_x") return NodeKind::kAdd;
  if (name == "thread_prod_x") return NodeKind::kMul;
  if (name == "thread_max_x") return NodeKind::kMax;
  if (name == "thread_min_x") return NodeKind::kMin;
  return std::nullopt;
}

// ---- Short builders ------------------------------------------------------------------

Expr IntImm32(int64_t v) { return ValueOrDie(MakeIntImm(DataType::Int(32), v)); }
Expr IntImm(DataType dtype, int64_t v) { return ValueOrDie(MakeIntImm(dtype, v)); }
Expr FloatImm(DataType dtype, double v) { return ValueOrDie(MakeFloatImm(dtype, v)); }
Expr AddressOf(Buffer buffer) {
  std::vector<Expr> zeros(buffer->shape.size(), IntImm32(0));
  Expr element = ValueOrDie(MakeBufferLoad(std::move(buffer), std::move(zeros)));
  return ValueOrDie(
      MakeCall(DataType::Handle(), CallNode::Callee::kAddressOf, "address_of", {element}));
}
Expr Bool(bool v) { return ValueOrDie(MakeIntImm(DataType::Bool(), v ? 1 : 0)); }
Expr Add(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kAdd, std::move(a), std::move(b))); }
Expr Sub(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kSub, std::move(a), std::move(b))); }
Expr Mul(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kMul, std::move(a), std::move(b))); }
Expr Div(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kDiv, std::move(a), std::move(b))); }
Expr Mod(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kMod, std::move(a), std::move(b))); }
Expr FloorDiv(Expr a, Expr b) {
  return ValueOrDie(MakeBinary(NodeKind::kFloorDiv, std::move(a), std::move(b)));
}
Expr FloorMod(Expr a, Expr b) {
  return ValueOrDie(MakeBinary(NodeKind::kFloorMod, std::move(a), std::move(b)));
}
Expr Min(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kMin, std::move(a), std::move(b))); }
Expr Max(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kMax, std::move(a), std::move(b))); }
Expr EQ(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kEQ, std::move(a), std::move(b))); }
Expr NE(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kNE, std::move(a), std::move(b))); }
Expr LT(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kLT, std::move(a), std::move(b))); }
Expr LE(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kLE, std::move(a), std::move(b))); }
Expr GT(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kGT, std::move(a), std::move(b))); }
Expr GE(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kGE, std::move(a), std::move(b))); }
Expr And(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kAnd, std::move(a), std::move(b))); }
Expr Or(Expr a, Expr b) { return ValueOrDie(MakeBinary(NodeKind::kOr, std::move(a), std::move(b))); }
Expr Not(Expr a) { return ValueOrDie(MakeNot(std::move(a))); }
Expr Select(Expr c, Expr t, Expr f) {
  return ValueOrDie(MakeSelect(std::move(c), std::move(t), std::move(f)));
}
Expr Cast(DataType t, Expr v) { return ValueOrDie(MakeCast(t, std::move(v))); }
Expr Load(Buffer buffer, std::vector<Expr> indices) {
  return ValueOrDie(MakeBufferLoad(std::move(buffer), std::move(indices)));
}
Expr Ramp(Expr base, Expr stride, int lanes) {
  return ValueOrDie(MakeRamp(std::move(base), std::move(stride), lanes));
}
Expr Broadcast(Expr value, int lanes) { return ValueOrDie(MakeBroadcast(std::move(value), lanes)); }
Expr Intrinsic(std::string name, std::vector<Expr> args) {
  DataType t = args.empty() || !args[0] ? DataType::Float(32) : args[0]->dtype;
  return ValueOrDie(MakeCall(t, CallNode::Callee::kIntrinsic, std::move(name), std::move(args)));
}

}  // namespace tessel::ir
