// tessel.metaschedule for Python: the design space of a function under the
// target's schedule rules, its seeded draws and its heuristic point (what the
// default-schedule pass applies).
//
//   >>> space = _core.generate_design_space(mod, "matmul", "llvm")
//   >>> r = space.draw(7)
//   >>> r.schedule.trace        # sample_perfect_tile(..., decision=[...]) ...
//   >>> r.applied               # ["multi-level-tiling on C: ...", ...]
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "metaschedule/design_space.h"
#include "metaschedule/tasks.h"
#include "python/src/common.h"

namespace tessel::python {

namespace ms = metaschedule;

namespace {

std::vector<std::string> Lines(const std::vector<ms::RuleRecord>& records) {
  std::vector<std::string> lines;
  for (const ms::RuleRecord& r : records) lines.push_back(r.ToString());
  return lines;
}

}  // namespace

void BindMetaschedule(py::module_& m) {
  py::class_<ms::RuleSchedule>(m, "RuleSchedule",
                               "A schedule the rules made, with what each rule did.")
      .def_property_readonly(
          "schedule", [](const ms::RuleSchedule& r) { return r.schedule; },
          "The Schedule (a copy): its mod, func and trace.")
      .def_property_readonly(
          "applied", [](const ms::RuleSchedule& r) { return Lines(r.applied); },
          "'rule on block: what it did', in the order they ran.")
      .def_property_readonly(
          "not_applied", [](const ms::RuleSchedule& r) { return Lines(r.not_applied); },
          "'rule on block: why not', for every rule that did not apply.");
  py::class_<ms::DesignSpace>(m, "DesignSpace", "The schedules a function's target rules can make.")
      .def(
          "draw",
          [](const ms::DesignSpace& s, uint64_t seed) {
            py::gil_scoped_release release;
            return Unwrap(s.Draw(seed), ErrorKind::kSchedule);
          },
          py::arg("seed"), "The rules with every decision drawn from `seed`.")
      .def(
          "heuristic",
          [](const ms::DesignSpace& s) {
            py::gil_scoped_release release;
            return Unwrap(s.Heuristic(), ErrorKind::kSchedule);
          },
          "The rules with the target-derived decisions (what default-schedule applies).")
      .def_property_readonly("func", &ms::DesignSpace::func, "The function the space schedules.")
      .def_property_readonly(
          "machine", [](const ms::DesignSpace& s) { return s.machine().ToString(); },
          "The machine model the rules decide for.")
      .def_property_readonly(
          "target", [](const ms::DesignSpace& s) { return s.machine().ToTarget(); },
          "The machine as a target string that reproduces it (vector width, FMA, cores, "
          "caches).");
  py::class_<ms::TuningTask>(m, "TuningTask", "A distinct function of a module to tune.")
      .def_readonly("name", &ms::TuningTask::name, "The first function it stands for.")
      .def_readonly("func", &ms::TuningTask::func, "That function.")
      .def_readonly("target", &ms::TuningTask::target, "The target it is tuned for.")
      .def_readonly("hash", &ms::TuningTask::hash, "Its workload hash (16 hex digits).")
      .def_readonly("weight", &ms::TuningTask::weight, "How many functions it stands for.")
      .def_readonly("functions", &ms::TuningTask::functions, "Their names, in module order.")
      .def("__repr__", [](const ms::TuningTask& t) {
        return "<TuningTask " + t.name + " x" + std::to_string(t.weight) + ">";
      });
  m.def(
      "extract_tasks",
      [](const ir::IRModule& mod, const std::string& target) {
        return Unwrap(ms::ExtractTasks(mod, target), ErrorKind::kArgument);
      },
      py::arg("mod"), py::arg("target"));
  m.def(
      "generate_design_space",
      [](const ir::IRModule& mod, const std::string& func, const std::string& target) {
        return Unwrap(ms::DesignSpace::Create(mod, func, target), ErrorKind::kArgument);
      },
      py::arg("mod"), py::arg("func"), py::arg("target"));
}

}  // namespace tessel::python
