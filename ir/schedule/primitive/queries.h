// Queries over the schedule state: find blocks, the loops above a block, the
// blocks below a loop or block, and producer/consumer blocks.
//
//   for i { for j { block B(...) writes T }  }   for i2 { block C(...) reads T }
//   GetBlock(state, "B")          -> "B"         (an error listing the blocks if absent)
//   GetLoops(state, "B")          -> [i, j]      (outermost first, up to the enclosing block)
//   GetChildBlocks(state, i)      -> ["B"]
//   GetConsumers(state, "B")      -> ["C"];  GetProducers(state, "C") -> ["B"]
//
// Producers and consumers are blocks of the same scope (the enclosing block, or
// the function body) linked by a buffer one writes and the other reads: a
// producer comes before the block in program order, a consumer after.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_QUERIES_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_QUERIES_H_

#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::StatusOr<std::string> GetBlock(const ScheduleState& state, const std::string& name);
absl::StatusOr<std::vector<Var>> GetLoops(const ScheduleState& state, const std::string& block);
absl::StatusOr<std::vector<std::string>> GetChildBlocks(const ScheduleState& state,
                                                        const std::string& block);
absl::StatusOr<std::vector<std::string>> GetChildBlocks(const ScheduleState& state,
                                                        const Var& loop);
absl::StatusOr<std::vector<std::string>> GetProducers(const ScheduleState& state,
                                                      const std::string& block);
absl::StatusOr<std::vector<std::string>> GetConsumers(const ScheduleState& state,
                                                      const std::string& block);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.get_block(...): The block named `name`.
struct GetBlock {
  using Self = GetBlock;
  std::string name;

  static constexpr PrimitiveInfo kInfo{
      .name = "get_block", .pure = true, .doc = "The block named `name`."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(name)};
  static absl::StatusOr<std::string> Apply(PrimitiveContext& ctx, const std::string& name) {
    return schedule::GetBlock(*ctx.state(), name);
  }
};

// sch.get_loops(...): The loops above `block`, outermost first.
struct GetLoops {
  using Self = GetLoops;
  BlockRV block;

  static constexpr PrimitiveInfo kInfo{
      .name = "get_loops", .pure = true, .doc = "The loops above `block`, outermost first."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block)};
  static absl::StatusOr<std::vector<Var>> Apply(PrimitiveContext& ctx, const std::string& block) {
    return schedule::GetLoops(*ctx.state(), block);
  }
};

// sch.get_child_blocks(...): The blocks directly below a block or loop.
struct GetChildBlocks {
  using Self = GetChildBlocks;
  BlockOrLoop block_or_loop;

  static constexpr PrimitiveInfo kInfo{.name = "get_child_blocks",
                                       .pure = true,
                                       .doc = "The blocks directly below a block or loop."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block_or_loop)};
  static absl::StatusOr<std::vector<std::string>> Apply(
      PrimitiveContext& ctx, const std::variant<std::string, Var>& block_or_loop) {
    return std::visit([&](const auto& x) { return schedule::GetChildBlocks(*ctx.state(), x); },
                      block_or_loop);
  }
};

// sch.get_producers(...): Earlier blocks of the same scope writing what `block` reads.
struct GetProducers {
  using Self = GetProducers;
  BlockRV block;

  static constexpr PrimitiveInfo kInfo{
      .name = "get_producers",
      .pure = true,
      .doc = "Earlier blocks of the same scope writing what `block` reads."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block)};
  static absl::StatusOr<std::vector<std::string>> Apply(PrimitiveContext& ctx,
                                                        const std::string& block) {
    return schedule::GetProducers(*ctx.state(), block);
  }
};

// sch.get_consumers(...): Later blocks of the same scope reading what `block` writes.
struct GetConsumers {
  using Self = GetConsumers;
  BlockRV block;

  static constexpr PrimitiveInfo kInfo{
      .name = "get_consumers",
      .pure = true,
      .doc = "Later blocks of the same scope reading what `block` writes."};
  static constexpr auto kArgs = std::tuple{TESSEL_ARG(block)};
  static absl::StatusOr<std::vector<std::string>> Apply(PrimitiveContext& ctx,
                                                        const std::string& block) {
    return schedule::GetConsumers(*ctx.state(), block);
  }
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_QUERIES_H_
