// PassContext and pass instruments for Python: the context as a `with` block,
// typed config, the pass log, instruments written in Python, and tessel's own
// instruments with their output captured as text.
//
//   >>> class Count(tessel.transform.PassInstrument):
//   ...     def __init__(self): self.n = 0
//   ...     def after_pass(self, info, before, after, ctx): self.n += 1
//   >>> timing = tessel.transform.timing()
//   >>> with tessel.transform.PassContext(opt_level=3, instruments=[Count(), timing]):
//   ...     out = tessel.transform.parse_pipeline("simplify,remove-no-op")(mod)
//   >>> print(timing.output())            # the timing tree
//
// A Python instrument is duck-typed: any of before_pipeline(mod, ctx),
// after_pipeline(mod, ctx), before_pass(info, mod, ctx), after_pass(info,
// before, after, ctx) and on_failure(failure, ctx). A hook that raises stops
// the pipeline with PassError (the exception is the error's __cause__), except
// on_failure, whose exceptions are reported as unraisable.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/instrument.h"
#include "passes/instruments/dump_dir.h"
#include "passes/instruments/print_ir.h"
#include "passes/instruments/semantic_check.h"
#include "passes/instruments/timing.h"
#include "passes/instruments/verify_each.h"
#include "passes/pass_config.h"
#include "python/src/passes_common.h"

namespace tessel::python {

namespace {

// tessel.transform.PassFailure: what on_failure receives.
struct FailureView {
  std::optional<PassView> pass;
  ir::IRModule input;
  ir::IRModule output;
  std::string error;
};

// Runs a duck-typed Python object's hooks.
class PyInstrument : public passes::PassInstrument {
 public:
  explicit PyInstrument(py::object obj) : obj_(obj) {
    py::object n = py::getattr(obj, "name", py::none());
    name_ = n.is_none() ? py::str(py::type::of(obj).attr("__name__")).cast<std::string>()
                        : py::str(n).cast<std::string>();
  }
  std::string name() const override { return name_; }
  py::object object() const { return obj_.get(); }

  absl::Status BeforePipeline(const ir::IRModule& mod, passes::PassContext& ctx) override {
    return Call("before_pipeline", [&] { return py::make_tuple(mod, ContextToPy(ctx)); });
  }
  absl::Status AfterPipeline(const ir::IRModule& mod, passes::PassContext& ctx) override {
    return Call("after_pipeline", [&] { return py::make_tuple(mod, ContextToPy(ctx)); });
  }
  absl::Status BeforePass(const passes::Pass& pass, const ir::IRModule& mod,
                          passes::PassContext& ctx) override {
    return Call("before_pass", [&] { return py::make_tuple(ViewOf(pass), mod, ContextToPy(ctx)); });
  }
  absl::Status AfterPass(const passes::Pass& pass, const ir::IRModule& before,
                         const ir::IRModule& after, passes::PassContext& ctx) override {
    return Call("after_pass",
                [&] { return py::make_tuple(ViewOf(pass), before, after, ContextToPy(ctx)); });
  }
  void OnFailure(const passes::PassFailure& failure, passes::PassContext& ctx) override {
    py::gil_scoped_acquire gil;
    try {
      py::object hook = py::getattr(obj_.get(), "on_failure", py::none());
      if (hook.is_none()) return;
      FailureView v{std::nullopt, failure.input, failure.output,
                    std::string(failure.error.message())};
      if (failure.pass != nullptr) v.pass = ViewOf(*failure.pass);
      hook(v, ContextToPy(ctx));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(absl::StrCat("instrument '", name_, "' on_failure").c_str());
    } catch (const std::exception&) {
      // Nothing can report it from here, and it must not unwind the pass manager.
    }
  }

 private:
  template <typename MakeArgs>
  absl::Status Call(const char* method, MakeArgs make_args) {
    py::gil_scoped_acquire gil;
    try {
      py::object hook = py::getattr(obj_.get(), method, py::none());
      if (hook.is_none()) return absl::OkStatus();
      hook(*make_args());
      return absl::OkStatus();
    } catch (py::error_already_set& e) {
      return PythonErrorStatus(e, absl::StrCat("instrument '", name_, "' raised in ", method));
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("instrument '", name_, "': ", e.what()));
    }
  }

  PyRef obj_;
  std::string name_;
};

// One of tessel's instruments, writing into a string that Python can read.
class CapturingInstrument : public passes::PassInstrument {
 public:
  template <typename Make>
  explicit CapturingInstrument(Make make) : inner_(make(&out_)) {}
  std::string output() const { return out_.str(); }
  void clear() { out_.str(""); }

  std::string name() const override { return inner_->name(); }
  absl::Status BeforePipeline(const ir::IRModule& mod, passes::PassContext& ctx) override {
    return inner_->BeforePipeline(mod, ctx);
  }
  absl::Status AfterPipeline(const ir::IRModule& mod, passes::PassContext& ctx) override {
    return inner_->AfterPipeline(mod, ctx);
  }
  absl::Status BeforePass(const passes::Pass& pass, const ir::IRModule& mod,
                          passes::PassContext& ctx) override {
    return inner_->BeforePass(pass, mod, ctx);
  }
  absl::Status AfterPass(const passes::Pass& pass, const ir::IRModule& before,
                         const ir::IRModule& after, passes::PassContext& ctx) override {
    return inner_->AfterPass(pass, before, after, ctx);
  }
  void OnFailure(const passes::PassFailure& failure, passes::PassContext& ctx) override {
    inner_->OnFailure(failure, ctx);
  }

 private:
  std::ostringstream out_;
  std::shared_ptr<passes::PassInstrument> inner_;
};

using InstrumentPtr = std::shared_ptr<passes::PassInstrument>;

InstrumentPtr InstrumentFromPy(py::handle h) {
  if (py::isinstance<passes::PassInstrument>(h)) return h.cast<InstrumentPtr>();
  if (h.is_none()) Throw(ErrorKind::kArgument, "an instrument cannot be None");
  return std::make_shared<PyInstrument>(py::reinterpret_borrow<py::object>(h));
}

py::list InstrumentsToPy(const passes::PassContext& ctx) {
  py::list out;
  for (const InstrumentPtr& i : ctx.instruments) {
    if (auto* p = dynamic_cast<PyInstrument*>(i.get())) {
      out.append(p->object());
    } else {
      out.append(py::cast(i));
    }
  }
  return out;
}

// Sets a config key from a Python value: typed values as they are, or text as
// written in pipeline options ("7", "[a,b]").
void SetConfig(passes::PassContext& ctx, const std::string& key, py::handle value) {
  const passes::OptionSpec* spec = passes::ConfigRegistry::Global().Lookup(key);
  if (spec == nullptr) {
    Throw(ErrorKind::kArgument, passes::ConfigRegistry::Global().UnknownKeyMessage(key));
  }
  if (py::isinstance<py::str>(value) && spec->type != passes::OptionType::kString) {
    Check(ctx.SetConfigFromText(key, value.cast<std::string>()), ErrorKind::kArgument);
    return;
  }
  const std::string what = absl::StrCat("config '", key, "'");
  Check(ctx.SetConfig(key, OptionValueFromPy(value, spec->type, what)), ErrorKind::kArgument);
}

py::object GetConfig(const passes::PassContext& ctx, const std::string& key) {
  const passes::OptionSpec* spec = passes::ConfigRegistry::Global().Lookup(key);
  if (spec == nullptr) {
    Throw(ErrorKind::kArgument, passes::ConfigRegistry::Global().UnknownKeyMessage(key));
  }
  switch (spec->type) {
    case passes::OptionType::kInt: return py::int_(ctx.GetConfigInt(key));
    case passes::OptionType::kBool: return py::bool_(ctx.GetConfigBool(key));
    case passes::OptionType::kString: return py::str(ctx.GetConfigString(key));
    case passes::OptionType::kList: return py::cast(ctx.GetConfigList(key));
  }
  return py::none();
}

// The contexts entered with `with` on this thread, innermost last; each holds
// the C++ scope that makes it PassContext::Current() for C++ code too.
struct Entered {
  std::shared_ptr<passes::PassContext> ctx;
  std::unique_ptr<passes::PassContext::Scope> scope;
};
thread_local std::vector<Entered> entered;

const char* LogKindName(passes::PassLogEntry::Kind kind) {
  using K = passes::PassLogEntry::Kind;
  switch (kind) {
    case K::kRan: return "ran";
    case K::kSkipped: return "skipped";
    case K::kChanged: return "changed";
    case K::kAdded: return "added";
    case K::kRemoved: return "removed";
    case K::kApplied: return "applied";
    case K::kNote: return "note";
  }
  return "note";
}

}  // namespace

std::shared_ptr<passes::PassContext> CurrentContext() {
  if (!entered.empty()) return entered.back().ctx;
  thread_local auto dflt = std::make_shared<passes::PassContext>();
  return dflt;
}

py::object ContextToPy(passes::PassContext& ctx) {
  // The Python object that owns `ctx` when there is one; otherwise a view,
  // valid while the pass or hook that received it runs.
  return py::cast(&ctx, py::return_value_policy::reference);
}

void BindPassContext(py::module_& m) {
  py::class_<FailureView>(m, "PassFailure", "What on_failure receives.")
      .def_readonly("pass_info", &FailureView::pass, "The failing pass (None outside any pass).")
      .def_readonly("input", &FailureView::input, "The module the pass ran on.")
      .def_readonly("output", &FailureView::output, "What it produced; None when it failed itself.")
      .def_readonly("error", &FailureView::error, "The message the pipeline fails with.");

  py::class_<passes::PassInstrument, InstrumentPtr>(m, "NativeInstrument",
                                                    "One of tessel's C++ instruments.")
      .def_property_readonly("name", &passes::PassInstrument::name, "The instrument's name.");
  py::class_<CapturingInstrument, passes::PassInstrument, std::shared_ptr<CapturingInstrument>>(
      m, "CapturingInstrument", "A tessel instrument whose output is kept as text.")
      .def("output", &CapturingInstrument::output, "Everything it has written so far.")
      .def("clear", &CapturingInstrument::clear, "Forgets what it has written.");

  m.def("instrument_verify_each", [] { return InstrumentPtr(passes::MakeVerifyEachInstrument()); });
  m.def("instrument_timing", [] {
    return std::make_shared<CapturingInstrument>([](std::ostream* o) { return passes::MakeTimingInstrument(o); });
  });
  m.def("instrument_semantic_check", [] {
    return std::make_shared<CapturingInstrument>(
        [](std::ostream* o) { return passes::MakeSemanticCheckInstrument(o); });
  });
  m.def("instrument_dump_dir", [](const std::string& dir) {
    return InstrumentPtr(passes::MakeDumpDirInstrument(dir));
  }, py::arg("dir"));
  m.def("instrument_print_ir", [](bool before_all, std::vector<std::string> before, bool after_all,
                                  std::vector<std::string> after, bool after_change) {
    passes::PrintIROptions o{.before_all = before_all, .before = std::move(before),
                             .after_all = after_all, .after = std::move(after),
                             .after_change = after_change};
    return std::make_shared<CapturingInstrument>(
        [&](std::ostream* out) { return passes::MakePrintIRInstrument(o, out); });
  }, py::arg("before_all"), py::arg("before"), py::arg("after_all"), py::arg("after"),
     py::arg("after_change"));

  py::class_<passes::PassContext, std::shared_ptr<passes::PassContext>>(
      m, "PassContext", "Opt level, required and disabled passes, config and instruments for "
                        "running pipelines; a context manager.")
      .def(py::init([](int opt_level, std::vector<std::string> required,
                       std::vector<std::string> disabled, py::object config, py::object instruments) {
             auto ctx = std::make_shared<passes::PassContext>();
             ctx->opt_level = opt_level;
             ctx->required_passes = std::move(required);
             ctx->disabled_passes = std::move(disabled);
             if (!config.is_none()) {
               for (auto [k, v] : config.cast<py::dict>()) SetConfig(*ctx, k.cast<std::string>(), v);
             }
             if (!instruments.is_none()) {
               for (py::handle i : instruments) ctx->instruments.push_back(InstrumentFromPy(i));
             }
             return ctx;
           }),
           py::arg("opt_level") = 2, py::arg("required_passes") = std::vector<std::string>{},
           py::arg("disabled_passes") = std::vector<std::string>{}, py::arg("config") = py::none(),
           py::arg("instruments") = py::none())
      .def_readwrite("opt_level", &passes::PassContext::opt_level,
                     "Passes with a higher opt level are skipped unless required.")
      .def_readwrite("required_passes", &passes::PassContext::required_passes,
                     "Always run these when they appear, whatever their opt level.")
      .def_readwrite("disabled_passes", &passes::PassContext::disabled_passes,
                     "Never run these (a disabled pipeline skips everything in it).")
      .def_property(
          "instruments", &InstrumentsToPy,
          [](passes::PassContext& ctx, py::object list) {
            std::vector<InstrumentPtr> v;
            for (py::handle i : list) v.push_back(InstrumentFromPy(i));
            ctx.instruments = std::move(v);
          },
          "The instruments, outermost first (Python objects and tessel's own).")
      .def("set_config", &SetConfig, py::arg("key"), py::arg("value"),
           "Sets a registered config key (typed; text is parsed as in pipeline options).")
      .def("get_config", &GetConfig, py::arg("key"), "A config value (its default when unset).")
      .def_property_readonly(
          "config",
          [](const passes::PassContext& ctx) {
            py::dict out;
            for (const std::string& kv : ctx.ConfigToStrings()) {
              std::string key = kv.substr(0, kv.find('='));
              out[py::str(key)] = GetConfig(ctx, key);
            }
            return out;
          },
          "The explicitly set config keys and their values.")
      .def_property_readonly("log", [](const passes::PassContext& ctx) { return ctx.log().ToString(); },
                             "The pass log of the last run: one line per pass.")
      .def_property_readonly(
          "log_entries",
          [](const passes::PassContext& ctx) {
            py::list out;
            for (const passes::PassLogEntry& e : ctx.log().entries()) {
              out.append(py::make_tuple(LogKindName(e.kind), e.pass, e.function, e.detail, e.count));
            }
            return out;
          },
          "(kind, pass, function, detail, count) per log entry of the last run.")
      .def("__enter__",
           [](std::shared_ptr<passes::PassContext> ctx) {
             entered.push_back({ctx, std::make_unique<passes::PassContext::Scope>(*ctx)});
             return ctx;
           })
      .def("__exit__",
           [](std::shared_ptr<passes::PassContext> ctx, py::args) {
             if (entered.empty() || entered.back().ctx != ctx) {
               Throw(ErrorKind::kBase, "PassContext contexts must be exited innermost first");
             }
             entered.pop_back();
           })
      .def_static("current", &CurrentContext,
                  "The innermost context entered with `with` on this thread, or the default one.")
      .def_static("list_configs", [] {
        std::vector<std::tuple<std::string, std::string, py::object, std::string>> out;
        for (const passes::OptionSpec* s : passes::ConfigRegistry::Global().All()) {
          out.emplace_back(s->name, passes::OptionTypeName(s->type), OptionValueToPy(s->default_value),
                           s->description);
        }
        return out;
      }, "(key, type, default, description) of every registered config key.");
}

}  // namespace tessel::python
