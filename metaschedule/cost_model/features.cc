// Feature extraction from lowered functions (see features.h).
#include "metaschedule/cost_model/features.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/linear_form.h"
#include "ir/schedule/schedule.h"
#include "ir/status_macros.h"
#include "ir/visitor.h"
#include "passes/pass_context.h"
#include "passes/pass_manager.h"

namespace tessel::metaschedule {

namespace {

using ir::NodeKind;

struct Loop {
  const ir::VarNode* var;
  double extent;
  bool parallel;
};

struct Access {
  ir::Buffer buffer;
  ir::Expr index;  // The lowered (1-D) index, scalar or a ramp.
  int lanes;
};

// Operation counts of one execution of a store.
struct Ops {
  double fma = 0, add = 0, mul = 0, div = 0, math = 0, compare = 0, integer = 0;
  double Float() const { return 2 * fma + add + mul + div + math + compare; }
};

void CollectVars(const ir::Expr& e, absl::flat_hash_set<const ir::VarNode*>* out) {
  struct V : ir::IRVisitor {
    absl::flat_hash_set<const ir::VarNode*>* out;
    void VisitVar(const ir::VarNode* op) override { out->insert(op); }
  } v;
  v.out = out;
  v.VisitExpr(e);
}

// Counts the operations of `e` and collects its loads.
void Count(const ir::Expr& e, Ops* ops, std::vector<Access>* loads) {
  if (!e) return;
  const double lanes = e->dtype.lanes();
  const bool is_float = e->dtype.is_float();
  switch (e->kind()) {
    case NodeKind::kAdd:
    case NodeKind::kSub:
      (is_float ? ops->add : ops->integer) += lanes;
      break;
    case NodeKind::kMul:
      (is_float ? ops->mul : ops->integer) += lanes;
      break;
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
      (is_float ? ops->div : ops->integer) += lanes;
      break;
    case NodeKind::kMin:
    case NodeKind::kMax:
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE:
    case NodeKind::kSelect:
      ops->compare += lanes;
      break;
    default:
      break;
  }
  if (const auto* b = ir::dyn_cast<ir::BinaryNode>(e)) {
    Count(b->a, ops, loads);
    Count(b->b, ops, loads);
  } else if (const auto* s = ir::dyn_cast<ir::SelectNode>(e)) {
    Count(s->condition, ops, loads);
    Count(s->true_value, ops, loads);
    Count(s->false_value, ops, loads);
  } else if (const auto* n = ir::dyn_cast<ir::NotNode>(e)) {
    Count(n->a, ops, loads);
  } else if (const auto* c = ir::dyn_cast<ir::CastNode>(e)) {
    Count(c->value, ops, loads);
  } else if (const auto* r = ir::dyn_cast<ir::RampNode>(e)) {
    Count(r->base, ops, loads);
  } else if (const auto* bc = ir::dyn_cast<ir::BroadcastNode>(e)) {
    Count(bc->value, ops, loads);
  } else if (const auto* call = ir::dyn_cast<ir::CallNode>(e)) {
    if (call->name == "fma") {
      ops->fma += lanes;
    } else if (call->callee != ir::CallNode::Callee::kAddressOf) {
      ops->math += lanes;
    }
    for (const ir::Expr& a : call->args) Count(a, ops, loads);
  } else if (const auto* l = ir::dyn_cast<ir::BufferLoadNode>(e)) {
    if (!l->indices.empty()) loads->push_back({l->buffer, l->indices.back(), e->dtype.lanes()});
    for (const ir::Expr& i : l->indices) Count(i, ops, loads);
  }
}

// The step, in elements, of `index` when `var` grows by one (0 when it does not
// appear or the index is not linear in it).
double StrideAlong(const ir::Expr& index, const ir::VarNode* var) {
  if (var == nullptr) return 0;
  ir::Expr base = index;
  if (const auto* r = ir::dyn_cast<ir::RampNode>(index)) base = r->base;
  std::optional<ir::arith::LinearSum> sum = ir::arith::ToLinear(base);
  if (!sum) return 0;
  for (const ir::arith::SplitTerm& t : sum->terms) {
    if (t.is_plain() && t.index.get() == var) return static_cast<double>(std::llabs(t.scale));
  }
  return 0;
}

double ConstElements(const ir::Buffer& b) {
  double n = 1;
  for (const ir::Expr& d : b->shape) {
    std::optional<int64_t> v = ir::arith::AsConstInt(d);
    if (!v) return INFINITY;
    n *= static_cast<double>(*v);
  }
  return n;
}

class Extractor : public ir::IRVisitor {
 public:
  absl::Status status;
  Ops total;
  double vector_float = 0, parallel_float = 0;
  double loads = 0, stores = 0, bytes_read = 0, bytes_written = 0;
  double lanes_weighted = 0, inner_weighted = 0, trips = 0, reuse_weighted = 0, accesses = 0;
  double contiguous = 0, strided = 0, allocated = 0, static_stores = 0, static_loops = 0;
  double max_parallel = 1;
  size_t max_depth = 0;
  absl::flat_hash_set<const ir::BufferNode*> local;              // Allocated by the function.
  absl::flat_hash_map<const ir::BufferNode*, double> footprint;  // Bytes, the largest seen.

  void VisitFor(const ir::ForNode* op) override {
    std::optional<int64_t> extent = ir::arith::AsConstInt(op->extent);
    loops_.push_back({op->loop_var.get(), extent ? static_cast<double>(*extent) : 16.0,
                      op->for_kind == ir::ForKind::kParallel});
    ++static_loops;
    max_depth = std::max(max_depth, loops_.size());
    ir::IRVisitor::VisitFor(op);
    loops_.pop_back();
  }

  void VisitAllocate(const ir::AllocateNode* op) override {
    local.insert(op->buffer.get());
    double n = ConstElements(op->buffer);
    if (std::isfinite(n)) allocated += n * op->buffer->dtype.bytes();
    ir::IRVisitor::VisitAllocate(op);
  }

  void VisitBlock(const ir::BlockNode*) override {
    if (status.ok()) status = absl::InvalidArgumentError("features: the function is not lowered");
  }

  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    ++static_stores;
    double trip = 1, parallel = 1;
    for (const Loop& l : loops_) {
      trip *= l.extent;
      if (l.parallel) parallel *= l.extent;
    }
    Ops ops;
    std::vector<Access> access;
    Count(op->value, &ops, &access);
    for (const ir::Expr& i : op->indices) Count(i, &ops, &access);
    const size_t first_store = access.size();
    int lanes = op->value ? op->value->dtype.lanes() : 1;
    if (!op->indices.empty()) access.push_back({op->buffer, op->indices.back(), lanes});

    const double flops = ops.Float() * trip;
    total.fma += ops.fma * trip;
    total.add += ops.add * trip;
    total.mul += ops.mul * trip;
    total.div += ops.div * trip;
    total.math += ops.math * trip;
    total.compare += ops.compare * trip;
    total.integer += ops.integer * trip;
    if (lanes > 1) vector_float += flops;
    if (parallel > 1) parallel_float += flops;
    max_parallel = std::max(max_parallel, parallel);
    stores += trip;
    loads += static_cast<double>(first_store) * trip;
    trips += trip;
    lanes_weighted += lanes * trip;
    inner_weighted += (loops_.empty() ? 1.0 : loops_.back().extent) * trip;

    const ir::VarNode* inner = loops_.empty() ? nullptr : loops_.back().var;
    for (size_t k = 0; k < access.size(); ++k) {
      const Access& a = access[k];
      const double bytes = static_cast<double>(a.lanes) * a.buffer->dtype.bytes();
      (k < first_store ? bytes_read : bytes_written) += bytes * trip;
      double stride = StrideAlong(a.index, inner);
      if (stride <= 1) contiguous += trip;
      if (stride > 16) strided += trip;
      accesses += trip;
      // Distinct elements: the lanes times the extents of the loops the index names.
      absl::flat_hash_set<const ir::VarNode*> vars;
      CollectVars(a.index, &vars);
      double elements = a.lanes;
      for (const Loop& l : loops_) {
        if (vars.contains(l.var)) elements *= l.extent;
      }
      elements = std::min(elements, ConstElements(a.buffer));
      double& fp = footprint[a.buffer.get()];
      fp = std::max(fp, elements * a.buffer->dtype.bytes());
      reuse_weighted += trip * a.lanes / std::max(1.0, elements) * trip;
    }
  }

 private:
  std::vector<Loop> loops_;
};

float Log(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }
float Share(double part, double whole) {
  return whole > 0 ? static_cast<float>(part / whole) : 0.0f;
}

}  // namespace

const char* FeatureName(Feature f) {
  static constexpr const char* kNames[kNumFeatures] = {"float_ops",
                                                       "fma_ops",
                                                       "add_ops",
                                                       "mul_ops",
                                                       "div_ops",
                                                       "math_calls",
                                                       "compare_ops",
                                                       "int_ops",
                                                       "loads",
                                                       "stores",
                                                       "bytes_read",
                                                       "bytes_written",
                                                       "unique_global",
                                                       "unique_local",
                                                       "vector_lanes",
                                                       "vector_share",
                                                       "parallel_extent",
                                                       "parallel_share",
                                                       "static_stores",
                                                       "static_loops",
                                                       "max_depth",
                                                       "inner_extent",
                                                       "contiguous_share",
                                                       "strided_share",
                                                       "intensity",
                                                       "ops_per_byte_read",
                                                       "allocated_bytes",
                                                       "reuse",
                                                       "trips"};
  return f >= 0 && f < kNumFeatures ? kNames[f] : "?";
}

absl::StatusOr<FeatureVector> ExtractFeatures(const ir::PrimFunc& lowered) {
  if (!lowered) return absl::InvalidArgumentError("features: no function");
  Extractor x;
  x.VisitStmt(lowered->body);
  if (!x.status.ok()) return x.status;
  double unique_global = 0, unique_local = 0;
  for (const auto& [buffer, bytes] : x.footprint) {
    (x.local.contains(buffer) ? unique_local : unique_global) += bytes;
  }
  const double flops = x.total.Float();
  FeatureVector f{};
  f[kFloatOps] = Log(flops);
  f[kFmaOps] = Log(x.total.fma);
  f[kAddOps] = Log(x.total.add);
  f[kMulOps] = Log(x.total.mul);
  f[kDivOps] = Log(x.total.div);
  f[kMathCalls] = Log(x.total.math);
  f[kCompareOps] = Log(x.total.compare);
  f[kIntOps] = Log(x.total.integer);
  f[kLoads] = Log(x.loads);
  f[kStores] = Log(x.stores);
  f[kBytesRead] = Log(x.bytes_read);
  f[kBytesWritten] = Log(x.bytes_written);
  f[kUniqueGlobal] = Log(unique_global);
  f[kUniqueLocal] = Log(unique_local);
  f[kVectorLanes] = static_cast<float>(x.trips > 0 ? x.lanes_weighted / x.trips : 1);
  f[kVectorShare] = Share(x.vector_float, flops);
  f[kParallelExtent] = Log(x.max_parallel);
  f[kParallelShare] = Share(x.parallel_float, flops);
  f[kStaticStores] = static_cast<float>(x.static_stores);
  f[kStaticLoops] = static_cast<float>(x.static_loops);
  f[kMaxDepth] = static_cast<float>(x.max_depth);
  f[kInnerExtent] = Log(x.trips > 0 ? x.inner_weighted / x.trips : 1);
  f[kContiguousShare] = Share(x.contiguous, x.accesses);
  f[kStridedShare] = Share(x.strided, x.accesses);
  f[kIntensity] = Log(flops / std::max(1.0, unique_global + unique_local));
  f[kOpsPerByteRead] = Log(flops / std::max(1.0, x.bytes_read));
  f[kAllocatedBytes] = Log(x.allocated);
  f[kReuse] = Log(x.accesses > 0 ? x.reuse_weighted / x.accesses : 0);
  f[kTrips] = Log(x.trips);
  return f;
}

absl::StatusOr<double> FloatOperations(const ir::PrimFunc& lowered) {
  if (!lowered) return absl::InvalidArgumentError("features: no function");
  Extractor x;
  x.VisitStmt(lowered->body);
  if (!x.status.ok()) return x.status;
  return x.total.Float();
}

absl::StatusOr<double> WorkloadFloatOperations(const ir::IRModule& mod, const std::string& func) {
  passes::PassContext ctx;
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule lowered, passes::RunPipeline("lower", mod, ctx));
  return FloatOperations(lowered->Lookup(func));
}

absl::StatusOr<FeatureVector> CandidateFeatures(const ir::IRModule& mod, const std::string& func,
                                                const ir::schedule::Trace& trace) {
  TESSEL_ASSIGN_OR_RETURN(ir::schedule::Schedule s, ir::schedule::Schedule::Create(mod, func));
  TESSEL_RETURN_IF_ERROR(trace.ApplyToSchedule(&s));
  passes::PassContext ctx;
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule lowered, passes::RunPipeline("lower", s.mod(), ctx));
  return ExtractFeatures(lowered->Lookup(func));
}

}  // namespace tessel::metaschedule
