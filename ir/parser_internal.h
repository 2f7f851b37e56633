// Internals of the `.tsl` parser, split over parser.cc (module, functions,
// parameters, buffers, attributes), parser_expr.cc (expressions and literals) and
// parser_stmt.cc (statements and blocks). Not a public API.
//
//   tsl::Parser p(text, "kernel.tsl");
//   absl::StatusOr<IRModule> m = p.ParseModule();
//
// The parser is recursive descent over the token vector from Lex(). Every
// recursive entry goes through a DepthGuard (at most kMaxDepth levels), and
// every loop consumes a token or fails, so no input crashes or hangs it.
#ifndef TESSEL_IR_PARSER_INTERNAL_H_
#define TESSEL_IR_PARSER_INTERNAL_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/function.h"
#include "ir/lexer.h"
#include "ir/status_macros.h"

namespace tessel::ir::tsl {

// How deeply constructs (parentheses, calls, statements, attribute lists) may nest.
inline constexpr int kMaxDepth = 256;
// Chains that cost no parser recursion can still build deep trees (a + b + c ...
// is a left-deep tree; each flat `let` nests the rest of its list). IR nodes are
// freed and walked recursively, so the depth of what the parser builds is bounded
// too: expression trees and chains of flat scopes, each to this many levels.
inline constexpr int kMaxChainDepth = 10000;

// Digits only, no suffix; false on anything else or on overflow of 64 bits.
bool ParseDecimalU64(absl::string_view digits, uint64_t* out);

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view filename) : text_(text), filename_(filename) {}

  absl::StatusOr<IRModule> ParseModule();

  // ---- Shared by the three files ------------------------------------------------
  const Token& Peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool Accept(absl::string_view punct);
  absl::Status Expect(absl::string_view punct);
  absl::Status ErrorAt(const Token& at, absl::string_view message) const;
  // Re-raises a factory error (a type error) at the construct's position.
  absl::Status ErrorAt(const Token& at, const absl::Status& status) const {
    return ErrorAt(at, status.message());
  }
  static std::string Describe(const Token& t);

  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->depth_; }
    ~DepthGuard() { --p_->depth_; }
    bool too_deep() const { return p_->depth_ > kMaxDepth; }

   private:
    Parser* p_;
  };
  absl::Status TooDeep(const Token& at) const;

  // Scopes: one namespace for variables and buffers.
  struct Binding {
    std::string name;
    Var var;
    Buffer buffer;
  };
  // Constant time: `visible_` maps each name to the positions in scope_ that bind it,
  // innermost last, so that a function of 100k parameters parses in linear time.
  const Binding* Lookup(absl::string_view name) const;
  size_t ScopeMark() const { return scope_.size(); }
  void PopScope(size_t mark);
  void Bind(std::string name, Var v) { Push(Binding{std::move(name), std::move(v), nullptr}); }
  void Bind(std::string name, Buffer b) { Push(Binding{std::move(name), nullptr, std::move(b)}); }
  void Push(Binding b);
  // A name at a binding position: an identifier that is not a reserved word.
  absl::StatusOr<std::string> BindingName(const char* what);

  absl::StatusOr<DataType> ParseDType();
  absl::StatusOr<Attrs> ParseAttrDict();
  // `nesting`: the lists around this value, at most kMaxAttrNesting.
  absl::StatusOr<AttrValue> ParseAttrValue(int nesting = 0);
  // `name: f32[shape] strides [...] offset e scope "s" align n`.
  absl::StatusOr<Buffer> ParseBufferDef();
  // An identifier or a quoted string (block and function names, extern symbols).
  absl::StatusOr<std::string> ParseSymbolName(const char* what);

  // parser_expr.cc
  // Every Parse* that returns an expression leaves its tree depth in expr_depth_.
  absl::StatusOr<Expr> ParseExpr();
  absl::StatusOr<std::vector<Expr>> ParseExprList(absl::string_view close);
  absl::StatusOr<Expr> ParseBinary(int min_prec);
  absl::StatusOr<Expr> ParseUnary();
  absl::StatusOr<Expr> ParsePrimary();
  absl::StatusOr<Expr> ParseCallLike(const Token& name);
  absl::StatusOr<Expr> ParseNumber(const Token& t, bool negative);
  absl::StatusOr<Expr> ParseFloatWord(const Token& t, bool negative);
  // After `nan(` or `nan_f32(`: the hex bits of the stored double, then `)`.
  absl::StatusOr<uint64_t> ParseNaNBits();
  absl::StatusOr<Buffer> LookupBuffer(const Token& name);

  // parser_stmt.cc
  absl::StatusOr<std::vector<Stmt>> ParseStmtList(const Token& open);
  absl::StatusOr<Stmt> ParseBraced();
  absl::StatusOr<Stmt> ParseStmt();
  absl::StatusOr<Stmt> ParseFor();
  absl::StatusOr<Stmt> ParseIf();
  absl::StatusOr<Stmt> ParseStore();
  absl::StatusOr<Stmt> ParseBlock();
  absl::StatusOr<BufferRegion> ParseRegion();
  absl::StatusOr<Stmt> ListToStmt(std::vector<Stmt> list, const Token& at);

 private:
  absl::StatusOr<PrimFunc> ParseFunction(std::string* name);
  // `[n, m: i64]` after a function's name, binding each variable; nothing when absent.
  absl::Status ParseShapeVars();
  // parser_graph.cc
  absl::StatusOr<GraphFunc> ParseGraphFunction(std::string* name);
  absl::StatusOr<GraphBinding> ParseGraphBinding();
  absl::Status ParseGraphCallRest(GraphBinding* binding);
  // `const @w: f32[2, 2] = "0000803f..."`: the bytes in hex, little-endian.
  absl::StatusOr<std::pair<std::string, HostBuffer>> ParseConstant();
  // A value of a graph function at a use: defined earlier, by a parameter or a binding.
  absl::StatusOr<Buffer> ParseValueUse(const char* what);
  absl::Status DeclareScalarParams(std::vector<Var>* vars, std::vector<std::string>* names);

  absl::string_view text_;
  std::string filename_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int expr_depth_ = 0;
  int open_flat_scopes_ = 0;  // Flat let/allocate/decl_buffer headers awaiting their body.
  std::vector<Binding> scope_;
  absl::flat_hash_map<std::string, std::vector<size_t>> visible_;
};

}  // namespace tessel::ir::tsl

#endif  // TESSEL_IR_PARSER_INTERNAL_H_
