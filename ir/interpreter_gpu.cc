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
#include "ir/interpreter_gpu_internal.h"
#include "ir/interpreter_internal.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"

namespace tessel::ir::interp {

namespace {

constexpr int64_t kMaxThreadsPerBlock = 1024;  // CUDA's bound, for every arch.

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
    c.frame[slot_].i = LoopValue(wrap_, lo.i, c.gpu->index[axis_]);
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
    if (op->callee == CallNode::Callee::kSyncThreads ||
        op->callee == CallNode::Callee::kThreadReduce || op->callee == CallNode::Callee::kWarpMma) {
      needs_phases = true;
    }
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
    if (c.bank_conflicts != nullptr) run.banks = std::make_unique<BankTally>(c.bank_conflicts);
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
    if (run.banks != nullptr) run.banks->Flush();
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

KernelTraits InspectKernel(const Stmt& s) {
  KernelShape k;
  k.VisitStmt(s);
  return {k.has_block, k.needs_phases};
}

absl::StatusOr<CStmtPtr> Compiler::CompileKernel(const ForNode* op) {
  KernelTraits shape = InspectKernel(GetRef<StmtNode>(op));
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
    phased = CompilePhases(*this, GetRef<StmtNode>(op));
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
