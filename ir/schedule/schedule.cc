// The Schedule facade: handles, the module, and the outputs of primitives (see
// schedule.h; Apply, the one path every primitive takes, is a template there).
// Tile lives in schedule_tile.cc.
#include "ir/schedule/schedule.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"
#include "ir/verifier.h"

namespace tessel::ir::schedule {

namespace {

absl::StatusOr<PrimFunc> FindFunction(const IRModule& mod, const std::string& name) {
  PrimFunc f = mod->Lookup(name);
  if (f) return f;
  std::vector<std::string> names;
  for (const auto& [n, fn] : mod->functions) names.push_back(n);
  return absl::NotFoundError(absl::StrCat("no function '", name, "' in the module; it has ",
                                          names.empty() ? "none" : absl::StrJoin(names, ", ")));
}

}  // namespace

Schedule::Schedule(IRModule mod, ScheduleState state, uint64_t seed)
    : mod_(std::move(mod)), state_(std::move(state)), rng_(seed) {}

absl::StatusOr<Schedule> Schedule::Create(IRModule mod, const std::string& func_name,
                                          uint64_t seed) {
  if (!mod) return absl::InvalidArgumentError("schedule: no module");
  if (mod->functions.empty()) {
    return absl::InvalidArgumentError("schedule: the module has no functions");
  }
  std::string name = func_name.empty() ? mod->functions.front().first : func_name;
  TESSEL_ASSIGN_OR_RETURN(PrimFunc f, FindFunction(mod, name));
  if (absl::Status ok = VerifyFunction(f, name); !ok.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule: function '", name, "' is not valid IR: ", ok.message()));
  }
  return Schedule(mod, ScheduleState(f, name), seed);
}

absl::Status Schedule::WorkOn(const std::string& func_name) {
  TESSEL_ASSIGN_OR_RETURN(PrimFunc f, FindFunction(mod_, func_name));
  if (absl::Status ok = VerifyFunction(f, func_name); !ok.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule: function '", func_name, "' is not valid IR: ", ok.message()));
  }
  state_ = ScheduleState(f, func_name);
  return absl::OkStatus();
}

const Trace& Schedule::trace() const {
  static const Trace* empty = new Trace();
  auto it = traces_.find(state_.func_name());
  return it == traces_.end() ? *empty : it->second;
}

// ---- Handles ------------------------------------------------------------------------

int64_t Schedule::NewHandle(Handle h) {
  handles_.push_back(std::move(h));
  return static_cast<int64_t>(handles_.size()) - 1;
}

namespace {

const char* KindWord(char kind) { return kind == 'b' ? "block" : kind == 'l' ? "loop" : "value"; }

}  // namespace

absl::Status Schedule::CheckHandle(int64_t id, char want) const {
  const std::string name = RV{want, id}.Name();
  if (id < 0 || id >= static_cast<int64_t>(handles_.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is not a ", KindWord(want), " handle of this schedule"));
  }
  const Handle& h = handles_[id];
  if (h.kind != want) {
    return absl::InvalidArgumentError(absl::StrCat("handle ", RV{h.kind, id}.Name(), " is a ",
                                                   KindWord(h.kind), ", not a ", KindWord(want)));
  }
  if (h.func != state_.func_name()) {
    return absl::FailedPreconditionError(
        absl::StrCat(KindWord(want), " handle ", name, " belongs to function '", h.func,
                     "'; the schedule works on '", state_.func_name(), "'"));
  }
  if (!h.consumed_by.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(KindWord(want), " handle ", name, " was consumed by ", h.consumed_by));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Schedule::Resolve(BlockRV rv) const {
  TESSEL_RETURN_IF_ERROR(CheckHandle(rv.id, 'b'));
  return handles_[rv.id].block;
}

absl::StatusOr<Var> Schedule::Resolve(LoopRV rv) const {
  TESSEL_RETURN_IF_ERROR(CheckHandle(rv.id, 'l'));
  if (!handles_[rv.id].loop) {
    return absl::InvalidArgumentError(
        absl::StrCat("loop handle ", RV{'l', rv.id}.Name(), " is the compute location ",
                     handles_[rv.id].value == kRootLocation ? "root" : "inline", ", not a loop"));
  }
  return handles_[rv.id].loop;
}

absl::StatusOr<int64_t> Schedule::Resolve(ExprRV rv) const {
  if (rv.id < 0 || rv.id >= static_cast<int64_t>(handles_.size()) || handles_[rv.id].kind != 'v') {
    return absl::InvalidArgumentError(
        absl::StrCat(RV{'v', rv.id}.Name(), " is not a value handle of this schedule"));
  }
  return handles_[rv.id].value;  // Values are plain integers: valid in every function.
}

absl::StatusOr<Block> Schedule::Get(BlockRV block) const {
  TESSEL_ASSIGN_OR_RETURN(std::string name, Resolve(block));
  TESSEL_ASSIGN_OR_RETURN(int s, state_.BlockSRef(name));
  return state_.index().realize(s)->block;
}

absl::StatusOr<Ref<const ForNode>> Schedule::Get(LoopRV loop) const {
  TESSEL_ASSIGN_OR_RETURN(Var var, Resolve(loop));
  TESSEL_ASSIGN_OR_RETURN(int s, state_.LoopSRef(var));
  return GetRef(state_.index().loop(s));
}

absl::StatusOr<int64_t> Schedule::Get(ExprRV value) const { return Resolve(value); }

void Schedule::MarkConsumed(const std::string& primitive) {
  for (Handle& h : handles_) {
    if (h.func != state_.func_name() || !h.consumed_by.empty()) continue;
    bool gone = (h.kind == 'b' && state_.index().FindBlock(h.block) < 0) ||
                (h.kind == 'l' && h.loop && state_.index().FindLoop(h.loop.get()) < 0);
    if (gone) h.consumed_by = primitive;
  }
}

void Schedule::Commit(const std::string& primitive) {
  // A primitive that changed nothing (a reorder into the present order) keeps
  // the very same module, so "did this change" stays a pointer test.
  if (!mod_->Lookup(state_.func_name()).same_as(state_.func())) {
    mod_ = WithFunction(mod_, state_.func_name(), state_.func());
  }
  MarkConsumed(primitive);
}

absl::Status Schedule::Fail(const Instruction& inst, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(inst.CallToPython(), ": ", status.message()));
}

// ---- Outputs and special locations ---------------------------------------------------

BlockRV Schedule::MakeOutput(const std::string& block, Instruction* inst) {
  BlockRV out{NewHandle({'b', state_.func_name(), block, nullptr, 0, ""})};
  inst->outputs.push_back(RV{'b', out.id});
  return out;
}

LoopRV Schedule::MakeOutput(const Var& loop, Instruction* inst) {
  LoopRV out{NewHandle({'l', state_.func_name(), "", loop, 0, ""})};
  inst->outputs.push_back(RV{'l', out.id});
  return out;
}

LoopRV Schedule::MakeOutput(const ResolvedLocation& location, Instruction* inst) {
  if (const Var* loop = std::get_if<Var>(&location)) return MakeOutput(*loop, inst);
  LoopRV out{NewHandle({'l', state_.func_name(), "", nullptr, std::get<int64_t>(location), ""})};
  inst->outputs.push_back(RV{'l', out.id});
  return out;
}

ExprRV Schedule::MakeOutput(int64_t value, Instruction* inst) {
  ExprRV out{NewHandle({'v', state_.func_name(), "", nullptr, value, ""})};
  inst->outputs.push_back(RV{'v', out.id});
  return out;
}

std::optional<int64_t> Schedule::SpecialLocation(LoopRV rv) const {
  if (!CheckHandle(rv.id, 'l').ok() || handles_[rv.id].loop) return std::nullopt;
  return handles_[rv.id].value;
}

}  // namespace tessel::ir::schedule
