// Expressions of the `.tsl` parser, lowest precedence first:
//
//   ||   &&   == != < <= > >= (do not chain)   + -   * / % // %%   ! and -literal
//
// and the primaries: literals (7, 7i64, 3u8, true, 1.5f32, -0.0f64, inf_f32,
// nan_f16), variables, loads A[i, j], calls min(a, b) max select ramp broadcast,
// casts f32(x), intrinsics exp(x), and extern calls @sym(a, b): f32. E.g.
//
//   select(i < n, A[i] * 2.0f32, 0.0f32)   // Select(LT(i, n), Mul(Load, 2.0), 0.0)
//
// Each node is built by its checked factory; its error becomes a parse error at
// the operator or the name that built it.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ir/intrinsics.h"
#include "ir/parser_internal.h"

namespace tessel::ir::tsl {
namespace {

constexpr int kPrecCmp = 3;

// The precedence of a binary operator token, or 0 for anything else.
int OpPrec(const Token& t, NodeKind* kind) {
  if (t.kind != TokKind::kPunct) return 0;
  struct Op {
    const char* text;
    NodeKind kind;
    int prec;
  };
  static constexpr Op kOps[] = {
      {"||", NodeKind::kOr, 1},       {"&&", NodeKind::kAnd, 2},     {"==", NodeKind::kEQ, 3},
      {"!=", NodeKind::kNE, 3},       {"<", NodeKind::kLT, 3},       {"<=", NodeKind::kLE, 3},
      {">", NodeKind::kGT, 3},        {">=", NodeKind::kGE, 3},      {"+", NodeKind::kAdd, 4},
      {"-", NodeKind::kSub, 4},       {"*", NodeKind::kMul, 5},      {"/", NodeKind::kDiv, 5},
      {"%", NodeKind::kMod, 5},       {"//", NodeKind::kFloorDiv, 5}, {"%%", NodeKind::kFloorMod, 5},
  };
  for (const Op& op : kOps) {
    if (t.text == op.text) {
      *kind = op.kind;
      return op.prec;
    }
  }
  return 0;
}

bool IsFloatWord(const Token& t) {
  return t.kind == TokKind::kIdent && t.text.size() > 4 &&
         (t.text.substr(0, 4) == "inf_" || t.text.substr(0, 4) == "nan_") && IsReservedWord(t.text);
}

uint64_t DoubleBits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

double BitsDouble(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Splits a number token into its numeric part and its type suffix.
void SplitNumber(const Token& t, absl::string_view* number, absl::string_view* suffix) {
  absl::string_view s = t.text;
  size_t i = 0;
  auto digits = [&] {
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  };
  digits();
  if (t.kind == TokKind::kFloat) {
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      digits();
    }
  }
  *number = s.substr(0, i);
  *suffix = s.substr(i);
}

}  // namespace

bool ParseDecimalU64(absl::string_view digits, uint64_t* out) {
  if (digits.empty()) return false;
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

absl::StatusOr<Expr> Parser::ParseExpr() { return ParseBinary(1); }

// Leaves the deepest element's depth in expr_depth_.
absl::StatusOr<std::vector<Expr>> Parser::ParseExprList(absl::string_view close) {
  std::vector<Expr> list;
  int deepest = 0;
  expr_depth_ = 0;
  if (Accept(close)) return list;
  while (true) {
    TESSEL_ASSIGN_OR_RETURN(Expr e, ParseExpr());
    deepest = std::max(deepest, expr_depth_);
    expr_depth_ = deepest;
    list.push_back(std::move(e));
    if (Accept(close)) return list;
    if (!Peek().Is(",")) {
      return ErrorAt(Peek(), absl::StrCat("expected ',' or '", close, "' but found ", Describe(Peek())));
    }
    Next();
  }
}

// Precedence climbing: left-associative within a level.
absl::StatusOr<Expr> Parser::ParseBinary(int min_prec) {
  TESSEL_ASSIGN_OR_RETURN(Expr lhs, ParseUnary());
  int lhs_depth = expr_depth_;
  int last = 0;
  while (true) {
    const Token& op = Peek();
    NodeKind kind;
    int prec = OpPrec(op, &kind);
    if (prec == 0 || prec < min_prec) {
      expr_depth_ = lhs_depth;
      return lhs;
    }
    if (prec == kPrecCmp && last == kPrecCmp) {
      return ErrorAt(op, "comparisons do not chain; add parentheses, e.g. (a < b) == c");
    }
    Next();
    absl::StatusOr<Expr> rhs = ParseBinary(prec + 1);
    if (!rhs.ok()) {
      if (op.text != "//") return rhs.status();
      return absl::InvalidArgumentError(absl::StrCat(
          rhs.status().message(), "\nnote: '//' in the middle of a line is floor division; a comment "
                                  "must start its own line"));
    }
    lhs_depth = 1 + std::max(lhs_depth, expr_depth_);
    if (lhs_depth > kMaxChainDepth) {
      return ErrorAt(op, absl::StrCat("expression is deeper than ", kMaxChainDepth, " levels"));
    }
    absl::StatusOr<Expr> e = MakeBinary(kind, std::move(lhs), *std::move(rhs));
    if (!e.ok()) return ErrorAt(op, e.status());
    lhs = *std::move(e);
    last = prec;
  }
}

absl::StatusOr<Expr> Parser::ParseUnary() {
  const Token& t = Peek();
  DepthGuard guard(this);
  if (guard.too_deep()) return TooDeep(t);
  if (t.Is("!")) {
    Next();
    TESSEL_ASSIGN_OR_RETURN(Expr a, ParseUnary());
    absl::StatusOr<Expr> e = MakeNot(std::move(a));
    if (!e.ok()) return ErrorAt(t, e.status());
    ++expr_depth_;
    return *e;
  }
  if (t.Is("-")) {
    Next();
    expr_depth_ = 1;
    const Token& n = Peek();
    if (n.kind == TokKind::kInt || n.kind == TokKind::kFloat) {
      Next();
      return ParseNumber(n, /*negative=*/true);
    }
    if (IsFloatWord(n)) {
      Next();
      return ParseFloatWord(n, /*negative=*/true);
    }
    return ErrorAt(t, "'-' applies only to number literals (the IR has no negation; write 0 - x)");
  }
  return ParsePrimary();
}

absl::StatusOr<Buffer> Parser::LookupBuffer(const Token& name) {
  const Binding* b = Lookup(name.text);
  if (b == nullptr) return ErrorAt(name, absl::StrCat("undefined buffer '", name.text, "'"));
  if (!b->buffer) return ErrorAt(name, absl::StrCat("'", name.text, "' is a variable, not a buffer"));
  return b->buffer;
}

absl::StatusOr<Expr> Parser::ParsePrimary() {
  const Token& t = Peek();
  expr_depth_ = 1;  // Leaves; composite primaries add their operands' depth.
  switch (t.kind) {
    case TokKind::kInt:
    case TokKind::kFloat:
      Next();
      return ParseNumber(t, /*negative=*/false);
    case TokKind::kHexInt:
      return ErrorAt(t, "hexadecimal numbers only appear as NaN payloads, e.g. nan_f32(0x7ff8000000000001)");
    case TokKind::kString:
      return ErrorAt(t, "a string is not an expression");
    case TokKind::kEof:
      return ErrorAt(t, "expected an expression but reached the end of the input");
    case TokKind::kPunct:
      if (t.Is("(")) {
        Next();
        TESSEL_ASSIGN_OR_RETURN(Expr e, ParseExpr());
        TESSEL_RETURN_IF_ERROR(Expect(")"));
        return e;
      }
      if (t.Is("@")) {
        Next();
        TESSEL_ASSIGN_OR_RETURN(std::string name, ParseSymbolName("an extern symbol name"));
        TESSEL_RETURN_IF_ERROR(Expect("("));
        TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> args, ParseExprList(")"));
        ++expr_depth_;
        if (!Peek().Is(":")) {
          return ErrorAt(Peek(), absl::StrCat("an extern call needs its result type, e.g. @", name,
                                              "(...): f32"));
        }
        Next();
        CallNode::Callee callee = CallNode::Callee::kExtern;
        DataType dt = DataType::Int(32);
        if (Peek().Is("packed")) {  // @sym(...): packed -- the packed convention, see expr.h
          Next();
          callee = CallNode::Callee::kPacked;
        } else {
          TESSEL_ASSIGN_OR_RETURN(dt, ParseDType());
        }
        absl::StatusOr<Expr> e = MakeCall(dt, callee, std::move(name), std::move(args));
        if (!e.ok()) return ErrorAt(t, e.status());
        return *e;
      }
      return ErrorAt(t, absl::StrCat("expected an expression but found ", Describe(t)));
    case TokKind::kIdent:
      break;
  }
  if (t.Is("true") || t.Is("false")) {
    Next();
    return Bool(t.Is("true"));
  }
  if (IsFloatWord(t)) {
    Next();
    return ParseFloatWord(t, /*negative=*/false);
  }
  if (Peek(1).Is("(")) {
    Next();
    return ParseCallLike(t);  // Sets expr_depth_ itself.
  }
  if (IsReservedWord(t.text)) {
    std::string hint = t.Is("inf") || t.Is("nan") ? " (float literals carry their type: inf_f32, nan_f64)" : "";
    return ErrorAt(t, absl::StrCat("expected an expression but found '", t.text, "'", hint));
  }
  Next();
  if (Peek().Is("[")) {
    TESSEL_ASSIGN_OR_RETURN(Buffer b, LookupBuffer(t));
    Next();
    TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> indices, ParseExprList("]"));
    ++expr_depth_;
    absl::StatusOr<Expr> e = MakeBufferLoad(std::move(b), std::move(indices));
    if (!e.ok()) return ErrorAt(t, e.status());
    return *e;
  }
  const Binding* b = Lookup(t.text);
  if (b == nullptr) return ErrorAt(t, absl::StrCat("undefined variable '", t.text, "'"));
  if (!b->var) return ErrorAt(t, absl::StrCat("'", t.text, "' is a buffer; load from it with ", t.text, "[...]"));
  return Expr(b->var);
}

// `name(` was seen and `(` is next: min max select ramp broadcast, a cast to a
// type, or an intrinsic.
absl::StatusOr<Expr> Parser::ParseCallLike(const Token& name) {
  Next();  // `(`
  auto lanes_arg = [&]() -> absl::StatusOr<int> {
    const Token& l = Peek();
    uint64_t v = 0;
    if (l.kind != TokKind::kInt || !ParseDecimalU64(l.text, &v) || v > 65535) {
      return ErrorAt(l, "expected a lane count (a plain number 2..65535)");
    }
    Next();
    return static_cast<int>(v);
  };
  absl::string_view n = name.text;
  if (n == "ramp" || n == "broadcast") {
    TESSEL_ASSIGN_OR_RETURN(Expr first, ParseExpr());
    int depth = expr_depth_;
    TESSEL_RETURN_IF_ERROR(Expect(","));
    Expr stride;
    if (n == "ramp") {
      TESSEL_ASSIGN_OR_RETURN(stride, ParseExpr());
      depth = std::max(depth, expr_depth_);
      TESSEL_RETURN_IF_ERROR(Expect(","));
    }
    expr_depth_ = depth + 1;
    TESSEL_ASSIGN_OR_RETURN(int lanes, lanes_arg());
    TESSEL_RETURN_IF_ERROR(Expect(")"));
    absl::StatusOr<Expr> e = n == "ramp" ? MakeRamp(std::move(first), std::move(stride), lanes)
                                         : MakeBroadcast(std::move(first), lanes);
    if (!e.ok()) return ErrorAt(name, e.status());
    return *e;
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<Expr> args, ParseExprList(")"));
  ++expr_depth_;
  auto arity = [&](size_t want) -> absl::Status {
    if (args.size() == want) return absl::OkStatus();
    return ErrorAt(name, absl::StrCat("'", n, "' takes ", want, " argument", want == 1 ? "" : "s",
                                      ", not ", args.size()));
  };
  absl::StatusOr<Expr> e;
  if (n == "min" || n == "max") {
    TESSEL_RETURN_IF_ERROR(arity(2));
    e = MakeBinary(n == "min" ? NodeKind::kMin : NodeKind::kMax, args[0], args[1]);
  } else if (n == "select") {
    TESSEL_RETURN_IF_ERROR(arity(3));
    e = MakeSelect(args[0], args[1], args[2]);
  } else if (absl::StatusOr<DataType> dt = DataType::Parse(n); dt.ok()) {
    TESSEL_RETURN_IF_ERROR(arity(1));
    e = MakeCast(*dt, args[0]);
  } else if (ThreadReduceCombiner(n)) {
    TESSEL_RETURN_IF_ERROR(arity(1));
    DataType t = args[0]->dtype;  // Read before `args` moves into the call.
    e = MakeCall(t, CallNode::Callee::kThreadReduce, std::string(n), std::move(args));
  } else if (n == kMmaM16N8K16) {
    TESSEL_RETURN_IF_ERROR(arity(3));
    e = MakeCall(DataType::Float(32).with_lanes(4), CallNode::Callee::kWarpMma, std::string(n),
                 std::move(args));
  } else if (n == "sync_threads") {
    TESSEL_RETURN_IF_ERROR(arity(0));
    e = MakeCall(DataType::Int(32), CallNode::Callee::kSyncThreads, "sync_threads", {});
  } else if (n == "address_of") {
    TESSEL_RETURN_IF_ERROR(arity(1));
    e = MakeCall(DataType::Handle(), CallNode::Callee::kAddressOf, "address_of", std::move(args));
  } else if (const IntrinsicInfo* info = LookupIntrinsic(n)) {
    TESSEL_RETURN_IF_ERROR(arity(static_cast<size_t>(info->arity)));
    DataType t = args.empty() ? DataType::Float(32) : args[0]->dtype;
    e = MakeCall(t, CallNode::Callee::kIntrinsic, std::string(n), std::move(args));
  } else {
    std::string known;
    for (const IntrinsicInfo& i : AllIntrinsics()) absl::StrAppend(&known, known.empty() ? "" : " ", i.name);
    return ErrorAt(name, absl::StrCat("unknown function '", n,
                                      "' (builtins: min max select ramp broadcast "
                                      "address_of sync_threads thread_{sum,prod,max,min}_x, "
                                      "casts such as f32(x), intrinsics: ",
                                      known, "; an extern call is written @", n, "(...): type)"));
  }
  if (!e.ok()) return ErrorAt(name, e.status());
  return *e;
}

absl::StatusOr<Expr> Parser::ParseNumber(const Token& t, bool negative) {
  absl::string_view number, suffix;
  SplitNumber(t, &number, &suffix);
  bool is_float_text = t.kind == TokKind::kFloat;
  DataType dt = DataType::Int(32);
  if (!suffix.empty()) {
    absl::StatusOr<DataType> parsed = DataType::Parse(suffix);
    if (!parsed.ok() || !parsed->is_scalar() || parsed->is_handle() || parsed->is_void()) {
      return ErrorAt(t, absl::StrCat("bad literal suffix '", suffix,
                                     "' (expected a scalar type such as i64, u8, f32, bf16)"));
    }
    dt = *parsed;
  } else if (is_float_text) {
    return ErrorAt(t, absl::StrCat("a float literal carries its type, e.g. ", t.text, "f32"));
  }
  if (dt.is_bool()) return ErrorAt(t, "bool literals are written true and false");
  if (dt.is_float()) {
    double v = 0;
    std::from_chars_result r = std::from_chars(number.data(), number.data() + number.size(), v);
    if (r.ec != std::errc() || r.ptr != number.data() + number.size()) {
      return ErrorAt(t, absl::StrCat("float literal '", t.text, "' is out of range for ", dt.ToString()));
    }
    if (negative) v = -v;
    absl::StatusOr<Expr> e = MakeFloatImm(dt, v);
    if (!e.ok()) return ErrorAt(t, e.status());
    double rounded = cast<FloatImmNode>(*e)->value;
    if (std::isinf(rounded)) {
      return ErrorAt(t, absl::StrCat("float literal '", t.text, "' overflows ", dt.ToString()));
    }
    if (rounded == 0 && number.substr(0, number.find_first_of("eE")).find_first_of("123456789") !=
                            absl::string_view::npos) {
      return ErrorAt(t, absl::StrCat("float literal '", t.text, "' underflows to zero in ", dt.ToString()));
    }
    return *e;
  }
  if (is_float_text) {
    return ErrorAt(t, absl::StrCat("'", number, "' is not a whole number, as type ", dt.ToString(), " needs"));
  }
  uint64_t mag = 0;
  if (!ParseDecimalU64(number, &mag)) {
    return ErrorAt(t, absl::StrCat("integer literal '", t.text, "' is too large"));
  }
  constexpr uint64_t kMinMag = uint64_t{1} << 63;  // |INT64_MIN|
  int64_t value;
  if (negative) {
    if (dt.is_uint() && mag != 0) {
      return ErrorAt(t, absl::StrCat("negative literal of unsigned type ", dt.ToString()));
    }
    if (mag > kMinMag) return ErrorAt(t, absl::StrCat("integer literal '-", t.text, "' is too large"));
    value = mag == kMinMag ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(mag);
  } else if (dt == DataType::UInt(64)) {
    value = static_cast<int64_t>(mag);  // u64 is stored by its bit pattern.
  } else {
    if (mag >= kMinMag) return ErrorAt(t, absl::StrCat("integer literal '", t.text, "' is too large"));
    value = static_cast<int64_t>(mag);
  }
  absl::StatusOr<Expr> e = MakeIntImm(dt, value);
  if (!e.ok()) return ErrorAt(t, e.status());
  return *e;
}

absl::StatusOr<uint64_t> Parser::ParseNaNBits() {
  const Token& h = Peek();
  absl::string_view hex = h.text.size() > 2 ? h.text.substr(2) : "";
  while (hex.size() > 1 && hex[0] == '0') hex.remove_prefix(1);
  if (h.kind != TokKind::kHexInt || hex.size() > 16) {
    return ErrorAt(h, "expected the 64-bit pattern of a NaN, e.g. 0x7ff8000000000001");
  }
  uint64_t bits = 0;
  for (char c : hex) bits = bits * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  if (!std::isnan(BitsDouble(bits))) return ErrorAt(h, absl::StrCat(h.text, " is not the bit pattern of a NaN"));
  Next();
  TESSEL_RETURN_IF_ERROR(Expect(")"));
  return bits;
}

// inf_f32, nan_f32, nan_f32(0x7ff8000000000001) (the bits of the stored double).
absl::StatusOr<Expr> Parser::ParseFloatWord(const Token& t, bool negative) {
  DataType dt = *DataType::Parse(t.text.substr(4));
  double v;
  if (t.text.substr(0, 3) == "inf") {
    v = std::numeric_limits<double>::infinity();
  } else {
    uint64_t bits = 0x7ff8000000000000ull;
    if (Accept("(")) {
      TESSEL_ASSIGN_OR_RETURN(bits, ParseNaNBits());
    }
    v = BitsDouble(bits);
  }
  if (negative) v = BitsDouble(DoubleBits(v) ^ (uint64_t{1} << 63));
  absl::StatusOr<Expr> e = MakeFloatImm(dt, v);
  if (!e.ok()) return ErrorAt(t, e.status());
  return *e;
}

}  // namespace tessel::ir::tsl
