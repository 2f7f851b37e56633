// Traces: printing, decisions, dead-code removal and replay (see trace.h);
// the JSON form is in trace_json.cc.
#include "ir/schedule/trace.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/schedule/schedule.h"
#include "ir/status_macros.h"

namespace tessel::ir::schedule {

namespace {

int64_t Key(const RV& rv) { return rv.id * 4 + (rv.kind == 'b' ? 0 : rv.kind == 'l' ? 1 : 2); }

void CollectRVs(const TraceValue& v, absl::flat_hash_set<int64_t>* used) {
  if (v.is_rv()) used->insert(Key(v.as_rv()));
  if (v.is_list()) {
    for (const TraceValue& x : v.as_list()) CollectRVs(x, used);
  }
}

// `v` with every handle replaced through `map`; an unknown handle is an error.
absl::StatusOr<TraceValue> MapRVs(const TraceValue& v,
                                  const absl::flat_hash_map<int64_t, RV>& map) {
  if (v.is_rv()) {
    auto it = map.find(Key(v.as_rv()));
    if (it == map.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(v.as_rv().Name(), " is used before any instruction defines it"));
    }
    return TraceValue(it->second);
  }
  if (v.is_list()) {
    TraceValue::List out;
    for (const TraceValue& x : v.as_list()) {
      TESSEL_ASSIGN_OR_RETURN(TraceValue m, MapRVs(x, map));
      out.push_back(std::move(m));
    }
    return TraceValue(std::move(out));
  }
  return v;
}

}  // namespace

std::string Trace::AsPython() const {
  std::string out;
  for (const Instruction& inst : insts_) absl::StrAppend(&out, inst.ToPython(), "\n");
  return out;
}

absl::StatusOr<Trace> Trace::WithDecision(size_t index, TraceValue decision) const {
  if (index >= insts_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("with_decision: the trace has ", insts_.size(),
                                                   " instructions, no index ", index));
  }
  const InstructionKind* kind = FindInstructionKind(insts_[index].kind);
  if (kind == nullptr || !kind->sampling) {
    return absl::InvalidArgumentError(absl::StrCat("with_decision: instruction ", index, " (",
                                                   insts_[index].kind,
                                                   ") is not a sampling instruction"));
  }
  Trace copy = *this;
  copy.insts_[index].decision = std::move(decision);
  return copy;
}

Trace Trace::Simplified() const {
  absl::flat_hash_set<int64_t> used;
  std::vector<bool> keep(insts_.size(), false);
  for (size_t k = insts_.size(); k-- > 0;) {
    const Instruction& inst = insts_[k];
    const InstructionKind* kind = FindInstructionKind(inst.kind);
    bool live = kind == nullptr || !kind->pure;
    for (const RV& rv : inst.outputs) live |= used.contains(Key(rv));
    if (!live) continue;
    keep[k] = true;
    for (const TraceValue& v : inst.inputs) CollectRVs(v, &used);
  }
  std::vector<Instruction> out;
  for (size_t k = 0; k < insts_.size(); ++k) {
    if (keep[k]) out.push_back(insts_[k]);
  }
  return Trace(std::move(out));
}

absl::Status Trace::ApplyToSchedule(Schedule* sch, const ReplayObserver& observer) const {
  Schedule backup = *sch;  // Replay is all or nothing.
  absl::flat_hash_map<int64_t, RV> map;
  for (size_t k = 0; k < insts_.size(); ++k) {
    const Instruction& inst = insts_[k];
    auto fail = [&](const absl::Status& s) {
      *sch = backup;
      // Failures of the facade already name the call; others get the line.
      std::string where =
          absl::StartsWith(s.message(), "sch.")
              ? absl::StrCat("replaying instruction ", k, ": ")
              : absl::StrCat("replaying instruction ", k, " (", inst.ToPython(), "): ");
      return absl::Status(s.code(), absl::StrCat(where, s.message()));
    };
    const InstructionKind* kind = FindInstructionKind(inst.kind);
    if (kind == nullptr) return fail(absl::InvalidArgumentError("unknown instruction kind"));
    Instruction mapped = inst;
    mapped.outputs.clear();
    for (TraceValue& v : mapped.inputs) {
      absl::StatusOr<TraceValue> m = MapRVs(v, map);
      if (!m.ok()) return fail(m.status());
      v = *std::move(m);
    }
    if (observer) observer(k, mapped, *sch);
    absl::StatusOr<std::vector<RV>> outs = kind->apply(sch, mapped);
    if (!outs.ok()) return fail(outs.status());
    if (outs->size() != inst.outputs.size()) {
      return fail(absl::FailedPreconditionError(
          absl::StrCat("it produced ", outs->size(), " outputs here but ", inst.outputs.size(),
                       " when recorded; the function differs from the one traced")));
    }
    for (size_t o = 0; o < outs->size(); ++o) {
      if ((*outs)[o].kind != inst.outputs[o].kind) {
        return fail(absl::InvalidArgumentError(
            absl::StrCat("output ", inst.outputs[o].Name(), " has the wrong kind")));
      }
      map[Key(inst.outputs[o])] = (*outs)[o];
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::ir::schedule
