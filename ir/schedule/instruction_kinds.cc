// The instruction table: for each kind, its Python form and how it replays onto
// a schedule by calling the facade (which records it again in the target).
//
//   {"split", {"loop", "factors"}, pure=false, sampling=false, tuple_output=true, ApplySplit}
//   ApplySplit(sch, {inputs: [l7, [None, 32]]})  ->  sch->Split(LoopRV{7}, {None, 32})
//
// Adding a primitive adds one row here (DESIGN.md: the primitive's file, the
// facade, this table, the Python binding). Replay functions check the shape of
// what a JSON file gave them and say which input is wrong.
#include "absl/strings/str_cat.h"
#include "ir/schedule/instruction.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule {

namespace {

absl::Status Bad(const Instruction& inst, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(inst.kind, ": ", what));
}

absl::StatusOr<RV> InputRV(const Instruction& inst, size_t k, absl::string_view kinds,
                           const char* what) {
  if (k >= inst.inputs.size() || !inst.inputs[k].is_rv() ||
      kinds.find(inst.inputs[k].as_rv().kind) == absl::string_view::npos) {
    return Bad(inst, absl::StrCat("input ", k, " must be ", what));
  }
  return inst.inputs[k].as_rv();
}

absl::StatusOr<std::vector<LoopRV>> InputLoops(const Instruction& inst, size_t k) {
  if (k >= inst.inputs.size() || !inst.inputs[k].is_list()) {
    return Bad(inst, absl::StrCat("input ", k, " must be a list of loop handles"));
  }
  std::vector<LoopRV> loops;
  for (const TraceValue& v : inst.inputs[k].as_list()) {
    if (!v.is_rv() || v.as_rv().kind != 'l') {
      return Bad(inst, absl::StrCat("input ", k, " must be a list of loop handles"));
    }
    loops.push_back({v.as_rv().id});
  }
  return loops;
}

absl::StatusOr<const AttrValue*> Attr(const Instruction& inst, const char* name) {
  const AttrValue* a = inst.FindAttr(name);
  if (a == nullptr) return Bad(inst, absl::StrCat("attr '", name, "' is missing"));
  return a;
}

absl::StatusOr<std::string> StringAttr(const Instruction& inst, const char* name) {
  absl::StatusOr<const AttrValue*> a = Attr(inst, name);
  if (!a.ok()) return a.status();
  if (!(*a)->is<std::string>())
    return Bad(inst, absl::StrCat("attr '", name, "' must be a string"));
  return (*a)->as<std::string>();
}

absl::StatusOr<int64_t> IntAttr(const Instruction& inst, const char* name) {
  absl::StatusOr<const AttrValue*> a = Attr(inst, name);
  if (!a.ok()) return a.status();
  if (!(*a)->is<int64_t>()) return Bad(inst, absl::StrCat("attr '", name, "' must be an int"));
  return (*a)->as<int64_t>();
}

template <typename T>
std::vector<RV> Outputs(const std::vector<T>& handles, char kind) {
  std::vector<RV> out;
  for (const T& h : handles) out.push_back(RV{kind, h.id});
  return out;
}

template <typename T>
absl::StatusOr<std::vector<RV>> Many(absl::StatusOr<std::vector<T>> r, char kind) {
  if (!r.ok()) return r.status();
  return Outputs(*r, kind);
}

template <typename T>
absl::StatusOr<std::vector<RV>> One(absl::StatusOr<T> r, char kind) {
  if (!r.ok()) return r.status();
  return std::vector<RV>{RV{kind, r->id}};
}

absl::StatusOr<std::vector<RV>> NoOutputs(const absl::Status& s) {
  if (!s.ok()) return s;
  return std::vector<RV>{};
}

#define TESSEL_TRY_ASSIGN(lhs, expr)            \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

absl::StatusOr<std::vector<RV>> ApplyGetBlock(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(name, StringAttr(inst, "name"));
  return One(sch->GetBlock(name), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyGetLoops(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  return Many(sch->GetLoops(BlockRV{b.id}), 'l');
}

absl::StatusOr<std::vector<RV>> ApplyGetChildBlocks(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(t, InputRV(inst, 0, "bl", "a block or loop handle"));
  return t.kind == 'b' ? Many(sch->GetChildBlocks(BlockRV{t.id}), 'b')
                       : Many(sch->GetChildBlocks(LoopRV{t.id}), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyGetProducers(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  return Many(sch->GetProducers(BlockRV{b.id}), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyGetConsumers(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  return Many(sch->GetConsumers(BlockRV{b.id}), 'b');
}

absl::StatusOr<std::vector<RV>> ApplySplit(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  if (inst.inputs.size() < 2 || !inst.inputs[1].is_list()) {
    return Bad(inst, "input 1 must be a list of factors");
  }
  std::vector<Factor> factors;
  for (const TraceValue& v : inst.inputs[1].as_list()) {
    if (v.is_none())
      factors.push_back(std::nullopt);
    else if (v.is_int())
      factors.push_back(v.as_int());
    else if (v.is_rv() && v.as_rv().kind == 'v')
      factors.push_back(ExprRV{v.as_rv().id});
    else
      return Bad(inst, "a factor must be None, an int or a value handle (v...)");
  }
  return Many(sch->Split(LoopRV{l.id}, factors), 'l');
}

absl::StatusOr<std::vector<RV>> ApplyFuse(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(loops, InputLoops(inst, 0));
  return One(sch->Fuse(loops), 'l');
}

absl::StatusOr<std::vector<RV>> ApplyReorder(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(loops, InputLoops(inst, 0));
  return NoOutputs(sch->Reorder(loops));
}

absl::StatusOr<std::vector<RV>> ApplyParallel(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  return NoOutputs(sch->Parallel(LoopRV{l.id}));
}

absl::StatusOr<std::vector<RV>> ApplyVectorize(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  return NoOutputs(sch->Vectorize(LoopRV{l.id}));
}

absl::StatusOr<std::vector<RV>> ApplyUnroll(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  return NoOutputs(sch->Unroll(LoopRV{l.id}));
}

absl::StatusOr<std::vector<RV>> ApplyBind(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  TESSEL_TRY_ASSIGN(axis, StringAttr(inst, "thread_axis"));
  return NoOutputs(sch->Bind(LoopRV{l.id}, axis));
}

absl::StatusOr<std::vector<RV>> ApplyAnnotate(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(t, InputRV(inst, 0, "bl", "a block or loop handle"));
  TESSEL_TRY_ASSIGN(key, StringAttr(inst, "ann_key"));
  if (inst.inputs.size() >= 2) {
    TESSEL_TRY_ASSIGN(v, InputRV(inst, 1, "v", "a value handle"));
    return NoOutputs(t.kind == 'b' ? sch->Annotate(BlockRV{t.id}, key, ExprRV{v.id})
                                   : sch->Annotate(LoopRV{t.id}, key, ExprRV{v.id}));
  }
  TESSEL_TRY_ASSIGN(value, Attr(inst, "ann_val"));
  return NoOutputs(t.kind == 'b' ? sch->Annotate(BlockRV{t.id}, key, *value)
                                 : sch->Annotate(LoopRV{t.id}, key, *value));
}

absl::StatusOr<std::vector<RV>> ApplyUnannotate(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(t, InputRV(inst, 0, "bl", "a block or loop handle"));
  TESSEL_TRY_ASSIGN(key, StringAttr(inst, "ann_key"));
  return NoOutputs(t.kind == 'b' ? sch->Unannotate(BlockRV{t.id}, key)
                                 : sch->Unannotate(LoopRV{t.id}, key));
}

absl::StatusOr<std::vector<RV>> ApplyAddUnitLoop(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(t, InputRV(inst, 0, "bl", "a block or loop handle"));
  return t.kind == 'b' ? One(sch->AddUnitLoop(BlockRV{t.id}), 'l')
                       : One(sch->AddUnitLoop(LoopRV{t.id}), 'l');
}

absl::StatusOr<std::vector<RV>> ApplySamplePerfectTile(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  TESSEL_TRY_ASSIGN(n, IntAttr(inst, "n"));
  TESSEL_TRY_ASSIGN(max_inner, IntAttr(inst, "max_innermost_factor"));
  if (n < 1 || n > 64) return Bad(inst, absl::StrCat("n must be in [1, 64], not ", n));
  std::optional<std::vector<int64_t>> decision;
  if (inst.decision) {
    if (!inst.decision->is_list()) return Bad(inst, "the decision must be a list of ints");
    decision.emplace();
    for (const TraceValue& v : inst.decision->as_list()) {
      if (!v.is_int()) return Bad(inst, "the decision must be a list of ints");
      decision->push_back(v.as_int());
    }
  }
  return Many(sch->SamplePerfectTile(LoopRV{l.id}, static_cast<int>(n), max_inner, decision), 'v');
}

absl::StatusOr<std::vector<RV>> ApplySampleCategorical(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(cand, Attr(inst, "candidates"));
  TESSEL_TRY_ASSIGN(probs, Attr(inst, "probs"));
  std::vector<int64_t> candidates;
  std::vector<double> weights;
  if (!cand->is<AttrValue::List>() || !probs->is<AttrValue::List>()) {
    return Bad(inst, "candidates and probs must be lists");
  }
  for (const AttrValue& c : cand->as<AttrValue::List>()) {
    if (!c.is<int64_t>()) return Bad(inst, "candidates must be ints");
    candidates.push_back(c.as<int64_t>());
  }
  for (const AttrValue& p : probs->as<AttrValue::List>()) {
    if (p.is<double>())
      weights.push_back(p.as<double>());
    else if (p.is<int64_t>())
      weights.push_back(static_cast<double>(p.as<int64_t>()));
    else
      return Bad(inst, "probs must be numbers");
  }
  std::optional<int64_t> decision;
  if (inst.decision) {
    if (!inst.decision->is_int()) return Bad(inst, "the decision must be an int (an index)");
    decision = inst.decision->as_int();
  }
  return One(sch->SampleCategorical(candidates, weights, decision), 'v');
}

absl::StatusOr<std::vector<RV>> ApplyComputeInline(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  return NoOutputs(sch->ComputeInline(BlockRV{b.id}));
}

absl::StatusOr<std::vector<RV>> ApplyReverseComputeInline(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  return NoOutputs(sch->ReverseComputeInline(BlockRV{b.id}));
}

absl::StatusOr<std::vector<RV>> ApplyComputeAt(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 1, "l", "a loop handle"));
  bool preserve = false;
  if (const AttrValue* a = inst.FindAttr("preserve_unit_loops")) {
    if (!a->is<bool>()) return Bad(inst, "attr 'preserve_unit_loops' must be a bool");
    preserve = a->as<bool>();
  }
  return NoOutputs(inst.kind == "compute_at"
                       ? sch->ComputeAt(BlockRV{b.id}, LoopRV{l.id}, preserve)
                       : sch->ReverseComputeAt(BlockRV{b.id}, LoopRV{l.id}, preserve));
}

absl::StatusOr<std::vector<RV>> ApplySampleComputeLocation(Schedule* sch,
                                                           const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  std::optional<int64_t> decision;
  if (inst.decision) {
    if (!inst.decision->is_int()) return Bad(inst, "the decision must be an int (a location)");
    decision = inst.decision->as_int();
  }
  return One(sch->SampleComputeLocation(BlockRV{b.id}, decision), 'l');
}

// ---- Caching and reductions ----

absl::StatusOr<std::vector<RV>> ApplyCacheRead(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(index, IntAttr(inst, "read_buffer_index"));
  TESSEL_TRY_ASSIGN(scope, StringAttr(inst, "storage_scope"));
  return One(sch->CacheRead(BlockRV{b.id}, index, scope), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyCacheWrite(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(index, IntAttr(inst, "write_buffer_index"));
  TESSEL_TRY_ASSIGN(scope, StringAttr(inst, "storage_scope"));
  return One(sch->CacheWrite(BlockRV{b.id}, index, scope), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyDecomposeReduction(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 1, "l", "a loop handle"));
  return One(sch->DecomposeReduction(BlockRV{b.id}, LoopRV{l.id}), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyReindex(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(index, IntAttr(inst, "buffer_index"));
  TESSEL_TRY_ASSIGN(is_write, Attr(inst, "is_write"));
  if (!is_write->is<bool>()) return Bad(inst, "attr 'is_write' must be a bool");
  return One(sch->Reindex(BlockRV{b.id}, index, is_write->as<bool>()), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyRFactor(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  TESSEL_TRY_ASSIGN(axis, IntAttr(inst, "factor_axis"));
  return One(sch->RFactor(LoopRV{l.id}, axis), 'b');
}

absl::StatusOr<std::vector<RV>> ApplySetScope(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(index, IntAttr(inst, "buffer_index"));
  TESSEL_TRY_ASSIGN(scope, StringAttr(inst, "storage_scope"));
  return NoOutputs(sch->SetScope(BlockRV{b.id}, index, scope));
}

absl::StatusOr<std::vector<RV>> ApplyStorageAlign(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(index, IntAttr(inst, "buffer_index"));
  TESSEL_TRY_ASSIGN(axis, IntAttr(inst, "axis"));
  TESSEL_TRY_ASSIGN(factor, IntAttr(inst, "factor"));
  TESSEL_TRY_ASSIGN(offset, IntAttr(inst, "offset"));
  return NoOutputs(sch->StorageAlign(BlockRV{b.id}, index, axis, factor, offset));
}

absl::StatusOr<std::vector<RV>> ApplyBlockize(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(l, InputRV(inst, 0, "l", "a loop handle"));
  return One(sch->Blockize(LoopRV{l.id}), 'b');
}

absl::StatusOr<std::vector<RV>> ApplyTransformLayout(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(buffer, Attr(inst, "buffer"));
  TESSEL_TRY_ASSIGN(index_map, StringAttr(inst, "index_map"));
  BufferRef ref;
  if (buffer->is<std::string>())
    ref = buffer->as<std::string>();
  else if (buffer->is<int64_t>())
    ref = buffer->as<int64_t>();
  else
    return Bad(inst, "attr 'buffer' must be a buffer name or an index");
  return NoOutputs(sch->TransformLayout(BlockRV{b.id}, ref, index_map));
}

absl::StatusOr<std::vector<RV>> ApplyTensorize(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(t, InputRV(inst, 0, "bl", "a block or loop handle"));
  TESSEL_TRY_ASSIGN(intrin, StringAttr(inst, "intrin_name"));
  return NoOutputs(t.kind == 'b' ? sch->Tensorize(BlockRV{t.id}, intrin)
                                 : sch->Tensorize(LoopRV{t.id}, intrin));
}

absl::StatusOr<std::vector<RV>> ApplyPadEinsum(Schedule* sch, const Instruction& inst) {
  TESSEL_TRY_ASSIGN(b, InputRV(inst, 0, "b", "a block handle"));
  TESSEL_TRY_ASSIGN(padding, Attr(inst, "padding"));
  std::vector<int64_t> factors;
  if (!padding->is<AttrValue::List>()) return Bad(inst, "attr 'padding' must be a list of ints");
  for (const AttrValue& p : padding->as<AttrValue::List>()) {
    if (!p.is<int64_t>()) return Bad(inst, "attr 'padding' must be a list of ints");
    factors.push_back(p.as<int64_t>());
  }
  return NoOutputs(sch->PadEinsum(BlockRV{b.id}, factors));
}

#undef TESSEL_TRY_ASSIGN

}  // namespace

const std::vector<InstructionKind>& AllInstructionKinds() {
  static const auto* kinds = new std::vector<InstructionKind>{
      {"get_block", {}, true, false, false, ApplyGetBlock},
      {"get_loops", {"block"}, true, false, true, ApplyGetLoops},
      {"get_child_blocks", {"block_or_loop"}, true, false, true, ApplyGetChildBlocks},
      {"get_producers", {"block"}, true, false, true, ApplyGetProducers},
      {"get_consumers", {"block"}, true, false, true, ApplyGetConsumers},
      {"split", {"loop", "factors"}, false, false, true, ApplySplit},
      {"fuse", {"*loops"}, false, false, false, ApplyFuse},
      {"reorder", {"*ordered_loops"}, false, false, false, ApplyReorder},
      {"parallel", {"loop"}, false, false, false, ApplyParallel},
      {"vectorize", {"loop"}, false, false, false, ApplyVectorize},
      {"unroll", {"loop"}, false, false, false, ApplyUnroll},
      {"bind", {"loop"}, false, false, false, ApplyBind},
      {"annotate", {"block_or_loop", "ann_val"}, false, false, false, ApplyAnnotate},
      {"unannotate", {"block_or_loop"}, false, false, false, ApplyUnannotate},
      {"add_unit_loop", {"block_or_loop"}, false, false, false, ApplyAddUnitLoop},
      {"blockize", {"loop"}, false, false, false, ApplyBlockize},
      {"tensorize", {"block_or_loop"}, false, false, false, ApplyTensorize},
      {"transform_layout", {"block"}, false, false, false, ApplyTransformLayout},
      {"pad_einsum", {"block"}, false, false, false, ApplyPadEinsum},
      {"sample_perfect_tile", {"loop"}, true, true, true, ApplySamplePerfectTile},
      {"sample_categorical", {}, true, true, false, ApplySampleCategorical},
      {"compute_inline", {"block"}, false, false, false, ApplyComputeInline},
      {"reverse_compute_inline", {"block"}, false, false, false, ApplyReverseComputeInline},
      {"compute_at", {"block", "loop"}, false, false, false, ApplyComputeAt},
      {"reverse_compute_at", {"block", "loop"}, false, false, false, ApplyComputeAt},
      {"sample_compute_location", {"block"}, true, true, false, ApplySampleComputeLocation},
      {"cache_read", {"block"}, false, false, false, ApplyCacheRead},
      {"cache_write", {"block"}, false, false, false, ApplyCacheWrite},
      {"decompose_reduction", {"block", "loop"}, false, false, false, ApplyDecomposeReduction},
      {"reindex", {"block"}, false, false, false, ApplyReindex},
      {"rfactor", {"loop"}, false, false, false, ApplyRFactor},
      {"set_scope", {"block"}, false, false, false, ApplySetScope},
      {"storage_align", {"block"}, false, false, false, ApplyStorageAlign},
  };
  return *kinds;
}

const InstructionKind* FindInstructionKind(absl::string_view name) {
  for (const InstructionKind& k : AllInstructionKinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace tessel::ir::schedule
