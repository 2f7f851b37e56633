// The Schedule facade: handles, transactions and tracing around the primitives
// (see schedule.h). Sampling and tile live in schedule_sampling.cc.
#include "ir/schedule/schedule.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/add_unit_loop.h"
#include "ir/schedule/annotate.h"
#include "ir/schedule/fuse.h"
#include "ir/schedule/loop_kind.h"
#include "ir/schedule/queries.h"
#include "ir/schedule/reorder.h"
#include "ir/schedule/split.h"
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

RV LoopOf(LoopRV l) { return RV{'l', l.id}; }
RV BlockOf(BlockRV b) { return RV{'b', b.id}; }

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
  absl::StatusOr<PrimFunc> f = FindFunction(mod, name);
  if (!f.ok()) return f.status();
  if (absl::Status ok = VerifyFunction(*f, name); !ok.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule: function '", name, "' is not valid IR: ", ok.message()));
  }
  return Schedule(mod, ScheduleState(*f, name), seed);
}

absl::Status Schedule::WorkOn(const std::string& func_name) {
  absl::StatusOr<PrimFunc> f = FindFunction(mod_, func_name);
  if (!f.ok()) return f.status();
  if (absl::Status ok = VerifyFunction(*f, func_name); !ok.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule: function '", func_name, "' is not valid IR: ", ok.message()));
  }
  state_ = ScheduleState(*f, func_name);
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
  if (absl::Status ok = CheckHandle(rv.id, 'b'); !ok.ok()) return ok;
  return handles_[rv.id].block;
}

absl::StatusOr<Var> Schedule::Resolve(LoopRV rv) const {
  if (absl::Status ok = CheckHandle(rv.id, 'l'); !ok.ok()) return ok;
  if (!handles_[rv.id].loop) {
    return absl::InvalidArgumentError(absl::StrCat(
        "loop handle ", RV{'l', rv.id}.Name(), " is the compute location ",
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
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return name.status();
  absl::StatusOr<int> s = state_.BlockSRef(*name);
  if (!s.ok()) return s.status();
  return state_.index().realize(*s)->block;
}

absl::StatusOr<Ref<const ForNode>> Schedule::Get(LoopRV loop) const {
  absl::StatusOr<Var> var = Resolve(loop);
  if (!var.ok()) return var.status();
  absl::StatusOr<int> s = state_.LoopSRef(*var);
  if (!s.ok()) return s.status();
  return GetRef(state_.index().loop(*s));
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

// ---- Queries -------------------------------------------------------------------------

absl::StatusOr<BlockRV> Schedule::GetBlock(const std::string& name) {
  Instruction inst{"get_block", {}, {{"name", AttrValue(name)}}, {}, std::nullopt};
  absl::StatusOr<std::string> found = schedule::GetBlock(state_, name);
  if (!found.ok()) return Fail(inst, found.status());
  BlockRV out{NewHandle({'b', state_.func_name(), *found, nullptr, 0, ""})};
  inst.outputs = {BlockOf(out)};
  Record(std::move(inst));
  return out;
}

absl::StatusOr<std::vector<LoopRV>> Schedule::GetLoops(BlockRV block) {
  Instruction inst{"get_loops", {BlockOf(block)}, {}, {}, std::nullopt};
  absl::StatusOr<std::string> name = Resolve(block);
  if (!name.ok()) return Fail(inst, name.status());
  absl::StatusOr<std::vector<Var>> loops = schedule::GetLoops(state_, *name);
  if (!loops.ok()) return Fail(inst, loops.status());
  std::vector<LoopRV> out;
  for (const Var& v : *loops) {
    out.push_back({NewHandle({'l', state_.func_name(), "", v, 0, ""})});
    inst.outputs.push_back(LoopOf(out.back()));
  }
  Record(std::move(inst));
  return out;
}

#define TESSEL_SCHEDULE_BLOCK_LIST(kind_name, input, resolve_expr, query_expr) \
  Instruction inst{kind_name, {input}, {}, {}, std::nullopt};                  \
  auto target = resolve_expr;                                                  \
  if (!target.ok()) return Fail(inst, target.status());                        \
  absl::StatusOr<std::vector<std::string>> names = query_expr;                 \
  if (!names.ok()) return Fail(inst, names.status());                          \
  std::vector<BlockRV> out;                                                    \
  for (const std::string& n : *names) {                                        \
    out.push_back({NewHandle({'b', state_.func_name(), n, nullptr, 0, ""})});  \
    inst.outputs.push_back(BlockOf(out.back()));                               \
  }                                                                            \
  Record(std::move(inst));                                                     \
  return out

absl::StatusOr<std::vector<BlockRV>> Schedule::GetChildBlocks(BlockRV block) {
  TESSEL_SCHEDULE_BLOCK_LIST("get_child_blocks", BlockOf(block), Resolve(block),
                             schedule::GetChildBlocks(state_, *target));
}

absl::StatusOr<std::vector<BlockRV>> Schedule::GetChildBlocks(LoopRV loop) {
  TESSEL_SCHEDULE_BLOCK_LIST("get_child_blocks", LoopOf(loop), Resolve(loop),
                             schedule::GetChildBlocks(state_, *target));
}

absl::StatusOr<std::vector<BlockRV>> Schedule::GetProducers(BlockRV block) {
  TESSEL_SCHEDULE_BLOCK_LIST("get_producers", BlockOf(block), Resolve(block),
                             schedule::GetProducers(state_, *target));
}

absl::StatusOr<std::vector<BlockRV>> Schedule::GetConsumers(BlockRV block) {
  TESSEL_SCHEDULE_BLOCK_LIST("get_consumers", BlockOf(block), Resolve(block),
                             schedule::GetConsumers(state_, *target));
}

#undef TESSEL_SCHEDULE_BLOCK_LIST

// ---- Loop primitives -------------------------------------------------------------------

absl::StatusOr<std::vector<std::optional<int64_t>>> Schedule::FactorValues(
    const std::vector<Factor>& factors, std::vector<TraceValue>* traced) const {
  for (const Factor& f : factors) {
    if (f.is_inferred())
      traced->push_back(TraceValue());
    else if (f.value())
      traced->push_back(TraceValue(*f.value()));
    else
      traced->push_back(TraceValue(RV{'v', f.rv().id}));
  }
  std::vector<std::optional<int64_t>> values;
  for (const Factor& f : factors) {
    if (f.is_inferred() || f.value()) {
      values.push_back(f.value());
      continue;
    }
    absl::StatusOr<int64_t> v = Resolve(f.rv());
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  return values;
}

absl::StatusOr<std::vector<LoopRV>> Schedule::Split(LoopRV loop,
                                                    const std::vector<Factor>& factors) {
  std::vector<TraceValue> traced;
  absl::StatusOr<std::vector<std::optional<int64_t>>> values = FactorValues(factors, &traced);
  Instruction inst{"split", {LoopOf(loop), TraceValue(std::move(traced))}, {}, {}, std::nullopt};
  if (!values.ok()) return Fail(inst, values.status());
  absl::StatusOr<Var> var = Resolve(loop);
  if (!var.ok()) return Fail(inst, var.status());
  absl::StatusOr<std::vector<Var>> vars = schedule::Split(&state_, *var, *values);
  if (!vars.ok()) return Fail(inst, vars.status());
  Commit("split");
  std::vector<LoopRV> out;
  for (const Var& v : *vars) {
    out.push_back({NewHandle({'l', state_.func_name(), "", v, 0, ""})});
    inst.outputs.push_back(LoopOf(out.back()));
  }
  Record(std::move(inst));
  return out;
}

absl::StatusOr<LoopRV> Schedule::Fuse(const std::vector<LoopRV>& loops) {
  TraceValue::List listed;
  for (LoopRV l : loops) listed.push_back(LoopOf(l));
  Instruction inst{"fuse", {TraceValue(std::move(listed))}, {}, {}, std::nullopt};
  std::vector<Var> vars;
  for (LoopRV l : loops) {
    absl::StatusOr<Var> v = Resolve(l);
    if (!v.ok()) return Fail(inst, v.status());
    vars.push_back(*v);
  }
  absl::StatusOr<Var> fused = schedule::Fuse(&state_, vars);
  if (!fused.ok()) return Fail(inst, fused.status());
  Commit("fuse");
  LoopRV out{NewHandle({'l', state_.func_name(), "", *fused, 0, ""})};
  inst.outputs = {LoopOf(out)};
  Record(std::move(inst));
  return out;
}

absl::Status Schedule::Reorder(const std::vector<LoopRV>& order) {
  TraceValue::List listed;
  for (LoopRV l : order) listed.push_back(LoopOf(l));
  Instruction inst{"reorder", {TraceValue(std::move(listed))}, {}, {}, std::nullopt};
  std::vector<Var> vars;
  for (LoopRV l : order) {
    absl::StatusOr<Var> v = Resolve(l);
    if (!v.ok()) return Fail(inst, v.status());
    vars.push_back(*v);
  }
  if (absl::Status ok = schedule::Reorder(&state_, vars); !ok.ok()) return Fail(inst, ok);
  Commit("reorder");
  Record(std::move(inst));
  return absl::OkStatus();
}

#define TESSEL_SCHEDULE_LOOP_KIND(Method, kind_name, call)                      \
  absl::Status Schedule::Method(LoopRV loop) {                                  \
    Instruction inst{kind_name, {LoopOf(loop)}, {}, {}, std::nullopt};          \
    absl::StatusOr<Var> var = Resolve(loop);                                    \
    if (!var.ok()) return Fail(inst, var.status());                             \
    if (absl::Status ok = call(&state_, *var); !ok.ok()) return Fail(inst, ok); \
    Commit(kind_name);                                                          \
    Record(std::move(inst));                                                    \
    return absl::OkStatus();                                                    \
  }

TESSEL_SCHEDULE_LOOP_KIND(Parallel, "parallel", schedule::Parallel)
TESSEL_SCHEDULE_LOOP_KIND(Vectorize, "vectorize", schedule::Vectorize)
TESSEL_SCHEDULE_LOOP_KIND(Unroll, "unroll", schedule::Unroll)

#undef TESSEL_SCHEDULE_LOOP_KIND

absl::Status Schedule::Bind(LoopRV loop, const std::string& thread_axis) {
  Instruction inst{
      "bind", {LoopOf(loop)}, {{"thread_axis", AttrValue(thread_axis)}}, {}, std::nullopt};
  absl::StatusOr<Var> var = Resolve(loop);
  if (!var.ok()) return Fail(inst, var.status());
  if (absl::Status ok = schedule::Bind(&state_, *var, thread_axis); !ok.ok()) {
    return Fail(inst, ok);
  }
  Commit("bind");
  Record(std::move(inst));
  return absl::OkStatus();
}

// Annotate and unannotate, for either target kind: `input` is the target as a
// trace value, `resolve` gives what the primitive takes (a Var or a name).
#define TESSEL_SCHEDULE_EDIT(kind_name, inputs_expr, attrs_expr, resolve_expr, call_expr) \
  Instruction inst{kind_name, inputs_expr, attrs_expr, {}, std::nullopt};                 \
  auto target = resolve_expr;                                                             \
  if (!target.ok()) return Fail(inst, target.status());                                   \
  if (absl::Status ok = call_expr; !ok.ok()) return Fail(inst, ok);                       \
  Commit(kind_name);                                                                      \
  Record(std::move(inst));                                                                \
  return absl::OkStatus()

absl::Status Schedule::Annotate(LoopRV loop, const std::string& key, const AttrValue& value) {
  TESSEL_SCHEDULE_EDIT("annotate", {LoopOf(loop)},
                       (TraceAttrs{{"ann_key", AttrValue(key)}, {"ann_val", value}}), Resolve(loop),
                       schedule::Annotate(&state_, *target, key, value));
}

absl::Status Schedule::Annotate(BlockRV block, const std::string& key, const AttrValue& value) {
  TESSEL_SCHEDULE_EDIT("annotate", {BlockOf(block)},
                       (TraceAttrs{{"ann_key", AttrValue(key)}, {"ann_val", value}}),
                       Resolve(block), schedule::Annotate(&state_, *target, key, value));
}

absl::Status Schedule::Annotate(LoopRV loop, const std::string& key, ExprRV value) {
  absl::StatusOr<int64_t> v = Resolve(value);
  AttrValue attr(v.ok() ? *v : int64_t{0});
  TESSEL_SCHEDULE_EDIT("annotate", (std::vector<TraceValue>{LoopOf(loop), RV{'v', value.id}}),
                       (TraceAttrs{{"ann_key", AttrValue(key)}}),
                       (v.ok() ? Resolve(loop) : absl::StatusOr<Var>(v.status())),
                       schedule::Annotate(&state_, *target, key, attr));
}

absl::Status Schedule::Annotate(BlockRV block, const std::string& key, ExprRV value) {
  absl::StatusOr<int64_t> v = Resolve(value);
  AttrValue attr(v.ok() ? *v : int64_t{0});
  TESSEL_SCHEDULE_EDIT("annotate", (std::vector<TraceValue>{BlockOf(block), RV{'v', value.id}}),
                       (TraceAttrs{{"ann_key", AttrValue(key)}}),
                       (v.ok() ? Resolve(block) : absl::StatusOr<std::string>(v.status())),
                       schedule::Annotate(&state_, *target, key, attr));
}

absl::Status Schedule::Unannotate(LoopRV loop, const std::string& key) {
  TESSEL_SCHEDULE_EDIT("unannotate", {LoopOf(loop)}, (TraceAttrs{{"ann_key", AttrValue(key)}}),
                       Resolve(loop), schedule::Unannotate(&state_, *target, key));
}

absl::Status Schedule::Unannotate(BlockRV block, const std::string& key) {
  TESSEL_SCHEDULE_EDIT("unannotate", {BlockOf(block)}, (TraceAttrs{{"ann_key", AttrValue(key)}}),
                       Resolve(block), schedule::Unannotate(&state_, *target, key));
}

#undef TESSEL_SCHEDULE_EDIT

#define TESSEL_SCHEDULE_UNIT_LOOP(input, resolve_expr)              \
  Instruction inst{"add_unit_loop", {input}, {}, {}, std::nullopt}; \
  auto target = resolve_expr;                                       \
  if (!target.ok()) return Fail(inst, target.status());             \
  absl::StatusOr<Var> u = schedule::AddUnitLoop(&state_, *target);  \
  if (!u.ok()) return Fail(inst, u.status());                       \
  Commit("add_unit_loop");                                          \
  LoopRV out{NewHandle({'l', state_.func_name(), "", *u, 0, ""})};  \
  inst.outputs = {LoopOf(out)};                                     \
  Record(std::move(inst));                                          \
  return out

absl::StatusOr<LoopRV> Schedule::AddUnitLoop(BlockRV block) {
  TESSEL_SCHEDULE_UNIT_LOOP(BlockOf(block), Resolve(block));
}

absl::StatusOr<LoopRV> Schedule::AddUnitLoop(LoopRV loop) {
  TESSEL_SCHEDULE_UNIT_LOOP(LoopOf(loop), Resolve(loop));
}

#undef TESSEL_SCHEDULE_UNIT_LOOP

}  // namespace tessel::ir::schedule
