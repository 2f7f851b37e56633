// What python/src/passes.cc and python/src/pass_context.cc share: the Python
// handle on a pass, the read-only view of a pass given to instruments, and the
// current-context lookup.
//
//   PyPass p{*passes::ParsePipeline("simplify")};     // tessel.transform.Pass
//   PassView v = ViewOf(*p.pass);                      // tessel.transform.PassInfo
#ifndef TESSEL_PYTHON_SRC_PASSES_COMMON_H_
#define TESSEL_PYTHON_SRC_PASSES_COMMON_H_

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "passes/pass.h"
#include "passes/pass_context.h"
#include "python/src/common.h"

namespace tessel::python {

// tessel.transform.Pass: shares an immutable pass (or pipeline).
struct PyPass {
  passes::PassPtr pass;
};

// tessel.transform.PassInfo: a copy of what describes a pass, safe to keep.
struct PassView {
  std::string name;
  std::string kind;  // "pass", "pipeline", "combinator" or "alias"
  std::string description;
  int opt_level = 0;
  std::vector<std::string> required;
  // (name, type, default, description) per option.
  std::vector<std::tuple<std::string, std::string, py::object, std::string>> options;
  bool skips_scheduled = false;
  std::string text;  // The pass in pipeline text; "" for registry entries.
};

PassView ViewOf(const passes::PassInfo& info, const std::string& kind);
PassView ViewOf(const passes::Pass& pass);

py::object OptionValueToPy(const passes::OptionValue& v);
// `h` as a value of `type` (an int, bool, str or a list of str).
passes::OptionValue OptionValueFromPy(py::handle h, passes::OptionType type, const std::string& what);

// The context `with tessel.transform.PassContext(...)` entered on this thread,
// or this thread's default one.
std::shared_ptr<passes::PassContext> CurrentContext();
// A PassContext as the Python object passes and instruments receive.
py::object ContextToPy(passes::PassContext& ctx);

void BindPassContext(py::module_& m);

}  // namespace tessel::python

#endif  // TESSEL_PYTHON_SRC_PASSES_COMMON_H_
