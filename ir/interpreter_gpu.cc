// GPU kernels in the reference interpreter: thread-bound code runs thread by
// thread with CUDA's semantics, barriers split it into phases, and a race detector
// watches shared and global memory.
//
//   for bx in 0..2 thread("blockIdx.x") {         a kernel of 2 blocks of 4 threads
//     allocate S: f32[4] shared {                 one S per block
//       for tx in 0..4 thread("threadIdx.x") {
//         S[tx] = A[bx * 4 + tx]                  phase 0: every thread stores
//         evaluate sync_threads()                 all 4 threads reach it, then
//         B[bx * 4 + tx] = S[3 - tx]              phase 1: every thread loads
//   } } }
//
// The outermost loop bound to a launch axis (blockIdx.* / threadIdx.*) starts a
// kernel. Its launch extents come from every bound loop inside (one extent per
// axis), and the subtree then runs once per thread of every block, each bound loop
// taking the value min + that thread's index: two loops bound to threadIdx.x are the
// same thread, as on a GPU. Code between barriers runs one thread after another; a
// barrier ends a phase of the block. A statement that holds a barrier or a shared
// allocation (the block's, not a thread's) runs at the phase level: the bounds of a
// loop and the condition of an if above a barrier must agree across the block
// (a divergent barrier hangs a GPU), and lets and the other allocations there get
// one value per thread.
//
// The race detector records every load and store of a shared buffer or a global
// one (parameters, workspaces) with the block, phase and thread that made it. Two
// accesses by different threads, at least one a store, race unless both are in one
// block with a barrier between; the first race fails the run, naming the element,
// both threads and the statement. Without it a missing barrier would pass here
// (threads run in order) and fail only on a GPU.
//
// A function that still has blocks runs its thread-bound loops as serial loops:
// there blocks order producers before consumers, and lowering (thread-sync) turns
// that order into barriers.
#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/interpreter_gpu_run.h"
#include "ir/interpreter_internal.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"

namespace tessel::ir::interp {

namespace {

constexpr int64_t kMaxThreadsPerBlock = 1024;  // CUDA's bound, for every arch.

bool EvalScalar(Ctx& c, CExpr* e, Lane* out) {
  e->Eval(c, out);
  return !c.failed;
}

// A loop bound to a launch axis inside a kernel: this thread's single iteration.
class ThreadForStmt : public CStmt {
 public:
  ThreadForStmt(const ForNode* op, int axis, int slot, CExprPtr min, CStmtPtr body)
      : CStmt(op),
        axis_(axis),
        slot_(slot),
        wrap_(IntWrap::For(op->loop_var->dtype)),
        min_(std::move(min)),
        body_(std::move(body)) {}
  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    Lane lo;
    if (!EvalScalar(c, min_.get(), &lo)) return;
    c.frame[slot_].i = wrap_(static_cast<int64_t>(static_cast<uint64_t>(lo.i) +
                                                  static_cast<uint64_t>(c.gpu->index[axis_])));
    body_->Exec(c);
  }

 private:
  int axis_, slot_;
  IntWrap wrap_;
  CExprPtr min_;
  CStmtPtr body_;
};

// Finds what decides how a kernel runs: blocks (serial), barriers and shared
// allocations (phases).
class KernelShape : public IRVisitor {
 public:
  bool has_block = false;
  bool needs_phases = false;
  void VisitBlock(const BlockNode*) override { has_block = true; }
  void VisitBlockRealize(const BlockRealizeNode*) override { has_block = true; }
  void VisitCall(const CallNode* op) override {
    if (op->callee == CallNode::Callee::kSyncThreads) needs_phases = true;
    IRVisitor::VisitCall(op);
  }
  void VisitAllocate(const AllocateNode* op) override {
    if (op->buffer && op->buffer->scope == "shared") needs_phases = true;
    IRVisitor::VisitAllocate(op);
  }
};

// The loops bound to launch axes in a kernel.
class LaunchLoops : public IRVisitor {
 public:
  std::vector<const ForNode*> loops;
  void VisitFor(const ForNode* op) override {
    if (op->for_kind == ForKind::kThreadBinding && LaunchAxisOf(op->thread_tag)) {
      loops.push_back(op);
    }
    IRVisitor::VisitFor(op);
  }
};

bool NeedsPhases(const Stmt& s) {
  KernelShape k;
  k.VisitStmt(s);
  return k.needs_phases;
}

// The per-thread state of a phased kernel and the thread the Ctx now runs as.
struct Threads {
  Ctx& c;
  GpuRun& run;
  std::vector<std::vector<Lane>> frames;
  std::vector<std::vector<BufState>> bufs;
  void Enter(int64_t t) {
    c.frame = frames[t].data();
    c.bufs = bufs[t].data();
    run.SetThread(t);
  }
  int64_t count() const { return static_cast<int64_t>(frames.size()); }
};

// A statement of a kernel run at the phase level.
class PNode {
 public:
  explicit PNode(const StmtNode* n) : node(n) {}
  virtual ~PNode() = default;
  virtual void Run(Threads& ts) = 0;
  const StmtNode* const node;
};
using PNodePtr = std::unique_ptr<PNode>;

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
      int64_t v =
          wrap_(static_cast<int64_t>(static_cast<uint64_t>(lo.i) + static_cast<uint64_t>(k)));
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
      ts.c.frame[slot_].i = wrap_(static_cast<int64_t>(static_cast<uint64_t>(lo.i) +
                                                       static_cast<uint64_t>(ts.run.index[axis_])));
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

struct LaunchExtent {
  const ForNode* loop;
  int axis;
  CExprPtr extent;
};

class KernelStmt : public CStmt {
 public:
  // Exactly one of `flat` (a kernel without barriers) and `phased` is set.
  KernelStmt(const ForNode* op, std::vector<LaunchExtent> extents, CStmtPtr flat, PNodePtr phased)
      : CStmt(op),
        extents_(std::move(extents)),
        flat_(std::move(flat)),
        phased_(std::move(phased)) {}

  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    GpuRun run;
    std::array<const ForNode*, kNumLaunchAxes> first = {};
    for (LaunchExtent& l : extents_) {
      Lane v;
      if (!EvalScalar(c, l.extent.get(), &v)) return;
      if (first[l.axis] == nullptr) {
        first[l.axis] = l.loop;
        run.extent[l.axis] = std::max<int64_t>(v.i, 0);
      } else if (run.extent[l.axis] != std::max<int64_t>(v.i, 0)) {
        c.Fail(absl::StatusCode::kFailedPrecondition, node,
               absl::StrCat("loops '", first[l.axis]->loop_var->name, "' and '",
                            l.loop->loop_var->name, "' are both bound to ", LaunchAxisName(l.axis),
                            " with different extents (", run.extent[l.axis], " and ", v.i,
                            ") in one kernel"));
        return;
      }
    }
    if (run.threads() > kMaxThreadsPerBlock) {
      c.Fail(absl::StatusCode::kFailedPrecondition, node,
             absl::StrCat("a kernel block of ", run.threads(), " threads; CUDA allows at most ",
                          kMaxThreadsPerBlock));
      return;
    }
    if (run.threads() == 0 || run.blocks() == 0) return;
    Lane* frame = c.frame;
    BufState* bufs = c.bufs;
    c.gpu = &run;
    // A kernel without barriers runs each thread from start to end in the
    // launch's frame; with barriers every thread has its own, copied at launch.
    Threads ts{c, run, {}, {}};
    if (phased_) {
      ts.frames.assign(run.threads(), std::vector<Lane>(frame, frame + c.frame_slots));
      ts.bufs.assign(run.threads(), std::vector<BufState>(bufs, bufs + c.buf_slots));
    }
    for (int64_t b = 0; b < run.blocks() && !c.failed; ++b) {
      run.SetBlock(b);
      if (phased_) {
        phased_->Run(ts);
        continue;
      }
      for (int64_t t = 0; t < run.threads() && !c.failed; ++t) {
        run.SetThread(t);
        flat_->Exec(c);
      }
    }
    c.frame = frame;
    c.bufs = bufs;
    c.gpu = nullptr;
  }

 private:
  std::vector<LaunchExtent> extents_;
  CStmtPtr flat_;
  PNodePtr phased_;
};

}  // namespace

// Compiles the statements of a kernel that hold a barrier or a shared allocation
// into phase-level nodes, and the barrier-free ones below them into segments.
class PhaseCompiler {
 public:
  explicit PhaseCompiler(Compiler& comp) : comp_(comp) {}

  absl::StatusOr<PNodePtr> Compile(const Stmt& s) {
    if (!NeedsPhases(s)) {
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
                       "a sync_threads() or shared allocation inside a statement the GPU "
                       "interpreter cannot run in phases (barriers sit in sequences, loops, "
                       "ifs, lets and allocations)");
  }

 private:
  Compiler& comp_;
};

absl::StatusOr<CStmtPtr> Compiler::CompileKernel(const ForNode* op) {
  KernelShape shape;
  shape.VisitStmt(GetRef<StmtNode>(op));
  if (shape.has_block) {
    thread_mode_ = ThreadMode::kSerial;
    absl::StatusOr<CStmtPtr> serial = CompileStmt(GetRef<StmtNode>(op));
    thread_mode_ = ThreadMode::kHost;
    return serial;
  }
  // Launch extents are known when the kernel starts: they are compiled here, in
  // the scope around it.
  LaunchLoops loops;
  loops.VisitStmt(GetRef<StmtNode>(op));
  std::vector<LaunchExtent> extents;
  for (const ForNode* loop : loops.loops) {
    absl::StatusOr<CExprPtr> e = CompileExpr(loop->extent, loop);
    if (!e.ok()) {
      return Error(loop, absl::StrCat("the extent of loop '", loop->loop_var->name, "', bound to ",
                                      loop->thread_tag, ", must be known when the kernel starts: ",
                                      e.status().message()));
    }
    if ((*e)->lanes != 1) return Error(loop, "For bounds must be scalars");
    extents.push_back({loop, *LaunchAxisOf(loop->thread_tag), *std::move(e)});
  }
  thread_mode_ = ThreadMode::kGpu;
  absl::StatusOr<CStmtPtr> flat = CStmtPtr();
  absl::StatusOr<PNodePtr> phased = PNodePtr();
  if (shape.needs_phases) {
    phased = PhaseCompiler(*this).Compile(GetRef<StmtNode>(op));
  } else {
    flat = CompileStmt(GetRef<StmtNode>(op));
  }
  thread_mode_ = ThreadMode::kHost;
  if (!flat.ok()) return flat.status();
  if (!phased.ok()) return phased.status();
  return CStmtPtr(new KernelStmt(op, std::move(extents), *std::move(flat), *std::move(phased)));
}

absl::StatusOr<CStmtPtr> Compiler::CompileThreadFor(const ForNode* op) {
  absl::StatusOr<CExprPtr> min = CompileExpr(op->min, op);
  if (!min.ok()) return min.status();
  if ((*min)->lanes != 1) return Error(op, "For bounds must be scalars");
  int slot = BindVar(op->loop_var.get());
  absl::StatusOr<CStmtPtr> body = CompileStmt(op->body);
  UnbindVar(op->loop_var.get());
  if (!body.ok()) return body.status();
  return CStmtPtr(new ThreadForStmt(op, *LaunchAxisOf(op->thread_tag), slot, *std::move(min),
                                    *std::move(body)));
}
}  // namespace tessel::ir::interp
