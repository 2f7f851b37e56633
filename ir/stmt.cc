#include "ir/stmt.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace tessel::ir {

const char* IterKindName(IterKind kind) {
  switch (kind) {
    case IterKind::kSpatial: return "spatial";
    case IterKind::kReduce: return "reduce";
    case IterKind::kOpaque: return "opaque";
  }
  return "?";
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "serial";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unrolled";
    case ForKind::kThreadBinding: return "thread";
  }
  return "?";
}

namespace {

absl::Status Missing(const char* what, const char* operand) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": '", operand, "' is missing"));
}

absl::Status CheckScalarIndex(const char* what, const char* operand, const Expr& e) {
  if (!e) return Missing(what, operand);
  if (!e->dtype.is_integer() || !e->dtype.is_scalar()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": '", operand,
                                                   "' must be a scalar integer, not ",
                                                   e->dtype.ToString()));
  }
  return absl::OkStatus();
}

absl::Status CheckCondition(const char* what, const Expr& e) {
  if (!e) return Missing(what, "condition");
  if (e->dtype != DataType::Bool()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": condition must be a scalar bool, not ", e->dtype.ToString()));
  }
  return absl::OkStatus();
}

absl::Status CheckRegion(const std::string& block, const BufferRegion& r) {
  if (!r.buffer) return absl::InvalidArgumentError(absl::StrCat("Block '", block, "': a region has no buffer"));
  if (static_cast<int>(r.region.size()) != r.buffer->ndim()) {
    return absl::InvalidArgumentError(absl::StrCat("Block '", block, "': region of buffer '",
                                                   r.buffer->name, "' has ", r.region.size(),
                                                   " ranges but the buffer has rank ",
                                                   r.buffer->ndim()));
  }
  for (const Range& range : r.region) {
    if (absl::Status s = CheckScalarIndex("BufferRegion", "min", range.min); !s.ok()) return s;
    if (absl::Status s = CheckScalarIndex("BufferRegion", "extent", range.extent); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Stmt> MakeBufferStore(Buffer buffer, Expr value, std::vector<Expr> indices) {
  if (!value) return Missing("BufferStore", "value");
  absl::StatusOr<int> lanes = CheckBufferIndices("BufferStore", buffer, indices);
  if (!lanes.ok()) return lanes.status();
  DataType expected = buffer->dtype.with_lanes(*lanes);
  if (value->dtype != expected) {
    return absl::InvalidArgumentError(absl::StrCat("BufferStore: storing ", value->dtype.ToString(),
                                                   " into buffer '", buffer->name, "' needs ",
                                                   expected.ToString()));
  }
  return Stmt(MakeNode<BufferStoreNode>(std::move(buffer), std::move(value), std::move(indices)));
}

absl::StatusOr<Stmt> MakeFor(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body,
                             std::string thread_tag, Attrs annotations) {
  if (!loop_var) return Missing("For", "loop_var");
  if (!loop_var->dtype.is_integer() || !loop_var->dtype.is_scalar()) {
    return absl::InvalidArgumentError(absl::StrCat("For: loop variable '", loop_var->name,
                                                   "' must be a scalar integer, not ",
                                                   loop_var->dtype.ToString()));
  }
  if (absl::Status s = CheckScalarIndex("For", "min", min); !s.ok()) return s;
  if (absl::Status s = CheckScalarIndex("For", "extent", extent); !s.ok()) return s;
  if (min->dtype != loop_var->dtype || extent->dtype != loop_var->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("For '", loop_var->name, "': min and extent must have the loop variable's type ",
                                                   loop_var->dtype.ToString()));
  }
  if (!body) return Missing("For", "body");
  if ((kind == ForKind::kThreadBinding) == thread_tag.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "For '", loop_var->name, "': a thread tag is required for thread-bound loops and only for them"));
  }
  auto n = MakeNode<ForNode>();
  n->loop_var = std::move(loop_var);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->for_kind = kind;
  n->thread_tag = std::move(thread_tag);
  n->body = std::move(body);
  n->annotations = std::move(annotations);
  return Stmt(std::move(n));
}

absl::StatusOr<Stmt> MakeIfThenElse(Expr condition, Stmt then_case, Stmt else_case) {
  if (absl::Status s = CheckCondition("IfThenElse", condition); !s.ok()) return s;
  if (!then_case) return Missing("IfThenElse", "then_case");
  return Stmt(MakeNode<IfThenElseNode>(std::move(condition), std::move(then_case), std::move(else_case)));
}

absl::StatusOr<Stmt> MakeLetStmt(Var var, Expr value, Stmt body) {
  if (!var) return Missing("LetStmt", "var");
  if (!value) return Missing("LetStmt", "value");
  if (!body) return Missing("LetStmt", "body");
  if (var->dtype != value->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("LetStmt '", var->name, "': variable has type ",
                                                   var->dtype.ToString(), " but value has type ",
                                                   value->dtype.ToString()));
  }
  return Stmt(MakeNode<LetStmtNode>(std::move(var), std::move(value), std::move(body)));
}

absl::StatusOr<Stmt> MakeSeqStmt(std::vector<Stmt> seq) {
  for (const Stmt& s : seq) {
    if (!s) return Missing("SeqStmt", "element");
  }
  return Stmt(MakeNode<SeqStmtNode>(std::move(seq)));
}

absl::StatusOr<Stmt> MakeEvaluate(Expr value) {
  if (!value) return Missing("Evaluate", "value");
  return Stmt(MakeNode<EvaluateNode>(std::move(value)));
}

absl::StatusOr<Stmt> MakeAllocate(Buffer buffer, Stmt body) {
  if (!buffer) return Missing("Allocate", "buffer");
  if (!body) return Missing("Allocate", "body");
  return Stmt(MakeNode<AllocateNode>(std::move(buffer), std::move(body)));
}

absl::StatusOr<Stmt> MakeDeclBuffer(Buffer buffer, Buffer source, Stmt body) {
  if (!buffer) return Missing("DeclBuffer", "buffer");
  if (!source) return Missing("DeclBuffer", "source");
  if (!body) return Missing("DeclBuffer", "body");
  if (buffer->dtype != source->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("DeclBuffer '", buffer->name, "': element type ",
                                                   buffer->dtype.ToString(), " differs from source '",
                                                   source->name, "' (", source->dtype.ToString(), ")"));
  }
  return Stmt(MakeNode<DeclBufferNode>(std::move(buffer), std::move(source), std::move(body)));
}

absl::StatusOr<Block> MakeBlock(std::string name, std::vector<IterVar> iter_vars,
                                std::vector<BufferRegion> reads, std::vector<BufferRegion> writes,
                                Stmt body, Stmt init, std::vector<Buffer> alloc_buffers,
                                Attrs annotations) {
  if (name.empty()) return absl::InvalidArgumentError("Block: a name is required");
  if (!body) return absl::InvalidArgumentError(absl::StrCat("Block '", name, "': body is missing"));
  absl::flat_hash_set<const VarNode*> seen;
  for (const IterVar& iv : iter_vars) {
    if (!iv.var) return absl::InvalidArgumentError(absl::StrCat("Block '", name, "': an iter var is missing"));
    if (!iv.var->dtype.is_integer() || !iv.var->dtype.is_scalar()) {
      return absl::InvalidArgumentError(absl::StrCat("Block '", name, "': iter var '", iv.var->name,
                                                     "' must be a scalar integer"));
    }
    if (!seen.insert(iv.var.get()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Block '", name, "': iter var '", iv.var->name, "' appears twice"));
    }
    if (absl::Status s = CheckScalarIndex("IterVar", "domain min", iv.dom.min); !s.ok()) return s;
    if (absl::Status s = CheckScalarIndex("IterVar", "domain extent", iv.dom.extent); !s.ok()) return s;
  }
  for (const BufferRegion& r : reads) {
    if (absl::Status s = CheckRegion(name, r); !s.ok()) return s;
  }
  for (const BufferRegion& r : writes) {
    if (absl::Status s = CheckRegion(name, r); !s.ok()) return s;
  }
  for (const Buffer& b : alloc_buffers) {
    if (!b) return absl::InvalidArgumentError(absl::StrCat("Block '", name, "': an allocated buffer is missing"));
  }
  auto n = MakeNode<BlockNode>();
  n->name = std::move(name);
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->init = std::move(init);
  n->body = std::move(body);
  n->alloc_buffers = std::move(alloc_buffers);
  n->annotations = std::move(annotations);
  return Block(std::move(n));
}

absl::StatusOr<Stmt> MakeBlockRealize(std::vector<Expr> iter_values, Expr predicate, Block block) {
  if (!block) return Missing("BlockRealize", "block");
  if (iter_values.size() != block->iter_vars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("BlockRealize of '", block->name, "': ",
                                                   iter_values.size(), " values for ",
                                                   block->iter_vars.size(), " iter vars"));
  }
  for (size_t i = 0; i < iter_values.size(); ++i) {
    if (!block->iter_vars[i].var) {
      return absl::InvalidArgumentError(
          absl::StrCat("BlockRealize of '", block->name, "': iter var ", i, " is missing"));
    }
    if (absl::Status s = CheckScalarIndex("BlockRealize", "iter value", iter_values[i]); !s.ok()) return s;
    if (iter_values[i]->dtype != block->iter_vars[i].var->dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "BlockRealize of '", block->name, "': value for iter var '", block->iter_vars[i].var->name,
          "' has type ", iter_values[i]->dtype.ToString(), ", expected ",
          block->iter_vars[i].var->dtype.ToString()));
    }
  }
  if (!predicate) predicate = Bool(true);
  if (absl::Status s = CheckCondition("BlockRealize", predicate); !s.ok()) return s;
  return Stmt(MakeNode<BlockRealizeNode>(std::move(iter_values), std::move(predicate), std::move(block)));
}

Stmt Store(Buffer buffer, Expr value, std::vector<Expr> indices) {
  return ValueOrDie(MakeBufferStore(std::move(buffer), std::move(value), std::move(indices)));
}
Stmt For(Var loop_var, Expr min, Expr extent, Stmt body, ForKind kind) {
  return ValueOrDie(MakeFor(std::move(loop_var), std::move(min), std::move(extent), kind,
                            std::move(body), kind == ForKind::kThreadBinding ? "threadIdx.x" : ""));
}
Stmt Seq(std::vector<Stmt> seq) { return ValueOrDie(MakeSeqStmt(std::move(seq))); }

BufferRegion PointRegion(Buffer buffer, const std::vector<Expr>& indices) {
  BufferRegion r{std::move(buffer), {}};
  for (const Expr& i : indices) r.region.push_back(Range{i, IntImm(i->dtype, 1)});
  return r;
}

BufferRegion FullRegion(Buffer buffer) {
  BufferRegion r{buffer, {}};
  for (const Expr& e : buffer->shape) r.region.push_back(Range{IntImm(e->dtype, 0), e});
  return r;
}

}  // namespace tessel::ir
