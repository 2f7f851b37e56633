// plan-memory (see plan_memory.h).
#include "passes/graph/plan_memory.h"

#include <optional>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/printer.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

constexpr ir::DataType kI64 = ir::DataType::Int(64);

struct Storage {
  std::vector<ir::Buffer> values;
  ir::Expr bytes;
  int free_after = 0;  // The last binding that reads a value in it.
};

// Shape variables are sizes: without knowing n >= 0, 64 * n >= 4 * n is unproven.
void AssumeSizes(const ir::GraphFunc& g, ir::arith::Analyzer& ana) {
  for (const ir::Buffer& p : g->params) {
    for (const ir::Expr& d : p->shape) {
      if (ir::isa<ir::VarNode>(d)) ana.EnterConstraint(ir::GE(d, ir::IntImm(d->dtype, 0)));
    }
  }
}

std::optional<int64_t> Constant(const ir::Expr& e) {
  if (const auto* c = ir::dyn_cast<ir::IntImmNode>(e)) return c->value;
  return std::nullopt;
}

class Planner {
 public:
  explicit Planner(const ir::GraphFunc& g) : g_(g), life_(ir::IntermediateLifetimes(g)) {
    AssumeSizes(g, ana_);
  }

  ir::MemoryPlan Plan() {
    for (size_t k = 0; k < g_->bindings.size(); ++k) {
      for (const ir::Buffer& o : g_->bindings[k].outputs) {
        if (life_.contains(o.get())) Place(o, static_cast<int>(k));
      }
    }
    ir::MemoryPlan plan;
    for (Storage& s : storages_) plan.push_back(std::move(s.values));
    return plan;
  }

 private:
  bool Fits(const ir::Expr& need, const ir::Expr& have) {
    return ana_.CanProve(ir::GE(have, need));
  }

  void Place(const ir::Buffer& v, int k) {
    const ir::Expr need = ana_.Simplify(ValueBytes(v));
    const std::optional<int64_t> need_c = Constant(need);
    Storage* best = nullptr;     // The smallest constant storage that is large enough.
    Storage* largest = nullptr;  // The largest constant storage.
    Storage* bounded = nullptr;  // The first storage the size provably fits.
    for (Storage& s : storages_) {
      if (s.free_after >= k) continue;
      const std::optional<int64_t> have_c = Constant(s.bytes);
      if (need_c && have_c) {
        if (*have_c >= *need_c && (!best || *have_c < *Constant(best->bytes))) best = &s;
        if (!largest || *have_c > *Constant(largest->bytes)) largest = &s;
      } else if (!bounded && Fits(need, s.bytes)) {
        bounded = &s;
      }
    }
    if (!best) best = bounded;
    // Only a constant storage grows, and only to a constant size.
    if (!best && need_c && largest) {
      best = largest;
      best->bytes = ir::IntImm(kI64, *need_c);
    }
    if (!best) {
      storages_.push_back(Storage{{}, need, 0});
      best = &storages_.back();
    }
    best->values.push_back(v);
    best->free_after = life_.at(v.get()).last_use;
  }

  const ir::GraphFunc& g_;
  absl::flat_hash_map<const ir::BufferNode*, ir::ValueLifetime> life_;
  std::vector<Storage> storages_;
  ir::arith::Analyzer ana_;
};

// "9216" or "n * 196": the log line without the i64 casts and suffixes of the
// expression's text.
std::string BytesText(ir::arith::Analyzer& ana, const ir::Expr& e) {
  const ir::Expr bytes = ana.Simplify(e);
  if (std::optional<int64_t> c = Constant(bytes)) return absl::StrCat(*c);
  static const std::regex kCast(R"(i64\((\w+)\))"), kSuffix(R"((\d+)i64)");
  return std::regex_replace(std::regex_replace(ir::PrintExpr(bytes), kCast, "$1"), kSuffix, "$1");
}

class PlanMemoryPass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "plan-memory",
            .description =
                "Lets intermediates of graph functions whose lifetimes do not "
                "overlap share storage (attr `storage`)",
            .opt_level = 0,
            .options = {}};
  }
  explicit PlanMemoryPass(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
    bool changed = false;
    for (auto& [gname, g] : n->graph_functions) {
      ir::MemoryPlan plan = PlanMemory(g);
      auto it = g->attrs.find(ir::kStorageAttr);
      if (plan.empty() && it == g->attrs.end()) continue;
      auto gn = ir::MakeNode<ir::GraphFuncNode>(*g);
      if (plan.empty()) {
        gn->attrs.erase(ir::kStorageAttr);
      } else {
        gn->attrs[ir::kStorageAttr] = ir::MemoryPlanAttr(plan);
      }
      g = ir::GraphFunc(std::move(gn));
      changed = true;
      ir::arith::Analyzer ana;
      AssumeSizes(g, ana);
      ir::Expr before = ir::IntImm(kI64, 0), after = ir::IntImm(kI64, 0);
      size_t values = 0;
      for (const std::vector<ir::Buffer>& storage : plan) {
        ir::Expr largest = ValueBytes(storage[0]);
        for (const ir::Buffer& v : storage) {
          before = ir::Add(before, ValueBytes(v));
          largest = ir::Max(largest, ValueBytes(v));
          ++values;
        }
        after = ir::Add(after, largest);
      }
      ctx.log().RecordNote(
          name(),
          absl::StrCat(gname, ": ", values, values == 1 ? " intermediate, " : " intermediates, ",
                       BytesText(ana, before), " bytes -> ", plan.size(),
                       plan.size() == 1 ? " storage, " : " storages, ", BytesText(ana, after),
                       " bytes"));
    }
    if (!changed) return mod;
    return ir::IRModule(std::move(n));
  }
};

const PassRegistrar kRegisterPlanMemory(PlanMemoryPass::Info(),
                                        [](PassOptions o) -> absl::StatusOr<PassPtr> {
                                          return std::make_shared<const PlanMemoryPass>(
                                              std::move(o));
                                        });

}  // namespace

ir::Expr ValueBytes(const ir::Buffer& value) {
  ir::Expr bytes = ir::IntImm(kI64, value->dtype.bytes() * value->dtype.lanes());
  for (const ir::Expr& d : value->shape) {
    bytes = ir::Mul(bytes, d->dtype == kI64 ? d : ir::Cast(kI64, d));
  }
  return bytes;
}

ir::MemoryPlan PlanMemory(const ir::GraphFunc& g) { return Planner(g).Plan(); }

}  // namespace tessel::passes
