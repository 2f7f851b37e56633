// storage-rewrite: allocations whose lifetimes do not overlap share one
// allocation, as large as the largest of them.
//
//   allocate T1: f32[64] {                     allocate T1: f32[64] {
//     allocate T2: f32[32] {                     allocate T2: f32[32] {
//       allocate T3: f32[48] {                     for i in range(0, 64) { T1[i] = A[i] }
//         for i ... { T1[i] = A[i] }       ->      for i in range(0, 32) { T2[i] = T1[i] + T1[i + 32] }
//         for i ... { T2[i] = T1[i] + ... }        for i in range(0, 48) { T1[i] = T2[i % 32] }
//         for i ... { T3[i] = T2[i % 32] }         for i in range(0, 48) { B[i] = T1[i] }
//         for i ... { B[i] = T3[i] }             }
//   } } }                                      }
//
// A lifetime is the span of statements of the sequence under a chain of nested
// allocations that use the buffer; T3's first use comes after T1's last, so T3
// lives in T1's storage. Only 1-D allocations of constant size (after
// flatten-buffer) with the same dtype, scope and alignment share, and never one
// that a decl_buffer views. Reused storage is not cleared: a buffer is written
// before it is read (the interpreter checks that of every allocation).
#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

// Which buffers a statement accesses, and which a decl_buffer views.
class UseFinder : public ir::IRVisitor {
 public:
  absl::flat_hash_set<const ir::BufferNode*> used, viewed;
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    used.insert(op->buffer.get());
    IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    used.insert(op->buffer.get());
    IRVisitor::VisitBufferStore(op);
  }
  void VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    viewed.insert(op->source.get());
    IRVisitor::VisitDeclBuffer(op);
  }
};

std::optional<int64_t> FlatConstSize(const ir::Buffer& b) {
  if (b->ndim() != 1 || !b->strides.empty()) return std::nullopt;
  if (b->elem_offset && !ir::arith::IsConstInt(b->elem_offset, 0)) return std::nullopt;
  return ir::arith::AsConstInt(b->shape[0]);
}

class StorageRewriter : public ir::IRMutator {
 public:
  int merged = 0;

  ir::Stmt VisitAllocate(const ir::AllocateNode* op) override {
    // The chain of directly nested allocations and the statement under it.
    std::vector<ir::Buffer> chain;
    ir::Stmt inner = ir::GetRef<ir::StmtNode>(op);
    while (const auto* a = ir::dyn_cast<ir::AllocateNode>(inner)) {
      chain.push_back(a->buffer);
      inner = a->body;
    }
    ir::Stmt body = VisitStmt(inner);
    const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(body);
    absl::flat_hash_map<const ir::BufferNode*, ir::Buffer> rename;
    absl::flat_hash_set<const ir::BufferNode*> dropped;
    if (chain.size() > 1 && seq != nullptr) Plan(chain, seq, &rename, &dropped);
    if (rename.empty() && body.same_as(inner)) return ir::GetRef<ir::StmtNode>(op);
    body = ir::ReplaceBuffers(body, rename);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (dropped.count(it->get())) continue;
      auto r = rename.find(it->get());
      body = ir::Stmt(ir::MakeNode<ir::AllocateNode>(r == rename.end() ? *it : r->second, body));
    }
    return body;
  }

 private:
  // Groups the chain's buffers by lifetime over `seq`'s statements; fills the
  // buffers to rename (each group's members to its shared buffer) and those whose
  // allocation goes away (every member but the first).
  void Plan(const std::vector<ir::Buffer>& chain, const ir::SeqStmtNode* seq,
            absl::flat_hash_map<const ir::BufferNode*, ir::Buffer>* rename,
            absl::flat_hash_set<const ir::BufferNode*>* dropped) {
    struct Life {
      ir::Buffer buf;
      int64_t size;
      int first = -1, last = -1;
    };
    std::vector<UseFinder> uses(seq->seq.size());
    absl::flat_hash_set<const ir::BufferNode*> viewed;
    for (size_t k = 0; k < seq->seq.size(); ++k) {
      uses[k].VisitStmt(seq->seq[k]);
      viewed.insert(uses[k].viewed.begin(), uses[k].viewed.end());
    }
    std::vector<Life> lives;
    for (const ir::Buffer& b : chain) {
      std::optional<int64_t> size = FlatConstSize(b);
      if (!size || viewed.count(b.get())) continue;
      Life l{b, *size};
      for (size_t k = 0; k < uses.size(); ++k) {
        if (!uses[k].used.count(b.get())) continue;
        if (l.first < 0) l.first = static_cast<int>(k);
        l.last = static_cast<int>(k);
      }
      if (l.first >= 0) lives.push_back(l);
    }
    std::stable_sort(lives.begin(), lives.end(),
                     [](const Life& a, const Life& b) { return a.first < b.first; });
    struct Group {
      std::vector<Life> members;
      int last;
      int64_t size;
    };
    std::vector<Group> groups;
    auto key = [](const ir::Buffer& b) { return std::make_tuple(b->dtype.ToString(), b->scope, b->alignment); };
    for (const Life& l : lives) {
      Group* fit = nullptr;
      for (Group& g : groups) {
        if (g.last < l.first && key(g.members[0].buf) == key(l.buf)) {
          fit = &g;
          break;
        }
      }
      if (fit == nullptr) {
        groups.push_back(Group{{l}, l.last, l.size});
        continue;
      }
      fit->members.push_back(l);
      fit->last = l.last;
      fit->size = std::max(fit->size, l.size);
    }
    for (const Group& g : groups) {
      if (g.members.size() < 2) continue;
      const ir::Buffer& first = g.members[0].buf;
      auto n = ir::MakeNode<ir::BufferNode>(*first);
      n->shape = {ir::IntImm(first->shape[0]->dtype, g.size)};
      ir::Buffer shared(std::move(n));
      for (size_t k = 0; k < g.members.size(); ++k) {
        (*rename)[g.members[k].buf.get()] = shared;
        if (k > 0) dropped->insert(g.members[k].buf.get());
      }
      merged += static_cast<int>(g.members.size()) - 1;
    }
  }
};

class StorageRewritePass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "storage-rewrite",
            .description = "Lets allocations whose lifetimes do not overlap share one allocation",
            .opt_level = 0,
            .required = {"flatten-buffer"}};
  }
  explicit StorageRewritePass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    StorageRewriter r;
    ir::PrimFunc out = r.VisitPrimFunc(func);
    if (r.merged > 0) ctx.log().RecordApplied(this->name(), name, "reused-allocation", r.merged);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(StorageRewritePass);

}  // namespace tessel::passes
