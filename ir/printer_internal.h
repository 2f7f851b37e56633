// Internals of the `.tsl` printer shared by printer.cc (layout of every node) and
// printer_names.cc (names, float spelling, marking). Not a public API.
//
//   tsl::Printer p;
//   std::string text = p.TwoPass([&](tsl::Printer& q) { q.PrintFunc(f, "main"); });
#ifndef TESSEL_IR_PRINTER_INTERNAL_H_
#define TESSEL_IR_PRINTER_INTERNAL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/function.h"

namespace tessel::ir::tsl {

class Printer {
 public:
  // Runs `print` once to collect the objects that need names, assigns names,
  // then runs it again to write the text, which it returns.
  template <typename F>
  std::string TwoPass(F print) {
    collecting_ = true;
    print(*this);
    AssignNames();
    collecting_ = false;
    out_.clear();
    indent_ = 0;
    next_entity_ = 0;
    current_.clear();
    undo_.clear();
    print(*this);
    return std::move(out_);
  }

  void SetMarked(const Node* marked) { marked_ = marked; }
  size_t mark_begin() const { return mark_begin_; }
  size_t mark_end() const { return mark_end_; }
  int mark_indent() const { return mark_indent_; }

  void PrintModuleAttrs(const Attrs& attrs);
  void PrintFunc(const PrimFunc& f, const std::string& name);
  void PrintGraph(const GraphFunc& g, const std::string& name);  // printer_graph.cc
  void PrintBody(const Stmt& body);
  void PrintExpr(const Expr& e, int min_prec);
  // A symbol's name after `@`: quoted when it is not an identifier.
  static std::string QuotedName(const std::string& name);

 private:
  // Names belong to entities: one per binding of a variable or buffer (an
  // object bound twice, e.g. by two sibling loops, is two entities, so its text
  // reads back as two variables that print the same way again), plus one per
  // object used where it is not bound. Both passes create entities in the same
  // order, so an entity's index identifies it across passes.
  int NewEntity(const std::string& original);
  void Activate(const Node* object, int entity);  // In scope until EndScope.
  size_t ScopeMark() const { return undo_.size(); }
  void EndScope(size_t mark);
  std::string EntityName(int entity, const std::string& original) const;
  // The printed name of a use of a variable or buffer.
  std::string Name(const Node* object, const std::string& original);
  void AssignNames();

  void PrintExprList(const std::vector<Expr>& list);
  std::string IntLiteral(const IntImmNode* op);
  std::string BufferName(const Buffer& b);
  void PrintAttrValue(const AttrValue& v);
  void PrintAttrs(const Attrs& attrs);
  // Definitions print a new entity's name and return the entity (-1 for null);
  // the caller activates it where the binding's scope begins.
  int PrintBufferDef(const Buffer& b);
  void PrintRegion(const BufferRegion& r);
  int PrintVarDecl(const Var& v);
  // `[n, m: i64]`, activating each; nothing when `syms` is empty.
  void PrintShapeVars(const std::vector<Var>& syms);

  void Line();
  void PrintList(std::vector<Stmt> list);
  // Prints a let/allocate/decl_buffer header, activates its binding, returns its body.
  Stmt PrintScopingHeader(const Stmt& s);
  void PrintBraced(const Stmt& body);
  void PrintStmt(const Stmt& s);
  void PrintBlock(const BlockNode* b, const BlockRealizeNode* realize);

  void OpenMark(const Node* n, bool* opened);
  void CloseMark(bool opened);

  std::string out_;
  int indent_ = 0;
  bool collecting_ = false;
  std::vector<std::string> entity_original_;  // Filled by the first pass.
  std::vector<std::string> entity_names_;     // Assigned between the passes.
  int next_entity_ = 0;
  absl::flat_hash_map<const Node*, int> current_;  // Object -> entity in scope.
  std::vector<std::pair<const Node*, int>> undo_;  // Object, entity it shadowed (-1: none).

  const Node* marked_ = nullptr;
  size_t mark_begin_ = std::string::npos, mark_end_ = std::string::npos;
  int mark_indent_ = 0;
};

// The statements written between the braces of `body` (see printer.cc).
std::vector<Stmt> BodyList(const Stmt& body);

// Variables that a function's parameter buffers use in their shapes, strides or
// offsets and that are not scalar parameters: the function defines them, in its
// `[n, m]` list. In order of first appearance.
std::vector<Var> SymbolicVars(const PrimFunc& f);
// The same for a graph function's parameters, which are all buffers.
std::vector<Var> SymbolicVars(const std::vector<Buffer>& params);

// A double as an attribute value: "1.5", "-0.0", "1.0e30", "inf", "nan".
std::string FormatDouble(double v);

// Prefixes the lines in [begin, end) of `text` with ">> " and the others with
// three blanks, and adds a line with `note` after the marked ones.
std::string MarkLines(const std::string& text, size_t begin, size_t end, int indent,
                      const std::string& note);

// Turns any name into one the parser accepts as a variable or buffer name.
std::string SanitizeName(const std::string& name);

}  // namespace tessel::ir::tsl

#endif  // TESSEL_IR_PRINTER_INTERNAL_H_
