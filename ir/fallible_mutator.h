// A mutator whose visits can fail on user input. A Visit method reports the
// error with Fail and returns a placeholder; the caller reads status() after
// the walk:
//
//   class InitLowerer : public FallibleMutator<> {
//     Stmt VisitBlockRealize(const BlockRealizeNode* op) override {
//       ...
//       if (!guarded.ok()) return Fail(guarded.status(), GetRef<StmtNode>(op));
//     }
//   };
//   InitLowerer l;
//   Stmt body = l.VisitStmt(f->body);
//   if (!l.ok()) return l.status();
//
// The first error wins: a later one is usually a consequence of it, and the
// message must name the cause. `Base` is IRMutator or a mutator derived from it.
#ifndef TESSEL_IR_FALLIBLE_MUTATOR_H_
#define TESSEL_IR_FALLIBLE_MUTATOR_H_

#include <utility>

#include "absl/status/status.h"
#include "ir/mutator.h"

namespace tessel::ir {

template <typename Base = IRMutator>
class FallibleMutator : public Base {
 public:
  using Base::Base;

  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }

 protected:
  // Records `s` unless an error is recorded already.
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  // The same, handing back `placeholder` so that a Visit method can return it.
  template <typename T>
  T Fail(absl::Status s, T placeholder) {
    Fail(std::move(s));
    return placeholder;
  }

 private:
  absl::Status status_;
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_FALLIBLE_MUTATOR_H_
