// vectorize-loop: a loop marked `vectorized` with a constant extent becomes one
// iteration of vector code, each lane one iteration of the loop (vectorizer.h).
//
//   for i in range(0, 4) {                        for i in range(0, 4) {
//     for j in vectorized(0, 16) {         ->       C[ramp(i * 16, 1, 16)] =
//       C[i * 16 + j] = A[i * 16 + j] + B[i]          A[ramp(i * 16, 1, 16)] + broadcast(B[i], 16)
//     }                                           }
//   }
//
// When the body cannot be vector code, the loop stays a serial loop and the pass
// log says why, e.g.
//   vectorize-loop: mm: loop 'k' stays serial: every lane stores to the same element of 'C' ...
// Besides what the vectorizer refuses, a loop stays serial when its extent is not
// a constant in [2, max-lanes], or when a buffer it writes is also accessed at
// another index in the loop (lanes would see each other's writes in another order
// than the serial loop). A vectorized loop of extent 1 becomes a serial loop.
//
// A body guarded by a lane-dependent bound (a split that does not divide) is
// vector code where the guard holds for every lane and a serial loop elsewhere:
//
//   for j_1 in vectorized(0, 16) {             if j_0 * 16 + 15 < 31 {
//     if j_0 * 16 + j_1 < 31 {        ->         C[ramp(j_0 * 16, 1, 16)] = ...
//       C[j_0 * 16 + j_1] = ...                } else {
//   } }                                          for j_1 in range(0, 16) { if j_0 * 16 + j_1 < 31 { ... } }
//                                              }
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "passes/lowering/context_mutator.h"
#include "ir/fresh_copy.h"
#include "passes/lowering/vectorizer.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

using StorageRoots = absl::flat_hash_map<const ir::BufferNode*, const ir::BufferNode*>;

// Every decl_buffer view mapped to the buffer that owns its storage.
class RootCollector : public ir::IRVisitor {
 public:
  StorageRoots roots;
  void VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    auto it = roots.find(op->source.get());
    roots[op->buffer.get()] = it == roots.end() ? op->source.get() : it->second;
    ir::IRVisitor::VisitDeclBuffer(op);
  }
};

// The accesses of the vectorized body, per storage.
class AccessCollector : public ir::IRVisitor {
 public:
  explicit AccessCollector(const StorageRoots& roots) : roots_(roots) {}
  struct Access {
    const ir::BufferNode* buffer;
    std::vector<ir::Expr> indices;
  };
  absl::flat_hash_map<const ir::BufferNode*, std::vector<Access>> stores, loads;

  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    stores[Root(op->buffer.get())].push_back({op->buffer.get(), op->indices});
    ir::IRVisitor::VisitBufferStore(op);
  }
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    loads[Root(op->buffer.get())].push_back({op->buffer.get(), op->indices});
    ir::IRVisitor::VisitBufferLoad(op);
  }

 private:
  const ir::BufferNode* Root(const ir::BufferNode* b) const {
    auto it = roots_.find(b);
    return it == roots_.end() ? b : it->second;
  }
  const StorageRoots& roots_;
};

bool SameAccess(const AccessCollector::Access& a, const AccessCollector::Access& b) {
  if (a.buffer != b.buffer || a.indices.size() != b.indices.size()) return false;
  for (size_t d = 0; d < a.indices.size(); ++d) {
    if (!ir::arith::ExprEqual(a.indices[d], b.indices[d])) return false;
  }
  return true;
}

// Empty when no lane can see another lane's write; otherwise why one can.
std::string CrossLaneDependence(const ir::Stmt& vec_body, const StorageRoots& roots) {
  AccessCollector c(roots);
  c.VisitStmt(vec_body);
  for (const auto& [root, stores] : c.stores) {
    const AccessCollector::Access& first = stores.front();
    auto differs = [&](const AccessCollector::Access& a) { return !SameAccess(first, a); };
    bool bad = false;
    for (const auto& a : stores) bad |= differs(a);
    auto it = c.loads.find(root);
    if (it != c.loads.end()) {
      for (const auto& a : it->second) bad |= differs(a);
    }
    if (bad) {
      return absl::StrCat("'", first.buffer->name,
                          "' is written and also accessed at another index in the loop, so "
                          "lanes could see each other's writes");
    }
  }
  return "";
}

class LoopVectorizer : public lowering::ContextMutator {
 public:
  LoopVectorizer(const StorageRoots& roots, int64_t max_lanes) : roots_(roots), max_lanes_(max_lanes) {}
  int vectorized = 0;
  int guarded = 0;
  std::vector<std::string> fallbacks;  // "loop 'j' stays serial: why"

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::Stmt s = ContextMutator::VisitFor(op);  // Inner loops first.
    const auto* f = ir::cast<ir::ForNode>(s);
    if (f->for_kind != ir::ForKind::kVectorized) return s;
    std::optional<int64_t> ext = ir::arith::AsConstInt(f->extent);
    std::string why;
    if (!ext) {
      why = absl::StrCat("its extent ", ir::PrintExpr(f->extent), " is not a constant");
    } else if (*ext == 1) {
      return Serial(f);
    } else if (*ext < 2 || *ext > max_lanes_) {
      why = absl::StrCat("its extent ", *ext, " is outside [2, max-lanes=", max_lanes_, "]");
    } else {
      absl::StatusOr<ir::Stmt> v =
          lowering::VectorizeBody(f->body, f->loop_var, f->min, static_cast<int>(*ext));
      if (v.ok()) why = CrossLaneDependence(*v, roots_);
      else why = std::string(v.status().message());
      if (v.ok() && why.empty()) {
        ++vectorized;
        return *v;
      }
      if (std::optional<ir::Stmt> g = VectorizeGuarded(f, static_cast<int>(*ext))) {
        ++guarded;
        return *g;
      }
    }
    fallbacks.push_back(absl::StrCat("loop '", f->loop_var->name, "' stays serial: ", why));
    return Serial(f);
  }

 private:
  // A body `if c1 && c2 ... { S }` whose conditions that depend on the lane are
  // comparisons of a ramp with a lane-invariant value (the guard of a split
  // that does not divide, j_0 * 16 + j_1 < 31) holds for every lane exactly when
  // it holds for the first and the last, since a ramp is monotone. Then:
  //   if <guard at x = min> && <guard at x = min + lanes - 1> { vector S } else { serial loop }
  // Nothing when the body is not of that form or S cannot be vector code.
  std::optional<ir::Stmt> VectorizeGuarded(const ir::ForNode* f, int lanes) {
    const auto* guard = ir::dyn_cast<ir::IfThenElseNode>(f->body);
    if (guard == nullptr || guard->else_case) return std::nullopt;
    std::vector<ir::Expr> conds = {guard->condition}, lane_dep, lane_inv;
    while (!conds.empty()) {
      ir::Expr c = conds.back();
      conds.pop_back();
      if (c->kind() == ir::NodeKind::kAnd) {
        conds.push_back(ir::cast<ir::BinaryNode>(c)->a);
        conds.push_back(ir::cast<ir::BinaryNode>(c)->b);
      } else {
        (ir::arith::UsesVar(c, f->loop_var.get()) ? lane_dep : lane_inv).push_back(c);
      }
    }
    if (lane_dep.empty()) return std::nullopt;
    ir::Expr last = ir::Add(f->min, ir::IntImm(f->min->dtype, lanes - 1));
    ir::Expr all_lanes;
    for (const ir::Expr& c : lane_dep) {
      const auto* cmp = ir::dyn_cast<ir::BinaryNode>(c);
      if (cmp == nullptr || (c->kind() != ir::NodeKind::kLT && c->kind() != ir::NodeKind::kLE &&
                             c->kind() != ir::NodeKind::kGT && c->kind() != ir::NodeKind::kGE)) {
        return std::nullopt;
      }
      absl::StatusOr<ir::Expr> a = lowering::VectorizeExpr(cmp->a, f->loop_var, f->min, lanes);
      absl::StatusOr<ir::Expr> b = lowering::VectorizeExpr(cmp->b, f->loop_var, f->min, lanes);
      if (!a.ok() || !b.ok()) return std::nullopt;
      bool monotone = (ir::isa<ir::RampNode>(*a) && !(*b)->dtype.is_vector()) ||
                      (ir::isa<ir::RampNode>(*b) && !(*a)->dtype.is_vector());
      if (!monotone) return std::nullopt;
      for (const ir::Expr& at : {f->min, last}) {
        ir::Expr e = ir::Substitute(c, {{f->loop_var.get(), at}});
        all_lanes = all_lanes ? ir::And(all_lanes, e) : e;
      }
    }
    ir::Stmt inner = guard->then_case;
    if (!lane_inv.empty()) {
      ir::Expr c = lane_inv[0];
      for (size_t k = 1; k < lane_inv.size(); ++k) c = ir::And(c, lane_inv[k]);
      inner = ir::Stmt(ir::MakeNode<ir::IfThenElseNode>(c, inner, nullptr));
    }
    absl::StatusOr<ir::Stmt> v = lowering::VectorizeBody(inner, f->loop_var, f->min, lanes);
    if (!v.ok() || !CrossLaneDependence(*v, roots_).empty()) return std::nullopt;
    // The serial loop binds the same variables as the vector code: a fresh copy.
    absl::StatusOr<ir::Stmt> serial = ir::FreshCopy(Serial(f), {});
    if (!serial.ok()) return std::nullopt;
    // Simplified with the loops around (not inside) the vectorized one bound.
    all_lanes = analyzer().Simplify(all_lanes);
    if (std::optional<bool> always = ir::arith::AsConstBool(all_lanes)) {
      if (!*always) return std::nullopt;  // Never all lanes: plain serial, with the reason.
      return *v;
    }
    return ir::Stmt(ir::MakeNode<ir::IfThenElseNode>(all_lanes, *v, *serial));
  }

  static ir::Stmt Serial(const ir::ForNode* f) {
    auto n = ir::MakeNode<ir::ForNode>(*f);
    n->for_kind = ir::ForKind::kSerial;
    return ir::Stmt(std::move(n));
  }
  const StorageRoots& roots_;
  int64_t max_lanes_;
};

class VectorizeLoopPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "vectorize-loop",
            .description =
                "Turns loops marked vectorized into Ramp/Broadcast vector code, or into serial "
                "loops (with the reason in the pass log) where that is not possible",
            .opt_level = 0,
            .required = {"flatten-buffer"},
            .options = {IntOption("max-lanes", 64, "Most lanes a vectorized loop may have")}};
  }
  explicit VectorizeLoopPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    int64_t max_lanes = options().GetInt("max-lanes");
    if (max_lanes < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("option 'max-lanes' must be at least 2, got ", max_lanes));
    }
    RootCollector roots;
    roots.VisitStmt(func->body);
    LoopVectorizer v(roots.roots, max_lanes);
    ir::PrimFunc out = v.VisitPrimFunc(func);
    if (v.vectorized > 0) ctx.log().RecordApplied(this->name(), name, "vectorized", v.vectorized);
    if (v.guarded > 0) {
      ctx.log().RecordApplied(this->name(), name, "vectorized-where-guard-holds", v.guarded);
    }
    for (const std::string& why : v.fallbacks) ctx.log().RecordNote(this->name(), absl::StrCat(name, ": ", why));
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(VectorizeLoopPass);

}  // namespace tessel::passes
