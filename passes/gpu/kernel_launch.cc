// The host/device split and the GPU verifier (see kernel_launch.h).
#include "passes/gpu/kernel_launch.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/thread_axis.h"
#include "ir/visitor.h"

namespace tessel::passes {
namespace {

// CUDA's bounds on grid and block extents, per axis (x, y, z).
constexpr int64_t kMaxGrid[3] = {(int64_t{1} << 31) - 1, 65535, 65535};
constexpr int64_t kMaxBlock[3] = {1024, 1024, 64};

class HasBinding : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitFor(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kThreadBinding) found = true;
    ir::IRVisitor::VisitFor(op);
  }
};

class HasPackedCall : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitCall(const ir::CallNode* op) override {
    if (op->callee == ir::CallNode::Callee::kPacked) found = true;
    ir::IRVisitor::VisitCall(op);
  }
};

// The packed call a top-level statement is (`evaluate @f(...): packed`), or null.
const ir::CallNode* PackedCallOf(const ir::Stmt& s) {
  const auto* ev = ir::dyn_cast<ir::EvaluateNode>(s);
  if (ev == nullptr) return nullptr;
  const auto* call = ir::dyn_cast<ir::CallNode>(ev->value);
  return call != nullptr && call->callee == ir::CallNode::Callee::kPacked ? call : nullptr;
}

// A library step from a top-level packed call: constants as they are (floats by
// their bits, as the packed convention passes them), address_of(B[i]) as B's
// storage at element i (a constant).
absl::StatusOr<KernelLaunch> LibraryStep(
    const std::string& where, const ir::CallNode* call,
    const absl::flat_hash_map<const ir::BufferNode*, int>& storage) {
  KernelLaunch k;
  k.name = call->name;
  k.library = call->name;
  for (size_t i = 0; i < call->args.size(); ++i) {
    const ir::Expr& a = call->args[i];
    LibraryArg arg;
    const auto* inner = ir::dyn_cast<ir::CallNode>(a);
    if (inner != nullptr && inner->callee == ir::CallNode::Callee::kAddressOf) {
      const auto* load = ir::cast<ir::BufferLoadNode>(inner->args[0]);
      auto it = storage.find(load->buffer.get());
      std::optional<int64_t> offset =
          load->indices.size() == 1 ? ir::arith::AsConstInt(load->indices[0]) : std::nullopt;
      if (it == storage.end() || !offset) {
        return absl::InvalidArgumentError(
            absl::StrCat("gpu: ", where, ": argument ", i, " of the library call ", call->name,
                         " is not the address of a parameter or workspace at a constant offset: ",
                         ir::PrintExpr(a)));
      }
      arg.storage = it->second;
      arg.value = *offset;
      if (std::find(k.buffer_args.begin(), k.buffer_args.end(), it->second) ==
          k.buffer_args.end()) {
        k.buffer_args.push_back(it->second);
      }
    } else if (std::optional<int64_t> v = ir::arith::AsConstInt(a)) {
      arg.value = *v;
    } else if (const auto* f = ir::dyn_cast<ir::FloatImmNode>(a); f && a->dtype.bits() == 32) {
      const float x = static_cast<float>(f->value);
      uint32_t bits = 0;
      std::memcpy(&bits, &x, sizeof(bits));
      arg.value = bits;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("gpu: ", where, ": argument ", i, " of the library call ", call->name,
                       " is neither a constant nor an address: ", ir::PrintExpr(a)));
    }
    k.library_args.push_back(arg);
  }
  std::sort(k.buffer_args.begin(), k.buffer_args.end());
  return k;
}

// Reads one kernel statement: its axes' extents, shared memory, what it uses.
class KernelScan : public ir::IRVisitor {
 public:
  explicit KernelScan(const std::string& where) : where_(where) {}

  absl::Status status;
  std::array<std::optional<int64_t>, 6> extents;
  std::array<ir::Expr, 3> symbolic_grid;  // A blockIdx axis of non-constant extent.
  std::array<const ir::ForNode*, 6> first_loop = {};
  int64_t shared_bytes = 0;
  std::vector<const ir::BufferNode*> buffers;
  std::vector<const ir::VarNode*> vars;
  std::vector<const ir::VarNode*> bound;  // Defined inside the kernel.

  void VisitFor(const ir::ForNode* op) override {
    bound.push_back(op->loop_var.get());
    if (op->for_kind == ir::ForKind::kThreadBinding && status.ok()) {
      int axis = ir::LaunchAxisOf(op->thread_tag).value_or(-1);
      std::optional<int64_t> extent = ir::arith::AsConstInt(op->extent);
      if (axis < 0) {
        Fail(absl::StrCat("loop '", op->loop_var->name, "' is bound to '", op->thread_tag,
                          "', which the GPU path does not support (blockIdx.x/y/z and "
                          "threadIdx.x/y/z are)"));
      } else if (!extent && axis < 3) {
        // A grid extent of shape variables ((n + 255) // 256): the runtime evaluates
        // it per call. One expression per axis in a kernel.
        if (symbolic_grid[axis] && !ir::arith::ExprEqual(symbolic_grid[axis], op->extent)) {
          Fail(absl::StrCat("loops '", first_loop[axis]->loop_var->name, "' and '",
                            op->loop_var->name, "' are both bound to ", op->thread_tag,
                            " with different extents in one kernel"));
        } else if (extents[axis]) {
          Fail(absl::StrCat("loop '", op->loop_var->name, "' bound to ", op->thread_tag,
                            " has extent ", ir::PrintExpr(op->extent), ", another loop ",
                            *extents[axis], " in one kernel"));
        } else {
          symbolic_grid[axis] = op->extent;
          if (first_loop[axis] == nullptr) first_loop[axis] = op;
        }
      } else if (!extent || *extent < 1) {
        Fail(absl::StrCat("loop '", op->loop_var->name, "' bound to ", op->thread_tag,
                          " has extent ", ir::PrintExpr(op->extent),
                          axis < 3 ? "; grid extents must be positive"
                                   : "; block (threadIdx) extents must be positive constants"));
      } else if (axis < 3 && symbolic_grid[axis]) {
        Fail(absl::StrCat("loop '", op->loop_var->name, "' bound to ", op->thread_tag,
                          " has extent ", *extent, ", another loop ",
                          ir::PrintExpr(symbolic_grid[axis]), " in one kernel"));
      } else if (extents[axis] && *extents[axis] != *extent) {
        Fail(absl::StrCat("loops '", first_loop[axis]->loop_var->name, "' and '",
                          op->loop_var->name, "' are both bound to ", op->thread_tag,
                          " with different extents (", *extents[axis], " and ", *extent,
                          ") in one kernel"));
      } else {
        extents[axis] = extent;
        if (first_loop[axis] == nullptr) first_loop[axis] = op;
      }
    }
    const bool thread =
        op->for_kind == ir::ForKind::kThreadBinding && op->thread_tag.rfind("threadIdx.", 0) == 0;
    thread_depth_ += thread;
    ir::IRVisitor::VisitFor(op);
    thread_depth_ -= thread;
  }
  void VisitLetStmt(const ir::LetStmtNode* op) override {
    bound.push_back(op->var.get());
    ir::IRVisitor::VisitLetStmt(op);
  }
  void VisitAllocate(const ir::AllocateNode* op) override {
    const ir::Buffer& b = op->buffer;
    // Below a threadIdx loop a global allocation is the thread's own (lowering
    // placed it there): it lives in local memory like a "local" one.
    if (b->scope == "global" && thread_depth_ == 0 && status.ok()) {
      Fail(absl::StrCat("buffer '", b->name,
                        "' is allocated in global memory inside a "
                        "kernel, outside its threads; use scope \"shared\" or \"local\""));
    }
    int64_t elements = 1;
    for (const ir::Expr& e : b->shape) {
      std::optional<int64_t> c = ir::arith::AsConstInt(e);
      if (!c && status.ok()) {
        Fail(absl::StrCat("buffer '", b->name, "' (scope ", b->scope, ") has extent ",
                          ir::PrintExpr(e), "; allocations in a kernel need constant sizes"));
      }
      elements *= c.value_or(0);
    }
    if (b->scope == "shared") shared_bytes += elements * b->dtype.bytes();
    allocated_.push_back(b.get());
    ir::IRVisitor::VisitAllocate(op);
  }
  void VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    allocated_.push_back(op->buffer.get());
    AddBuffer(op->source.get());
    ir::IRVisitor::VisitDeclBuffer(op);
  }
  void VisitVar(const ir::VarNode* op) override {
    if (std::find(vars.begin(), vars.end(), op) == vars.end()) vars.push_back(op);
  }
  void VisitBufferLoad(const ir::BufferLoadNode* op) override {
    AddBuffer(op->buffer.get());
    ir::IRVisitor::VisitBufferLoad(op);
  }
  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    AddBuffer(op->buffer.get());
    ir::IRVisitor::VisitBufferStore(op);
  }
  bool Allocated(const ir::BufferNode* b) const {
    return std::find(allocated_.begin(), allocated_.end(), b) != allocated_.end();
  }

 private:
  void AddBuffer(const ir::BufferNode* b) {
    if (std::find(buffers.begin(), buffers.end(), b) == buffers.end()) buffers.push_back(b);
  }
  void Fail(const std::string& why) {
    status = absl::InvalidArgumentError(absl::StrCat("gpu: ", where_, ": ", why));
  }
  std::string where_;
  std::vector<const ir::BufferNode*> allocated_;
  int thread_depth_ = 0;  // threadIdx loops around the statement visited.
};

// The statements of the host body in order, under its views of storage and its
// global allocations (workspaces); `storage` maps each host-level buffer to its
// storage id.
absl::Status TopLevel(const std::string& where, const ir::Stmt& body, int num_params,
                      const absl::flat_hash_map<const ir::VarNode*, ir::Var>& host_vars,
                      absl::flat_hash_map<const ir::BufferNode*, int>& storage,
                      std::vector<ir::Buffer>& workspaces, std::vector<ir::Stmt>& out) {
  if (body->kind() == ir::NodeKind::kSeqStmt) {
    for (const ir::Stmt& s : ir::cast<ir::SeqStmtNode>(body)->seq) {
      TESSEL_RETURN_IF_ERROR(TopLevel(where, s, num_params, host_vars, storage, workspaces, out));
    }
    return absl::OkStatus();
  }
  if (const auto* decl = ir::dyn_cast<ir::DeclBufferNode>(body)) {
    auto it = storage.find(decl->source.get());
    if (it != storage.end()) {
      storage[decl->buffer.get()] = it->second;
      return TopLevel(where, decl->body, num_params, host_vars, storage, workspaces, out);
    }
  }
  if (const auto* alloc = ir::dyn_cast<ir::AllocateNode>(body);
      alloc != nullptr && alloc->buffer->scope == "global") {
    // Sized per call where an extent reads shape variables (softmax's f32[n] row maxima).
    for (const ir::Expr& e : alloc->buffer->shape) {
      for (const ir::Var& v : ir::arith::CollectVars(e)) {
        if (!host_vars.contains(v.get())) {
          return absl::InvalidArgumentError(
              absl::StrCat("gpu: ", where, ": buffer '", alloc->buffer->name,
                           "' between kernels has extent ", ir::PrintExpr(e),
                           "; device workspaces are sized by constants, shape variables and "
                           "scalar parameters"));
        }
      }
    }
    storage[alloc->buffer.get()] = num_params + static_cast<int>(workspaces.size());
    workspaces.push_back(alloc->buffer);
    return TopLevel(where, alloc->body, num_params, host_vars, storage, workspaces, out);
  }
  out.push_back(body);
  return absl::OkStatus();
}

}  // namespace

bool HasThreadBinding(const ir::PrimFunc& func) {
  HasBinding v;
  v.VisitStmt(func->body);
  return v.found;
}

bool CallsLibrary(const ir::PrimFunc& func) {
  HasPackedCall v;
  v.VisitStmt(func->body);
  return v.found;
}

absl::StatusOr<KernelSplit> SplitKernels(const std::string& name, const ir::PrimFunc& func,
                                         const GpuLimits& limits) {
  // Buffers and scalars a kernel may take from the host: the parameters and the
  // shape variables of buffer parameters.
  absl::flat_hash_map<const ir::BufferNode*, int> buffer_param;  // Parameters and views.
  absl::flat_hash_map<const ir::VarNode*, ir::Var> host_vars;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const ir::Param& p = func->params[i];
    if (!p.is_buffer()) {
      host_vars[p.var.get()] = p.var;
      continue;
    }
    buffer_param[p.buffer.get()] = static_cast<int>(i);
    for (const ir::Expr& e : p.buffer->shape) {
      if (e->kind() == ir::NodeKind::kVar) {
        host_vars[ir::cast<ir::VarNode>(e)] = ir::GetRef<ir::VarNode>(ir::cast<ir::VarNode>(e));
      }
    }
  }
  const std::string where = absl::StrCat("function '", name, "'");
  std::vector<ir::Stmt> statements;
  KernelSplit split;
  TESSEL_RETURN_IF_ERROR(TopLevel(where, func->body, static_cast<int>(func->params.size()),
                                  host_vars, buffer_param, split.workspaces, statements));
  std::vector<KernelLaunch>& launches = split.launches;
  int kernels = 0;
  for (const ir::Stmt& s : statements) {
    if (const ir::CallNode* call = PackedCallOf(s)) {
      TESSEL_ASSIGN_OR_RETURN(KernelLaunch step, LibraryStep(where, call, buffer_param));
      launches.push_back(std::move(step));
      continue;
    }
    KernelLaunch k;
    k.name = absl::StrCat(name, "_kernel", kernels++);
    k.body = s;
    KernelScan scan(where);
    scan.VisitStmt(s);
    if (!scan.status.ok()) return scan.status;
    bool any_axis = false;
    for (int a = 0; a < 6; ++a) any_axis |= scan.extents[a].has_value();
    for (int a = 0; a < 3; ++a) any_axis |= scan.symbolic_grid[a] != nullptr;
    if (!any_axis) {
      std::string text = ir::PrintStmt(s);
      if (text.size() > 200) text = text.substr(0, 200) + " ...";
      return absl::InvalidArgumentError(
          absl::StrCat("gpu: ", where,
                       ": a top-level statement has no loop bound to blockIdx or threadIdx; "
                       "every statement of a GPU function must be a kernel (bind its loops with "
                       "`bind`, or schedule it with default-schedule for a cuda target): ",
                       text));
    }
    int64_t threads = 1;
    for (int a = 0; a < 3; ++a) {
      k.grid_exprs[a] = scan.symbolic_grid[a];
      k.grid[a] = scan.symbolic_grid[a] ? 0 : scan.extents[a].value_or(1);
      k.block[a] = scan.extents[3 + a].value_or(1);
      threads *= k.block[a];
      for (const ir::Var& v :
           k.grid_exprs[a] ? ir::arith::CollectVars(k.grid_exprs[a]) : std::vector<ir::Var>{}) {
        if (!host_vars.contains(v.get())) {
          return absl::InvalidArgumentError(absl::StrCat(
              "gpu: ", where, ": the grid extent ", ir::PrintExpr(k.grid_exprs[a]), " of ", k.name,
              " reads '", v->name, "', which is not a shape variable or scalar parameter"));
        }
      }
      if (k.grid[a] > kMaxGrid[a] || k.block[a] > kMaxBlock[a]) {
        const ir::ForNode* loop = scan.first_loop[k.grid[a] > kMaxGrid[a] ? a : 3 + a];
        return absl::InvalidArgumentError(absl::StrCat(
            "gpu: ", where, ": loop '", loop->loop_var->name, "' bound to ", loop->thread_tag,
            " has extent ", ir::PrintExpr(loop->extent), ", over CUDA's limit of ",
            k.grid[a] > kMaxGrid[a] ? kMaxGrid[a] : kMaxBlock[a], " for that axis"));
      }
    }
    if (threads > limits.max_threads_per_block) {
      return absl::InvalidArgumentError(
          absl::StrCat("gpu: ", where, ": kernel ", k.name, " has ", threads,
                       " threads per block (", k.block[0], " x ", k.block[1], " x ", k.block[2],
                       "), over the target's limit of ", limits.max_threads_per_block));
    }
    k.shared_bytes = scan.shared_bytes;
    if (k.shared_bytes > limits.max_shared_memory_per_block) {
      return absl::InvalidArgumentError(
          absl::StrCat("gpu: ", where, ": kernel ", k.name, " uses ", k.shared_bytes,
                       " bytes of shared memory, over the target's limit of ",
                       limits.max_shared_memory_per_block));
    }
    for (const ir::BufferNode* b : scan.buffers) {
      if (scan.Allocated(b)) continue;
      auto it = buffer_param.find(b);
      if (it == buffer_param.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("gpu: ", where, ": kernel ", k.name, " uses buffer '", b->name,
                         "', which is neither a parameter nor allocated in the kernel"));
      }
      const int id = it->second;
      if (std::find(k.buffer_args.begin(), k.buffer_args.end(), id) == k.buffer_args.end()) {
        k.buffer_args.push_back(id);
      }
      const int num_params = static_cast<int>(func->params.size());
      if (id >= num_params || b != func->params[id].buffer.get()) {
        k.views.emplace_back(ir::GetRef<ir::BufferNode>(b), id);
      }
    }
    std::sort(k.buffer_args.begin(), k.buffer_args.end());
    for (const ir::VarNode* v : scan.vars) {
      if (std::find(scan.bound.begin(), scan.bound.end(), v) != scan.bound.end()) continue;
      auto it = host_vars.find(v);
      if (it == host_vars.end()) {
        return absl::InvalidArgumentError(absl::StrCat("gpu: ", where, ": kernel ", k.name,
                                                       " reads variable '", v->name,
                                                       "', which the host does not define"));
      }
      k.scalars.push_back(it->second);
    }
    launches.push_back(std::move(k));
  }
  return split;
}

}  // namespace tessel::passes
