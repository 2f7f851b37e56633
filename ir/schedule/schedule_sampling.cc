// The Schedule's sampling instructions and tile (see schedule.h): the parts of
// the facade that draw random decisions or compose other primitives.
//
//   v = sch.SamplePerfectTile(k, 2, 16)      // e.g. {8, 8}; decision [8, 8] in the trace
//   sch.Split(k, {v[0], v[1]})
//   sch.Tile({i, j}, {{std::nullopt, 32}, {std::nullopt, 32}})   // i_0, j_0, i_1, j_1
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule {

namespace {

// Sampling walks the divisors of the extent; beyond this it would be slow.
constexpr int64_t kMaxTileExtent = int64_t{1} << 40;

template <typename T>
AttrValue ListAttr(const std::vector<T>& xs) {
  AttrValue::List list;
  list.reserve(xs.size());
  for (const T& x : xs) list.emplace_back(x);
  return AttrValue(std::move(list));
}

}  // namespace

absl::StatusOr<std::vector<ExprRV>> Schedule::SamplePerfectTile(
    LoopRV loop, int n, int64_t max_innermost_factor,
    std::optional<std::vector<int64_t>> decision) {
  Instruction inst{
      "sample_perfect_tile",
      {RV{'l', loop.id}},
      {{"n", AttrValue(int64_t{n})}, {"max_innermost_factor", AttrValue(max_innermost_factor)}},
      {},
      std::nullopt};
  if (decision) {
    TraceValue::List d(decision->begin(), decision->end());
    inst.decision = TraceValue(std::move(d));
  }
  absl::StatusOr<Var> var = Resolve(loop);
  if (!var.ok()) return Fail(inst, var.status());
  absl::StatusOr<int> sref = state_.LoopSRef(*var);
  if (!sref.ok()) return Fail(inst, sref.status());
  const ForNode* f = state_.index().loop(*sref);
  if (n < 1 || n > 64) {
    return Fail(inst, state_.ArgError(f, absl::StrCat("n must be in [1, 64], not ", n)));
  }
  std::optional<int64_t> extent = ConstInt(f->extent);
  if (!extent || *extent < 1 || *extent > kMaxTileExtent) {
    return Fail(inst, state_.Error(f, absl::StrCat(DescribeLoop(f),
                                                   " needs a constant extent in [1, 2^40] to "
                                                   "be tiled perfectly")));
  }
  if (n == 1 && max_innermost_factor > 0 && *extent > max_innermost_factor) {
    return Fail(inst, state_.ArgError(f, absl::StrCat("with n = 1 the only tiling is [", *extent,
                                                      "], above max_innermost_factor = ",
                                                      max_innermost_factor)));
  }
  std::vector<int64_t> tile;
  if (decision) {
    std::string why = CheckPerfectTile(*decision, *extent, n, max_innermost_factor);
    if (!why.empty()) return Fail(inst, state_.ArgError(f, why));
    tile = *decision;
  } else {
    tile = schedule::SamplePerfectTile(&rng_, *extent, n, max_innermost_factor);
    inst.decision = TraceValue(TraceValue::List(tile.begin(), tile.end()));
  }
  std::vector<ExprRV> out;
  for (int64_t v : tile) {
    out.push_back({NewHandle({'v', state_.func_name(), "", nullptr, v, ""})});
    inst.outputs.push_back(RV{'v', out.back().id});
  }
  Record(std::move(inst));
  return out;
}

absl::StatusOr<ExprRV> Schedule::SampleCategorical(const std::vector<int64_t>& candidates,
                                                   const std::vector<double>& probs,
                                                   std::optional<int64_t> decision) {
  Instruction inst;
  inst.kind = "sample_categorical";
  inst.attrs.emplace_back("candidates", ListAttr(candidates));
  inst.attrs.emplace_back("probs", ListAttr(probs));
  if (decision) inst.decision = TraceValue(*decision);
  std::string why = CheckCategorical(candidates, probs);
  if (!why.empty()) return Fail(inst, absl::InvalidArgumentError(why));
  int64_t index;
  if (decision) {
    if (*decision < 0 || *decision >= static_cast<int64_t>(candidates.size())) {
      return Fail(inst, absl::InvalidArgumentError(absl::StrCat("the decision ", *decision,
                                                                " is not an index into the ",
                                                                candidates.size(), " candidates")));
    }
    index = *decision;
  } else {
    index = schedule::SampleCategorical(&rng_, probs);
    inst.decision = TraceValue(index);
  }
  ExprRV out{NewHandle({'v', state_.func_name(), "", nullptr, candidates[index], ""})};
  inst.outputs = {RV{'v', out.id}};
  Record(std::move(inst));
  return out;
}

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
