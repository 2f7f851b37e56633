// The Schedule for Python: handles, traces, and the Schedule class; its
// primitives are registered from the instruction kinds (schedule_primitives.cc)
// under their trace names and keywords, so that a printed trace is a Python
// program that runs against tessel.Schedule.
//
//   >>> sch = tessel.Schedule(mod)
//   >>> b0 = sch.get_block(name="C")
//   >>> l1, l2, l3 = sch.get_loops(block=b0)
//   >>> l4, l5 = sch.split(loop=l1, factors=[None, 32])
//   >>> sch.parallel(loop=l4)
//   >>> print(sch.trace)             # the same lines, replayable with exec or apply_to_schedule
//   >>> sch.mod                      # the scheduled module
//
// A primitive that fails raises ScheduleError with the C++ message (the call,
// the rule, the function with the offending loop or block marked) and leaves
// the schedule exactly as it was.
#include "ir/schedule/schedule.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/schedule/schedule_registry.h"
#include "ir/schedule/tensor_intrin.h"
#include "ir/schedule/trace.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

namespace sch = ir::schedule;

template <typename Handle>
std::string HandleName(const Handle& h, char kind) {
  return sch::RV{kind, h.id}.Name();
}

sch::Schedule CreateSchedule(py::object target, py::object func_name, uint64_t seed) {
  ir::IRModule mod;
  if (py::isinstance<ir::PrimFuncNode>(target)) {
    mod = ir::MakeIRModule({{"main", target.cast<ir::PrimFunc>()}});
  } else if (py::isinstance<ir::IRModuleNode>(target)) {
    mod = target.cast<ir::IRModule>();
  } else {
    Throw(ErrorKind::kArgument, absl::StrCat("a Schedule works on an IRModule or a PrimFunc, got ",
                                             py::repr(target).cast<std::string>()));
  }
  std::string name =
      func_name.is_none() ? "" : CastArg<std::string>(func_name, "func_name is a str");
  return Unwrap(sch::Schedule::Create(mod, name, seed), ErrorKind::kSchedule);
}

std::vector<sch::Factor> FactorsFromPy(py::handle factors) {
  std::vector<sch::Factor> out;
  if (!py::isinstance<py::list>(factors) && !py::isinstance<py::tuple>(factors)) {
    Throw(ErrorKind::kArgument,
          absl::StrCat("factors are a list of ints, None and sampled values, got ",
                       py::repr(factors).cast<std::string>()));
  }
  for (py::handle f : factors) {
    if (f.is_none()) {
      out.emplace_back(std::nullopt);
    } else if (py::isinstance<sch::ExprRV>(f)) {
      out.emplace_back(f.cast<sch::ExprRV>());
    } else if (py::isinstance<py::int_>(f) && !py::isinstance<py::bool_>(f)) {
      out.emplace_back(CastArg<int64_t>(f, "a factor fits in 64 bits"));
    } else {
      Throw(ErrorKind::kArgument, absl::StrCat("a factor is an int, None or a sampled value, got ",
                                               py::repr(f).cast<std::string>()));
    }
  }
  return out;
}

// Loops given one by one (as traces print them) or as one list.
std::vector<sch::LoopRV> LoopsFromPy(py::handle loops) {
  py::sequence seq = py::reinterpret_borrow<py::sequence>(loops);
  if (py::len(seq) == 1 &&
      (py::isinstance<py::list>(seq[0]) || py::isinstance<py::tuple>(seq[0]))) {
    return LoopsFromPy(seq[0]);
  }
  std::vector<sch::LoopRV> out;
  for (py::handle l : seq) out.push_back(CastArg<sch::LoopRV>(l, "expected a loop handle"));
  return out;
}

py::tuple Tuple(const std::vector<sch::LoopRV>& v) { return py::cast(v); }

sch::Trace TraceFromJson(const std::string& text) {
  return Unwrap(sch::Trace::FromJson(text), ErrorKind::kSchedule);
}

sch::TraceValue DecisionFromPy(py::handle h) {
  if (h.is_none()) return sch::TraceValue();
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) return h.cast<int64_t>();
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    sch::TraceValue::List items;
    for (py::handle i : h) items.push_back(DecisionFromPy(i));
    return items;
  }
  Throw(ErrorKind::kArgument, absl::StrCat("a decision is an int or a list of ints, got ",
                                           py::repr(h).cast<std::string>()));
}

}  // namespace

void BindSchedule(py::module_& m) {
  py::class_<sch::BlockRV>(m, "BlockRV", "A handle on a block of a schedule (printed b<id>).")
      .def_readonly("id", &sch::BlockRV::id, "The handle's number in its schedule.")
      .def("__repr__", [](const sch::BlockRV& h) { return HandleName(h, 'b'); })
      .def(
          "__eq__", [](const sch::BlockRV& a, const sch::BlockRV& b) { return a.id == b.id; },
          py::is_operator())
      .def("__hash__", [](const sch::BlockRV& h) { return std::hash<int64_t>()(h.id); });
  py::class_<sch::LoopRV>(m, "LoopRV", "A handle on a loop of a schedule (printed l<id>).")
      .def_readonly("id", &sch::LoopRV::id, "The handle's number in its schedule.")
      .def("__repr__", [](const sch::LoopRV& h) { return HandleName(h, 'l'); })
      .def(
          "__eq__", [](const sch::LoopRV& a, const sch::LoopRV& b) { return a.id == b.id; },
          py::is_operator())
      .def("__hash__", [](const sch::LoopRV& h) { return std::hash<int64_t>()(h.id); });
  py::class_<sch::ExprRV>(m, "ExprRV", "A sampled value of a schedule (printed v<id>).")
      .def_readonly("id", &sch::ExprRV::id, "The handle's number in its schedule.")
      .def("__repr__", [](const sch::ExprRV& h) { return HandleName(h, 'v'); })
      .def(
          "__eq__", [](const sch::ExprRV& a, const sch::ExprRV& b) { return a.id == b.id; },
          py::is_operator())
      .def("__hash__", [](const sch::ExprRV& h) { return std::hash<int64_t>()(h.id); });

  py::class_<sch::Trace>(m, "Trace",
                         "The instructions that produced a schedule: prints as Python, "
                         "serialises to versioned JSON, replays onto equal functions.")
      .def("as_python", &sch::Trace::AsPython, "One Python line per instruction.")
      .def("__str__", &sch::Trace::AsPython)
      .def("__repr__",
           [](const sch::Trace& t) {
             return absl::StrCat("<tessel.Trace with ", t.instructions().size(), " instructions>");
           })
      .def("__len__", [](const sch::Trace& t) { return t.instructions().size(); })
      .def_property_readonly(
          "instructions",
          [](const sch::Trace& t) {
            std::vector<std::string> lines;
            for (const sch::Instruction& i : t.instructions()) lines.push_back(i.ToPython());
            return lines;
          },
          "Each instruction as its Python line.")
      .def(
          "as_json", [](const sch::Trace& t) { return Unwrap(t.ToJson(), ErrorKind::kSchedule); },
          "The trace as versioned JSON text (tessel-trace format).")
      .def_static("from_json", &TraceFromJson, py::arg("text"),
                  "Reads JSON written by as_json (checking format, version and handles).")
      .def(
          "with_decision",
          [](const sch::Trace& t, size_t index, py::object decision) {
            return Unwrap(t.WithDecision(index, DecisionFromPy(decision)), ErrorKind::kSchedule);
          },
          py::arg("index"), py::arg("decision"),
          "A copy with the sampling instruction `index` given another decision.")
      .def("simplified", &sch::Trace::Simplified,
           "Without the queries and samples whose outputs nothing uses.")
      .def(
          "apply_to_schedule",
          [](const sch::Trace& t, sch::Schedule& s) {
            Check(t.ApplyToSchedule(&s), ErrorKind::kSchedule);
          },
          py::arg("sch"),
          "Replays every instruction onto `sch` (its current function); on failure `sch` is "
          "unchanged.");

  py::class_<sch::Schedule> cls(
      m, "Schedule",
      "Transforms the loops of a module's functions by primitives, "
      "recording a replayable trace. Primitives take and return handles.");
  cls.def(py::init(&CreateSchedule), py::arg("mod"), py::arg("func_name") = py::none(),
          py::arg("seed") = 1,
          "Verifies `mod` (an IRModule, or a PrimFunc taken as 'main') and works on "
          "`func_name` (default: the first function); `seed` drives sampling.")
      .def_property_readonly("mod", &sch::Schedule::mod, "The scheduled module.")
      .def_property_readonly("func", &sch::Schedule::func, "The function being scheduled.")
      .def_property_readonly("func_name", &sch::Schedule::func_name,
                             "The name of the function being scheduled.")
      .def_property_readonly("trace", &sch::Schedule::trace,
                             "A copy of the current function's trace.")
      .def(
          "copy", [](const sch::Schedule& s) { return s; },
          "An independent copy (module, handles, traces, random state).")
      .def(
          "work_on",
          [](sch::Schedule& s, const std::string& name) {
            Check(s.WorkOn(name), ErrorKind::kSchedule);
          },
          py::arg("func_name"), "Switches to another function; handles are per function.")
      .def(
          "get",
          [](const sch::Schedule& s, py::object h) -> py::object {
            if (py::isinstance<sch::BlockRV>(h)) {
              return py::cast(
                  ir::Stmt(Unwrap(s.Get(h.cast<sch::BlockRV>()), ErrorKind::kSchedule)));
            }
            if (py::isinstance<sch::LoopRV>(h)) {
              return py::cast(ir::Stmt(Unwrap(s.Get(h.cast<sch::LoopRV>()), ErrorKind::kSchedule)));
            }
            return py::int_(
                Unwrap(s.Get(CastArg<sch::ExprRV>(h, "get takes a handle")), ErrorKind::kSchedule));
          },
          py::arg("rv"), "What a handle names now: the block or loop (a Stmt), or the sampled int.")
      .def(
          "tile",
          [](sch::Schedule& s, py::object loops, py::list factors) {
            std::vector<std::vector<sch::Factor>> fs;
            for (py::handle f : factors) fs.push_back(FactorsFromPy(f));
            return Tuple(Unwrap(s.Tile(LoopsFromPy(loops), fs), ErrorKind::kSchedule));
          },
          py::arg("loops"), py::arg("factors"),
          "Splits each loop of a perfect nest by its factor list and orders the pieces level by "
          "level (traced as splits and a reorder).");
  BindSchedulePrimitives(cls, m);

  m.def(
      "list_schedules",
      [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const std::string& name : sch::ScheduleRegistry::Global().Names()) {
          out.emplace_back(name, sch::ScheduleRegistry::Global().Lookup(name)->description);
        }
        return out;
      },
      "(name, description) of every registered C++ schedule function.");
  m.def(
      "apply_schedule",
      [](sch::Schedule& s, const std::string& name) {
        const sch::RegisteredSchedule* r = sch::ScheduleRegistry::Global().Lookup(name);
        if (r == nullptr)
          Throw(ErrorKind::kArgument, absl::StrCat("no registered schedule '", name, "'"));
        return Unwrap(r->fn(s), ErrorKind::kSchedule);
      },
      py::arg("sch"), py::arg("name"),
      "Runs a registered C++ schedule function on `sch`; False when it does not apply.");
  m.def(
      "register_tensor_intrin",
      [](const std::string& name, const ir::PrimFunc& desc, const ir::PrimFunc& impl,
         bool replace) {
        Check(sch::RegisterTensorIntrin(name, desc, impl, replace), ErrorKind::kArgument);
      },
      py::arg("name"), py::arg("desc"), py::arg("impl"), py::arg("replace") = false,
      "Registers a tensor intrinsic: a description (loops around one block) and an "
      "implementation with the same buffer parameters.");
  m.def("list_tensor_intrins", &sch::TensorIntrinNames,
        "The names of the registered tensor intrinsics, sorted.");
}

}  // namespace tessel::python
