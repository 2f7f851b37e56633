// The phase level of GPU kernels in the reference interpreter (the semantics are in
// interpreter_gpu.cc's header comment): statements that hold a barrier, a thread
// reduction or a shared allocation run for all threads of a block at once.
//
//   for k in 0..2 {              PLoop: bounds agree across the block, then each
//     S[tx] = A[tx]              PSegment: thread 0, 1, ... in turn
//     evaluate sync_threads()    PBarrier: the block's next phase
//     acc[0] = acc[0] + S[7-tx]  PSegment
//   }
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/interpreter_gpu_internal.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"

namespace tessel::ir::interp {
namespace {

// Barrier-free code: every thread runs it in turn.
class PSegment : public PNode {
 public:
  explicit PSegment(CStmtPtr s) : PNode(s->node), s_(std::move(s)) {}
  void Run(Threads& ts) override {
    for (int64_t t = 0; t < ts.count() && !ts.c.failed; ++t) {
      ts.Enter(t);
      s_->Exec(ts.c);
    }
  }

 private:
  CStmtPtr s_;
};

class PBarrier : public PNode {
 public:
  using PNode::PNode;
  void Run(Threads& ts) override {
    if (ts.c.Step(node)) ++ts.run.phase;
  }
};

// `B[i] = thread_sum_x(v)`: every thread's v, combined along each row of
// threadIdx.x in threadIdx.x order, then each thread stores its row's result. All
// threads reach it, so it also orders what comes before it, like a barrier.
class PCollective : public PNode {
 public:
  PCollective(const StmtNode* n, CExprPtr value, BinFn combine, IntWrap wrap, int slot,
              CStmtPtr store, Stmt keep)
      : PNode(n),
        value_(std::move(value)),
        combine_(combine),
        wrap_(wrap),
        slot_(slot),
        store_(std::move(store)),
        keep_(std::move(keep)) {}
  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    std::vector<Lane> v(ts.count());
    for (int64_t t = 0; t < ts.count(); ++t) {
      ts.Enter(t);
      value_->Eval(ts.c, &v[t]);
      if (ts.c.failed) return;
    }
    int64_t width = ts.run.extent[3];
    for (int64_t row = 0; row < ts.count(); row += width) {
      Lane acc = v[row];
      for (int64_t x = 1; x < width; ++x) combine_(&acc, &v[row + x], &acc, 1, wrap_);
      for (int64_t x = 0; x < width; ++x) v[row + x] = acc;
    }
    ++ts.run.phase;
    for (int64_t t = 0; t < ts.count() && !ts.c.failed; ++t) {
      ts.Enter(t);
      ts.c.frame[slot_] = v[t];
      store_->Exec(ts.c);
    }
  }

 private:
  CExprPtr value_;
  BinFn combine_;
  IntWrap wrap_;
  int slot_;
  CStmtPtr store_;  // The store with the collective's result in frame[slot_].
  Stmt keep_;       // That store's IR, which store_ points into.
};

class PSeq : public PNode {
 public:
  PSeq(const StmtNode* n, std::vector<PNodePtr> seq) : PNode(n), seq_(std::move(seq)) {}
  void Run(Threads& ts) override {
    for (const PNodePtr& p : seq_) {
      p->Run(ts);
      if (ts.c.failed) return;
    }
  }

 private:
  std::vector<PNodePtr> seq_;
};

// Evaluates `e` in every thread; true when they agree (the value in `out`),
// else an error: control flow around a barrier must be uniform across the block.
bool Uniform(Threads& ts, CExpr* e, const StmtNode* where, const char* what, Lane* out) {
  for (int64_t t = 0; t < ts.count(); ++t) {
    ts.Enter(t);
    Lane v;
    if (!EvalScalar(ts.c, e, &v)) return false;
    if (t == 0) {
      *out = v;
    } else if (v.i != out->i) {
      GpuRun::Access a{ts.run.block, 0, 0}, b{ts.run.block, t, 0};
      ts.c.Fail(absl::StatusCode::kFailedPrecondition, where,
                absl::StrCat("a barrier under divergent control flow: the ", what, " is ", out->i,
                             " in ", ts.run.Who(a), " but ", v.i, " in ", ts.run.Who(b),
                             "; every thread of a block must reach each sync_threads()"));
      return false;
    }
  }
  return true;
}

class PLoop : public PNode {
 public:
  PLoop(const ForNode* op, int slot, CExprPtr min, CExprPtr extent, PNodePtr body)
      : PNode(op),
        slot_(slot),
        wrap_(IntWrap::For(op->loop_var->dtype)),
        min_(std::move(min)),
        extent_(std::move(extent)),
        body_(std::move(body)) {}
  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    Lane lo, n;
    if (!Uniform(ts, min_.get(), node, "start of the loop", &lo) ||
        !Uniform(ts, extent_.get(), node, "extent of the loop", &n)) {
      return;
    }
    for (int64_t k = 0; k < n.i && !ts.c.failed; ++k) {
      int64_t v = LoopValue(wrap_, lo.i, k);
      for (std::vector<Lane>& f : ts.frames) f[slot_].i = v;
      body_->Run(ts);
    }
  }

 private:
  int slot_;
  IntWrap wrap_;
  CExprPtr min_, extent_;
  PNodePtr body_;
};

class PIf : public PNode {
 public:
  PIf(const StmtNode* n, CExprPtr cond, PNodePtr then_case, PNodePtr else_case)
      : PNode(n),
        cond_(std::move(cond)),
        then_(std::move(then_case)),
        else_(std::move(else_case)) {}
  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    Lane v;
    if (!Uniform(ts, cond_.get(), node, "condition of the if", &v)) return;
    if (v.i != 0) {
      then_->Run(ts);
    } else if (else_) {
      else_->Run(ts);
    }
  }

 private:
  CExprPtr cond_;
  PNodePtr then_, else_;
};

class PLet : public PNode {
 public:
  PLet(const StmtNode* n, int slot, CExprPtr value, PNodePtr body)
      : PNode(n), slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    for (int64_t t = 0; t < ts.count(); ++t) {
      ts.Enter(t);
      if (!EvalScalar(ts.c, value_.get(), ts.c.frame + slot_)) return;
    }
    body_->Run(ts);
  }

 private:
  int slot_;
  CExprPtr value_;
  PNodePtr body_;
};

class PThreadFor : public PNode {
 public:
  PThreadFor(const ForNode* op, int axis, int slot, CExprPtr min, PNodePtr body)
      : PNode(op),
        axis_(axis),
        slot_(slot),
        wrap_(IntWrap::For(op->loop_var->dtype)),
        min_(std::move(min)),
        body_(std::move(body)) {}
  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    for (int64_t t = 0; t < ts.count(); ++t) {
      ts.Enter(t);
      Lane lo;
      if (!EvalScalar(ts.c, min_.get(), &lo)) return;
      ts.c.frame[slot_].i = LoopValue(wrap_, lo.i, ts.run.index[axis_]);
    }
    body_->Run(ts);
  }

 private:
  int axis_, slot_;
  IntWrap wrap_;
  CExprPtr min_;
  PNodePtr body_;
};

// An allocation above a barrier: shared storage is the block's (one for all
// threads, its race records reset); any other is one per thread.
class PAlloc : public PNode {
 public:
  PAlloc(const AllocateNode* op, std::unique_ptr<CBufferDef> def, PNodePtr body)
      : PNode(op),
        shared_(op->buffer->scope == "shared"),
        def_(std::move(def)),
        body_(std::move(body)) {}
  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    storage_.resize(shared_ ? 1 : ts.count());
    for (int64_t t = 0; t < ts.count(); ++t) {
      ts.Enter(t);
      if (shared_ && t > 0) {
        ts.c.bufs[def_->slot] = ts.bufs[0][def_->slot];
        continue;
      }
      if (!AllocateStorage(ts.c, *def_, storage_[t], node)) return;
      // Another block's storage is fresh; within one block it is the same memory
      // each time the allocation runs (in a loop), and its history stays.
      if (shared_ && ts.run.block != last_block_) {
        last_block_ = ts.run.block;
        const std::vector<uint8_t>& bytes = storage_[0].bytes;
        for (size_t k = 0; k < bytes.size(); k += def_->node->dtype.bytes()) {
          ts.run.shadow.erase(bytes.data() + k);
        }
      }
    }
    body_->Run(ts);
  }

 private:
  bool shared_;
  int64_t last_block_ = -1;
  std::unique_ptr<CBufferDef> def_;
  std::vector<Storage> storage_;
  PNodePtr body_;
};

class PDecl : public PNode {
 public:
  PDecl(const StmtNode* n, int source_slot, std::unique_ptr<CBufferDef> def, PNodePtr body)
      : PNode(n), source_slot_(source_slot), def_(std::move(def)), body_(std::move(body)) {}
  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    for (int64_t t = 0; t < ts.count(); ++t) {
      ts.Enter(t);
      if (!BindView(ts.c, *def_, source_slot_, node)) return;
    }
    body_->Run(ts);
  }

 private:
  int source_slot_;
  std::unique_ptr<CBufferDef> def_;
  PNodePtr body_;
};

// Compiles the statements of a kernel that hold a barrier or a shared allocation
// into phase-level nodes, and the barrier-free ones below them into segments.
class PhaseCompiler {
 public:
  explicit PhaseCompiler(Compiler& comp) : comp_(comp) {}

  absl::StatusOr<PNodePtr> Compile(const Stmt& s) {
    if (!InspectKernel(s).needs_phases) {
      absl::StatusOr<CStmtPtr> c = comp_.CompileStmt(s);
      if (!c.ok()) return c.status();
      return PNodePtr(new PSegment(*std::move(c)));
    }
    const StmtNode* n = s.get();
    switch (n->kind()) {
      case NodeKind::kSeqStmt: {
        std::vector<PNodePtr> seq;
        for (const Stmt& x : static_cast<const SeqStmtNode*>(n)->seq) {
          absl::StatusOr<PNodePtr> p = Compile(x);
          if (!p.ok()) return p.status();
          seq.push_back(*std::move(p));
        }
        return PNodePtr(new PSeq(n, std::move(seq)));
      }
      case NodeKind::kEvaluate: {
        const auto* call = dyn_cast<CallNode>(static_cast<const EvaluateNode*>(n)->value.get());
        if (call != nullptr && call->callee == CallNode::Callee::kSyncThreads) {
          return PNodePtr(new PBarrier(n));
        }
        break;  // A barrier inside an expression: the verifier's error, below.
      }
      case NodeKind::kBufferStore: {
        const auto* op = static_cast<const BufferStoreNode*>(n);
        const auto* call = dyn_cast<CallNode>(op->value.get());
        if (call != nullptr && call->callee == CallNode::Callee::kWarpMma) {
          return CompileWarpMma(comp_, op, call);
        }
        if (call == nullptr || call->callee != CallNode::Callee::kThreadReduce ||
            call->args.size() != 1) {
          break;
        }
        absl::StatusOr<CExprPtr> value = comp_.CompileExpr(call->args[0], n);
        if (!value.ok()) return value.status();
        BinFn combine =
            SelectBinFn(*ThreadReduceCombiner(call->name), ReprOf(call->args[0]->dtype));
        if (combine == nullptr || (*value)->lanes != 1) {
          return comp_.Error(n, absl::StrCat(call->name, " of ", call->dtype.ToString(),
                                             ": a thread reduction of a scalar number"));
        }
        // The store runs as compiled, its value read from a fresh variable.
        Var result = MakeVar("thread_reduce", call->dtype);
        absl::StatusOr<Stmt> store = MakeBufferStore(op->buffer, result, op->indices);
        if (!store.ok()) return comp_.Error(n, std::string(store.status().message()));
        int slot = comp_.BindVar(result.get());
        absl::StatusOr<CStmtPtr> cstore = comp_.CompileStmt(*store);
        comp_.UnbindVar(result.get());
        if (!cstore.ok()) return cstore.status();
        return PNodePtr(new PCollective(n, *std::move(value), combine, IntWrap::For(call->dtype),
                                        slot, *std::move(cstore), *std::move(store)));
      }
      case NodeKind::kFor: {
        const auto* op = static_cast<const ForNode*>(n);
        std::optional<int> axis =
            op->for_kind == ForKind::kThreadBinding ? LaunchAxisOf(op->thread_tag) : std::nullopt;
        absl::StatusOr<CExprPtr> min = comp_.CompileExpr(op->min, n);
        if (!min.ok()) return min.status();
        absl::StatusOr<CExprPtr> extent = comp_.CompileExpr(op->extent, n);
        if (!extent.ok()) return extent.status();
        if ((*min)->lanes != 1 || (*extent)->lanes != 1) {
          return comp_.Error(n, "For bounds must be scalars");
        }
        int slot = comp_.BindVar(op->loop_var.get());
        absl::StatusOr<PNodePtr> body = Compile(op->body);
        comp_.UnbindVar(op->loop_var.get());
        if (!body.ok()) return body.status();
        if (axis) {
          return PNodePtr(new PThreadFor(op, *axis, slot, *std::move(min), *std::move(body)));
        }
        return PNodePtr(new PLoop(op, slot, *std::move(min), *std::move(extent), *std::move(body)));
      }
      case NodeKind::kIfThenElse: {
        const auto* op = static_cast<const IfThenElseNode*>(n);
        absl::StatusOr<CExprPtr> cond = comp_.CompileExpr(op->condition, n);
        if (!cond.ok()) return cond.status();
        if ((*cond)->lanes != 1) return comp_.Error(n, "an IfThenElse condition must be a scalar");
        absl::StatusOr<PNodePtr> then_case = Compile(op->then_case);
        if (!then_case.ok()) return then_case.status();
        PNodePtr else_case;
        if (op->else_case) {
          absl::StatusOr<PNodePtr> e = Compile(op->else_case);
          if (!e.ok()) return e.status();
          else_case = *std::move(e);
        }
        return PNodePtr(new PIf(n, *std::move(cond), *std::move(then_case), std::move(else_case)));
      }
      case NodeKind::kLetStmt: {
        const auto* op = static_cast<const LetStmtNode*>(n);
        absl::StatusOr<CExprPtr> value = comp_.CompileExpr(op->value, n);
        if (!value.ok()) return value.status();
        if ((*value)->lanes != op->var->dtype.lanes()) {
          return comp_.Error(n, "a LetStmt's value and variable differ in lanes");
        }
        int slot = comp_.BindVar(op->var.get());
        absl::StatusOr<PNodePtr> body = Compile(op->body);
        comp_.UnbindVar(op->var.get());
        if (!body.ok()) return body.status();
        return PNodePtr(new PLet(n, slot, *std::move(value), *std::move(body)));
      }
      case NodeKind::kAllocate: {
        const auto* op = static_cast<const AllocateNode*>(n);
        absl::StatusOr<std::unique_ptr<CBufferDef>> def = comp_.DefineBuffer(op->buffer, n);
        if (!def.ok()) return def.status();
        absl::StatusOr<PNodePtr> body = Compile(op->body);
        comp_.UnbindBuffer(op->buffer.get());
        if (!body.ok()) return body.status();
        return PNodePtr(new PAlloc(op, *std::move(def), *std::move(body)));
      }
      case NodeKind::kDeclBuffer: {
        const auto* op = static_cast<const DeclBufferNode*>(n);
        std::optional<int> src = op->source ? comp_.BufferSlotOf(op->source.get()) : std::nullopt;
        if (!src || !op->buffer || op->buffer->dtype != op->source->dtype) {
          return comp_.Error(n, "a DeclBuffer whose source is missing, unbound or of another type");
        }
        absl::StatusOr<std::unique_ptr<CBufferDef>> def = comp_.DefineBuffer(op->buffer, n);
        if (!def.ok()) return def.status();
        absl::StatusOr<PNodePtr> body = Compile(op->body);
        comp_.UnbindBuffer(op->buffer.get());
        if (!body.ok()) return body.status();
        return PNodePtr(new PDecl(n, *src, *std::move(def), *std::move(body)));
      }
      default:
        break;
    }
    return comp_.Error(n,
                       "a sync_threads(), thread reduction or shared allocation inside a "
                       "statement the GPU interpreter cannot run in phases (they sit in "
                       "sequences, loops, ifs, lets and allocations; a thread reduction is the "
                       "whole value of a store)");
  }

 private:
  Compiler& comp_;
};

}  // namespace

absl::StatusOr<PNodePtr> CompilePhases(Compiler& comp, const Stmt& s) {
  return PhaseCompiler(comp).Compile(s);
}

}  // namespace tessel::ir::interp
