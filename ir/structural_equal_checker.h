// The checker behind StructuralEqual (structural_equal.h), shared by the file
// that compares expressions, buffers and attributes (structural_equal.cc) and
// the one that compares statements, functions and modules
// (structural_equal_stmt.cc). Not for use elsewhere.
#ifndef TESSEL_IR_STRUCTURAL_EQUAL_CHECKER_H_
#define TESSEL_IR_STRUCTURAL_EQUAL_CHECKER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/function.h"
#include "ir/structural_equal.h"

namespace tessel::ir::structural_equal_internal {

// How a node is shown in a mismatch message.
std::string NodeText(const Node* n);
std::string BufferText(const BufferNode* b);


class EqualChecker {
 public:
  EqualChecker(StructuralEqualOptions opts, bool record) : opts_(opts), record_(record) {}

  bool Module(const IRModuleNode* a, const IRModuleNode* b);
  bool Func(const PrimFuncNode* a, const PrimFuncNode* b);
  bool Graph(const GraphFuncNode* a, const GraphFuncNode* b);
  bool S(const Stmt& a, const Stmt& b);
  bool E(const Expr& a, const Expr& b);

  // Whether the roots are both present (true) or the mismatch is recorded (false).
  bool Roots(const Node* a, const Node* b) {
    if (a != nullptr && b != nullptr) return true;
    return a == b || Mismatch(a ? "rhs is absent" : "lhs is absent", a, b);
  }

  absl::Status Error() const;

 private:
  // An entry of the undo log: what `l` and `r` meant before a binding.
  struct Undo {
    const Node* l;
    const Node* l_prev;  // Null: unmapped before.
    const Node* r;
    const Node* r_prev;
  };

  // ---- Mismatch recording -------------------------------------------------------
  // Records the innermost mismatch (printed only when a message is wanted).
  bool Mismatch(std::string reason, const Node* l, const Node* r) {
    return record_ ? MismatchText(std::move(reason), NodeText(l), NodeText(r)) : false;
  }
  bool MismatchText(std::string reason, std::string l, std::string r) {
    if (record_) {
      reason_ = std::move(reason);
      lhs_text_ = std::move(l);
      rhs_text_ = std::move(r);
    }
    return false;
  }
  // A mismatch in a plain field (not a node) of the current node.
  bool FieldMismatch(std::string field, std::string reason, std::string l, std::string r) {
    MismatchText(std::move(reason), std::move(l), std::move(r));
    return Up(std::move(field));
  }
  // Prepends a path segment while a failure travels up; always false.
  bool Up(std::string segment) {
    if (record_) path_.push_back(std::move(segment));
    return false;
  }
  bool KindMismatch(const Node* a, const Node* b) {
    return Mismatch(absl::StrCat("node kinds differ (", NodeKindName(a->kind()), " vs ",
                                 NodeKindName(b->kind()), ")"),
                    a, b);
  }
  bool Lengths(const char* field, size_t a, size_t b) {
    if (a == b) return true;
    return FieldMismatch(field, "lengths differ", absl::StrCat(a, " elements"),
                         absl::StrCat(b, " elements"));
  }

  // ---- Bindings -------------------------------------------------------------------
  size_t Mark() const { return log_.size(); }
  void Restore(size_t mark) {
    while (log_.size() > mark) {
      const Undo& u = log_.back();
      if (u.l_prev) lmap_[u.l] = u.l_prev; else lmap_.erase(u.l);
      if (u.r_prev) rmap_[u.r] = u.r_prev; else rmap_.erase(u.r);
      log_.pop_back();
    }
  }
  void Bind(const Node* l, const Node* r) {
    auto [li, l_new] = lmap_.try_emplace(l, r);
    auto [ri, r_new] = rmap_.try_emplace(r, l);
    log_.push_back(Undo{l, l_new ? nullptr : li->second, r, r_new ? nullptr : ri->second});
    li->second = r;
    ri->second = l;
  }
  bool BindVar(const Var& a, const Var& b) {
    if (!Roots(a.get(), b.get())) return false;
    if (a.get() == nullptr) return true;
    if (a->dtype != b->dtype) {
      return MismatchText("dtypes differ", absl::StrCat(a->name, ": ", a->dtype.ToString()),
                          absl::StrCat(b->name, ": ", b->dtype.ToString()));
    }
    Bind(a.get(), b.get());
    return true;
  }

  bool Use(const Node* a, const Node* b, const std::string& a_name, const std::string& b_name);
  bool BufferUse(const Buffer& a, const Buffer& b);
  bool BufferFields(const BufferNode* a, const BufferNode* b);
  bool BufferDef(const Buffer& a, const Buffer& b, bool defines_shape_vars);
  bool Exprs(const char* field, const std::vector<Expr>& a, const std::vector<Expr>& b);
  bool Regions(const char* field, const std::vector<BufferRegion>& a,
               const std::vector<BufferRegion>& b);
  bool BlockEq(const BlockNode* a, const BlockNode* b);
  bool AttrsEq(const char* field, const Attrs& a, const Attrs& b);
  bool AttrEq(const AttrValue& a, const AttrValue& b);

  StructuralEqualOptions opts_;
  bool record_;
  // Set while comparing a parameter buffer's shape, strides and offset: an unbound
  // variable met there is defined there (a symbolic shape).
  bool defining_ = false;
  absl::flat_hash_map<const Node*, const Node*> lmap_, rmap_;
  std::vector<Undo> log_;

  std::vector<std::string> path_;  // Innermost segment first.
  std::string reason_;
  std::string lhs_text_, rhs_text_;
};

}  // namespace tessel::ir::structural_equal_internal

#endif  // TESSEL_IR_STRUCTURAL_EQUAL_CHECKER_H_
