// The Schedule's caching and reduction primitives (see schedule.h): handles,
// tracing and the transaction around cache_read.h's, decompose_reduction.h's
// ... free functions.
//
//   BlockRV local = *sch.CacheWrite(c, 0, "local");   // b3 = sch.cache_write(block=b0,
//                                                      //   write_buffer_index=0,
//                                                      storage_scope="local")
//   BlockRV init = *sch.DecomposeReduction(c, k);     // b4 = sch.decompose_reduction(block=b0,
//   loop=l2)
#include "absl/strings/str_cat.h"
#include "ir/schedule/cache_read_write.h"
#include "ir/schedule/decompose_reduction.h"
#include "ir/schedule/reindex.h"
#include "ir/schedule/rfactor.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/set_scope.h"
#include "ir/schedule/storage_align.h"

namespace tessel::ir::schedule {

namespace {

RV BlockOf(BlockRV b) { return RV{'b', b.id}; }
RV LoopOf(LoopRV l) { return RV{'l', l.id}; }

}  // namespace

// A primitive returning a new block's name: resolve, call, commit, record.
#define TESSEL_SCHEDULE_NEW_BLOCK(kind_name, inputs_expr, attrs_expr, call_expr) \
  Instruction inst{kind_name, inputs_expr, attrs_expr, {}, std::nullopt};        \
  absl::StatusOr<std::string> made = call_expr;                                  \
  if (!made.ok()) return Fail(inst, made.status());                              \
  Commit(kind_name);                                                             \
  BlockRV out{NewHandle({'b', state_.func_name(), *made, nullptr, 0, ""})};      \
  inst.outputs = {BlockOf(out)};                                                 \
  Record(std::move(inst));                                                       \
  return out

absl::StatusOr<BlockRV> Schedule::CacheRead(BlockRV block, int64_t read_buffer_index,
                                            const std::string& storage_scope) {
  absl::StatusOr<std::string> name = Resolve(block);
  TESSEL_SCHEDULE_NEW_BLOCK(
      "cache_read", {BlockOf(block)},
      (TraceAttrs{{"read_buffer_index", AttrValue(read_buffer_index)},
                  {"storage_scope", AttrValue(storage_scope)}}),
      (name.ok() ? schedule::CacheRead(&state_, *name, read_buffer_index, storage_scope)
                 : absl::StatusOr<std::string>(name.status())));
}

absl::StatusOr<BlockRV> Schedule::CacheWrite(BlockRV block, int64_t write_buffer_index,
                                             const std::string& storage_scope) {
  absl::StatusOr<std::string> name = Resolve(block);
  TESSEL_SCHEDULE_NEW_BLOCK(
      "cache_write", {BlockOf(block)},
      (TraceAttrs{{"write_buffer_index", AttrValue(write_buffer_index)},
                  {"storage_scope", AttrValue(storage_scope)}}),
      (name.ok() ? schedule::CacheWrite(&state_, *name, write_buffer_index, storage_scope)
                 : absl::StatusOr<std::string>(name.status())));
}

absl::StatusOr<BlockRV> Schedule::DecomposeReduction(BlockRV block, LoopRV loop) {
  absl::StatusOr<std::string> name = Resolve(block);
  absl::StatusOr<Var> var = Resolve(loop);
  absl::Status resolved = !name.ok() ? name.status() : var.status();
  TESSEL_SCHEDULE_NEW_BLOCK("decompose_reduction",
                            (std::vector<TraceValue>{BlockOf(block), LoopOf(loop)}), {},
                            (resolved.ok() ? schedule::DecomposeReduction(&state_, *name, *var)
                                           : absl::StatusOr<std::string>(resolved)));
}

absl::StatusOr<BlockRV> Schedule::Reindex(BlockRV block, int64_t buffer_index, bool is_write) {
  absl::StatusOr<std::string> name = Resolve(block);
  TESSEL_SCHEDULE_NEW_BLOCK(
      "reindex", {BlockOf(block)},
      (TraceAttrs{{"buffer_index", AttrValue(buffer_index)}, {"is_write", AttrValue(is_write)}}),
      (name.ok() ? schedule::Reindex(&state_, *name, buffer_index, is_write)
                 : absl::StatusOr<std::string>(name.status())));
}

absl::StatusOr<BlockRV> Schedule::RFactor(LoopRV loop, int64_t factor_axis) {
  absl::StatusOr<Var> var = Resolve(loop);
  TESSEL_SCHEDULE_NEW_BLOCK("rfactor", {LoopOf(loop)},
                            (TraceAttrs{{"factor_axis", AttrValue(factor_axis)}}),
                            (var.ok() ? schedule::RFactor(&state_, *var, factor_axis)
                                      : absl::StatusOr<std::string>(var.status())));
}

#undef TESSEL_SCHEDULE_NEW_BLOCK

absl::Status Schedule::SetScope(BlockRV block, int64_t buffer_index,
                                const std::string& storage_scope) {
  Instruction inst{
      "set_scope",
      {BlockOf(block)},
      {{"buffer_index", AttrValue(buffer_index)}, {"storage_scope", AttrValue(storage_scope)}},
      {},
      std::nullopt};
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return Fail(inst, name.status());
  absl::Status ok = schedule::SetScope(&state_, *name, buffer_index, storage_scope);
  if (!ok.ok()) return Fail(inst, ok);
  Commit("set_scope");
  Record(std::move(inst));
  return absl::OkStatus();
}

absl::Status Schedule::StorageAlign(BlockRV block, int64_t buffer_index, int64_t axis,
                                    int64_t factor, int64_t offset) {
  Instruction inst{"storage_align",
                   {BlockOf(block)},
                   {{"buffer_index", AttrValue(buffer_index)},
                    {"axis", AttrValue(axis)},
                    {"factor", AttrValue(factor)},
                    {"offset", AttrValue(offset)}},
                   {},
                   std::nullopt};
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return Fail(inst, name.status());
  absl::Status ok = schedule::StorageAlign(&state_, *name, buffer_index, axis, factor, offset);
  if (!ok.ok()) return Fail(inst, ok);
  Commit("storage_align");
  Record(std::move(inst));
  return absl::OkStatus();
}

}  // namespace tessel::ir::schedule
