// Every schedule primitive as a method of tessel.Schedule, registered by
// walking the instruction kinds: the method takes the kind's keywords, builds
// the instruction the call means and replays it, so a printed trace is a
// Python program and a new primitive needs no binding code.
//
//   >>> l2, l3 = sch.split(loop=l1, factors=[None, 32])   # or sch.split(l1, [None, 32])
//   >>> sch.reorder(l2, l4, l3)                           # '*' parameters: positional
//   >>> sch.split(loop=b0, factors=[4])
//   tessel.ArgumentError: sch.split: 'loop' must be a LoopRV, got b0
//
// Each argument is checked by its parameter's type and refused with an
// ArgumentError naming it; what the primitive itself refuses raises
// ScheduleError, and the schedule is left unchanged.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/schedule/instruction.h"
#include "ir/schedule/schedule.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

namespace sch = ir::schedule;

const char* PyType(sch::ParamType t) {
  switch (t) {
    case sch::ParamType::kBlock:
      return "BlockRV";
    case sch::ParamType::kLoop:
    case sch::ParamType::kLocation:
    case sch::ParamType::kLoops:
      return "LoopRV";
    case sch::ParamType::kBlockOrLoop:
      return "Union[BlockRV, LoopRV]";
    case sch::ParamType::kFactors:
      return "Sequence[_Factor]";
    case sch::ParamType::kAnnValue:
      return "Union[_Attr, ExprRV]";
    case sch::ParamType::kInt:
      return "int";
    case sch::ParamType::kBool:
      return "bool";
    case sch::ParamType::kString:
      return "str";
    case sch::ParamType::kInts:
      return "List[int]";
    case sch::ParamType::kFloats:
      return "List[float]";
    case sch::ParamType::kBuffer:
      return "Union[int, str]";
    case sch::ParamType::kIndexMap:
      return "Union[str, Callable[..., Any]]";
    case sch::ParamType::kIntDecision:
      return "Optional[int]";
    case sch::ParamType::kIntsDecision:
      return "Optional[List[int]]";
  }
  return "Any";
}

const char* PyReturnType(sch::OutputType t) {
  switch (t) {
    case sch::OutputType::kNone:
      return "None";
    case sch::OutputType::kBlock:
      return "BlockRV";
    case sch::OutputType::kLoop:
      return "LoopRV";
    case sch::OutputType::kValue:
      return "ExprRV";
    case sch::OutputType::kBlocks:
      return "List[BlockRV]";
    case sch::OutputType::kLoops:
      return "Tuple[LoopRV, ...]";
    case sch::OutputType::kValues:
      return "Tuple[ExprRV, ...]";
  }
  return "Any";
}

// The default an optional parameter takes, as Python.
std::string PyDefault(const sch::InstructionKind& k, const sch::ParamInfo& p) {
  if (const ir::AttrValue* a = k.defaults.FindAttr(p.name)) return sch::AttrToPython(*a);
  return "None";
}

// "split(self, loop: LoopRV, factors: Sequence[_Factor]) -> Tuple[LoopRV, ...]"
std::string Signature(const sch::InstructionKind& k) {
  std::vector<std::string> params = {"self"};
  for (const sch::ParamInfo& p : k.params) {
    std::string one = absl::StrCat(p.variadic ? "*" : "", p.name, ": ", PyType(p.type));
    if (p.optional) absl::StrAppend(&one, " = ", PyDefault(k, p));
    params.push_back(std::move(one));
  }
  return absl::StrCat(k.name, "(", absl::StrJoin(params, ", "), ") -> ", PyReturnType(k.output));
}

[[noreturn]] void BadArg(const sch::InstructionKind& k, const sch::ParamInfo& p,
                         const std::string& want, py::handle got) {
  Throw(ErrorKind::kArgument, absl::StrCat("sch.", k.name, ": '", p.name, "' must be ", want,
                                           ", got ", py::repr(got).cast<std::string>()));
}

bool IsInt(py::handle h) { return py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h); }
bool IsSequence(py::handle h) {
  return py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h);
}

int64_t Int(const sch::InstructionKind& k, const sch::ParamInfo& p, py::handle h) {
  if (!IsInt(h)) BadArg(k, p, "an int", h);
  return CastArg<int64_t>(h, absl::StrCat("sch.", k.name, ": '", p.name, "' fits in 64 bits"));
}

sch::RV Handle(const sch::InstructionKind& k, const sch::ParamInfo& p, py::handle h, bool blocks,
               bool loops) {
  if (blocks && py::isinstance<sch::BlockRV>(h)) return sch::RV{'b', h.cast<sch::BlockRV>().id};
  if (loops && py::isinstance<sch::LoopRV>(h)) return sch::RV{'l', h.cast<sch::LoopRV>().id};
  BadArg(k, p, blocks && loops ? "a BlockRV or a LoopRV" : blocks ? "a BlockRV" : "a LoopRV", h);
}

// Adds argument `h` for parameter `p` to the instruction, where its type puts it.
void AddArgument(const sch::InstructionKind& k, const sch::ParamInfo& p, py::handle h,
                 sch::Instruction* inst) {
  using T = sch::ParamType;
  switch (p.type) {
    case T::kBlock:
    case T::kLoop:
    case T::kLocation:
    case T::kBlockOrLoop:
      inst->inputs.push_back(
          Handle(k, p, h, p.type == T::kBlock || p.type == T::kBlockOrLoop, p.type != T::kBlock));
      return;
    case T::kLoops: {
      if (!IsSequence(h)) BadArg(k, p, "loop handles", h);
      sch::TraceValue::List loops;
      for (py::handle l : h) loops.push_back(Handle(k, p, l, false, true));
      inst->inputs.push_back(sch::TraceValue(std::move(loops)));
      return;
    }
    case T::kFactors: {
      if (!IsSequence(h)) BadArg(k, p, "a list of ints, None and sampled values", h);
      sch::TraceValue::List factors;
      for (py::handle f : h) {
        if (f.is_none())
          factors.push_back(sch::TraceValue());
        else if (py::isinstance<sch::ExprRV>(f))
          factors.push_back(sch::RV{'v', f.cast<sch::ExprRV>().id});
        else if (IsInt(f))
          factors.push_back(Int(k, p, f));
        else
          BadArg(k, p, "a list of ints, None and sampled values", h);
      }
      inst->inputs.push_back(sch::TraceValue(std::move(factors)));
      return;
    }
    case T::kAnnValue:
      if (py::isinstance<sch::ExprRV>(h)) {
        inst->inputs.push_back(sch::RV{'v', h.cast<sch::ExprRV>().id});
      } else {
        inst->attrs.emplace_back(p.name, AttrFromPy(h));
      }
      return;
    case T::kInt:
      inst->attrs.emplace_back(p.name, ir::AttrValue(Int(k, p, h)));
      return;
    case T::kBool:
      if (!py::isinstance<py::bool_>(h)) BadArg(k, p, "a bool", h);
      inst->attrs.emplace_back(p.name, ir::AttrValue(h.cast<bool>()));
      return;
    case T::kString:
      if (!py::isinstance<py::str>(h)) BadArg(k, p, "a str", h);
      inst->attrs.emplace_back(p.name, ir::AttrValue(h.cast<std::string>()));
      return;
    case T::kInts:
    case T::kFloats: {
      if (!IsSequence(h))
        BadArg(k, p, p.type == T::kInts ? "a list of ints" : "a list of numbers", h);
      ir::AttrValue::List items;
      for (py::handle x : h) {
        if (IsInt(x)) {
          items.emplace_back(Int(k, p, x));
        } else if (p.type == T::kFloats && py::isinstance<py::float_>(x)) {
          items.emplace_back(x.cast<double>());
        } else {
          BadArg(k, p, p.type == T::kInts ? "a list of ints" : "a list of numbers", h);
        }
      }
      inst->attrs.emplace_back(p.name, ir::AttrValue(std::move(items)));
      return;
    }
    case T::kBuffer:
      if (IsInt(h)) {
        inst->attrs.emplace_back(p.name, ir::AttrValue(Int(k, p, h)));
      } else if (py::isinstance<py::str>(h)) {
        inst->attrs.emplace_back(p.name, ir::AttrValue(h.cast<std::string>()));
      } else {
        BadArg(k, p, "a buffer name or an index", h);
      }
      return;
    case T::kIndexMap: {
      std::string text;
      if (py::isinstance<py::str>(h)) {
        text = h.cast<std::string>();
      } else if (PyCallable_Check(h.ptr())) {
        text = py::module_::import("tessel.schedule").attr("index_map_text")(h).cast<std::string>();
      } else {
        BadArg(k, p, "a Python lambda or its text, e.g. \"lambda i, j: (i // 16, j, i % 16)\"", h);
      }
      inst->attrs.emplace_back(p.name, ir::AttrValue(std::move(text)));
      return;
    }
    case T::kIntDecision:
      if (!h.is_none()) inst->decision = sch::TraceValue(Int(k, p, h));
      return;
    case T::kIntsDecision:
      if (!h.is_none()) {
        if (!IsSequence(h)) BadArg(k, p, "a list of ints", h);
        sch::TraceValue::List values;
        for (py::handle x : h) values.push_back(Int(k, p, x));
        inst->decision = sch::TraceValue(std::move(values));
      }
      return;
  }
}

py::object ToPython(const sch::RV& rv) {
  if (rv.kind == 'b') return py::cast(sch::BlockRV{rv.id});
  if (rv.kind == 'l') return py::cast(sch::LoopRV{rv.id});
  return py::cast(sch::ExprRV{rv.id});
}

py::object CallPrimitive(const sch::InstructionKind& k, sch::Schedule& s, py::args args,
                         py::kwargs kwargs) {
  // Match positional and keyword arguments to the parameters, as Python would.
  std::vector<py::object> given(k.params.size());
  size_t next = 0;
  for (size_t i = 0; i < k.params.size() && next < args.size(); ++i) {
    if (k.params[i].variadic) {
      // sch.fuse(l1, l2) or sch.fuse([l1, l2]) or sch.fuse(loops=[l1, l2]).
      py::tuple rest = args[py::slice(next, args.size(), 1)];
      given[i] = rest.size() == 1 && IsSequence(rest[0])
                     ? py::reinterpret_borrow<py::object>(rest[0])
                     : py::object(rest);
      next = args.size();
    } else {
      given[i] = args[next++];
    }
  }
  if (next < args.size()) {
    Throw(ErrorKind::kArgument, absl::StrCat("sch.", k.name, " takes ", k.params.size(),
                                             " arguments, got ", args.size()));
  }
  for (auto [key, value] : kwargs) {
    std::string name = key.cast<std::string>();
    size_t i = 0;
    while (i < k.params.size() && k.params[i].name != name) ++i;
    if (i == k.params.size()) {
      Throw(ErrorKind::kArgument, absl::StrCat("sch.", k.name, " has no parameter '", name,
                                               "'; it takes ", Signature(k)));
    }
    if (given[i]) {
      Throw(ErrorKind::kArgument, absl::StrCat("sch.", k.name, ": '", name, "' given twice"));
    }
    given[i] = py::reinterpret_borrow<py::object>(value);
  }
  sch::Instruction inst;
  inst.kind = k.name;
  for (size_t i = 0; i < k.params.size(); ++i) {
    if (!given[i]) {
      if (k.params[i].optional) continue;
      Throw(ErrorKind::kArgument, absl::StrCat("sch.", k.name, ": '", k.params[i].name,
                                               "' is missing; it takes ", Signature(k)));
    }
    AddArgument(k, k.params[i], given[i], &inst);
  }
  std::vector<sch::RV> outs = Unwrap(k.apply(&s, inst), ErrorKind::kSchedule);
  switch (k.output) {
    case sch::OutputType::kNone:
      return py::none();
    case sch::OutputType::kBlock:
    case sch::OutputType::kLoop:
    case sch::OutputType::kValue:
      return ToPython(outs.at(0));
    case sch::OutputType::kBlocks: {
      py::list list;
      for (const sch::RV& rv : outs) list.append(ToPython(rv));
      return list;
    }
    default: {
      py::tuple tuple(outs.size());
      for (size_t i = 0; i < outs.size(); ++i) tuple[i] = ToPython(outs[i]);
      return tuple;
    }
  }
}

}  // namespace

void BindSchedulePrimitives(py::class_<sch::Schedule>& cls, py::module_& m) {
  for (const sch::InstructionKind* k : sch::AllInstructionKinds()) {
    cls.def(
        k->name.c_str(),
        [k](sch::Schedule& s, py::args args, py::kwargs kwargs) {
          return CallPrimitive(*k, s, args, kwargs);
        },
        absl::StrCat(Signature(*k), "\n\n", k->doc).c_str());
  }
  m.def(
      "instruction_kinds",
      [] {
        py::list out;
        for (const sch::InstructionKind* k : sch::AllInstructionKinds()) {
          py::list params;
          for (const sch::ParamInfo& p : k->params) {
            params.append(py::dict(py::arg("name") = p.name, py::arg("type") = PyType(p.type),
                                   py::arg("optional") = p.optional,
                                   py::arg("default") = p.optional ? PyDefault(*k, p) : "",
                                   py::arg("variadic") = p.variadic));
          }
          out.append(py::dict(py::arg("name") = k->name, py::arg("params") = params,
                              py::arg("returns") = PyReturnType(k->output),
                              py::arg("pure") = k->pure, py::arg("sampling") = k->sampling,
                              py::arg("doc") = k->doc));
        }
        return out;
      },
      "Every schedule primitive: name, params (name, type, optional, default, variadic), "
      "returns, pure, sampling, doc. Schedule has one method per entry.");
}

}  // namespace tessel::python
