// storage_align (see storage_align.h).
#include "ir/schedule/primitive/storage_align.h"

#include "absl/strings/str_cat.h"
#include "ir/schedule/cache_stage.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/primitive/set_scope.h"
#include "ir/schedule/primitive_registration.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

absl::Status StorageAlign(ScheduleState* state, const std::string& block, int64_t buffer_index,
                          int64_t axis, int64_t factor, int64_t offset) {
  TESSEL_ASSIGN_OR_RETURN(int sref, state->BlockSRef(block));
  const BlockRealizeNode* realize = state->index().realize(sref);
  const BlockNode* blk = realize->block.get();
  TESSEL_ASSIGN_OR_RETURN(Buffer buffer, BufferAtIndex(*state, blk, buffer_index, true));
  if (IsParamBuffer(state->func(), buffer.get())) {
    return state->Error(blk, absl::StrCat("buffer ", buffer->name,
                                          " is a parameter of the function; only a buffer the "
                                          "function allocates can be laid out with padding"));
  }
  const int64_t ndim = buffer->ndim();
  if (axis < -ndim || axis >= ndim) {
    return state->ArgError(blk, absl::StrCat("axis ", axis, " is out of range for buffer ",
                                             buffer->name, " of ", ndim, " dimensions"));
  }
  if (axis < 0) axis += ndim;
  if (factor < 1) {
    return state->ArgError(blk, absl::StrCat("factor ", factor, " must be at least 1"));
  }
  if (offset < 0 || offset >= factor) {
    return state->ArgError(
        blk, absl::StrCat("offset ", offset, " must be in [0, factor) = [0, ", factor, ")"));
  }
  // The annotation: one list per write buffer, each of [axis, factor, offset].
  AttrValue::List per_buffer;
  if (auto it = blk->annotations.find(kBufferDimAlign); it != blk->annotations.end()) {
    const AttrValue::List* old = it->second.get_if<AttrValue::List>();
    if (old == nullptr) {
      return state->Error(blk, absl::StrCat(DescribeBlock(blk), " has a '", kBufferDimAlign,
                                            "' annotation that is not a list"));
    }
    per_buffer = *old;
  }
  while (per_buffer.size() < blk->writes.size()) per_buffer.emplace_back(AttrValue::List{});
  AttrValue::List entries;
  if (const auto* l = per_buffer[buffer_index].get_if<AttrValue::List>()) entries = *l;
  AttrValue::List entry{AttrValue(axis), AttrValue(factor), AttrValue(offset)};
  bool replaced = false;
  for (AttrValue& e : entries) {
    const AttrValue::List* t = e.get_if<AttrValue::List>();
    if (t != nullptr && !t->empty() && t->front().is<int64_t>() &&
        t->front().as<int64_t>() == axis) {
      e = AttrValue(entry);
      replaced = true;
    }
  }
  if (!replaced) entries.emplace_back(entry);
  per_buffer[buffer_index] = AttrValue(std::move(entries));
  auto b = MakeNode<BlockNode>(*blk);
  b->annotations[kBufferDimAlign] = AttrValue(std::move(per_buffer));
  Stmt r(MakeNode<BlockRealizeNode>(realize->iter_values, realize->predicate, Block(std::move(b))));
  state->Replace(ReplaceStmts(state->func(), {{realize, r}}));
  return absl::OkStatus();
}

AttrValue::List DimAlignsOf(const BlockNode& block, size_t index) {
  auto it = block.annotations.find(kBufferDimAlign);
  if (it == block.annotations.end()) return {};
  const AttrValue::List* per_buffer = it->second.get_if<AttrValue::List>();
  if (per_buffer == nullptr || index >= per_buffer->size()) return {};
  const AttrValue::List* entries = (*per_buffer)[index].get_if<AttrValue::List>();
  return entries == nullptr ? AttrValue::List{} : *entries;
}

Attrs WithDimAligns(const BlockNode& block, size_t index, AttrValue::List entries) {
  Attrs attrs = block.annotations;
  AttrValue::List per_buffer;
  if (auto it = attrs.find(kBufferDimAlign); it != attrs.end()) {
    const AttrValue::List* old = it->second.get_if<AttrValue::List>();
    if (old == nullptr) return attrs;
    per_buffer = *old;
  }
  if (entries.empty() && index >= per_buffer.size()) return attrs;  // Nothing to clear.
  while (per_buffer.size() <= index || per_buffer.size() < block.writes.size()) {
    per_buffer.emplace_back(AttrValue::List{});
  }
  per_buffer[index] = AttrValue(std::move(entries));
  bool any = false;
  for (const AttrValue& e : per_buffer) {
    const AttrValue::List* l = e.get_if<AttrValue::List>();
    any = any || l == nullptr || !l->empty();
  }
  if (any) {
    attrs[kBufferDimAlign] = AttrValue(std::move(per_buffer));
  } else {
    attrs.erase(kBufferDimAlign);
  }
  return attrs;
}

TESSEL_REGISTER_PRIMITIVE(primitive::StorageAlign);

}  // namespace tessel::ir::schedule
