// Search strategies written in Python (tessel.metaschedule.SearchStrategy):
// registered by name in the same registry as the C++ ones, called under the GIL.
//
//   >>> class Hill(tessel.metaschedule.SearchStrategy):
//   ...     def propose(self, history, n): ...      # history: [(Trace, seconds)]
//   >>> tessel.metaschedule.register_strategy("hill", Hill)
//   >>> tessel.metaschedule.tune(mod, strategy="hill", ...)
#include "metaschedule/search/search_strategy.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/schedule/sampling.h"
#include "metaschedule/search/mutator.h"
#include "python/src/common.h"
#include "python/src/gil_object.h"

namespace tessel::python {

namespace ms = metaschedule;
namespace sch = ir::schedule;

namespace {

class PythonStrategy : public ms::SearchStrategy {
 public:
  PythonStrategy(std::string name, std::shared_ptr<py::object> cls)
      : name_(std::move(name)), cls_(std::move(cls)) {}
  std::string name() const override { return name_; }

  absl::Status Init(const ms::SearchContext& ctx) override {
    py::gil_scoped_acquire acquire;
    try {
      self_ = HoldUnderGil((*cls_)());
      self_->attr("init")(*ctx.space, ctx.seed);
    } catch (const std::exception& e) {
      return Failed("init", e);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<sch::Trace>> Propose(const ms::SearchHistory& history,
                                                  int n) override {
    py::gil_scoped_acquire acquire;
    std::vector<sch::Trace> out;
    try {
      py::list entries;
      for (const ms::SearchHistory::Entry& e : history.entries()) {
        entries.append(py::make_tuple(e.trace, e.seconds));
      }
      py::object proposed = self_->attr("propose")(entries, n);
      absl::flat_hash_set<std::string> keys;
      for (py::handle item : proposed) {
        if (!py::isinstance<sch::Trace>(item)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "search strategy \"", name_, "\": propose returned a ",
              std::string(py::str(item.get_type().attr("__name__"))), ", not a tessel.Trace"));
        }
        sch::Trace t = item.cast<sch::Trace>();
        // The contract every strategy keeps: nothing measured before, nothing twice.
        if (history.Seen(t) || !keys.insert(ms::SearchHistory::Key(t)).second) continue;
        if (static_cast<int>(out.size()) < n) out.push_back(std::move(t));
      }
    } catch (const std::exception& e) {
      return Failed("propose", e);
    }
    return out;
  }

  void Observe(const std::vector<sch::Trace>& traces,
               const std::vector<ms::MeasureResult>& results) override {
    py::gil_scoped_acquire acquire;
    try {
      if (!py::hasattr(*self_, "observe")) return;
      std::vector<double> seconds;
      for (const ms::MeasureResult& r : results) seconds.push_back(r.MeanSeconds());
      self_->attr("observe")(traces, seconds);
    } catch (const std::exception&) {
      // What the strategy learns is its own affair; the records are committed.
    }
  }

 private:
  absl::Status Failed(const char* what, const std::exception& e) const {
    return absl::InvalidArgumentError(
        absl::StrCat("search strategy \"", name_, "\": ", what, " raised: ", e.what()));
  }

  std::string name_;
  std::shared_ptr<py::object> cls_;
  std::shared_ptr<py::object> self_;
};

}  // namespace

void BindSearchStrategies(py::module_& m) {
  m.def(
      "register_search_strategy",
      [](const std::string& name, py::object cls) {
        std::shared_ptr<py::object> held = HoldUnderGil(std::move(cls));
        bool added = ms::RegisterSearchStrategy(name, [name, held] {
          return std::unique_ptr<ms::SearchStrategy>(new PythonStrategy(name, held));
        });
        if (!added) {
          Throw(ErrorKind::kArgument,
                absl::StrCat("a search strategy named \"", name, "\" is already registered"));
        }
      },
      py::arg("name"), py::arg("cls"));
  m.def(
      "mutate",
      [](const ms::DesignSpace& space, const sch::Trace& trace, uint64_t seed) {
        sch::RandomEngine rng(seed);
        absl::StatusOr<ms::Mutation> mutation;
        {
          py::gil_scoped_release release;
          mutation = ms::Mutate(space, trace, &rng);
        }
        ms::Mutation out = Unwrap(std::move(mutation), ErrorKind::kSchedule);
        return py::make_tuple(out.trace, out.mutator);
      },
      py::arg("space"), py::arg("trace"), py::arg("seed"),
      "One decision of `trace` changed and the schedule rebuilt by the rules: (trace, mutator).");
}

}  // namespace tessel::python
