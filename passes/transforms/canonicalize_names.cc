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
#include "ir/substitute.h"
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

// Buffer renames are a buffer replacement (ir/substitute.h: accesses, regions,
// allocations, both sides of a decl_buffer); blocks are renamed on the same walk.
class Renamer : public ir::Substituter {
 public:
  Renamer(const ir::BufferMap& buffers, const std::unordered_map<const ir::BlockNode*, std::string>& blocks)
      : Substituter(buffers), blocks_(blocks) {}

  ir::Stmt VisitBlock(const ir::BlockNode* op) override {
    ir::Stmt s = Substituter::VisitBlock(op);
    auto name = blocks_.find(op);
    if (name == blocks_.end()) return s;
    auto n = ir::MakeNode<ir::BlockNode>(*ir::cast<ir::BlockNode>(s));
    n->name = name->second;
    return ir::Stmt(std::move(n));
  }

 private:
  const std::unordered_map<const ir::BlockNode*, std::string>& blocks_;
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
    ir::BufferMap buffers;
    std::unordered_map<const ir::BlockNode*, std::string> blocks;
    NameSpace buffer_names, block_names;
    int renamed = 0;
    std::set<const ir::BufferNode*> seen;
    for (const ir::Buffer& b : c.buffers) {
      if (!seen.insert(b.get()).second) continue;
      std::string n = buffer_names.Take(wanted(b->name, "buf"));
      if (n == b->name) continue;
      auto nb = ir::MakeNode<ir::BufferNode>(*b);
      nb->name = n;
      buffers[b.get()] = ir::Buffer(std::move(nb));
      ++renamed;
    }
    for (const ir::BlockNode* b : c.blocks) {
      std::string n = block_names.Take(wanted(b->name, "block"));
      if (n == b->name) continue;
      blocks[b] = n;
      ++renamed;
    }
    if (renamed == 0) return func;
    ctx.log().RecordApplied(this->name(), name, "rename", renamed);

    Renamer r(buffers, blocks);
    std::vector<ir::Param> params = func->params;
    for (ir::Param& p : params) {
      if (p.is_buffer()) p.buffer = r.Replace(p.buffer);
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
