// Passes for Python: registered passes built by name with typed options,
// pipelines from text, running them under a PassContext, and passes written in
// Python that join the registry, so textual pipelines can name them.
//
//   >>> @tessel.transform.module_pass(name="tag-all", opt_level=0, options={"value": 1})
//   ... def tag_all(mod, ctx, value):
//   ...     return tessel.IRModule({n: f.with_attr("tag", value) for n, f in mod.items()})
//   >>> tessel.transform.parse_pipeline("simplify,tag-all{value=3}")(mod)
//
// A Python pass runs from C++ with the GIL released around the pipeline: it
// takes the GIL, and an exception it raises becomes the pass's error Status
// with the Python traceback as text (the pipeline then fails with PassError,
// whose __cause__ is the original exception). Nothing Python raises unwinds
// through the pass manager.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "passes/pipeline.h"
#include "passes/sequential.h"
#include "python/src/passes_common.h"

namespace tessel::python {

namespace {

// Python keyword names for option names: "max-iterations" -> "max_iterations".
std::string KwName(const std::string& option) { return absl::StrReplaceAll(option, {{"-", "_"}}); }
std::string OptionName(const std::string& kw) { return absl::StrReplaceAll(kw, {{"_", "-"}}); }

const char* KindName(passes::RegistryEntry::Kind kind) {
  switch (kind) {
    case passes::RegistryEntry::Kind::kPass: return "pass";
    case passes::RegistryEntry::Kind::kCombinator: return "combinator";
    case passes::RegistryEntry::Kind::kAlias: return "alias";
  }
  return "pass";
}

// ---- Passes written in Python -----------------------------------------------------

struct PyPassDef {
  passes::PassInfo info;
  PyRef fn;
  bool function_pass = false;
};

// Python passes by name. Entries change only with the GIL held; never destroyed
// (the registry that refers to them lives until exit).
std::map<std::string, std::shared_ptr<const PyPassDef>>& PyPassTable() {
  static auto* table = new std::map<std::string, std::shared_ptr<const PyPassDef>>();
  return *table;
}

py::dict OptionKwargs(const passes::PassOptions& options) {
  py::dict kwargs;
  for (const passes::OptionSpec& spec : options.specs()) {
    passes::OptionValue v;
    switch (spec.type) {
      case passes::OptionType::kInt: v = options.GetInt(spec.name); break;
      case passes::OptionType::kBool: v = options.GetBool(spec.name); break;
      case passes::OptionType::kString: v = options.GetString(spec.name); break;
      case passes::OptionType::kList: v = options.GetList(spec.name); break;
    }
    kwargs[py::str(KwName(spec.name))] = OptionValueToPy(v);
  }
  return kwargs;
}

// Calls the Python function of `def`; a Python exception becomes the Status.
template <typename Node>
absl::StatusOr<ir::Ref<const Node>> CallPython(const PyPassDef& def,
                                               const passes::PassOptions& options,
                                               const char* expected, py::tuple args) {
  py::gil_scoped_acquire gil;
  const std::string& name = def.info.name;
  try {
    py::object r = def.fn.get()(*args, **OptionKwargs(options));
    if (!py::isinstance<Node>(r)) {
      return absl::InvalidArgumentError(
          absl::StrCat("python pass '", name, "' returned ", py::repr(r).cast<std::string>(),
                       ", expected ", expected));
    }
    return r.cast<ir::Ref<const Node>>();
  } catch (py::error_already_set& e) {
    return PythonErrorStatus(e, absl::StrCat("python pass '", name, "' raised"));
  } catch (const Error& e) {
    return absl::InternalError(absl::StrCat("python pass '", name, "': ", e.message));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("python pass '", name, "': ", e.what()));
  }
}

class PyModulePass : public passes::Pass {
 public:
  PyModulePass(std::shared_ptr<const PyPassDef> def, passes::PassOptions options)
      : Pass(def->info, std::move(options)), def_(std::move(def)) {}
  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, passes::PassContext& ctx) const override {
    py::gil_scoped_acquire gil;
    return CallPython<ir::IRModuleNode>(*def_, options(), "an IRModule",
                                    py::make_tuple(mod, ContextToPy(ctx)));
  }

 private:
  std::shared_ptr<const PyPassDef> def_;
};

class PyFunctionPass : public passes::FunctionPass {
 public:
  PyFunctionPass(std::shared_ptr<const PyPassDef> def, passes::PassOptions options)
      : FunctionPass(def->info, std::move(options)), def_(std::move(def)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             passes::PassContext& ctx) const override {
    py::gil_scoped_acquire gil;
    return CallPython<ir::PrimFuncNode>(*def_, options(), "a PrimFunc",
                                    py::make_tuple(func, name, ContextToPy(ctx)));
  }

 private:
  std::shared_ptr<const PyPassDef> def_;
};

// Options declared from Python: (name, default, description) with the type
// taken from the default.
passes::OptionSpec SpecFromPy(py::handle item) {
  py::tuple t = py::reinterpret_borrow<py::tuple>(item);
  std::string name = OptionName(t[0].cast<std::string>());
  py::object dflt = t[1];
  std::string doc = t[2].cast<std::string>();
  if (py::isinstance<py::bool_>(dflt)) return passes::BoolOption(name, dflt.cast<bool>(), doc);
  if (py::isinstance<py::int_>(dflt)) return passes::IntOption(name, dflt.cast<int64_t>(), doc);
  if (py::isinstance<py::str>(dflt)) return passes::StringOption(name, dflt.cast<std::string>(), doc);
  if (py::isinstance<py::list>(dflt) || py::isinstance<py::tuple>(dflt)) {
    std::vector<std::string> items;
    for (py::handle i : dflt) {
      if (!py::isinstance<py::str>(i)) {
        Throw(ErrorKind::kArgument, absl::StrCat("option '", name, "': list options hold str values"));
      }
      items.push_back(i.cast<std::string>());
    }
    return passes::ListOption(name, std::move(items), doc);
  }
  Throw(ErrorKind::kArgument,
        absl::StrCat("option '", name, "': the default gives the type and must be an int, bool, "
                     "str or list of str, got ", py::repr(dflt).cast<std::string>()));
}

// True for names pipeline text can spell: a letter, then letters, digits, - _ .
bool IsPipelineName(const std::string& name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool SameInfo(const passes::PassInfo& a, const passes::PassInfo& b) {
  if (a.opt_level != b.opt_level || a.required != b.required ||
      a.skips_scheduled != b.skips_scheduled || a.options.size() != b.options.size()) {
    return false;
  }
  for (size_t i = 0; i < a.options.size(); ++i) {
    const passes::OptionSpec& x = a.options[i];
    const passes::OptionSpec& y = b.options[i];
    if (x.name != y.name || x.type != y.type || x.default_value != y.default_value) return false;
  }
  return true;
}

absl::StatusOr<passes::PassPtr> MakePyPass(const std::string& name, passes::PassOptions options) {
  std::shared_ptr<const PyPassDef> def;
  {
    py::gil_scoped_acquire gil;  // The table changes only under the GIL.
    def = PyPassTable().at(name);
  }
  if (def->function_pass) return std::make_shared<const PyFunctionPass>(def, std::move(options));
  return std::make_shared<const PyModulePass>(def, std::move(options));
}

void RegisterPyPass(py::function fn, bool function_pass, const std::string& name, int opt_level,
                    const std::string& description, std::vector<std::string> required,
                    py::list options, bool skips_scheduled) {
  if (!IsPipelineName(name)) {
    Throw(ErrorKind::kArgument,
          absl::StrCat("pass name '", name, "' cannot be written in pipeline text: use a letter, "
                       "then letters, digits, '-', '_' or '.' (kebab-case, like 'my-pass')"));
  }
  auto def = std::make_shared<PyPassDef>();
  def->info = {.name = name, .description = description, .opt_level = opt_level,
               .required = std::move(required), .skips_scheduled = skips_scheduled};
  for (py::handle o : options) def->info.options.push_back(SpecFromPy(o));
  def->fn = PyRef(fn);
  def->function_pass = function_pass;
  // Options must be valid as a set (unique names); building them checks that.
  for (size_t i = 0; i < def->info.options.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (def->info.options[i].name == def->info.options[j].name) {
        Throw(ErrorKind::kArgument, absl::StrCat("pass '", name, "': option '",
                                                 def->info.options[i].name, "' declared twice"));
      }
    }
  }
  auto& table = PyPassTable();
  if (const passes::RegistryEntry* e = passes::PassRegistry::Global().Lookup(name)) {
    auto it = table.find(name);
    if (it == table.end()) {
      Throw(ErrorKind::kArgument,
            absl::StrCat("pass name '", name, "' is taken by a registered ", KindName(e->kind),
                         " of tessel; choose another name"));
    }
    // Re-registering (a re-run cell, a reloaded module) replaces the function;
    // the registry keeps the first description of its options, so those must agree.
    if (!SameInfo(it->second->info, def->info) || it->second->function_pass != function_pass) {
      Throw(ErrorKind::kArgument,
            absl::StrCat("python pass '", name, "' is already registered with another kind, opt "
                         "level, requirements or options; a pass keeps those for the life of "
                         "the process: choose another name"));
    }
    it->second = std::move(def);
    return;
  }
  table[name] = def;
  passes::PassRegistry::Global().RegisterPass(
      def->info, [name](passes::PassOptions o) { return MakePyPass(name, std::move(o)); });
}

// ---- Building passes by name ---------------------------------------------------------

passes::PassOptions OptionsFromPy(const passes::PassInfo& info, py::dict kwargs) {
  passes::PassOptions opts(info.options, info.name);
  for (auto [k, v] : kwargs) {
    std::string key = OptionName(k.cast<std::string>());
    passes::OptionType type = passes::OptionType::kString;
    bool known = false;
    for (const passes::OptionSpec& s : info.options) {
      if (s.name == key) {
        type = s.type;
        known = true;
      }
    }
    const std::string what = absl::StrCat("option '", key, "' of pass '", info.name, "'");
    // An unknown key still goes to SetValue, whose message lists the valid ones.
    passes::OptionValue value = known ? OptionValueFromPy(v, type, what) : passes::OptionValue(std::string());
    Check(opts.SetValue(key, std::move(value)), ErrorKind::kArgument);
  }
  return opts;
}

const passes::RegistryEntry& Entry(const std::string& name) {
  const passes::RegistryEntry* e = passes::PassRegistry::Global().Lookup(name);
  if (e == nullptr) Throw(ErrorKind::kPass, passes::PassRegistry::Global().UnknownNameMessage(name));
  return *e;
}

PyPass CreatePass(const std::string& name, py::dict kwargs) {
  const passes::RegistryEntry& e = Entry(name);
  switch (e.kind) {
    case passes::RegistryEntry::Kind::kPass:
      return PyPass{Unwrap(e.make_pass(OptionsFromPy(e.info, kwargs)), ErrorKind::kPass)};
    case passes::RegistryEntry::Kind::kAlias:
      if (!kwargs.empty()) {
        Throw(ErrorKind::kArgument, absl::StrCat("alias '", name, "' (= ", e.alias_of, ") takes no options"));
      }
      return PyPass{Unwrap(passes::CreatePass(name), ErrorKind::kPass)};
    case passes::RegistryEntry::Kind::kCombinator:
      break;
  }
  Throw(ErrorKind::kArgument,
        absl::StrCat("'", name, "' wraps nested passes: pass them as a list first"));
}

PyPass CreatePipeline(const std::string& name, const std::vector<PyPass>& children, py::dict kwargs) {
  const passes::RegistryEntry& e = Entry(name);
  if (e.kind != passes::RegistryEntry::Kind::kCombinator) {
    Throw(ErrorKind::kArgument, absl::StrCat("'", name, "' is a ", KindName(e.kind),
                                             ", not a combinator: it takes no nested passes"));
  }
  std::vector<passes::PassPtr> ps;
  for (const PyPass& p : children) ps.push_back(p.pass);
  return PyPass{Unwrap(e.make_pipeline(OptionsFromPy(e.info, kwargs), std::move(ps)), ErrorKind::kPass)};
}

ir::IRModule RunPass(const PyPass& p, const ir::IRModule& mod, std::shared_ptr<passes::PassContext> ctx) {
  if (!mod) Throw(ErrorKind::kArgument, "a pass runs on an IRModule, got None");
  if (!ctx) ctx = CurrentContext();
  ClearStashedPythonError();
  absl::StatusOr<ir::IRModule> out;
  {
    py::gil_scoped_release release;
    out = passes::RunPipeline(*p.pass, mod, *ctx);
  }
  return Unwrap(std::move(out), ErrorKind::kPass);
}

}  // namespace

// ---- Shared with pass_context.cc -------------------------------------------------------

py::object OptionValueToPy(const passes::OptionValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return py::int_(*i);
  if (const bool* b = std::get_if<bool>(&v)) return py::bool_(*b);
  if (const std::string* s = std::get_if<std::string>(&v)) return py::str(*s);
  return py::cast(std::get<std::vector<std::string>>(v));
}

passes::OptionValue OptionValueFromPy(py::handle h, passes::OptionType type, const std::string& what) {
  auto wrong = [&]() {
    Throw(ErrorKind::kArgument, absl::StrCat(what, " is ", passes::OptionTypeWithArticle(type),
                                             ", got ", py::repr(h).cast<std::string>()));
  };
  switch (type) {
    case passes::OptionType::kInt:
      if (!py::isinstance<py::int_>(h) || py::isinstance<py::bool_>(h)) wrong();
      return h.cast<int64_t>();
    case passes::OptionType::kBool:
      if (!py::isinstance<py::bool_>(h)) wrong();
      return h.cast<bool>();
    case passes::OptionType::kString:
      if (!py::isinstance<py::str>(h)) wrong();
      return h.cast<std::string>();
    case passes::OptionType::kList: {
      if (!py::isinstance<py::list>(h) && !py::isinstance<py::tuple>(h)) wrong();
      std::vector<std::string> items;
      for (py::handle i : h) {
        if (!py::isinstance<py::str>(i)) wrong();
        items.push_back(i.cast<std::string>());
      }
      return items;
    }
  }
  wrong();
  return {};
}

PassView ViewOf(const passes::PassInfo& info, const std::string& kind) {
  PassView v;
  v.name = info.name;
  v.kind = kind;
  v.description = info.description;
  v.opt_level = info.opt_level;
  v.required = info.required;
  v.skips_scheduled = info.skips_scheduled;
  for (const passes::OptionSpec& s : info.options) {
    v.options.emplace_back(s.name, passes::OptionTypeName(s.type), OptionValueToPy(s.default_value),
                           s.description);
  }
  return v;
}

PassView ViewOf(const passes::Pass& pass) {
  PassView v = ViewOf(pass.info(), pass.is_pipeline() ? "pipeline" : "pass");
  v.text = pass.ToString();
  return v;
}

void BindPasses(py::module_& m) {
  py::class_<PassView>(m, "PassInfo", "What describes a pass: name, opt level, options, ...")
      .def_readonly("name", &PassView::name, "The registered name, e.g. 'simplify'.")
      .def_readonly("kind", &PassView::kind, "'pass', 'pipeline', 'combinator' or 'alias'.")
      .def_readonly("description", &PassView::description, "One line.")
      .def_readonly("opt_level", &PassView::opt_level,
                    "Runs when the context's opt level is at least this (or it is required).")
      .def_readonly("required", &PassView::required, "Passes that must have run before it.")
      .def_readonly("options", &PassView::options, "(name, type, default, description) per option.")
      .def_readonly("skips_scheduled", &PassView::skips_scheduled,
                    "A function pass that leaves functions marked scheduled = true alone.")
      .def_readonly("text", &PassView::text, "The pass as pipeline text ('' for registry entries).")
      .def_property_readonly("is_pipeline", [](const PassView& v) { return v.kind == "pipeline"; },
                             "True for pipelines (sequences, combinators, aliases).")
      .def("__repr__", [](const PassView& v) {
        return absl::StrCat("PassInfo(", v.text.empty() ? v.name : v.text, ", ", v.kind,
                            ", opt_level=", v.opt_level, ")");
      });

  py::class_<PyPass>(m, "Pass",
                     "A pass or pipeline. Call it on an IRModule to run it under the current "
                     "PassContext; str() is its pipeline text.")
      .def_property_readonly("name", [](const PyPass& p) { return p.pass->name(); },
                             "The pass's name ('pipeline' for a top-level pipeline).")
      .def_property_readonly("info", [](const PyPass& p) { return ViewOf(*p.pass); },
                             "Its PassInfo, with `text` its pipeline text.")
      .def_property_readonly("is_pipeline", [](const PyPass& p) { return p.pass->is_pipeline(); },
                             "True for pipelines (sequences, combinators, aliases).")
      .def_property_readonly(
          "passes",
          [](const PyPass& p) {
            std::vector<PyPass> out;
            if (const auto* s = dynamic_cast<const passes::Sequential*>(p.pass.get())) {
              for (const passes::PassPtr& c : s->passes()) out.push_back(PyPass{c});
            }
            return out;
          },
          "The passes a pipeline holds (empty for a single pass).")
      .def("__call__", &RunPass, py::arg("mod"), py::arg("ctx") = nullptr,
           "Runs on `mod` under `ctx` (default: the current PassContext) and returns the result.")
      .def("__str__", [](const PyPass& p) { return p.pass->ToString(); })
      .def("__repr__", [](const PyPass& p) {
        return absl::StrCat("<tessel.transform.Pass ", p.pass->ToString(), ">");
      });

  m.def("list_passes", [] {
    std::vector<PassView> out;
    for (const passes::RegistryEntry* e : passes::PassRegistry::Global().Entries()) {
      PassView v = ViewOf(e->info, KindName(e->kind));
      if (e->kind == passes::RegistryEntry::Kind::kAlias) v.description += " (= " + e->alias_of + ")";
      out.push_back(std::move(v));
    }
    return out;
  });
  m.def("create_pass", &CreatePass, py::arg("name"), py::arg("options"));
  m.def("create_pipeline", &CreatePipeline, py::arg("name"), py::arg("passes"), py::arg("options"));
  m.def("parse_pipeline", [](const std::string& text) {
    ClearStashedPythonError();  // Building may call Python pass factories.
    return PyPass{Unwrap(passes::ParsePipeline(text), ErrorKind::kPass)};
  }, py::arg("text"));
  m.def("sequential", [](const std::vector<PyPass>& ps) {
    std::vector<passes::PassPtr> v;
    for (const PyPass& p : ps) v.push_back(p.pass);
    return PyPass{passes::MakeSequential(std::move(v))};
  }, py::arg("passes"));
  m.def("run_pass", &RunPass, py::arg("pass_"), py::arg("mod"), py::arg("ctx") = nullptr);
  m.def("register_pass", &RegisterPyPass, py::arg("fn"), py::arg("function_pass"), py::arg("name"),
        py::arg("opt_level"), py::arg("description"), py::arg("required"), py::arg("options"),
        py::arg("skips_scheduled"));
  m.def("is_python_pass", [](const std::string& name) { return PyPassTable().contains(name); },
        py::arg("name"));
  BindPassContext(m);
}

}  // namespace tessel::python
