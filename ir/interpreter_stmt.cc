// Statements of the reference interpreter: compiling a Stmt into a CStmt tree and
// executing it.
//
//   for k in 0..128 {                                 -> a For node: k in frame[3]
//     block C(vi = i, vj = j, vk: reduce = k) {       -> BlockRealize: predicate, bind
//       init { C[vi, vj] = 0 }                            vi, vj, vk; init when vk == 0
//       C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj] -> Store: checked, then written
//   } }
//
// Every loop kind (parallel, vectorized, unrolled) runs as a serial loop; loops
// bound to blockIdx/threadIdx run as a GPU kernel (interpreter_gpu.cc). A block checks each iter
// value against its domain (a binding outside the domain is a malformed schedule) and runs `init`
// when every reduce iter var is at its domain minimum. Allocate and alloc_buffers get fresh storage
// each time they run, and reading an element of it before it is written is an error (compiled code
// would read garbage). A DeclBuffer view's elem_offset counts from the start of the shared storage.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/interpreter_internal.h"
#include "ir/thread_axis.h"

namespace tessel::ir::interp {
namespace {

class StoreStmt : public CStmt {
 public:
  StoreStmt(const BufferStoreNode* op, int slot, CExprPtr value, std::vector<CExprPtr> idx)
      : CStmt(op), buf_(op->buffer.get()), slot_(slot), write_(WriterFor(op->buffer->dtype)),
        elem_bytes_(op->buffer->dtype.bytes()), value_(std::move(value)), idx_(std::move(idx)),
        sv_(value_->lanes), cur_(idx_.size()), offs_(value_->lanes) {
    for (const CExprPtr& e : idx_) {
      s_.emplace_back(e->lanes);
      ops_.emplace_back(e.get());
    }
  }

  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    int nd = static_cast<int>(idx_.size());
    if (value_->lanes == 1) {  // Scalar fast path.
      value_->Eval(c, sv_.data());
      for (int d = 0; d < nd; ++d) cur_[d] = ops_[d].Get(c).i;
      if (c.failed) return;
      const BufState& b = c.bufs[slot_];
      int64_t off = FastOffset(b, cur_.data(), nd);
      if (off < 0 || off >= b.storage_elems) {
        off = CheckedOffset(c, b, buf_, cur_.data(), true, node, -1);
        if (off < 0) return;
      }
      CheckGpuAccess(c, b, buf_, off, elem_bytes_, cur_.data(), true, node);
      if (c.failed) return;
      write_(b.data + off * elem_bytes_, sv_[0]);
      if (b.written) b.written[off] = 1;
      return;
    }
    value_->Eval(c, sv_.data());
    for (int d = 0; d < nd; ++d) idx_[d]->Eval(c, s_[d].data());
    if (c.failed) return;
    const BufState& b = c.bufs[slot_];
    int lanes = value_->lanes;
    // Every lane is checked before any is written: a failing store changes nothing.
    for (int l = 0; l < lanes; ++l) {
      for (int d = 0; d < nd; ++d) cur_[d] = s_[d][idx_[d]->lanes == 1 ? 0 : l].i;
      int64_t off = FastOffset(b, cur_.data(), nd);
      if (off < 0 || off >= b.storage_elems) {
        off = CheckedOffset(c, b, buf_, cur_.data(), true, node, lanes > 1 ? l : -1);
        if (off < 0) return;
      }
      CheckGpuAccess(c, b, buf_, off, elem_bytes_, cur_.data(), true, node);
      if (c.failed) return;
      offs_[l] = off;
    }
    for (int l = 0; l < lanes; ++l) {
      write_(b.data + offs_[l] * elem_bytes_, sv_[l]);
      if (b.written) b.written[offs_[l]] = 1;
    }
  }

 private:
  const BufferNode* buf_;
  int slot_;
  ElementWriter write_;
  int elem_bytes_;
  CExprPtr value_;
  std::vector<CExprPtr> idx_;
  std::vector<Operand> ops_;
  std::vector<Lane> sv_;
  std::vector<std::vector<Lane>> s_;
  std::vector<int64_t> cur_, offs_;
};

class ForStmt : public CStmt {
 public:
  ForStmt(const ForNode* op, int slot, CExprPtr min, CExprPtr extent, CStmtPtr body)
      : CStmt(op), slot_(slot), wrap_(IntWrap::For(op->loop_var->dtype)), min_(std::move(min)),
        extent_(std::move(extent)), body_(std::move(body)) {}

  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    Lane lo, n;
    if (!EvalScalar(c, min_.get(), &lo) || !EvalScalar(c, extent_.get(), &n)) return;
    Lane& var = c.frame[slot_];
    for (int64_t k = 0; k < n.i; ++k) {
      var.i = LoopValue(wrap_, lo.i, k);
      body_->Exec(c);
      if (c.failed) return;
    }
  }

 private:
  int slot_;
  IntWrap wrap_;
  CExprPtr min_, extent_;
  CStmtPtr body_;
};

class IfStmt : public CStmt {
 public:
  IfStmt(const StmtNode* op, CExprPtr cond, CStmtPtr then_case, CStmtPtr else_case)
      : CStmt(op), cond_(std::move(cond)), then_(std::move(then_case)),
        else_(std::move(else_case)) {}
  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    Lane v;
    if (!EvalScalar(c, cond_.get(), &v)) return;
    if (v.i != 0) {
      then_->Exec(c);
    } else if (else_) {
      else_->Exec(c);
    }
  }

 private:
  CExprPtr cond_;
  CStmtPtr then_, else_;
};

struct CLet {
  const StmtNode* node;
  int slot;
  CExprPtr value;
};

// A chain of directly nested LetStmts, run in a loop: lowered code can hold
// thousands of lets in a row, which must not cost a stack frame each.
class LetChain : public CStmt {
 public:
  LetChain(std::vector<CLet> lets, CStmtPtr body)
      : CStmt(lets.front().node), lets_(std::move(lets)), body_(std::move(body)) {}
  void Exec(Ctx& c) override {
    for (CLet& let : lets_) {
      if (!c.Step(let.node)) return;
      let.value->Eval(c, c.frame + let.slot);
      if (c.failed) return;
    }
    body_->Exec(c);
  }

 private:
  std::vector<CLet> lets_;
  CStmtPtr body_;
};

class SeqStmtC : public CStmt {
 public:
  SeqStmtC(const StmtNode* op, std::vector<CStmtPtr> seq) : CStmt(op), seq_(std::move(seq)) {}
  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    for (const CStmtPtr& s : seq_) {
      s->Exec(c);
      if (c.failed) return;
    }
  }

 private:
  std::vector<CStmtPtr> seq_;
};

class EvaluateStmt : public CStmt {
 public:
  EvaluateStmt(const StmtNode* op, CExprPtr value)
      : CStmt(op), value_(std::move(value)), s_(value_->lanes) {}
  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    value_->Eval(c, s_.data());
  }

 private:
  CExprPtr value_;
  std::vector<Lane> s_;
};

class AllocateStmt : public CStmt {
 public:
  AllocateStmt(const StmtNode* op, std::unique_ptr<CBufferDef> def, CStmtPtr body)
      : CStmt(op), def_(std::move(def)), body_(std::move(body)) {}
  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    if (!AllocateStorage(c, *def_, storage_, node)) return;
    body_->Exec(c);
  }

 private:
  std::unique_ptr<CBufferDef> def_;
  CStmtPtr body_;
  Storage storage_;
};

class DeclBufferStmt : public CStmt {
 public:
  DeclBufferStmt(const StmtNode* op, int source_slot, std::unique_ptr<CBufferDef> def,
                 CStmtPtr body)
      : CStmt(op), source_slot_(source_slot), def_(std::move(def)), body_(std::move(body)) {}
  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    if (!BindView(c, *def_, source_slot_, node)) return;
    body_->Exec(c);
  }

 private:
  int source_slot_;
  std::unique_ptr<CBufferDef> def_;
  CStmtPtr body_;
};

struct CIter {
  const IterVar* iv;
  int slot;
  CExprPtr value, dom_min, dom_extent;
  Operand v, lo, n;  // Fast reads of the three above.
};

class BlockStmt : public CStmt {
 public:
  BlockStmt(const StmtNode* op, const BlockNode* block, CExprPtr predicate,
            std::vector<CIter> iters, std::vector<std::unique_ptr<CBufferDef>> allocs,
            CStmtPtr init, CStmtPtr body)
      : CStmt(op), block_(block), predicate_(std::move(predicate)), iters_(std::move(iters)),
        allocs_(std::move(allocs)), storage_(allocs_.size()), init_(std::move(init)),
        body_(std::move(body)), vals_(iters_.size()) {
    // A constant-true predicate (the usual case) costs nothing.
    if (predicate_ && predicate_->is_const && predicate_->const_value.i != 0) predicate_.reset();
    for (CIter& it : iters_) {
      it.v = Operand(it.value.get());
      it.lo = Operand(it.dom_min.get());
      it.n = Operand(it.dom_extent.get());
    }
  }

  void Exec(Ctx& c) override {
    if (!c.Step(node)) return;
    if (predicate_) {
      Lane p;
      if (!EvalScalar(c, predicate_.get(), &p) || p.i == 0) return;
    }
    bool at_init = true;
    for (size_t k = 0; k < iters_.size(); ++k) {
      CIter& it = iters_[k];
      Lane v = it.v.Get(c), lo = it.lo.Get(c), n = it.n.Get(c);
      if (c.failed) return;
      // lo + n may overflow only for absurd domains; compare without adding.
      if (v.i < lo.i || static_cast<uint64_t>(v.i) - static_cast<uint64_t>(lo.i) >=
                            static_cast<uint64_t>(std::max<int64_t>(n.i, 0))) {
        int64_t end;
        std::string end_text = __builtin_add_overflow(lo.i, n.i, &end)
                                   ? absl::StrCat(lo.i, " + ", n.i)
                                   : absl::StrCat(end);
        c.Fail(absl::StatusCode::kOutOfRange, node,
               absl::StrCat("block '", block_->name, "': iter var '", it.iv->var->name, "' = ",
                            v.i, " is outside its domain [", lo.i, ", ", end_text, ")"));
        return;
      }
      if (it.iv->kind == IterKind::kReduce && v.i != lo.i) at_init = false;
      vals_[k] = v;
    }
    // Bound only after every value is computed: values see the outer scope.
    for (size_t k = 0; k < iters_.size(); ++k) c.frame[iters_[k].slot] = vals_[k];
    for (size_t k = 0; k < allocs_.size(); ++k) {
      if (!AllocateStorage(c, *allocs_[k], storage_[k], node)) return;
    }
    if (init_ && at_init) {
      init_->Exec(c);
      if (c.failed) return;
    }
    body_->Exec(c);
  }

 private:
  const BlockNode* block_;
  CExprPtr predicate_;
  std::vector<CIter> iters_;
  std::vector<std::unique_ptr<CBufferDef>> allocs_;
  std::vector<Storage> storage_;
  CStmtPtr init_, body_;
  std::vector<Lane> vals_;
};

}  // namespace

absl::StatusOr<CStmtPtr> Compiler::CompileStmt(const Stmt& s) {
  if (depth_ >= kMaxNesting) return TooDeep(s.get());
  ++depth_;
  absl::StatusOr<CStmtPtr> r = CompileStmtNode(s);
  --depth_;
  return r;
}

absl::StatusOr<CStmtPtr> Compiler::CompileStore(const BufferStoreNode* op, CExprPtr value) {
  const StmtNode* n = op;
  if (!op->buffer) return Error(n, "a BufferStore has no buffer");
  std::optional<int> slot = BufferSlotOf(op->buffer.get());
  if (!slot) {
    return Error(n, absl::StrCat("buffer '", op->buffer->name, "' is used but not bound here"));
  }
  if (static_cast<int>(op->indices.size()) != op->buffer->ndim() ||
      op->value->dtype.element_of() != op->buffer->dtype) {
    return Error(n, absl::StrCat("malformed BufferStore to '", op->buffer->name, "'"));
  }
  std::vector<CExprPtr> idx;
  for (const Expr& i : op->indices) {
    absl::StatusOr<CExprPtr> ci = CompileExpr(i, n);
    if (!ci.ok()) return ci.status();
    if (!i->dtype.is_integer() || (ci.value()->lanes != 1 && ci.value()->lanes != value->lanes)) {
      return Error(n, absl::StrCat("malformed index in BufferStore to '", op->buffer->name, "'"));
    }
    idx.push_back(*std::move(ci));
  }
  return CStmtPtr(new StoreStmt(op, *slot, std::move(value), std::move(idx)));
}

absl::StatusOr<CStmtPtr> Compiler::CompileStmtNode(const Stmt& s) {
  if (!s) return Error(nullptr, "a statement is missing");
  const StmtNode* n = s.get();
  switch (n->kind()) {
    case NodeKind::kBufferStore: {
      const auto* op = static_cast<const BufferStoreNode*>(n);
      absl::StatusOr<CExprPtr> value = CompileExpr(op->value, n);
      if (!value.ok()) return value.status();
      return CompileStore(op, *std::move(value));
    }
    case NodeKind::kFor: {
      const auto* op = static_cast<const ForNode*>(n);
      if (!op->loop_var || !op->loop_var->dtype.is_integer() || !op->loop_var->dtype.is_scalar()) {
        return Error(n, "a For needs a scalar integer loop variable");
      }
      absl::StatusOr<CExprPtr> min = CompileExpr(op->min, n), ext = CompileExpr(op->extent, n);
      if (!min.ok()) return min.status();
      if (!ext.ok()) return ext.status();
      if ((*min)->lanes != 1 || (*ext)->lanes != 1) return Error(n, "For bounds must be scalars");
      if (op->for_kind == ForKind::kThreadBinding && LaunchAxisOf(op->thread_tag)) {
        if (thread_mode_ == ThreadMode::kHost) return CompileKernel(op);
        if (thread_mode_ == ThreadMode::kGpu) return CompileThreadFor(op);
      }
      int slot = BindVar(op->loop_var.get());
      absl::StatusOr<CStmtPtr> body = CompileStmt(op->body);
      UnbindVar(op->loop_var.get());
      if (!body.ok()) return body.status();
      return CStmtPtr(new ForStmt(op, slot, *std::move(min), *std::move(ext), *std::move(body)));
    }
    case NodeKind::kIfThenElse: {
      const auto* op = static_cast<const IfThenElseNode*>(n);
      absl::StatusOr<CExprPtr> cond = CompileExpr(op->condition, n);
      if (!cond.ok()) return cond.status();
      if ((*cond)->lanes != 1) return Error(n, "an IfThenElse condition must be a scalar");
      absl::StatusOr<CStmtPtr> then_case = CompileStmt(op->then_case);
      if (!then_case.ok()) return then_case.status();
      CStmtPtr else_case;
      if (op->else_case) {
        absl::StatusOr<CStmtPtr> e = CompileStmt(op->else_case);
        if (!e.ok()) return e.status();
        else_case = *std::move(e);
      }
      return CStmtPtr(new IfStmt(n, *std::move(cond), *std::move(then_case), std::move(else_case)));
    }
    case NodeKind::kLetStmt: {
      std::vector<CLet> lets;
      absl::Status status;
      const StmtNode* cur = n;
      for (; cur && cur->kind() == NodeKind::kLetStmt;
           cur = static_cast<const LetStmtNode*>(cur)->body.get()) {
        const auto* op = static_cast<const LetStmtNode*>(cur);
        if (!op->var) {
          status = Error(cur, "a LetStmt has no variable");
          break;
        }
        absl::StatusOr<CExprPtr> value = CompileExpr(op->value, cur);
        if (!value.ok()) {
          status = value.status();
          break;
        }
        if ((*value)->lanes != op->var->dtype.lanes()) {
          status = Error(cur, "LetStmt lanes differ");
          break;
        }
        lets.push_back(CLet{cur, BindVar(op->var.get()), *std::move(value)});
      }
      CStmtPtr body;
      if (status.ok()) {
        absl::StatusOr<CStmtPtr> b = CompileStmt(cur ? GetRef(cur) : Stmt());
        if (b.ok()) body = *std::move(b);
        else status = b.status();
      }
      for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
        UnbindVar(static_cast<const LetStmtNode*>(it->node)->var.get());
      }
      if (!status.ok()) return status;
      return CStmtPtr(new LetChain(std::move(lets), std::move(body)));
    }
    case NodeKind::kSeqStmt: {
      std::vector<CStmtPtr> seq;
      for (const Stmt& x : static_cast<const SeqStmtNode*>(n)->seq) {
        absl::StatusOr<CStmtPtr> cx = CompileStmt(x);
        if (!cx.ok()) return cx.status();
        seq.push_back(*std::move(cx));
      }
      return CStmtPtr(new SeqStmtC(n, std::move(seq)));
    }
    case NodeKind::kEvaluate: {
      absl::StatusOr<CExprPtr> v = CompileExpr(static_cast<const EvaluateNode*>(n)->value, n);
      if (!v.ok()) return v.status();
      return CStmtPtr(new EvaluateStmt(n, *std::move(v)));
    }
    case NodeKind::kAllocate: {
      const auto* op = static_cast<const AllocateNode*>(n);
      absl::StatusOr<std::unique_ptr<CBufferDef>> def = DefineBuffer(op->buffer, n);
      if (!def.ok()) return def.status();
      absl::StatusOr<CStmtPtr> body = CompileStmt(op->body);
      UnbindBuffer(op->buffer.get());
      if (!body.ok()) return body.status();
      return CStmtPtr(new AllocateStmt(n, *std::move(def), *std::move(body)));
    }
    case NodeKind::kDeclBuffer: {
      const auto* op = static_cast<const DeclBufferNode*>(n);
      if (!op->source) return Error(n, "a DeclBuffer has no source buffer");
      std::optional<int> src = BufferSlotOf(op->source.get());
      if (!src) {
        return Error(n, absl::StrCat("DeclBuffer source '", op->source->name,
                                     "' is used but not bound here"));
      }
      if (op->buffer && op->buffer->dtype != op->source->dtype) {
        return Error(n, absl::StrCat("DeclBuffer '", op->buffer->name,
                                     "' has a different element type than its source"));
      }
      absl::StatusOr<std::unique_ptr<CBufferDef>> def = DefineBuffer(op->buffer, n);
      if (!def.ok()) return def.status();
      absl::StatusOr<CStmtPtr> body = CompileStmt(op->body);
      UnbindBuffer(op->buffer.get());
      if (!body.ok()) return body.status();
      return CStmtPtr(new DeclBufferStmt(n, *src, *std::move(def), *std::move(body)));
    }
    case NodeKind::kBlockRealize:
    case NodeKind::kBlock: {
      const BlockNode* block;
      const BlockRealizeNode* realize = nullptr;
      if (n->kind() == NodeKind::kBlock) {
        block = static_cast<const BlockNode*>(n);
        if (!block->iter_vars.empty()) {
          return Error(n, absl::StrCat("block '", block->name,
                                       "' has iter vars but no BlockRealize binding them"));
        }
      } else {
        realize = static_cast<const BlockRealizeNode*>(n);
        block = realize->block.get();
        if (!block) return Error(n, "a BlockRealize has no block");
        if (realize->iter_values.size() != block->iter_vars.size()) {
          return Error(n, absl::StrCat("block '", block->name, "' has ", block->iter_vars.size(),
                                       " iter vars but ", realize->iter_values.size(), " values"));
        }
      }
      CExprPtr predicate;
      std::vector<CIter> iters;
      if (realize) {
        if (realize->predicate) {
          absl::StatusOr<CExprPtr> p = CompileExpr(realize->predicate, n);
          if (!p.ok()) return p.status();
          if ((*p)->lanes != 1) return Error(n, "a block predicate must be a scalar");
          predicate = *std::move(p);
        }
        for (size_t k = 0; k < block->iter_vars.size(); ++k) {
          const IterVar& iv = block->iter_vars[k];
          if (!iv.var || !iv.var->dtype.is_integer() || !iv.var->dtype.is_scalar()) {
            return Error(n, absl::StrCat("block '", block->name, "': iter var ", k,
                                         " is not a scalar integer variable"));
          }
          CIter it{&iv, -1, nullptr, nullptr, nullptr, {}, {}, {}};
          for (auto [src, dst] : {std::pair{&realize->iter_values[k], &it.value},
                                  std::pair{&iv.dom.min, &it.dom_min},
                                  std::pair{&iv.dom.extent, &it.dom_extent}}) {
            absl::StatusOr<CExprPtr> ce = CompileExpr(*src, n);
            if (!ce.ok()) return ce.status();
            if ((*ce)->lanes != 1) return Error(n, "block bindings and domains must be scalars");
            *dst = *std::move(ce);
          }
          iters.push_back(std::move(it));
        }
      }
      for (CIter& it : iters) it.slot = BindVar(it.iv->var.get());
      std::vector<std::unique_ptr<CBufferDef>> allocs;
      absl::Status status;
      for (const Buffer& b : block->alloc_buffers) {
        absl::StatusOr<std::unique_ptr<CBufferDef>> def = DefineBuffer(b, n);
        if (!def.ok()) {
          status = def.status();
          break;
        }
        allocs.push_back(*std::move(def));
      }
      CStmtPtr init, body;
      if (status.ok() && block->init) {
        absl::StatusOr<CStmtPtr> ci = CompileStmt(block->init);
        if (ci.ok()) init = *std::move(ci);
        else status = ci.status();
      }
      if (status.ok()) {
        absl::StatusOr<CStmtPtr> cb = CompileStmt(block->body);
        if (cb.ok()) body = *std::move(cb);
        else status = cb.status();
      }
      for (const auto& def : allocs) UnbindBuffer(def->node);
      for (const CIter& it : iters) UnbindVar(it.iv->var.get());
      if (!status.ok()) return status;
      return CStmtPtr(new BlockStmt(n, block, std::move(predicate), std::move(iters),
                                    std::move(allocs), std::move(init), std::move(body)));
    }
    default:
      return Error(n, absl::StrCat("unsupported statement kind ", NodeKindName(n->kind())));
  }
}

}  // namespace tessel::ir::interp
