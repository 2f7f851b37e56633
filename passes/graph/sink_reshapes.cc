// sink-reshapes (see sink_reshapes.h).
#include "passes/graph/sink_reshapes.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/graph/op_registry.h"
#include "ir/graph_memory_plan.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "passes/graph/op_pattern.h"
#include "passes/graph/value_shape.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

using Bindings = std::vector<ir::GraphBinding>;

bool IsReshape(const ir::GraphBinding& b) {
  return b.call.kind == ir::GraphCall::Kind::kOp && b.call.callee == "reshape" &&
         b.call.args.size() == 1;
}

bool SameShape(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d) {
    if (!ir::StructuralEqual(a[d], b[d])) return false;
  }
  return true;
}

// The shape as the `shape` attribute of a reshape, when every dimension is constant.
std::optional<ir::AttrValue> ShapeAttr(const ir::Buffer& v) {
  std::optional<std::vector<int64_t>> shape = ConstantShape(v);
  if (!shape) return std::nullopt;
  ir::AttrValue::List dims;
  for (int64_t d : *shape) dims.emplace_back(d);
  return ir::AttrValue(std::move(dims));
}

ir::GraphBinding Reshape(ir::Buffer from, ir::Buffer to, ir::AttrValue shape) {
  return ir::GraphBinding{{std::move(to)},
                          {ir::GraphCall::Kind::kOp,
                           "reshape",
                           {std::move(from)},
                           ir::Attrs{{"shape", std::move(shape)}}}};
}

// Whether `c`, beside a reshaped argument whose last dimension is `last`, reads the
// same elements before and after the reshape: a scalar, or a vector over `last`.
bool BroadcastsOverLast(const ir::Buffer& c, const ir::Expr& last) {
  if (c->shape.empty()) return true;
  if (c->shape.size() != 1) return false;
  const auto* one = ir::dyn_cast<ir::IntImmNode>(c->shape[0]);
  return (one != nullptr && one->value == 1) || ir::StructuralEqual(c->shape[0], last);
}

class Sinker {
 public:
  // `eager`: sink into any reader that lets a reshape pass, not only when all do.
  Sinker(const ir::GraphFunc& g, bool eager, SinkReshapesStats* stats)
      : g_(g), stats_(stats), eager_(eager) {
    for (const ir::Buffer& p : g->params) names_.insert(p->name);
    for (const ir::GraphBinding& b : g->bindings) {
      for (const ir::Buffer& o : b.outputs) names_.insert(o->name);
    }
  }

  absl::StatusOr<ir::GraphFunc> Run() {
    Bindings bindings = g_->bindings;
    std::vector<ir::Buffer> results = g_->results;
    // Each rewrite removes a binding or moves a reshape one operator down: a bound.
    for (size_t round = 0; round < 4 * bindings.size() + 4; ++round) {
      TESSEL_ASSIGN_OR_RETURN(bool changed, Step(bindings, results));
      if (!changed) break;
    }
    if (stats_->moved == 0 && stats_->removed == 0) return g_;
    auto n = ir::MakeNode<ir::GraphFuncNode>(*g_);
    n->bindings = std::move(bindings);
    n->results = std::move(results);
    n->attrs.erase("fusion_groups");
    n->attrs.erase(ir::kStorageAttr);
    return ir::GraphFunc(std::move(n));
  }

 private:
  // One rewrite, the first that applies; false when none does.
  absl::StatusOr<bool> Step(Bindings& bindings, std::vector<ir::Buffer>& results) {
    absl::flat_hash_map<const ir::BufferNode*, std::vector<std::pair<size_t, size_t>>> readers;
    absl::flat_hash_set<const ir::BufferNode*> returned;
    def_.clear();
    for (size_t i = 0; i < bindings.size(); ++i) {
      for (size_t a = 0; a < bindings[i].call.args.size(); ++a)
        readers[bindings[i].call.args[a].get()].emplace_back(i, a);
      for (const ir::Buffer& o : bindings[i].outputs) def_[o.get()] = i;
    }
    for (const ir::Buffer& r : results) returned.insert(r.get());
    for (size_t i = 0; i < bindings.size(); ++i) {
      ir::GraphBinding& b = bindings[i];
      if (!IsReshape(b)) continue;
      const ir::Buffer from = b.call.args[0], to = b.outputs[0];
      // A reshape nothing reads any more (its readers read its argument now).
      if (!readers.contains(to.get()) && !returned.contains(to.get())) {
        bindings.erase(bindings.begin() + static_cast<long>(i));
        ++stats_->removed;
        return true;
      }
      // A reshape to its argument's own shape: its readers read the argument.
      if (from->dtype == to->dtype && SameShape(from->shape, to->shape)) {
        Replace(bindings, results, to, from);
        bindings.erase(bindings.begin() + static_cast<long>(i));
        ++stats_->removed;
        return true;
      }
      // A reshape of a reshape: one reshape of the first's argument.
      if (std::optional<size_t> inner = ReshapeDefining(bindings, from)) {
        b.call.args[0] = bindings[*inner].call.args[0];
        return true;
      }
      // Below its readers: every one of them must let it pass (and it is no result),
      // or, eagerly, any one (the reshape then stays for the others).
      auto it = readers.find(to.get());
      if (it == readers.end()) continue;
      std::optional<size_t> into;
      bool all = !returned.contains(to.get());
      for (const auto& [reader, arg] : it->second) {
        if (CanSink(bindings, reader, arg)) {
          if (!into) into = reader;
        } else {
          all = false;
        }
      }
      if (!into || (!eager_ && !all)) continue;
      TESSEL_RETURN_IF_ERROR(Sink(bindings, *into));
      return true;
    }
    return false;
  }

  std::optional<size_t> ReshapeDefining(const Bindings& bindings, const ir::Buffer& v) const {
    auto it = def_.find(v.get());
    if (it == def_.end() || !IsReshape(bindings[it->second])) return std::nullopt;
    return it->second;
  }

  // Whether binding `i`, an elementwise or broadcast operator reading reshape value
  // `a`, computes the same elements on the reshape's argument: its value has the
  // reshape's shape, the reshape keeps the last dimension, and each other argument
  // is a bias over that dimension, a scalar, or a reshape of the same kind.
  bool CanSink(const Bindings& bindings, size_t i, size_t a) const {
    const ir::GraphBinding& b = bindings[i];
    if (b.call.kind != ir::GraphCall::Kind::kOp || b.outputs.size() != 1 || IsReshape(b))
      return false;
    const ir::Buffer& reshaped = b.call.args[a];
    std::optional<size_t> r = ReshapeDefining(bindings, reshaped);
    if (!r) return false;
    const ir::Buffer& source = bindings[*r].call.args[0];
    const ir::Buffer& out = b.outputs[0];
    if (source->shape.empty() || reshaped->shape.empty() ||
        !ir::StructuralEqual(source->shape.back(), reshaped->shape.back()) ||
        !SameShape(out->shape, reshaped->shape) || !ShapeAttr(out)) {
      return false;
    }
    for (size_t k = 0; k < b.call.args.size(); ++k) {
      const ir::Buffer& other = b.call.args[k];
      if (k == a || BroadcastsOverLast(other, reshaped->shape.back())) continue;
      std::optional<size_t> q = ReshapeDefining(bindings, other);
      if (!q || !SameShape(other->shape, reshaped->shape) ||
          !SameShape(bindings[*q].call.args[0]->shape, source->shape)) {
        return false;
      }
    }
    // An attribute that names dimensions would name others after the reshape.
    for (const char* key : {"axis", "axes", "shape", "perm"}) {
      if (b.call.attrs.contains(key)) return false;
    }
    // Only an elementwise or broadcast operator computes each element alone, and
    // it must accept the reshapes' arguments and give their shape.
    absl::StatusOr<ir::graph::LegalizedOp> op = ir::graph::LegalizeGraphOp(b);
    if (!op.ok()) return false;
    const OpPattern p = OpPatternOf(op->func);
    if (p != OpPattern::kElementwise && p != OpPattern::kBroadcast) return false;
    absl::StatusOr<ir::GraphBinding> moved = Moved(bindings, b, source->shape);
    return moved.ok() && ir::graph::LegalizeGraphOp(*moved).ok();
  }

  // Binding `b` on the reshapes' arguments (of shape `flat`), defining a new value.
  absl::StatusOr<ir::GraphBinding> Moved(const Bindings& bindings, const ir::GraphBinding& b,
                                         const std::vector<ir::Expr>& flat) const {
    const ir::Buffer& out = b.outputs[0];
    ir::GraphBinding moved = b;
    for (ir::Buffer& arg : moved.call.args) {
      if (std::optional<size_t> r = ReshapeDefining(bindings, arg);
          r && SameShape(arg->shape, out->shape)) {
        arg = bindings[*r].call.args[0];
      }
    }
    TESSEL_ASSIGN_OR_RETURN(
        ir::Buffer value,
        ir::MakeBufferChecked(absl::StrCat(out->name, "_flat"), out->dtype, flat));
    moved.outputs = {value};
    return moved;
  }

  // Binding `i` (CanSink) on the reshapes' arguments, then one reshape to its value.
  absl::Status Sink(Bindings& bindings, size_t i) {
    const ir::GraphBinding b = bindings[i];  // A copy: the bindings change below.
    const ir::Buffer out = b.outputs[0];
    std::vector<ir::Expr> flat;
    for (const ir::Buffer& arg : b.call.args) {
      std::optional<size_t> r = ReshapeDefining(bindings, arg);
      if (r && SameShape(arg->shape, out->shape)) flat = bindings[*r].call.args[0]->shape;
    }
    TESSEL_ASSIGN_OR_RETURN(ir::GraphBinding moved, Moved(bindings, b, flat));
    TESSEL_ASSIGN_OR_RETURN(moved.outputs[0],
                            ir::MakeBufferChecked(Fresh(out->name), out->dtype, flat));
    bindings[i] = moved;
    bindings.insert(bindings.begin() + static_cast<long>(i) + 1,
                    Reshape(moved.outputs[0], out, *ShapeAttr(out)));
    ++stats_->moved;
    return absl::OkStatus();
  }

  std::string Fresh(const std::string& base) {
    std::string name = absl::StrCat(base, "_flat");
    for (int k = 1; names_.contains(name); ++k) name = absl::StrCat(base, "_flat_", k);
    names_.insert(name);
    return name;
  }

  static void Replace(Bindings& bindings, std::vector<ir::Buffer>& results, const ir::Buffer& from,
                      const ir::Buffer& to) {
    for (ir::GraphBinding& b : bindings) {
      for (ir::Buffer& a : b.call.args) {
        if (a.same_as(from)) a = to;
      }
    }
    for (ir::Buffer& r : results) {
      if (r.same_as(from)) r = to;
    }
  }

  const ir::GraphFunc& g_;
  SinkReshapesStats* stats_;
  bool eager_;
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<const ir::BufferNode*, size_t> def_;  // Value -> defining binding.
};

class SinkReshapesPass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "sink-reshapes",
            .description =
                "Moves reshapes below the elementwise and broadcast operators that "
                "read them, merging and removing the reshapes that then meet",
            .opt_level = 0,
            .options = {}};
  }
  explicit SinkReshapesPass(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
    bool changed = false;
    for (auto& [gname, g] : n->graph_functions) {
      SinkReshapesStats stats;
      TESSEL_ASSIGN_OR_RETURN(ir::GraphFunc out, SinkReshapes(g, &stats));
      if (stats.moved == 0 && stats.removed == 0) continue;
      g = out;
      changed = true;
      ctx.log().RecordNote(name(), absl::StrCat(gname, ": ", stats.moved,
                                                stats.moved == 1 ? " reshape" : " reshapes",
                                                " moved, ", stats.removed, " removed"));
    }
    if (!changed) return mod;
    return ir::IRModule(std::move(n));
  }
};

const PassRegistrar kRegisterSinkReshapes(SinkReshapesPass::Info(),
                                          [](PassOptions o) -> absl::StatusOr<PassPtr> {
                                            return std::make_shared<const SinkReshapesPass>(
                                                std::move(o));
                                          });

}  // namespace

namespace {

int CountReshapes(const ir::GraphFunc& g) {
  int n = 0;
  for (const ir::GraphBinding& b : g->bindings) n += IsReshape(b) ? 1 : 0;
  return n;
}

}  // namespace

absl::StatusOr<ir::GraphFunc> SinkReshapes(const ir::GraphFunc& g, SinkReshapesStats* stats) {
  // Eager sinking reaches chains whose readers become reshapes only as it goes
  // (GELU multiplies its input by a function of it), but may leave a reshape behind
  // for a reader that never lets it pass: it is kept only when it leaves no more
  // reshapes than sinking where every reader lets it.
  SinkReshapesStats strict_stats, eager_stats;
  TESSEL_ASSIGN_OR_RETURN(ir::GraphFunc strict, Sinker(g, false, &strict_stats).Run());
  TESSEL_ASSIGN_OR_RETURN(ir::GraphFunc eager, Sinker(g, true, &eager_stats).Run());
  if (CountReshapes(eager) <= CountReshapes(strict)) {
    *stats = eager_stats;
    return eager;
  }
  *stats = strict_stats;
  return strict;
}

}  // namespace tessel::passes
