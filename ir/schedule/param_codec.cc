// The codecs of param_codec.h: tracing, reading back and resolving each type a
// primitive takes.
#include "ir/schedule/param_codec.h"

#include "absl/strings/str_cat.h"
#include "ir/index_map.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule {

const TraceValue* InstructionReader::NextInput() {
  if (next_ >= inst_.inputs.size()) return nullptr;
  return &inst_.inputs[next_++];
}

absl::Status InstructionReader::Bad(const char* param, const std::string& what) const {
  return absl::InvalidArgumentError(absl::StrCat(inst_.kind, ": '", param, "' ", what));
}

absl::Status InstructionReader::CheckAllTaken() const {
  if (next_ >= inst_.inputs.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(inst_.kind, ": takes ", next_,
                                                 " inputs, the trace gives ", inst_.inputs.size()));
}

namespace {

// The next input when it is a handle of one of `kinds`.
absl::StatusOr<std::optional<RV>> ReadRV(const char* name, InstructionReader* r,
                                         absl::string_view kinds, const char* what) {
  const TraceValue* v = r->NextInput();
  if (v == nullptr) return std::optional<RV>();
  if (!v->is_rv() || kinds.find(v->as_rv().kind) == absl::string_view::npos) {
    return r->Bad(name, absl::StrCat("must be ", what, ", not ", v->ToPython()));
  }
  return std::optional<RV>(v->as_rv());
}

RV Traced(BlockRV b) { return RV{'b', b.id}; }
RV Traced(LoopRV l) { return RV{'l', l.id}; }

}  // namespace

// ---- Handles -----------------------------------------------------------------------

void ParamCodec<BlockRV>::Record(const BlockRV& v, const char*, Instruction* inst) {
  inst->inputs.push_back(Traced(v));
}
absl::StatusOr<std::optional<BlockRV>> ParamCodec<BlockRV>::Read(const char* name,
                                                                 InstructionReader* r) {
  TESSEL_ASSIGN_OR_RETURN(std::optional<RV> rv, ReadRV(name, r, "b", "a block handle"));
  if (!rv) return std::optional<BlockRV>();
  return std::optional<BlockRV>(BlockRV{rv->id});
}
absl::StatusOr<std::string> ParamCodec<BlockRV>::Resolve(const Schedule& sch, const BlockRV& v) {
  return sch.Resolve(v);
}

void ParamCodec<LoopRV>::Record(const LoopRV& v, const char*, Instruction* inst) {
  inst->inputs.push_back(Traced(v));
}
absl::StatusOr<std::optional<LoopRV>> ParamCodec<LoopRV>::Read(const char* name,
                                                               InstructionReader* r) {
  TESSEL_ASSIGN_OR_RETURN(std::optional<RV> rv, ReadRV(name, r, "l", "a loop handle"));
  if (!rv) return std::optional<LoopRV>();
  return std::optional<LoopRV>(LoopRV{rv->id});
}
absl::StatusOr<Var> ParamCodec<LoopRV>::Resolve(const Schedule& sch, const LoopRV& v) {
  return sch.Resolve(v);
}

void ParamCodec<BlockOrLoop>::Record(const BlockOrLoop& v, const char*, Instruction* inst) {
  inst->inputs.push_back(std::visit([](auto h) { return Traced(h); }, v));
}
absl::StatusOr<std::optional<BlockOrLoop>> ParamCodec<BlockOrLoop>::Read(const char* name,
                                                                         InstructionReader* r) {
  TESSEL_ASSIGN_OR_RETURN(std::optional<RV> rv, ReadRV(name, r, "bl", "a block or loop handle"));
  if (!rv) return std::optional<BlockOrLoop>();
  if (rv->kind == 'b') return std::optional<BlockOrLoop>(BlockRV{rv->id});
  return std::optional<BlockOrLoop>(LoopRV{rv->id});
}
absl::StatusOr<std::variant<std::string, Var>> ParamCodec<BlockOrLoop>::Resolve(
    const Schedule& sch, const BlockOrLoop& v) {
  using R = std::variant<std::string, Var>;
  if (const BlockRV* b = std::get_if<BlockRV>(&v)) {
    TESSEL_ASSIGN_OR_RETURN(std::string name, sch.Resolve(*b));
    return R(std::move(name));
  }
  TESSEL_ASSIGN_OR_RETURN(Var var, sch.Resolve(std::get<LoopRV>(v)));
  return R(std::move(var));
}

void ParamCodec<Location>::Record(const Location& v, const char*, Instruction* inst) {
  inst->inputs.push_back(Traced(v.loop));
}
absl::StatusOr<std::optional<Location>> ParamCodec<Location>::Read(const char* name,
                                                                   InstructionReader* r) {
  TESSEL_ASSIGN_OR_RETURN(std::optional<RV> rv, ReadRV(name, r, "l", "a loop handle"));
  if (!rv) return std::optional<Location>();
  return std::optional<Location>(Location(LoopRV{rv->id}));
}
absl::StatusOr<ResolvedLocation> ParamCodec<Location>::Resolve(const Schedule& sch,
                                                               const Location& v) {
  if (std::optional<int64_t> special = sch.SpecialLocation(v.loop)) {
    return ResolvedLocation(*special);
  }
  TESSEL_ASSIGN_OR_RETURN(Var var, sch.Resolve(v.loop));
  return ResolvedLocation(std::move(var));
}

void ParamCodec<std::vector<LoopRV>>::Record(const std::vector<LoopRV>& v, const char*,
                                             Instruction* inst) {
  TraceValue::List listed;
  for (LoopRV l : v) listed.push_back(Traced(l));
  inst->inputs.push_back(TraceValue(std::move(listed)));
}
absl::StatusOr<std::optional<std::vector<LoopRV>>> ParamCodec<std::vector<LoopRV>>::Read(
    const char* name, InstructionReader* r) {
  const TraceValue* v = r->NextInput();
  if (v == nullptr) return std::optional<std::vector<LoopRV>>();
  std::vector<LoopRV> loops;
  bool ok = v->is_list();
  if (ok) {
    for (const TraceValue& item : v->as_list()) {
      ok = ok && item.is_rv() && item.as_rv().kind == 'l';
      if (ok) loops.push_back({item.as_rv().id});
    }
  }
  if (!ok) return r->Bad(name, absl::StrCat("must be loop handles, not ", v->ToPython()));
  return std::optional<std::vector<LoopRV>>(std::move(loops));
}
absl::StatusOr<std::vector<Var>> ParamCodec<std::vector<LoopRV>>::Resolve(
    const Schedule& sch, const std::vector<LoopRV>& v) {
  std::vector<Var> vars;
  for (LoopRV l : v) {
    TESSEL_ASSIGN_OR_RETURN(Var var, sch.Resolve(l));
    vars.push_back(std::move(var));
  }
  return vars;
}

void ParamCodec<std::vector<Factor>>::Record(const std::vector<Factor>& v, const char*,
                                             Instruction* inst) {
  TraceValue::List listed;
  for (const Factor& f : v) {
    if (f.is_inferred())
      listed.push_back(TraceValue());
    else if (f.value())
      listed.push_back(TraceValue(*f.value()));
    else
      listed.push_back(TraceValue(RV{'v', f.rv().id}));
  }
  inst->inputs.push_back(TraceValue(std::move(listed)));
}
absl::StatusOr<std::optional<std::vector<Factor>>> ParamCodec<std::vector<Factor>>::Read(
    const char* name, InstructionReader* r) {
  const TraceValue* v = r->NextInput();
  if (v == nullptr) return std::optional<std::vector<Factor>>();
  if (!v->is_list()) return r->Bad(name, "must be a list of factors");
  std::vector<Factor> factors;
  for (const TraceValue& item : v->as_list()) {
    if (item.is_none())
      factors.push_back(std::nullopt);
    else if (item.is_int())
      factors.push_back(item.as_int());
    else if (item.is_rv() && item.as_rv().kind == 'v')
      factors.push_back(ExprRV{item.as_rv().id});
    else
      return r->Bad(name, "holds a factor that is not None, an int or a value handle (v...)");
  }
  return std::optional<std::vector<Factor>>(std::move(factors));
}
absl::StatusOr<std::vector<std::optional<int64_t>>> ParamCodec<std::vector<Factor>>::Resolve(
    const Schedule& sch, const std::vector<Factor>& v) {
  std::vector<std::optional<int64_t>> values;
  for (const Factor& f : v) {
    if (f.is_inferred() || f.value()) {
      values.push_back(f.value());
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(int64_t value, sch.Resolve(f.rv()));
    values.push_back(value);
  }
  return values;
}

void ParamCodec<AnnValue>::Record(const AnnValue& v, const char* name, Instruction* inst) {
  if (const ExprRV* e = std::get_if<ExprRV>(&v)) {
    inst->inputs.push_back(RV{'v', e->id});
  } else {
    inst->attrs.emplace_back(name, std::get<AttrValue>(v));
  }
}
absl::StatusOr<std::optional<AnnValue>> ParamCodec<AnnValue>::Read(const char* name,
                                                                   InstructionReader* r) {
  if (r->HasInput()) {
    TESSEL_ASSIGN_OR_RETURN(std::optional<RV> rv, ReadRV(name, r, "v", "a value handle"));
    return std::optional<AnnValue>(ExprRV{rv->id});
  }
  if (const AttrValue* a = r->Attr(name)) return std::optional<AnnValue>(*a);
  return std::optional<AnnValue>();
}
absl::StatusOr<AttrValue> ParamCodec<AnnValue>::Resolve(const Schedule& sch, const AnnValue& v) {
  if (const ExprRV* e = std::get_if<ExprRV>(&v)) {
    TESSEL_ASSIGN_OR_RETURN(int64_t value, sch.Resolve(*e));
    return AttrValue(value);
  }
  return std::get<AttrValue>(v);
}

// ---- Literals ------------------------------------------------------------------------

namespace {

AttrValue ToAttr(int64_t v) { return AttrValue(v); }
AttrValue ToAttr(bool v) { return AttrValue(v); }
AttrValue ToAttr(const std::string& v) { return AttrValue(v); }
// An index map is traced in its canonical spelling (the lambda Python passed,
// or text written by hand, print alike); text that does not parse is traced as
// given, and the primitive reports why.
AttrValue ToAttr(const IndexMapText& v) {
  absl::StatusOr<IndexMap> map = IndexMap::Parse(v.text);
  return AttrValue(map.ok() ? map->ToPython() : v.text);
}
AttrValue ToAttr(const BufferRef& v) {
  return std::visit([](const auto& x) { return AttrValue(x); }, v);
}
template <typename T>
AttrValue ToAttr(const std::vector<T>& v) {
  AttrValue::List list;
  for (const T& x : v) list.push_back(AttrValue(x));
  return AttrValue(std::move(list));
}

// FromAttr: the value, or the words that say what was expected.
std::optional<int64_t> FromAttr(const AttrValue& a, int64_t*, const char** what) {
  *what = "must be an int";
  if (const int64_t* i = a.get_if<int64_t>()) return *i;
  return std::nullopt;
}
std::optional<bool> FromAttr(const AttrValue& a, bool*, const char** what) {
  *what = "must be a bool";
  if (const bool* b = a.get_if<bool>()) return *b;
  return std::nullopt;
}
std::optional<std::string> FromAttr(const AttrValue& a, std::string*, const char** what) {
  *what = "must be a string";
  if (const std::string* s = a.get_if<std::string>()) return *s;
  return std::nullopt;
}
std::optional<IndexMapText> FromAttr(const AttrValue& a, IndexMapText*, const char** what) {
  *what = "must be an index map's text, e.g. \"lambda i, j: (j, i)\"";
  if (const std::string* s = a.get_if<std::string>()) return IndexMapText(*s);
  return std::nullopt;
}
std::optional<BufferRef> FromAttr(const AttrValue& a, BufferRef*, const char** what) {
  *what = "must be a buffer name or an index";
  if (const std::string* s = a.get_if<std::string>()) return BufferRef(*s);
  if (const int64_t* i = a.get_if<int64_t>()) return BufferRef(*i);
  return std::nullopt;
}
std::optional<std::vector<int64_t>> FromAttr(const AttrValue& a, std::vector<int64_t>*,
                                             const char** what) {
  *what = "must be a list of ints";
  const AttrValue::List* l = a.get_if<AttrValue::List>();
  if (l == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  for (const AttrValue& x : *l) {
    if (!x.is<int64_t>()) return std::nullopt;
    out.push_back(x.as<int64_t>());
  }
  return out;
}
std::optional<std::vector<double>> FromAttr(const AttrValue& a, std::vector<double>*,
                                            const char** what) {
  *what = "must be a list of numbers";
  const AttrValue::List* l = a.get_if<AttrValue::List>();
  if (l == nullptr) return std::nullopt;
  std::vector<double> out;
  for (const AttrValue& x : *l) {
    if (const double* d = x.get_if<double>())
      out.push_back(*d);
    else if (const int64_t* i = x.get_if<int64_t>())
      out.push_back(static_cast<double>(*i));
    else
      return std::nullopt;
  }
  return out;
}

}  // namespace

template <typename T, ParamType kParamType>
void LiteralCodec<T, kParamType>::Record(const T& v, const char* name, Instruction* inst) {
  inst->attrs.emplace_back(name, ToAttr(v));
}

template <typename T, ParamType kParamType>
absl::StatusOr<std::optional<T>> LiteralCodec<T, kParamType>::Read(const char* name,
                                                                   InstructionReader* r) {
  const AttrValue* a = r->Attr(name);
  if (a == nullptr) return std::optional<T>();
  const char* what = "";
  std::optional<T> v = FromAttr(*a, static_cast<T*>(nullptr), &what);
  if (!v) return r->Bad(name, absl::StrCat(what, ", not ", AttrToPython(*a)));
  return v;
}

template struct LiteralCodec<int64_t, ParamType::kInt>;
template struct LiteralCodec<bool, ParamType::kBool>;
template struct LiteralCodec<std::string, ParamType::kString>;
template struct LiteralCodec<std::vector<int64_t>, ParamType::kInts>;
template struct LiteralCodec<std::vector<double>, ParamType::kFloats>;
template struct LiteralCodec<BufferRef, ParamType::kBuffer>;
template struct LiteralCodec<IndexMapText, ParamType::kIndexMap>;

// ---- Decisions -------------------------------------------------------------------------

void ParamCodec<std::optional<int64_t>>::Record(const std::optional<int64_t>& v, const char*,
                                                Instruction* inst) {
  if (v) inst->decision = TraceValue(*v);
}
absl::StatusOr<std::optional<std::optional<int64_t>>> ParamCodec<std::optional<int64_t>>::Read(
    const char* name, InstructionReader* r) {
  const std::optional<TraceValue>& d = r->inst().decision;
  if (!d) return std::optional<std::optional<int64_t>>();
  if (!d->is_int()) return r->Bad(name, "must be an int");
  return std::optional<std::optional<int64_t>>(d->as_int());
}

void ParamCodec<std::optional<std::vector<int64_t>>>::Record(const Resolved& v, const char*,
                                                             Instruction* inst) {
  if (v) inst->decision = TraceValue(TraceValue::List(v->begin(), v->end()));
}
absl::StatusOr<std::optional<std::optional<std::vector<int64_t>>>>
ParamCodec<std::optional<std::vector<int64_t>>>::Read(const char* name, InstructionReader* r) {
  const std::optional<TraceValue>& d = r->inst().decision;
  if (!d) return std::optional<Resolved>();
  std::vector<int64_t> values;
  bool ok = d->is_list();
  if (ok) {
    for (const TraceValue& v : d->as_list()) {
      ok = ok && v.is_int();
      if (ok) values.push_back(v.as_int());
    }
  }
  if (!ok) return r->Bad(name, "must be a list of ints");
  return std::optional<Resolved>(Resolved(std::move(values)));
}

}  // namespace tessel::ir::schedule
