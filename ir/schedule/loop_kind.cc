// parallel, vectorize, unroll, bind (see loop_kind.h).
#include "ir/schedule/loop_kind.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "ir/schedule/binding_analysis.h"
#include "ir/schedule/ir_util.h"
#include "ir/structural_equal.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

// The regions of `regions` with the block's iter vars replaced by their
// bindings: what one block instance touches, in terms of the loops.
std::vector<BufferRegion> InLoopTerms(const BlockRealizeNode* r,
                                      const std::vector<BufferRegion>& regions) {
  VarMap map;
  for (size_t k = 0; k < r->block->iter_vars.size() && k < r->iter_values.size(); ++k) {
    map[r->block->iter_vars[k].var.get()] = r->iter_values[k];
  }
  std::vector<BufferRegion> out;
  for (const BufferRegion& br : regions) {
    BufferRegion n{br.buffer, {}};
    for (const Range& range : br.region) {
      n.region.push_back({SubstituteInExpr(range.min, map), SubstituteInExpr(range.extent, map)});
    }
    out.push_back(std::move(n));
  }
  return out;
}

bool SameRegion(const BufferRegion& a, const BufferRegion& b) {
  if (a.region.size() != b.region.size()) return false;
  for (size_t d = 0; d < a.region.size(); ++d) {
    if (!StructuralEqual(a.region[d].min, b.region[d].min) ||
        !StructuralEqual(a.region[d].extent, b.region[d].extent)) {
      return false;
    }
  }
  return true;
}

// Buffers allocated inside the loop are private to an iteration.
class LocalBuffers : public IRVisitor {
 public:
  absl::flat_hash_set<const BufferNode*> buffers;
  void VisitAllocate(const AllocateNode* op) override {
    buffers.insert(op->buffer.get());
    IRVisitor::VisitAllocate(op);
  }
  void VisitBlock(const BlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) buffers.insert(b.get());
    IRVisitor::VisitBlock(op);
  }
};

// The rules parallel, vectorize and bind share (see loop_kind.h).
absl::Status CheckIndependent(const ScheduleState& state, int sref, const std::string& kind) {
  const StmtIndex& index = state.index();
  const ForNode* f = index.loop(sref);
  const std::string what = DescribeLoop(f);
  if (HasStmtOutsideBlocks(f->body)) {
    return state.Error(f, absl::StrCat(what,
                                       " holds statements outside blocks, whose iterations "
                                       "cannot be shown independent; cannot make it ",
                                       kind));
  }
  const VarNode* v = f->loop_var.get();
  std::vector<int> blocks = index.ChildBlocks(sref);
  for (int b : blocks) {
    const BlockRealizeNode* r = index.realize(b);
    const BlockNode* block = r->block.get();
    for (size_t k = 0; k < block->iter_vars.size() && k < r->iter_values.size(); ++k) {
      const IterVar& iv = block->iter_vars[k];
      if (iv.kind == IterKind::kSpatial || !UsesVarIn(r->iter_values[k], v)) continue;
      return state.Error(
          block, absl::StrCat("iter var ", iv.var->name, " of block ", block->name, " is ",
                              IterKindName(iv.kind), " and bound to ", what, ": its iterations ",
                              iv.kind == IterKind::kReduce ? "combine into the same output"
                                                           : "have no known independence",
                              ", so the loop cannot be ", kind));
    }
    std::string why = CheckDistinctInstances(index, b, sref);
    if (!why.empty()) {
      return state.Error(block, absl::StrCat(why, ", so the loop cannot be ", kind));
    }
  }
  // Data flow between iterations: every iteration writes its own place, and no
  // block reads or overwrites what another writes unless at the very same place.
  std::optional<int64_t> extent = ConstInt(f->extent);
  const bool single_iteration = extent && *extent <= 1;
  LocalBuffers local;
  local.VisitStmt(f->body);
  for (int w : blocks) {
    for (const BufferRegion& wr : InLoopTerms(index.realize(w), index.block(w)->writes)) {
      if (local.buffers.contains(wr.buffer.get())) continue;
      bool depends = single_iteration;
      for (const Range& r : wr.region) depends |= UsesVarIn(r.min, v) || UsesVarIn(r.extent, v);
      if (!depends) {
        return state.Error(
            index.block(w),
            absl::StrCat("block ", index.block(w)->name, " writes buffer ", wr.buffer->name,
                         " at the same place in every iteration of ", what,
                         " (the region does not depend on the loop); the loop "
                         "cannot be ",
                         kind));
      }
      for (int o : blocks) {
        if (o == w) continue;
        const BlockNode* other = index.block(o);
        for (bool reads : {true, false}) {
          for (const BufferRegion& orr :
               InLoopTerms(index.realize(o), reads ? other->reads : other->writes)) {
            if (orr.buffer.get() != wr.buffer.get() || SameRegion(orr, wr)) continue;
            return state.Error(
                other,
                absl::StrCat("block ", other->name, (reads ? " reads " : " writes "), "buffer ",
                             wr.buffer->name, " that block ", index.block(w)->name,
                             " writes, at a place that may belong to another iteration of ", what,
                             "; the loop cannot be ", kind));
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const ForNode*> SerialLoop(const ScheduleState& state, const Var& loop,
                                          const std::string& kind) {
  absl::StatusOr<int> s = state.LoopSRef(loop);
  if (!s.ok()) return s.status();
  const ForNode* f = state.index().loop(*s);
  if (f->for_kind != ForKind::kSerial) {
    std::string now = f->for_kind == ForKind::kThreadBinding
                          ? absl::StrCat("bound to ", f->thread_tag)
                          : ForKindName(f->for_kind);
    return state.Error(f, absl::StrCat(DescribeLoop(f), " is already ", now,
                                       "; only a serial loop can be made ", kind));
  }
  return f;
}

absl::Status SetKind(ScheduleState* state, const ForNode* f, ForKind kind, std::string tag) {
  auto n = MakeNode<ForNode>(*f);
  n->for_kind = kind;
  n->thread_tag = std::move(tag);
  state->Replace(ReplaceStmts(state->func(), {{f, Stmt(std::move(n))}}));
  return absl::OkStatus();
}

absl::Status ParallelLike(ScheduleState* state, const Var& loop, ForKind kind,
                          const std::string& word, const std::string& tag) {
  absl::StatusOr<const ForNode*> f = SerialLoop(*state, loop, word);
  if (!f.ok()) return f.status();
  absl::Status ok = CheckIndependent(*state, state->index().FindStmt(*f), word);
  if (!ok.ok()) return ok;
  return SetKind(state, *f, kind, tag);
}

class FindThreadLoop : public IRVisitor {
 public:
  explicit FindThreadLoop(const std::string& tag) : tag_(tag) {}
  const ForNode* found = nullptr;
  void VisitFor(const ForNode* op) override {
    if (found == nullptr && op->for_kind == ForKind::kThreadBinding && op->thread_tag == tag_) {
      found = op;
    }
    IRVisitor::VisitFor(op);
  }

 private:
  const std::string& tag_;
};

}  // namespace

bool IsThreadAxis(const std::string& tag) {
  for (const char* t : {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
                        "threadIdx.z", "vthread", "vthread.x", "vthread.y", "vthread.z"}) {
    if (tag == t) return true;
  }
  return false;
}

absl::Status Parallel(ScheduleState* state, const Var& loop) {
  return ParallelLike(state, loop, ForKind::kParallel, "parallel", "");
}

absl::Status Vectorize(ScheduleState* state, const Var& loop) {
  return ParallelLike(state, loop, ForKind::kVectorized, "vectorized", "");
}

absl::Status Unroll(ScheduleState* state, const Var& loop) {
  absl::StatusOr<const ForNode*> f = SerialLoop(*state, loop, "unrolled");
  if (!f.ok()) return f.status();
  return SetKind(state, *f, ForKind::kUnrolled, "");
}

absl::Status Bind(ScheduleState* state, const Var& loop, const std::string& thread_axis) {
  absl::StatusOr<int> s = state->LoopSRef(loop);
  if (!s.ok()) return s.status();
  const ForNode* f = state->index().loop(*s);
  if (!IsThreadAxis(thread_axis)) {
    return state->ArgError(f, absl::StrCat("unknown thread axis '", thread_axis,
                                           "'; use blockIdx.x/y/z, threadIdx.x/y/z or vthread"));
  }
  const std::string word = absl::StrCat("bound to ", thread_axis);
  for (int p = state->index().at(*s).parent; p >= 0; p = state->index().at(p).parent) {
    const ForNode* outer = state->index().loop(p);
    if (outer != nullptr && outer->for_kind == ForKind::kThreadBinding &&
        outer->thread_tag == thread_axis) {
      return state->Error(outer, absl::StrCat(DescribeLoop(outer), " around ", DescribeLoop(f),
                                              " is already bound to ", thread_axis,
                                              "; an axis can be bound only once on a path"));
    }
  }
  FindThreadLoop inner(thread_axis);
  inner.VisitStmt(f->body);
  if (inner.found != nullptr) {
    return state->Error(inner.found,
                        absl::StrCat(DescribeLoop(inner.found), " inside ", DescribeLoop(f),
                                     " is already bound to ", thread_axis,
                                     "; an axis can be bound only once on a path"));
  }
  return ParallelLike(state, loop, ForKind::kThreadBinding, word, thread_axis);
}

}  // namespace tessel::ir::schedule
