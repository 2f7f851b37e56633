// The reference interpreter's entry point: checks the arguments against the
// parameters, compiles the body (ir/interpreter_internal.h) and runs it.
//
//   // fn(A: f32[n, 4], B: f32[n, 4]) with `n` symbolic
//   Run(fn, {Arg(HostBuffer::Zeros(f32, {8, 4})), Arg(HostBuffer::Zeros(f32, {8, 4}))});
//   // binds n = 8 from A's shape and checks that B agrees; B of shape {9, 4} gives
//   // "argument 1 ('B'): shape [9, 4] does not match the parameter's shape [n, 4] = [8, 4]"
//
// A symbolic size is a Var that appears bare in a parameter buffer's shape (or
// strides / elem_offset) and is not itself a parameter: its first appearance binds
// it (to the extent, the compact stride, or 0), every other shape using it is
// checked. Host buffers are dense row-major, so declared strides and offsets are
// used as given and every access is still checked against the real storage.
#include "ir/interpreter.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/interpreter_internal.h"
#include "ir/printer.h"

namespace tessel::ir {
namespace interp {

void Ctx::Fail(absl::StatusCode code, const StmtNode* where, const std::string& what) {
  if (failed) return;
  failed = true;
  std::string msg = absl::StrCat("interpreter: function '", func_name, "': ", what);
  if (where) absl::StrAppend(&msg, " in: ", StmtSummary(where));
  status = absl::Status(code, msg);
}

bool Ctx::StepLimit(const StmtNode* s) {
  Fail(absl::StatusCode::kResourceExhausted, s,
       absl::StrCat("exceeded max_steps = ", max_steps, " executed statements"));
  return false;
}

bool Ctx::Poll(const StmtNode* s) {
  if (!interrupted()) return true;
  Fail(absl::StatusCode::kCancelled, s, absl::StrCat("interrupted after ", steps, " statements"));
  return false;
}

std::string StmtSummary(const StmtNode* s) {
  std::string text = PrintStmt(GetRef(s));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  size_t nl = text.find('\n');
  if (nl != std::string::npos) text = absl::StrCat(text.substr(0, nl), " ...");
  return text;
}

int Compiler::BindVar(const VarNode* v) {
  int slot = frame_size_;
  frame_size_ += std::max(1, v->dtype.lanes());
  var_slots_[v].push_back(slot);
  return slot;
}

void Compiler::UnbindVar(const VarNode* v) {
  auto it = var_slots_.find(v);
  if (it == var_slots_.end()) return;
  it->second.pop_back();
  if (it->second.empty()) var_slots_.erase(it);
}

std::optional<int> Compiler::SlotOf(const VarNode* v) const {
  auto it = var_slots_.find(v);
  if (it == var_slots_.end()) return std::nullopt;
  return it->second.back();
}

int Compiler::BindBuffer(const BufferNode* b) {
  int slot = static_cast<int>(buf_nodes_.size());
  buf_nodes_.push_back(b);
  buf_slots_[b].push_back(slot);
  return slot;
}

void Compiler::UnbindBuffer(const BufferNode* b) {
  auto it = buf_slots_.find(b);
  if (it == buf_slots_.end()) return;
  it->second.pop_back();
  if (it->second.empty()) buf_slots_.erase(it);
}

std::optional<int> Compiler::BufferSlotOf(const BufferNode* b) const {
  auto it = buf_slots_.find(b);
  if (it == buf_slots_.end()) return std::nullopt;
  return it->second.back();
}

absl::Status Compiler::Error(const StmtNode* where, const std::string& what) const {
  std::string msg = absl::StrCat("interpreter: function '", func_name_, "': ", what);
  if (where) absl::StrAppend(&msg, " in: ", StmtSummary(where));
  return absl::InvalidArgumentError(msg);
}

absl::Status Compiler::TooDeep(const StmtNode* where) const {
  // No statement text: printing IR this deep would recurse as deeply.
  return absl::InvalidArgumentError(
      absl::StrCat("interpreter: function '", func_name_, "': the IR is nested deeper than ",
                   kMaxNesting, " levels", where ? absl::StrCat(" (at a ", NodeKindName(where->kind()), ")") : ""));
}

Machine::Machine(const Compiler& comp)
    : frame(static_cast<size_t>(comp.frame_size()), IntLane(0)), bufs(comp.buffer_nodes().size()) {
  ctx.frame = frame.data();
  ctx.bufs = bufs.data();
  ctx.frame_slots = static_cast<int>(frame.size());
  ctx.buf_slots = static_cast<int>(bufs.size());
  ctx.func_name = comp.func_name();
}

absl::StatusOr<int64_t> EvalIntExpr(const Expr& e,
                                    const std::vector<std::pair<const VarNode*, int64_t>>& env) {
  if (!e || !e->dtype.is_integer() || !e->dtype.is_scalar()) {
    return absl::InvalidArgumentError("EvalIntExpr: not a scalar integer expression");
  }
  Compiler comp("<expr>");
  std::vector<int> slots;
  for (const auto& [v, value] : env) slots.push_back(comp.BindVar(v));
  absl::StatusOr<CExprPtr> ce = comp.CompileExpr(e, nullptr);
  if (!ce.ok()) return ce.status();
  Machine m(comp);
  for (size_t k = 0; k < env.size(); ++k) m.frame[slots[k]] = IntLane(env[k].second);
  Lane out;
  (*ce)->Eval(m.ctx, &out);
  if (m.ctx.failed) return m.ctx.status;
  return out.i;
}

}  // namespace interp

namespace {

using interp::CBufferDef;
using interp::Compiler;

const char* ArgKind(const Arg& a) {
  if (std::holds_alternative<HostBuffer>(a)) return "a buffer";
  if (std::holds_alternative<int64_t>(a)) return "an integer";
  return "a float";
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

// "[n, 4]": a buffer's shape as written.
std::string ShapeExprText(const BufferNode* b) {
  std::vector<std::string> dims;
  for (const Expr& e : b->shape) dims.push_back(e ? PrintExpr(e) : "?");
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

std::string ParamText(const Param& p) {
  if (p.is_buffer() == p.var.defined()) return "<malformed parameter>";
  if (!p.is_buffer()) return absl::StrCat(p.var->name, ": ", p.var->dtype.ToString());
  return absl::StrCat(p.buffer->name, ": ", p.buffer->dtype.ToString(),
                      ShapeExprText(p.buffer.get()));
}

// A Var bound by its first bare appearance in a parameter buffer's layout.
struct SymbolicBinding {
  int slot;
  const VarNode* var;
  size_t param;
  enum What { kExtent, kStride, kOffset } what;
  int dim;
};

}  // namespace

absl::Status Run(const PrimFunc& func, const std::vector<Arg>& args, RunOptions opts,
                 const std::string& name) {
  std::string where = absl::StrCat("interpreter: function '", name, "'");
  if (!func) return absl::InvalidArgumentError(absl::StrCat(where, ": the function is null"));
  const std::vector<Param>& params = func->params;
  if (args.size() != params.size()) {
    std::vector<std::string> names;
    for (const Param& p : params) names.push_back(ParamText(p));
    return absl::InvalidArgumentError(absl::StrCat(where, " takes ", params.size(),
                                                   " arguments (", absl::StrJoin(names, ", "),
                                                   "), got ", args.size()));
  }
  auto arg_error = [&](size_t i, const std::string& what) {
    const Param& p = params[i];
    std::string pname = p.is_buffer() == p.var.defined() ? "?" : p.name();
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": argument ", i, " ('", pname, "'): ", what));
  };

  Compiler comp(name);
  std::vector<int> scalar_slots(params.size(), -1);
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (p.is_buffer() == p.var.defined()) return arg_error(i, "parameter is malformed");
    if (p.is_buffer()) {
      if (comp.BufferSlotOf(p.buffer.get())) return arg_error(i, "the buffer is a parameter twice");
      continue;
    }
    if (comp.SlotOf(p.var.get())) return arg_error(i, "the variable is a parameter twice");
    if (!p.var->dtype.is_scalar() || p.var->dtype.is_handle() || p.var->dtype.is_void()) {
      return arg_error(i, absl::StrCat("parameters of type ", p.var->dtype.ToString(),
                                       " cannot be passed to the interpreter"));
    }
    scalar_slots[i] = comp.BindVar(p.var.get());
  }
  // Symbolic sizes first, so that any layout may use a size bound by a later parameter.
  std::vector<SymbolicBinding> symbolic;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_buffer()) continue;
    const BufferNode* b = params[i].buffer.get();
    auto consider = [&](const Expr& e, SymbolicBinding::What what, int dim) {
      const VarNode* v = dyn_cast<VarNode>(e);
      if (v && v->dtype.is_integer() && v->dtype.is_scalar() && !comp.SlotOf(v)) {
        symbolic.push_back({comp.BindVar(v), v, i, what, dim});
      }
    };
    for (int d = 0; d < b->ndim(); ++d) consider(b->shape[d], SymbolicBinding::kExtent, d);
    for (int d = 0; d < static_cast<int>(b->strides.size()); ++d) {
      consider(b->strides[d], SymbolicBinding::kStride, d);
    }
    consider(b->elem_offset, SymbolicBinding::kOffset, 0);
  }
  std::vector<std::unique_ptr<CBufferDef>> defs(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_buffer()) continue;
    absl::StatusOr<std::unique_ptr<CBufferDef>> def = comp.DefineBuffer(params[i].buffer, nullptr);
    if (!def.ok()) {
      return absl::Status(def.status().code(),
                          absl::StrCat(def.status().message(), " (in the layout of parameter ", i,
                                       " '", params[i].name(), "')"));
    }
    defs[i] = *std::move(def);
  }
  absl::StatusOr<interp::CStmtPtr> body = comp.CompileStmt(func->body);
  if (!body.ok()) return body.status();

  interp::Machine m(comp);
  m.ctx.max_steps = opts.max_steps;
  m.ctx.interrupted = opts.interrupted;
  m.ctx.bank_conflicts = opts.bank_conflicts;
  // Scalars, then buffer kinds, dtypes and ranks.
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    const Arg& a = args[i];
    if (p.is_buffer()) {
      const HostBuffer* hb = std::get_if<HostBuffer>(&a);
      if (!hb) return arg_error(i, absl::StrCat("expected a buffer (", ParamText(p), "), got ", ArgKind(a)));
      if (hb->dtype().is_void()) return arg_error(i, "the HostBuffer is empty (no storage)");
      if (hb->dtype() != p.buffer->dtype) {
        return arg_error(i, absl::StrCat("buffer of type ", hb->dtype().ToString(), ", expected ",
                                         p.buffer->dtype.ToString()));
      }
      if (static_cast<int>(hb->shape().size()) != p.buffer->ndim()) {
        return arg_error(i, absl::StrCat("rank ", hb->shape().size(), " (shape ",
                                         ShapeText(hb->shape()), "), expected rank ",
                                         p.buffer->ndim(), " (", ParamText(p), ")"));
      }
      continue;
    }
    DataType t = p.var->dtype;
    Lane& slot = m.frame[scalar_slots[i]];
    if (t.is_float()) {
      const double* d = std::get_if<double>(&a);
      if (!d) return arg_error(i, absl::StrCat("expected a float (", t.ToString(), "), got ", ArgKind(a)));
      slot = FloatLane(RoundToDtype(*d, t));
    } else {
      const int64_t* v = std::get_if<int64_t>(&a);
      if (!v) return arg_error(i, absl::StrCat("expected an integer (", t.ToString(), "), got ", ArgKind(a)));
      if (!IntFits(*v, t)) return arg_error(i, absl::StrCat(*v, " is not a value of type ", t.ToString()));
      slot = IntLane(*v);
    }
  }
  for (const SymbolicBinding& s : symbolic) {
    const HostBuffer& hb = std::get<HostBuffer>(args[s.param]);
    int64_t v = 0;
    if (s.what == SymbolicBinding::kExtent) {
      v = hb.shape()[s.dim];
    } else if (s.what == SymbolicBinding::kStride) {
      v = 1;
      for (size_t d = s.dim + 1; d < hb.shape().size(); ++d) v *= hb.shape()[d];
    }
    if (!IntFits(v, s.var->dtype)) {
      return arg_error(s.param, absl::StrCat("size ", v, " does not fit '", s.var->name, "' of type ",
                                             s.var->dtype.ToString()));
    }
    m.frame[s.slot] = IntLane(v);
  }
  // Layouts: evaluate, compare with the argument, attach the storage.
  for (size_t i = 0; i < params.size(); ++i) {
    if (!defs[i]) continue;
    const HostBuffer& hb = std::get<HostBuffer>(args[i]);
    if (!defs[i]->EvalLayout(m.ctx, nullptr)) {
      return absl::Status(m.ctx.status.code(),
                          absl::StrCat(m.ctx.status.message(), " (argument ", i, ")"));
    }
    interp::BufState& b = m.bufs[defs[i]->slot];
    if (b.shape != hb.shape()) {
      return arg_error(i, absl::StrCat("shape ", ShapeText(hb.shape()),
                                       " does not match the parameter's shape ",
                                       ShapeExprText(params[i].buffer.get()),
                                       " = ", ShapeText(b.shape)));
    }
    b.data = static_cast<uint8_t*>(hb.data());
    b.storage_elems = hb.size();
    b.storage_of = params[i].buffer.get();
    b.race_checked = true;
  }
  (*body)->Exec(m.ctx);
  return m.ctx.status;
}

}  // namespace tessel::ir
