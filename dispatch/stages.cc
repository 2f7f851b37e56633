#include "dispatch/stages.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"

namespace tessel::dispatch {
namespace {

const ir::Stmt& TopBody(const ir::PrimFunc& func, const ir::BlockNode** root) {
  const auto* realize = ir::dyn_cast<ir::BlockRealizeNode>(func->body);
  if (realize != nullptr && realize->block->iter_vars.empty() && !realize->block->init) {
    *root = realize->block.get();
    return realize->block->body;
  }
  *root = nullptr;
  return func->body;
}

std::variant<Stage, std::string> AnalyzeStage(const ir::Stmt& top) {
  if (ir::isa<ir::EvaluateNode>(top)) return Stage{top, nullptr, {}};  // A call already placed.
  std::vector<const ir::ForNode*> loops;
  const ir::StmtNode* s = top.get();
  while (const auto* f = ir::dyn_cast<ir::ForNode>(s)) {
    if (f->for_kind != ir::ForKind::kSerial) {
      return absl::StrCat("loop '", f->loop_var->name, "' is ", ir::ForKindName(f->for_kind),
                          " (the function is already scheduled)");
    }
    if (ir::arith::AsConstInt(f->min) != 0 || !ir::arith::AsConstInt(f->extent)) {
      return absl::StrCat("loop '", f->loop_var->name, "' has a symbolic or non-zero-based range");
    }
    loops.push_back(f);
    s = f->body.get();
  }
  const auto* realize = ir::dyn_cast<ir::BlockRealizeNode>(s);
  if (realize == nullptr) return std::string("a statement that is not a loop nest around a block");
  const ir::BlockNode* block = realize->block.get();
  if (!block->alloc_buffers.empty()) {
    return absl::StrCat("block '", block->name, "' allocates buffers");
  }
  Stage stage{top, block, {}};
  std::vector<bool> used(loops.size(), false);
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const ir::IterVar& iv = block->iter_vars[i];
    const auto* v = ir::dyn_cast<ir::VarNode>(realize->iter_values[i]);
    auto it = std::find_if(loops.begin(), loops.end(),
                           [&](const ir::ForNode* f) { return f->loop_var.get() == v; });
    if (v == nullptr || it == loops.end() || used[it - loops.begin()]) {
      return absl::StrCat("iter var '", iv.var->name, "' of block '", block->name,
                          "' is not bound to a loop of its own");
    }
    used[it - loops.begin()] = true;
    std::optional<int64_t> extent = ir::arith::AsConstInt(iv.dom.extent);
    if (ir::arith::AsConstInt(iv.dom.min) != 0 || !extent ||
        ir::arith::AsConstInt((*it)->extent) != extent) {
      return absl::StrCat("iter var '", iv.var->name, "' of block '", block->name,
                          "' does not span its loop");
    }
    stage.extents.push_back(*extent);
  }
  if (std::find(used.begin(), used.end(), false) != used.end()) {
    return absl::StrCat("block '", block->name, "' sits under a loop none of its iter vars uses");
  }
  return stage;
}

}  // namespace

std::variant<StageList, std::string> SplitStages(const ir::PrimFunc& func) {
  StageList list;
  const ir::Stmt& body = TopBody(func, &list.root);
  std::vector<ir::Stmt> tops;
  if (const auto* seq = ir::dyn_cast<ir::SeqStmtNode>(body)) {
    tops = seq->seq;
  } else {
    tops.push_back(body);
  }
  for (const ir::Stmt& top : tops) {
    std::variant<Stage, std::string> s = AnalyzeStage(top);
    if (auto* why = std::get_if<std::string>(&s)) return *why;
    list.stages.push_back(std::get<Stage>(std::move(s)));
  }
  return list;
}

std::variant<std::vector<int64_t>, std::string> ElementStrides(const ir::Buffer& buffer) {
  if (buffer->elem_offset && ir::arith::AsConstInt(buffer->elem_offset) != 0) {
    return absl::StrCat("buffer '", buffer->name, "' has an element offset");
  }
  std::vector<int64_t> strides(buffer->shape.size(), 1);
  for (size_t d = 0; d < buffer->shape.size(); ++d) {
    if (!ir::arith::AsConstInt(buffer->shape[d])) {
      return absl::StrCat("buffer '", buffer->name, "' has a symbolic shape");
    }
  }
  if (!buffer->strides.empty()) {
    for (size_t d = 0; d < strides.size(); ++d) {
      std::optional<int64_t> s = ir::arith::AsConstInt(buffer->strides[d]);
      if (!s) return absl::StrCat("buffer '", buffer->name, "' has symbolic strides");
      strides[d] = *s;
    }
    return strides;
  }
  int64_t running = 1;
  for (size_t d = strides.size(); d-- > 0;) {
    strides[d] = running;
    running *= *ir::arith::AsConstInt(buffer->shape[d]);
  }
  return strides;
}

bool StageReads(const Stage& s, const ir::BufferNode* buffer) {
  if (s.block == nullptr) {  // A call: it may read whatever it gets the address of.
    const auto* call = ir::dyn_cast<ir::CallNode>(ir::cast<ir::EvaluateNode>(s.stmt)->value);
    if (call == nullptr) return false;
    return std::any_of(call->args.begin(), call->args.end(), [&](const ir::Expr& a) {
      const auto* addr = ir::dyn_cast<ir::CallNode>(a);
      return addr != nullptr && addr->callee == ir::CallNode::Callee::kAddressOf &&
             ir::cast<ir::BufferLoadNode>(addr->args[0])->buffer.get() == buffer;
    });
  }
  return std::any_of(s.block->reads.begin(), s.block->reads.end(),
                     [&](const ir::BufferRegion& r) { return r.buffer.get() == buffer; });
}

bool IsParam(const ir::PrimFunc& func, const ir::BufferNode* buffer) {
  return std::any_of(func->params.begin(), func->params.end(),
                     [&](const ir::Param& p) { return p.is_buffer() && p.buffer.get() == buffer; });
}

absl::StatusOr<ir::PrimFunc> RebuildBody(const ir::PrimFunc& func, const StageList& stages,
                                         const std::vector<std::optional<ir::Stmt>>& replacement,
                                         const std::vector<const ir::BufferNode*>& dropped) {
  std::vector<ir::Stmt> seq;
  for (size_t i = 0; i < stages.stages.size(); ++i) {
    if (i < replacement.size() && replacement[i].has_value()) {
      if (*replacement[i]) seq.push_back(*replacement[i]);
    } else {
      seq.push_back(stages.stages[i].stmt);
    }
  }
  ir::Stmt body;
  if (seq.size() == 1) {
    body = seq[0];
  } else {
    absl::StatusOr<ir::Stmt> s = ir::MakeSeqStmt(std::move(seq));
    if (!s.ok()) return s.status();
    body = *s;
  }
  if (stages.root != nullptr) {
    const ir::BlockNode* root = stages.root;
    std::vector<ir::Buffer> allocs;
    for (const ir::Buffer& b : root->alloc_buffers) {
      if (std::find(dropped.begin(), dropped.end(), b.get()) == dropped.end()) allocs.push_back(b);
    }
    absl::StatusOr<ir::Block> block =
        ir::MakeBlock(root->name, root->iter_vars, root->reads, root->writes, body, root->init,
                      std::move(allocs), root->annotations);
    if (!block.ok()) return block.status();
    absl::StatusOr<ir::Stmt> realize = ir::MakeBlockRealize({}, ir::Bool(true), *block);
    if (!realize.ok()) return realize.status();
    body = *realize;
  }
  auto out = ir::MakeNode<ir::PrimFuncNode>(*func);
  out->body = body;
  return ir::PrimFunc(std::move(out));
}

}  // namespace tessel::dispatch
