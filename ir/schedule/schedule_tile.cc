// Schedule::Tile (see schedule.h): a composition of primitives, traced as its
// splits and one reorder, and undone whole if one of them fails.
//
//   sch.Tile({i, j}, {{std::nullopt, 32}, {std::nullopt, 32}})   // i_0, j_0, i_1, j_1
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule {

absl::StatusOr<std::vector<LoopRV>> Schedule::Tile(
    const std::vector<LoopRV>& loops, const std::vector<std::vector<Factor>>& factors) {
  // The call as Python, for messages (tile is traced as its parts).
  std::vector<std::string> loop_names, factor_lists;
  for (LoopRV l : loops) loop_names.push_back(RV{'l', l.id}.Name());
  for (const std::vector<Factor>& fs : factors) {
    std::vector<std::string> one;
    for (const Factor& f : fs) {
      one.push_back(f.is_inferred() ? "None"
                    : f.value()     ? absl::StrCat(*f.value())
                                    : RV{'v', f.rv().id}.Name());
    }
    factor_lists.push_back(absl::StrCat("[", absl::StrJoin(one, ", "), "]"));
  }
  std::string call = absl::StrCat("sch.tile(loops=[", absl::StrJoin(loop_names, ", "),
                                  "], factors=[", absl::StrJoin(factor_lists, ", "), "])");
  auto fail = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat(call, ": ", s.message()));
  };
  if (loops.empty() || loops.size() != factors.size()) {
    return fail(absl::InvalidArgumentError(absl::StrCat("tile needs one factor list per loop, got ",
                                                        loops.size(), " loops and ", factors.size(),
                                                        " factor lists")));
  }
  for (const std::vector<Factor>& fs : factors) {
    if (fs.size() != factors[0].size() || fs.size() < 2) {
      return fail(absl::InvalidArgumentError("tile needs factor lists of one length, at least 2"));
    }
  }
  Schedule backup = *this;  // Tile is several primitives: undo all if one fails.
  std::vector<std::vector<LoopRV>> parts;
  for (size_t k = 0; k < loops.size(); ++k) {
    absl::StatusOr<std::vector<LoopRV>> split = Split(loops[k], factors[k]);
    if (!split.ok()) {
      *this = std::move(backup);
      return fail(split.status());
    }
    parts.push_back(*split);
  }
  std::vector<LoopRV> order;
  for (size_t level = 0; level < factors[0].size(); ++level) {
    for (const std::vector<LoopRV>& p : parts) order.push_back(p[level]);
  }
  if (absl::Status ok = Reorder(order); !ok.ok()) {
    *this = std::move(backup);
    return fail(ok);
  }
  return order;
}

}  // namespace tessel::ir::schedule
