// annotate-op-pattern and the analysis behind it (see op_pattern.h).
#include "passes/graph/op_pattern.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/visitor.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

constexpr const char* kNames[] = {"elementwise", "broadcast",      "injective",
                                  "reduction",   "output-fusable", "opaque"};

class BlockPatterns : public ir::IRVisitor {
 public:
  OpPattern pattern = OpPattern::kElementwise;
  int blocks = 0;

  void VisitBlock(const ir::BlockNode* b) override {
    // The root block only holds the function's intermediates.
    if (!b->iter_vars.empty() || !b->reads.empty() || !b->writes.empty()) {
      ++blocks;
      pattern = std::max(pattern, Classify(b));
    }
    IRVisitor::VisitBlock(b);
  }
  void VisitCall(const ir::CallNode* op) override {
    if (op->callee == ir::CallNode::Callee::kExtern ||
        op->callee == ir::CallNode::Callee::kPacked) {
      pattern = OpPattern::kOpaque;
    }
    IRVisitor::VisitCall(op);
  }

 private:
  // The iter var a dimension of a region reads at, when it is a point at one.
  static const ir::VarNode* PointVar(const ir::Range& r) {
    const auto* one = ir::dyn_cast<ir::IntImmNode>(r.extent);
    if (one == nullptr || one->value != 1) return nullptr;
    return ir::dyn_cast<ir::VarNode>(r.min);
  }
  static bool IsZeroPoint(const ir::Range& r) {
    const auto* one = ir::dyn_cast<ir::IntImmNode>(r.extent);
    const auto* zero = ir::dyn_cast<ir::IntImmNode>(r.min);
    return one && one->value == 1 && zero && zero->value == 0;
  }

  static OpPattern Classify(const ir::BlockNode* b) {
    if (b->writes.empty()) return OpPattern::kOpaque;
    bool reduce = false;
    absl::flat_hash_set<const ir::VarNode*> reduce_vars;
    for (const ir::IterVar& iv : b->iter_vars) {
      if (iv.kind == ir::IterKind::kOpaque) return OpPattern::kOpaque;
      if (iv.kind == ir::IterKind::kReduce) {
        reduce = true;
        reduce_vars.insert(iv.var.get());
      }
    }
    auto written = [&](const ir::Buffer& buf) {
      return std::any_of(b->writes.begin(), b->writes.end(),
                         [&](const ir::BufferRegion& w) { return w.buffer.same_as(buf); });
    };
    const ir::BufferRegion& w = b->writes[0];
    if (reduce) {
      // Two or more inputs contracted over the reduce vars (matmul, conv2d)
      // fuse their consumers as an epilogue; a reduction of one input does not.
      int contracted = 0;
      for (const ir::BufferRegion& r : b->reads) {
        if (written(r.buffer)) continue;  // The accumulator (a tuple reducer writes several).
        bool uses = false;
        for (const ir::Range& range : r.region) {
          if (const ir::VarNode* v = PointVar(range)) uses |= reduce_vars.contains(v);
        }
        contracted += uses;
      }
      return contracted >= 2 ? OpPattern::kOutputFusable : OpPattern::kReduction;
    }
    if (b->writes.size() > 1) return OpPattern::kInjective;
    std::vector<const ir::VarNode*> out;
    for (const ir::Range& r : w.region) {
      const ir::VarNode* v = PointVar(r);
      if (v == nullptr) return OpPattern::kInjective;
      out.push_back(v);
    }
    OpPattern p = OpPattern::kElementwise;
    for (const ir::BufferRegion& r : b->reads) {
      std::vector<const ir::VarNode*> in;
      bool points = true;
      for (const ir::Range& range : r.region) {
        if (const ir::VarNode* v = PointVar(range)) {
          in.push_back(v);
        } else if (!IsZeroPoint(range)) {
          points = false;
        }
      }
      if (points && in == out && r.region.size() == out.size()) continue;
      // A broadcast reads its output's indices in order, some left out or at 0.
      bool subsequence = points;
      size_t pos = 0;
      for (const ir::VarNode* v : in) {
        auto it = std::find(out.begin() + static_cast<std::ptrdiff_t>(pos), out.end(), v);
        if (it == out.end()) {
          subsequence = false;
          break;
        }
        pos = static_cast<size_t>(it - out.begin()) + 1;
      }
      p = std::max(p, subsequence ? OpPattern::kBroadcast : OpPattern::kInjective);
    }
    return p;
  }
};

class AnnotateOpPattern : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "annotate-op-pattern",
            .description = "Records each called PrimFunc's fusion pattern as attr op_pattern",
            .opt_level = 0};
  }
  explicit AnnotateOpPattern(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    absl::flat_hash_set<std::string> called;
    for (const auto& [gname, g] : mod->graph_functions) {
      for (const ir::GraphBinding& b : g->bindings) {
        if (b.call.kind == ir::GraphCall::Kind::kCallTir) called.insert(b.call.callee);
      }
    }
    auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
    bool changed = false;
    for (auto& [fname, f] : n->functions) {
      if (!called.contains(fname)) continue;
      std::string pattern = OpPatternName(AnalyzeOpPattern(f));
      auto it = f->attrs.find("op_pattern");
      if (it != f->attrs.end() && it->second.get_if<std::string>() &&
          it->second.as<std::string>() == pattern) {
        continue;
      }
      auto fn = ir::MakeNode<ir::PrimFuncNode>(*f);
      fn->attrs["op_pattern"] = ir::AttrValue(pattern);
      f = ir::PrimFunc(std::move(fn));
      ctx.log().RecordApplied(name(), fname, pattern);
      changed = true;
    }
    if (!changed) return mod;
    return ir::IRModule(std::move(n));
  }
};

const PassRegistrar kRegisterAnnotateOpPattern(AnnotateOpPattern::Info(),
                                               [](PassOptions o) -> absl::StatusOr<PassPtr> {
                                                 return std::make_shared<const AnnotateOpPattern>(
                                                     std::move(o));
                                               });

}  // namespace

const char* OpPatternName(OpPattern p) { return kNames[static_cast<int>(p)]; }

std::optional<OpPattern> OpPatternFromName(const std::string& name) {
  for (int i = 0; i < 6; ++i) {
    if (name == kNames[i]) return static_cast<OpPattern>(i);
  }
  return std::nullopt;
}

OpPattern AnalyzeOpPattern(const ir::PrimFunc& func) {
  BlockPatterns p;
  p.VisitStmt(func->body);
  return p.blocks == 0 ? OpPattern::kOpaque : p.pattern;
}

OpPattern OpPatternOf(const ir::PrimFunc& func) {
  auto it = func->attrs.find("op_pattern");
  if (it != func->attrs.end()) {
    if (const std::string* s = it->second.get_if<std::string>()) {
      if (std::optional<OpPattern> p = OpPatternFromName(*s)) return *p;
    }
  }
  return AnalyzeOpPattern(func);
}

}  // namespace tessel::passes
