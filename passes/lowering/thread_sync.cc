// thread-sync (see thread_sync.h): barriers for shared memory inside GPU kernels.
#include "passes/lowering/thread_sync.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/structural_equal.h"
#include "ir/substitute.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace lowering {
namespace {

// One shared-memory access: which storage, a load or a store, and where (empty
// indices: somewhere in the storage, after a set grew too large to keep).
struct Access {
  const ir::BufferNode* storage;
  bool is_store;
  std::vector<ir::Expr> indices;
};
using AccessSet = std::vector<Access>;

// Past this many accesses a set keeps one "anywhere" access per storage and kind:
// fully unrolled code must not make the planner quadratic.
constexpr size_t kMaxAccesses = 256;

// What a statement does, seen from the barriers around it: the accesses before
// its first barrier (`entry`), after its last (`exit`), and whether every path
// through it passes a barrier (else entry == exit == all its accesses).
struct Summary {
  ir::Stmt stmt;
  AccessSet entry, exit;
  bool synced = false;
};

ir::Stmt Barrier() {
  ir::Expr call = ir::ValueOrDie(
      ir::MakeCall(ir::DataType::Int(32), ir::CallNode::Callee::kSyncThreads, "sync_threads", {}));
  return ir::ValueOrDie(ir::MakeEvaluate(std::move(call)));
}

bool IsBarrier(const ir::Stmt& s) {
  const auto* e = ir::dyn_cast<ir::EvaluateNode>(s.get());
  if (e == nullptr) return false;
  const auto* c = ir::dyn_cast<ir::CallNode>(e->value.get());
  return c != nullptr && c->callee == ir::CallNode::Callee::kSyncThreads;
}

void Merge(AccessSet* into, const AccessSet& from) {
  into->insert(into->end(), from.begin(), from.end());
  if (into->size() <= kMaxAccesses) return;
  AccessSet coarse;
  for (const Access& a : *into) {
    bool have = false;
    for (const Access& c : coarse) have |= c.storage == a.storage && c.is_store == a.is_store;
    if (!have) coarse.push_back({a.storage, a.is_store, {}});
  }
  *into = std::move(coarse);
}

// Whether the iterations of `loop` touch disjoint elements through `indices`:
// some dimension is c * i + r, with r (over the loops inside `loop`, threads
// included) spanning fewer than c elements. A copy spread over the threads,
// `S[f0 * 32 + ty * 2 + tx // 8, tx % 8]` under `for f0`, writes other
// elements in each iteration, so its iterations need no barrier between them.
bool IterationsDisjoint(const ir::ForNode* loop, const std::vector<ir::Expr>& indices) {
  class InnerLoops : public ir::IRVisitor {
   public:
    std::vector<const ir::ForNode*> loops;
    void VisitFor(const ir::ForNode* op) override {
      loops.push_back(op);
      ir::IRVisitor::VisitFor(op);
    }
  };
  InnerLoops inner;
  inner.VisitStmt(loop->body);
  ir::arith::Analyzer ana;
  absl::flat_hash_set<const ir::VarNode*> bound = {loop->loop_var.get()};
  ir::VarMap at_start = {{loop->loop_var.get(), loop->min}};
  for (const ir::ForNode* f : inner.loops) {
    ana.Bind(f->loop_var, ir::Range{f->min, f->extent});
    bound.insert(f->loop_var.get());
    at_start[f->loop_var.get()] = f->min;
  }
  ana.Bind(loop->loop_var, ir::Range{loop->min, loop->extent});
  const ir::Var& i = loop->loop_var;
  for (const ir::Expr& e : indices) {
    if (!ir::arith::IsIndexType(e->dtype) || e->dtype.lanes() != 1) continue;
    ir::Expr next = ir::Substitute(e, {{i.get(), ir::Add(i, ir::IntImm(i->dtype, 1))}});
    std::optional<int64_t> c = ir::arith::AsConstInt(ana.Simplify(ir::Sub(next, e)));
    if (!c || *c <= 0) continue;
    // r: what the loops inside add, the loops outside cancelled.
    ir::Expr r = ana.Simplify(
        ir::Sub(ir::Sub(e, ir::Mul(i, ir::IntImm(i->dtype, *c))), ir::Substitute(e, at_start)));
    if (ir::arith::AnyVar(r, [&](const ir::VarNode* v) { return !bound.contains(v); })) continue;
    ir::arith::ConstIntBound range = ana.GetConstIntBound(r);
    if (range.max_value - range.min_value < *c) return true;
  }
  return false;
}

class Planner : public ir::IRMutator {
 public:
  int inserted = 0;

  // The kernel starts at the outermost loop bound to a launch axis.
  ir::Stmt VisitFor(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kThreadBinding && ir::LaunchAxisOf(op->thread_tag)) {
      return Summarize(ir::GetRef<ir::StmtNode>(op)).stmt;
    }
    return ir::IRMutator::VisitFor(op);
  }

 private:
  // The shared storage a buffer (an allocation or a view of one) lives in.
  absl::flat_hash_map<const ir::BufferNode*, const ir::BufferNode*> shared_;
  // Variables whose value may differ between the threads of a block.
  absl::flat_hash_set<const ir::VarNode*> variant_;

  bool Variant(const ir::Expr& e) const {
    for (const ir::Var& v : ir::arith::CollectVars(e)) {
      if (variant_.contains(v.get())) return true;
    }
    return false;
  }
  bool UsesThreadIdx(const std::vector<ir::Expr>& indices) const {
    for (const ir::Expr& e : indices) {
      if (Variant(e)) return true;
    }
    return false;
  }

  // Whether an access in `before` and one in `after` may touch one element from
  // two threads with no barrier between. `carried` (a loop) is set when `after`
  // runs in a later iteration of that loop than `before`.
  bool Conflict(const AccessSet& before, const AccessSet& after,
                const ir::ForNode* carried = nullptr) const {
    for (const Access& a : before) {
      for (const Access& b : after) {
        if (a.storage != b.storage || (!a.is_store && !b.is_store)) continue;
        if (carried != nullptr && !a.indices.empty() && ir::StructuralEqual(a.indices, b.indices) &&
            IterationsDisjoint(carried, a.indices)) {
          continue;
        }
        bool same_element =
            !a.indices.empty() && a.indices.size() == b.indices.size() && UsesThreadIdx(a.indices);
        for (size_t d = 0; same_element && d < a.indices.size(); ++d) {
          same_element =
              ir::StructuralEqual(a.indices[d], b.indices[d]) &&
              (carried == nullptr || !ir::arith::UsesVar(a.indices[d], carried->loop_var.get()));
        }
        if (!same_element) return true;
      }
    }
    return false;
  }

  // Every shared access in `s`, registering the shared buffers it defines.
  AccessSet Collect(const ir::Stmt& s) {
    class Collector : public ir::IRVisitor {
     public:
      explicit Collector(Planner& p) : p_(p) {}
      AccessSet out;
      void VisitAllocate(const ir::AllocateNode* op) override {
        if (op->buffer->scope == "shared") p_.shared_[op->buffer.get()] = op->buffer.get();
        ir::IRVisitor::VisitAllocate(op);
      }
      void VisitDeclBuffer(const ir::DeclBufferNode* op) override {
        p_.NoteView(op);
        ir::IRVisitor::VisitDeclBuffer(op);
      }
      void VisitBufferLoad(const ir::BufferLoadNode* op) override {
        Add(op->buffer.get(), false, op->indices);
        ir::IRVisitor::VisitBufferLoad(op);
      }
      void VisitBufferStore(const ir::BufferStoreNode* op) override {
        Add(op->buffer.get(), true, op->indices);
        ir::IRVisitor::VisitBufferStore(op);
      }

     private:
      void Add(const ir::BufferNode* b, bool is_store, const std::vector<ir::Expr>& indices) {
        auto it = p_.shared_.find(b);
        if (it != p_.shared_.end()) Merge(&out, {{it->second, is_store, indices}});
      }
      Planner& p_;
    };
    Collector c(*this);
    c.VisitStmt(s);
    return std::move(c.out);
  }

  void NoteView(const ir::DeclBufferNode* op) {
    auto it = shared_.find(op->source.get());
    if (it != shared_.end() && op->buffer) shared_[op->buffer.get()] = it->second;
  }

  Summary Leaf(const ir::Stmt& s) {
    AccessSet all = Collect(s);
    return {s, all, all, false};
  }

  Summary Summarize(const ir::Stmt& s) {
    if (IsBarrier(s)) return {s, {}, {}, true};
    switch (s->kind()) {
      case ir::NodeKind::kSeqStmt:
        return SummarizeSeq(static_cast<const ir::SeqStmtNode*>(s.get())->seq, s);
      case ir::NodeKind::kFor:
        return SummarizeFor(static_cast<const ir::ForNode*>(s.get()), s);
      case ir::NodeKind::kIfThenElse: {
        const auto* op = static_cast<const ir::IfThenElseNode*>(s.get());
        if (Variant(op->condition)) return Leaf(s);
        Summary t = Summarize(op->then_case);
        Summary e = op->else_case ? Summarize(op->else_case) : Summary{};
        Summary out;
        out.synced = t.synced && op->else_case && e.synced;
        out.entry = t.entry;
        Merge(&out.entry, e.entry);
        out.exit = t.exit;
        Merge(&out.exit, e.exit);
        out.stmt = t.stmt.same_as(op->then_case) && e.stmt.same_as(op->else_case)
                       ? s
                       : ir::ValueOrDie(ir::MakeIfThenElse(op->condition, t.stmt, e.stmt));
        return out;
      }
      case ir::NodeKind::kLetStmt: {
        const auto* op = static_cast<const ir::LetStmtNode*>(s.get());
        if (Variant(op->value)) variant_.insert(op->var.get());
        Summary b = Summarize(op->body);
        if (!b.stmt.same_as(op->body))
          b.stmt = ir::ValueOrDie(ir::MakeLetStmt(op->var, op->value, b.stmt));
        else
          b.stmt = s;
        return b;
      }
      case ir::NodeKind::kAllocate: {
        const auto* op = static_cast<const ir::AllocateNode*>(s.get());
        if (op->buffer->scope == "shared") shared_[op->buffer.get()] = op->buffer.get();
        Summary b = Summarize(op->body);
        b.stmt =
            b.stmt.same_as(op->body) ? s : ir::ValueOrDie(ir::MakeAllocate(op->buffer, b.stmt));
        return b;
      }
      case ir::NodeKind::kDeclBuffer: {
        const auto* op = static_cast<const ir::DeclBufferNode*>(s.get());
        NoteView(op);
        Summary b = Summarize(op->body);
        b.stmt = b.stmt.same_as(op->body)
                     ? s
                     : ir::ValueOrDie(ir::MakeDeclBuffer(op->buffer, op->source, b.stmt));
        return b;
      }
      default:
        return Leaf(s);
    }
  }

  Summary SummarizeSeq(const std::vector<ir::Stmt>& seq, const ir::Stmt& self) {
    Summary out;
    std::vector<ir::Stmt> stmts;
    bool changed = false;
    for (const ir::Stmt& child : seq) {
      Summary r = Summarize(child);
      changed |= !r.stmt.same_as(child);
      if (Conflict(out.exit, r.entry)) {
        stmts.push_back(Barrier());
        ++inserted;
        changed = true;
        out.synced = true;
        out.exit.clear();
      }
      if (!out.synced) Merge(&out.entry, r.entry);
      if (r.synced) {
        out.synced = true;
        out.exit = std::move(r.exit);
      } else {
        Merge(&out.exit, r.exit);
      }
      stmts.push_back(std::move(r.stmt));
    }
    out.stmt = changed ? ir::ValueOrDie(ir::MakeSeqStmt(std::move(stmts))) : self;
    return out;
  }

  Summary SummarizeFor(const ir::ForNode* op, const ir::Stmt& self) {
    std::optional<int> axis = op->for_kind == ir::ForKind::kThreadBinding
                                  ? ir::LaunchAxisOf(op->thread_tag)
                                  : std::nullopt;
    if (axis) {
      // One iteration per thread: the body's summary is the loop's.
      if (ir::IsThreadIdxAxis(*axis)) variant_.insert(op->loop_var.get());
    } else if (Variant(op->min) || Variant(op->extent)) {
      variant_.insert(op->loop_var.get());
      return Leaf(self);
    }
    Summary b = Summarize(op->body);
    ir::Stmt body = b.stmt;
    // A vectorized loop's iterations are one access of the thread (no barrier
    // fits between them), and a loop of one iteration has no next one.
    const bool carries =
        !axis && op->for_kind != ir::ForKind::kVectorized && !ir::arith::IsConstInt(op->extent, 1);
    if (carries && Conflict(b.exit, b.entry, op)) {
      // The next iteration's first accesses race with this one's last.
      std::vector<ir::Stmt> seq = {body};
      if (const auto* s = ir::dyn_cast<ir::SeqStmtNode>(body.get())) seq = s->seq;
      seq.push_back(Barrier());
      body = ir::ValueOrDie(ir::MakeSeqStmt(std::move(seq)));
      ++inserted;
      b.synced = true;
      b.exit.clear();
    }
    if (!axis) {
      std::optional<int64_t> extent = ir::arith::AsConstInt(op->extent);
      if (!extent || *extent < 1) b.synced = false;  // Zero iterations pass no barrier.
    }
    b.stmt = body.same_as(op->body)
                 ? self
                 : ir::ValueOrDie(ir::MakeFor(op->loop_var, op->min, op->extent, op->for_kind, body,
                                              op->thread_tag, op->annotations));
    return b;
  }
};

}  // namespace

ir::PrimFunc InsertThreadSync(const ir::PrimFunc& func, int* inserted) {
  Planner p;
  ir::PrimFunc out = p.VisitPrimFunc(func);
  if (inserted != nullptr) *inserted = p.inserted;
  return out;
}

}  // namespace lowering

namespace {

class ThreadSyncPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "thread-sync",
            .description =
                "Inserts sync_threads() barriers where threads of a GPU block share "
                "shared memory (remove-blocks runs it too)",
            .opt_level = 0};
  }
  explicit ThreadSyncPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    int inserted = 0;
    ir::PrimFunc out = lowering::InsertThreadSync(func, &inserted);
    if (inserted > 0) ctx.log().RecordApplied(this->name(), name, "barrier", inserted);
    return out;
  }
};

}  // namespace

TESSEL_REGISTER_PASS(ThreadSyncPass);

}  // namespace tessel::passes
