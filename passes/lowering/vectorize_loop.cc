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
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/visitor.h"
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

class LoopVectorizer : public ir::IRMutator {
 public:
  LoopVectorizer(const StorageRoots& roots, int64_t max_lanes) : roots_(roots), max_lanes_(max_lanes) {}
  int vectorized = 0;
  std::vector<std::string> fallbacks;  // "loop 'j' stays serial: why"

  ir::Stmt VisitFor(const ir::ForNode* op) override {
    ir::Stmt s = IRMutator::VisitFor(op);  // Inner loops first.
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
    }
    fallbacks.push_back(absl::StrCat("loop '", f->loop_var->name, "' stays serial: ", why));
    return Serial(f);
  }

 private:
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
    for (const std::string& why : v.fallbacks) ctx.log().RecordNote(this->name(), absl::StrCat(name, ": ", why));
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(VectorizeLoopPass);

}  // namespace tessel::passes
