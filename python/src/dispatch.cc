// Dispatch rules written in Python: `@tessel.dispatch.rule(...)` registers a
// function `(func, target) -> PrimFunc | None | str` in the same registry as the
// C++ rules (dispatch/dispatch_rule.h), so `dispatch-library{rules=[mine]}` runs
// it by name from any pipeline. None (or a string, the reason) is "not
// applicable"; an exception is the pass's error, never a crash. The rule is
// called with the GIL taken (pipelines run with it released); its function is
// held by a PyRef, which is safe to drop after the interpreter has finalized, so
// exit is clean.
#include "absl/strings/str_cat.h"
#include "common.h"
#include "dispatch/dispatch_rule.h"

namespace tessel::python {
namespace {

absl::StatusOr<dispatch::DispatchResult> CallRule(const PyRef& fn, const std::string& name,
                                                  const ir::PrimFunc& func,
                                                  const std::string& target) {
  py::gil_scoped_acquire gil;
  try {
    py::object r = fn.get()(func, target);
    if (r.is_none()) return dispatch::NotApplicable{"the rule returned None"};
    if (py::isinstance<py::str>(r)) return dispatch::NotApplicable{r.cast<std::string>()};
    if (!py::isinstance<ir::PrimFuncNode>(r)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "python dispatch rule '", name, "' returned ", py::repr(r).cast<std::string>(),
          ", expected a PrimFunc, None, or a str saying why not"));
    }
    ir::PrimFunc out = r.cast<ir::PrimFunc>();
    if (out.same_as(func))
      return dispatch::NotApplicable{"the rule returned the function unchanged"};
    return dispatch::DispatchRewrite{out, "rewritten by a Python rule"};
  } catch (py::error_already_set& e) {
    return PythonErrorStatus(e, absl::StrCat("python dispatch rule '", name, "' raised"));
  } catch (const Error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("python dispatch rule '", name, "': ", e.message));
  }
}

}  // namespace

void BindDispatch(py::module_& m) {
  m.def(
      "register_dispatch_rule",
      [](py::function fn, const std::string& name, int priority, std::vector<std::string> targets) {
        if (name.empty()) Throw(ErrorKind::kArgument, "a dispatch rule needs a name");
        if (targets.empty()) Throw(ErrorKind::kArgument, "a dispatch rule serves some target");
        PyRef ref(fn);
        dispatch::RegisterDispatchRule(dispatch::DispatchRule(
            name, std::move(targets), priority,
            [ref, name](const ir::PrimFunc& func, const std::string& target) {
              return CallRule(ref, name, func, target);
            }));
      },
      py::arg("fn"), py::arg("name"), py::arg("priority"), py::arg("targets"));
  m.def(
      "unregister_dispatch_rule",
      [](const std::string& name) { return dispatch::UnregisterDispatchRule(name); },
      py::arg("name"));
  m.def("list_dispatch_rules", [] {
    py::list out;
    for (const dispatch::DispatchRule& r : dispatch::ListDispatchRules()) {
      out.append(py::make_tuple(r.name(), r.priority(), r.targets()));
    }
    return out;
  });
}

}  // namespace tessel::python
