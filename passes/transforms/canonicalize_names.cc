// canonicalize-names: gives the blocks and buffers of each function unique,
// stable names, so that schedules, dumps and diffs can rely on them.
//
//   alloc tmp ... alloc tmp          ->  tmp ... tmp_1         (duplicates numbered)
//   block "my block"(...)            ->  block my_block(...)   (names become identifiers)
//   {renumber=true}: C_1_1, C_2      ->  C, C_1                (suffixes from scratch)
//
// Names are assigned in definition order -- parameters, then the body from top
// to bottom -- each object taking its wanted name if free, else the smallest free
// `_k` suffix; blocks and buffers are separate name spaces. The result depends
// only on the function's structure and wanted names, not on how the duplicates
// arose, which is what makes the names stable across pipelines.
#include <cctype>
#include <set>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "ir/mutator.h"
#include "ir/visitor.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {

namespace {

// Objects in definition order.
class Collector : public ir::IRVisitor {
 public:
  std::vector<ir::Buffer> buffers;
  std::vector<const ir::BlockNode*> blocks;

  void VisitBufferDef(const ir::Buffer& b) override {
    buffers.push_back(b);
    IRVisitor::VisitBufferDef(b);
  }
  void VisitBlock(const ir::BlockNode* op) override {
    blocks.push_back(op);
    IRVisitor::VisitBlock(op);
  }
};

std::string Sanitize(const std::string& name, const char* fallback) {
  std::string out;
  for (char c : name) {
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_');
  }
  if (out.empty()) out = fallback;
  if (std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(out.begin(), '_');
  return out;
}

// "C_1_2" -> "C"; "C_" and "_1" stay as they are.
std::string StripSuffixes(std::string name) {
  while (true) {
    size_t us = name.rfind('_');
    if (us == std::string::npos || us == 0 || us + 1 == name.size()) return name;
    bool digits = true;
    for (size_t i = us + 1; i < name.size(); ++i) {
      digits &= std::isdigit(static_cast<unsigned char>(name[i])) != 0;
    }
    if (!digits) return name;
    name.resize(us);
  }
}

class NameSpace {
 public:
  std::string Take(const std::string& wanted) {
    std::string name = wanted;
    for (int k = 1; used_.count(name) != 0; ++k) name = absl::StrCat(wanted, "_", k);
    used_.insert(name);
    return name;
  }

 private:
  std::set<std::string> used_;
};

class Renamer : public ir::IRMutator {
 public:
  std::unordered_map<const ir::BufferNode*, ir::Buffer> buffers;
  std::unordered_map<const ir::BlockNode*, std::string> blocks;

  ir::Buffer Map(const ir::Buffer& b) const {
    auto it = buffers.find(b.get());
    return it == buffers.end() ? b : it->second;
  }

  ir::Expr VisitBufferLoad(const ir::BufferLoadNode* op) override {
    ir::Expr e = IRMutator::VisitBufferLoad(op);
    const auto* l = ir::cast<ir::BufferLoadNode>(e);
    ir::Buffer nb = Map(l->buffer);
    if (nb.same_as(l->buffer)) return e;
    auto n = ir::MakeNode<ir::BufferLoadNode>(*l);
    n->buffer = nb;
    return ir::Expr(std::move(n));
  }

  ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
    ir::Stmt s = IRMutator::VisitBufferStore(op);
    const auto* st = ir::cast<ir::BufferStoreNode>(s);
    ir::Buffer nb = Map(st->buffer);
    if (nb.same_as(st->buffer)) return s;
    auto n = ir::MakeNode<ir::BufferStoreNode>(*st);
    n->buffer = nb;
    return ir::Stmt(std::move(n));
  }

  ir::Stmt VisitAllocate(const ir::AllocateNode* op) override {
    ir::Stmt s = IRMutator::VisitAllocate(op);
    const auto* a = ir::cast<ir::AllocateNode>(s);
    ir::Buffer nb = Map(a->buffer);
    if (nb.same_as(a->buffer)) return s;
    return ir::Stmt(ir::MakeNode<ir::AllocateNode>(nb, a->body));
  }

  ir::Stmt VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    ir::Stmt s = IRMutator::VisitDeclBuffer(op);
    const auto* d = ir::cast<ir::DeclBufferNode>(s);
    ir::Buffer nb = Map(d->buffer), ns = Map(d->source);
    if (nb.same_as(d->buffer) && ns.same_as(d->source)) return s;
    return ir::Stmt(ir::MakeNode<ir::DeclBufferNode>(nb, ns, d->body));
  }

  ir::Stmt VisitBlock(const ir::BlockNode* op) override {
    ir::Stmt s = IRMutator::VisitBlock(op);
    const auto* b = ir::cast<ir::BlockNode>(s);
    bool changed = false;
    auto map_regions = [&](std::vector<ir::BufferRegion> regions) {
      for (ir::BufferRegion& r : regions) {
        ir::Buffer nb = Map(r.buffer);
        changed |= !nb.same_as(r.buffer);
        r.buffer = nb;
      }
      return regions;
    };
    std::vector<ir::BufferRegion> reads = map_regions(b->reads);
    std::vector<ir::BufferRegion> writes = map_regions(b->writes);
    std::vector<ir::Buffer> allocs;
    for (const ir::Buffer& a : b->alloc_buffers) {
      allocs.push_back(Map(a));
      changed |= !allocs.back().same_as(a);
    }
    auto name = blocks.find(op);
    changed |= name != blocks.end() && name->second != b->name;
    if (!changed) return s;
    auto n = ir::MakeNode<ir::BlockNode>(*b);
    n->reads = std::move(reads);
    n->writes = std::move(writes);
    n->alloc_buffers = std::move(allocs);
    if (name != blocks.end()) n->name = name->second;
    return ir::Stmt(std::move(n));
  }
};

class CanonicalizeNamesPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "canonicalize-names",
            .description = "Gives blocks and buffers unique, stable identifier names",
            .opt_level = 2,
            .options = {BoolOption("renumber", false,
                                   "Strip existing _k suffixes and number duplicates afresh")}};
  }
  explicit CanonicalizeNamesPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    bool renumber = options().GetBool("renumber");
    auto wanted = [&](const std::string& n, const char* fallback) {
      std::string s = Sanitize(n, fallback);
      return renumber ? StripSuffixes(s) : s;
    };
    Collector c;
    c.VisitPrimFunc(func);
    Renamer r;
    NameSpace buffer_names, block_names;
    int renamed = 0;
    std::set<const ir::BufferNode*> seen;
    for (const ir::Buffer& b : c.buffers) {
      if (!seen.insert(b.get()).second) continue;
      std::string n = buffer_names.Take(wanted(b->name, "buf"));
      if (n == b->name) continue;
      auto nb = ir::MakeNode<ir::BufferNode>(*b);
      nb->name = n;
      r.buffers[b.get()] = ir::Buffer(std::move(nb));
      ++renamed;
    }
    for (const ir::BlockNode* b : c.blocks) {
      std::string n = block_names.Take(wanted(b->name, "block"));
      if (n == b->name) continue;
      r.blocks[b] = n;
      ++renamed;
    }
    if (renamed == 0) return func;
    ctx.log().RecordApplied(this->name(), name, "rename", renamed);

    std::vector<ir::Param> params = func->params;
    for (ir::Param& p : params) {
      if (p.is_buffer()) p.buffer = r.Map(p.buffer);
    }
    ir::Stmt body = r.VisitStmt(func->body);
    auto out = ir::MakeNode<ir::PrimFuncNode>(*func);
    out->params = std::move(params);
    out->body = std::move(body);
    return ir::PrimFunc(std::move(out));
  }
};

}  // namespace

TESSEL_REGISTER_PASS(CanonicalizeNamesPass);

}  // namespace tessel::passes
