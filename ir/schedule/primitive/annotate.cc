// annotate / unannotate (see annotate.h).
#include "ir/schedule/primitive/annotate.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

namespace {

std::string Keys(const Attrs& attrs) {
  if (attrs.empty()) return "it has none";
  std::vector<std::string> keys;
  for (const auto& [k, v] : attrs) keys.push_back(k);
  return absl::StrCat("its keys are ", absl::StrJoin(keys, ", "));
}

// Applies `edit` to the annotations of the target, or returns the error it gives.
template <typename Edit>
absl::Status EditLoop(ScheduleState* state, const Var& loop, Edit edit) {
  TESSEL_ASSIGN_OR_RETURN(int s, state->LoopSRef(loop));
  const ForNode* f = state->index().loop(s);
  Attrs attrs = f->annotations;
  TESSEL_RETURN_IF_ERROR(edit(&attrs, f, DescribeLoop(f)));
  auto n = MakeNode<ForNode>(*f);
  n->annotations = std::move(attrs);
  state->Replace(ReplaceStmts(state->func(), {{f, Stmt(std::move(n))}}));
  return absl::OkStatus();
}

template <typename Edit>
absl::Status EditBlock(ScheduleState* state, const std::string& block, Edit edit) {
  TESSEL_ASSIGN_OR_RETURN(int s, state->BlockSRef(block));
  const BlockRealizeNode* r = state->index().realize(s);
  Attrs attrs = r->block->annotations;
  TESSEL_RETURN_IF_ERROR(edit(&attrs, r->block.get(), DescribeBlock(r->block.get())));
  auto b = MakeNode<BlockNode>(*r->block);
  b->annotations = std::move(attrs);
  Stmt realize(MakeNode<BlockRealizeNode>(r->iter_values, r->predicate, Block(std::move(b))));
  state->Replace(ReplaceStmts(state->func(), {{r, realize}}));
  return absl::OkStatus();
}

auto Setter(ScheduleState* state, const std::string& key, const AttrValue& value) {
  return [state, &key, &value](Attrs* attrs, const Node* target, const std::string& what) {
    if (key.empty()) return state->ArgError(target, "an annotation key must not be empty");
    std::string why = CheckAnnotationValue(value);
    if (!why.empty()) return state->ArgError(target, why);
    (*attrs)[key] = value;
    return absl::OkStatus();
  };
}

auto Remover(ScheduleState* state, const std::string& key) {
  return [state, &key](Attrs* attrs, const Node* target, const std::string& what) {
    if (attrs->erase(key) == 0) {
      return state->Error(target,
                          absl::StrCat(what, " has no annotation '", key, "'; ", Keys(*attrs)));
    }
    return absl::OkStatus();
  };
}

}  // namespace

std::string CheckAnnotationValue(const AttrValue& value) {
  if (value.is<Expr>()) return "an annotation value must not be an expression";
  // A trace must serialise to JSON, which has no NaN or infinity.
  if (value.is<double>() && !std::isfinite(value.as<double>())) {
    return absl::StrCat("an annotation value must be a finite number, not ",
                        value.as<double>());
  }
  if (const AttrValue::List* list = value.get_if<AttrValue::List>()) {
    for (const AttrValue& v : *list) {
      std::string why = CheckAnnotationValue(v);
      if (!why.empty()) return why;
    }
  }
  return "";
}

absl::Status Annotate(ScheduleState* state, const Var& loop, const std::string& key,
                      const AttrValue& value) {
  return EditLoop(state, loop, Setter(state, key, value));
}

absl::Status Annotate(ScheduleState* state, const std::string& block, const std::string& key,
                      const AttrValue& value) {
  return EditBlock(state, block, Setter(state, key, value));
}

absl::Status Unannotate(ScheduleState* state, const Var& loop, const std::string& key) {
  return EditLoop(state, loop, Remover(state, key));
}

absl::Status Unannotate(ScheduleState* state, const std::string& block, const std::string& key) {
  return EditBlock(state, block, Remover(state, key));
}

TESSEL_REGISTER_PRIMITIVE(primitive::Annotate);
TESSEL_REGISTER_PRIMITIVE(primitive::Unannotate);

}  // namespace tessel::ir::schedule
