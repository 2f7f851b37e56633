// The Schedule facade for the structure and layout primitives: blockize,
// tensorize, transform_layout and pad_einsum (see schedule.h).
#include "absl/strings/str_cat.h"
#include "ir/schedule/blockize.h"
#include "ir/schedule/pad_einsum.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/tensorize.h"
#include "ir/schedule/transform_layout.h"

namespace tessel::ir::schedule {

absl::StatusOr<BlockRV> Schedule::Blockize(LoopRV loop) {
  Instruction inst{"blockize", {RV{'l', loop.id}}, {}, {}, std::nullopt};
  absl::StatusOr<Var> var = Resolve(loop);
  if (!var.ok()) return Fail(inst, var.status());
  absl::StatusOr<std::string> name = schedule::Blockize(&state_, *var);
  if (!name.ok()) return Fail(inst, name.status());
  Commit("blockize");
  BlockRV out{NewHandle({'b', state_.func_name(), *name, nullptr, 0, ""})};
  inst.outputs = {RV{'b', out.id}};
  Record(std::move(inst));
  return out;
}

absl::Status Schedule::Tensorize(BlockRV block, const std::string& intrin_name) {
  Instruction inst{"tensorize",
                   {RV{'b', block.id}},
                   {{"intrin_name", AttrValue(intrin_name)}},
                   {},
                   std::nullopt};
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return Fail(inst, name.status());
  if (absl::Status ok = schedule::Tensorize(&state_, *name, intrin_name); !ok.ok()) {
    return Fail(inst, ok);
  }
  Commit("tensorize");
  Record(std::move(inst));
  return absl::OkStatus();
}

absl::Status Schedule::Tensorize(LoopRV loop, const std::string& intrin_name) {
  Instruction inst{"tensorize",
                   {RV{'l', loop.id}},
                   {{"intrin_name", AttrValue(intrin_name)}},
                   {},
                   std::nullopt};
  absl::StatusOr<Var> var = Resolve(loop);
  if (!var.ok()) return Fail(inst, var.status());
  // Blockize and tensorize on a copy: both happen or neither.
  ScheduleState work = state_;
  absl::StatusOr<std::string> name = schedule::Blockize(&work, *var);
  if (!name.ok()) return Fail(inst, name.status());
  if (absl::Status ok = schedule::Tensorize(&work, *name, intrin_name); !ok.ok()) {
    return Fail(inst, ok);
  }
  state_ = std::move(work);
  Commit("tensorize");
  Record(std::move(inst));
  return absl::OkStatus();
}

namespace {

AttrValue BufferAttr(const BufferRef& buffer) {
  if (const auto* name = std::get_if<std::string>(&buffer)) return AttrValue(*name);
  return AttrValue(std::get<int64_t>(buffer));
}

}  // namespace

absl::Status Schedule::TransformLayout(BlockRV block, const BufferRef& buffer,
                                       const IndexMap& index_map) {
  Instruction inst{"transform_layout",
                   {RV{'b', block.id}},
                   {{"buffer", BufferAttr(buffer)}, {"index_map", AttrValue(index_map.ToPython())}},
                   {},
                   std::nullopt};
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return Fail(inst, name.status());
  if (absl::Status ok = schedule::TransformLayout(&state_, *name, buffer, index_map); !ok.ok()) {
    return Fail(inst, ok);
  }
  Commit("transform_layout");
  Record(std::move(inst));
  return absl::OkStatus();
}

absl::Status Schedule::TransformLayout(BlockRV block, const BufferRef& buffer,
                                       const std::string& index_map) {
  absl::StatusOr<IndexMap> map = IndexMap::Parse(index_map);
  if (!map.ok()) {
    Instruction inst{"transform_layout",
                     {RV{'b', block.id}},
                     {{"buffer", BufferAttr(buffer)}, {"index_map", AttrValue(index_map)}},
                     {},
                     std::nullopt};
    return Fail(inst, map.status());
  }
  return TransformLayout(block, buffer, *map);
}

absl::Status Schedule::PadEinsum(BlockRV block, const std::vector<int64_t>& padding) {
  AttrValue::List factors;
  for (int64_t p : padding) factors.push_back(AttrValue(p));
  Instruction inst{
      "pad_einsum", {RV{'b', block.id}}, {{"padding", AttrValue(factors)}}, {}, std::nullopt};
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return Fail(inst, name.status());
  if (absl::Status ok = schedule::PadEinsum(&state_, *name, padding); !ok.ok()) {
    return Fail(inst, ok);
  }
  Commit("pad_einsum");
  Record(std::move(inst));
  return absl::OkStatus();
}

}  // namespace tessel::ir::schedule
