// flatten-buffer: every buffer access becomes a 1-D access at the element's
// flat offset (compact row-major, or the buffer's strides when it has them).
//
//   func @f(A: f32[4, 8], B: f32[8]) {           func @f(A: f32[4, 8], B: f32[8]) {
//     allocate T: f32[4, 8] {                      decl_buffer A_1d: f32[32] = A
//       for i in range(0, 4) {                     allocate T: f32[32] {
//         for j in range(0, 8) {          ->         for i in range(0, 4) {
//           T[i, j] = A[i, j] * 2.0f32                 for j in range(0, 8) {
//           B[j] = T[i, j]                               T[i * 8 + j] = A_1d[i * 8 + j] * 2.0f32
//     } } }                                              B[j] = T[i * 8 + j]
//   }                                              } } }
//                                                }
//
// The flat indices are simplified in the context of the loops around them
// (context_mutator.h), which keeps `lower` free of a general simplify step.
//
// Vector indices (tensorize writes them on N-D buffers) flatten lane by lane
// (lane_index.h): the offset is linear in the indices, so the flat index is the
// offset of the bases plus lane times the offset of the strides. On f32[4, 64]:
//   C[i, ramp(j, 1, 16)]  ->  C_1d[ramp(i * 64 + j, 1, 16)]   (contiguous)
//   C[ramp(i, 1, 4), j]   ->  C_1d[ramp(i * 64 + j, 64, 4)]   (strided)
//   C[i, broadcast(j, 16)] (a load) -> broadcast(C_1d[i * 64 + j], 16)
// (a broadcast-index load of a 1-D buffer likewise). Any other vector index (a
// gather), and a store of every lane to one element, are refused: they have no
// flat ramp form.
//
// Parameters keep their logical N-D shape in the signature: that is what the
// runtime checks arguments against and where symbolic shape variables are bound.
// Each N-D (or strided, or offset) parameter gets a 1-D view, `decl_buffer
// NAME_1d = NAME`, at the top of the body, and every access goes through it; a
// compact 1-D parameter is used as it is. Allocations and other views are
// replaced by 1-D ones of the same name. docs/lowering.md states the form.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"
#include "ir/fallible_mutator.h"
#include "ir/mutator.h"
#include "ir/printer.h"
#include "passes/lowering/context_mutator.h"
#include "passes/lowering/lane_index.h"
#include "ir/status_macros.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

using ir::IntImm;
using ir::arith::AddE;
using ir::arith::MulE;

// `e` as an index of dtype `t` (constants rebuilt, other values cast).
ir::Expr AsIndex(const ir::Expr& e, ir::DataType t) {
  if (e->dtype == t) return e;
  if (std::optional<int64_t> c = ir::arith::AsConstInt(e)) return IntImm(t, *c);
  return ir::Cast(t, e);
}

bool IsFlat(const ir::Buffer& b) {
  bool unit_stride = b->strides.empty() || (b->strides.size() == 1 && ir::arith::IsConstInt(b->strides[0], 1));
  bool no_offset = !b->elem_offset || ir::arith::IsConstInt(b->elem_offset, 0);
  return b->ndim() == 1 && unit_stride && no_offset;
}

// The number of elements a flat view of `b` must cover: the product of the
// shape, or with strides the offset of the last element plus one.
absl::StatusOr<ir::Expr> FlatExtent(const ir::Buffer& b, ir::DataType t) {
  ir::Expr one = IntImm(t, 1);
  if (b->strides.empty()) {
    ir::Expr n = one;
    for (const ir::Expr& d : b->shape) n = MulE(n, AsIndex(d, t));
    return n;
  }
  ir::Expr span = one;
  for (int d = 0; d < b->ndim(); ++d) {
    std::optional<int64_t> s = ir::arith::AsConstInt(b->strides[d]);
    if (!s || *s < 0) {
      return absl::UnimplementedError(absl::StrCat(
          "buffer '", b->name, "' has a stride that is not a non-negative constant"));
    }
    ir::Expr last = ir::Sub(AsIndex(b->shape[d], t), one);
    span = AddE(span, MulE(last, IntImm(t, *s)));
  }
  return span;
}

// The index type for `b`: i64 when its flat offsets may not fit an i32. That is
// a constant flat size beyond INT32_MAX, and any buffer whose offset multiplies
// a symbolic extent or stride (i * m + j for A[n, m] with n, m i32 parameters
// reaches n * m - 1, which an i32 wraps for 65536 x 32769): never wrap.
ir::DataType IndexTypeFor(const ir::Buffer& b, ir::DataType given) {
  if (given.bits() >= 64) return given;
  const bool multiplies = b->ndim() > 1 || !b->strides.empty();
  for (const ir::Expr& s : b->strides) {
    if (!ir::arith::AsConstInt(s)) return ir::DataType::Int(64);
  }
  int64_t n = 1;
  for (const ir::Expr& d : b->shape) {
    std::optional<int64_t> c = ir::arith::AsConstInt(d);
    if (!c) return multiplies ? ir::DataType::Int(64) : given;
    if (*c > 0 && n > std::numeric_limits<int64_t>::max() / *c) return ir::DataType::Int(64);
    n *= *c;
  }
  if (n > std::numeric_limits<int32_t>::max()) return ir::DataType::Int(64);
  return given;
}

class Flattener : public ir::FallibleMutator<lowering::ContextMutator> {
 public:
  absl::flat_hash_map<const ir::BufferNode*, ir::Buffer> flat;  // Original -> its 1-D form.
  int accesses = 0;

  absl::StatusOr<ir::Buffer> MakeFlat(const ir::Buffer& b, const std::string& name,
                                      bool keep_offset) {
    ir::DataType t = IndexTypeFor(b, b->shape.empty() ? ir::DataType::Int(32) : b->shape[0]->dtype);
    if (!t.is_int()) t = ir::DataType::Int(32);
    absl::StatusOr<ir::Expr> n = FlatExtent(b, t);
    if (!n.ok()) return n.status();
    ir::Expr offset = keep_offset ? b->elem_offset : nullptr;
    return ir::MakeBufferChecked(name, b->dtype, {Index(*n)}, {}, offset, b->scope, b->alignment);
  }

  ir::Expr VisitBufferLoad(const ir::BufferLoadNode* op) override {
    ir::Expr e = IRMutator::VisitBufferLoad(op);
    const auto* l = ir::cast<ir::BufferLoadNode>(e);
    absl::StatusOr<std::vector<ir::Expr>> idx = FlatIndex(l->buffer, l->indices);
    if (!idx.ok()) return e;
    // Every lane reading one element (a broadcast index, also on a buffer that
    // is already 1-D) is one scalar load, broadcast: lowered code indexes
    // vectors by ramps only.
    const auto* same = ir::dyn_cast<ir::BroadcastNode>((*idx)[0]);
    if (!same && flat.at(l->buffer.get()).same_as(l->buffer)) return e;
    absl::StatusOr<ir::Expr> r = ir::MakeBufferLoad(flat.at(l->buffer.get()), {same ? same->value : (*idx)[0]});
    if (r.ok() && same) r = ir::MakeBroadcast(*r, same->lanes);
    if (!r.ok()) return FailBuffer(l->buffer, r.status(), e);
    return *r;
  }

  ir::Stmt VisitBufferStore(const ir::BufferStoreNode* op) override {
    ir::Stmt s = IRMutator::VisitBufferStore(op);
    const auto* st = ir::cast<ir::BufferStoreNode>(s);
    absl::StatusOr<std::vector<ir::Expr>> idx = FlatIndex(st->buffer, st->indices);
    if (!idx.ok()) return s;
    // Every lane writing one element has no lowered form (a store's vector
    // index is a ramp), and which lane's value lands is not worth a form.
    if (ir::isa<ir::BroadcastNode>((*idx)[0])) {
      std::vector<std::string> at;
      for (const ir::Expr& i : st->indices) at.push_back(ir::PrintExpr(i));
      return FailBuffer(st->buffer,
                        absl::UnimplementedError(absl::StrCat(
                            "a vector store whose lanes all write one element (at [",
                            absl::StrJoin(at, ", "), "]) has no lowered form; store one lane")),
                        s);
    }
    if (flat.at(st->buffer.get()).same_as(st->buffer)) return s;
    absl::StatusOr<ir::Stmt> r = ir::MakeBufferStore(flat.at(st->buffer.get()), st->value, *idx);
    if (!r.ok()) return FailBuffer(st->buffer, r.status(), s);
    return *r;
  }

  ir::Stmt VisitAllocate(const ir::AllocateNode* op) override {
    if (!flat.count(op->buffer.get())) {
      absl::StatusOr<ir::Buffer> f = MakeFlat(op->buffer, op->buffer->name, /*keep_offset=*/false);
      if (!f.ok()) return FailBuffer(op->buffer, f.status(), ir::GetRef<ir::StmtNode>(op));
      flat[op->buffer.get()] = *f;
    }
    ir::Stmt body = VisitStmt(op->body);
    absl::StatusOr<ir::Stmt> r = ir::MakeAllocate(flat.at(op->buffer.get()), body);
    if (!r.ok()) return FailBuffer(op->buffer, r.status(), ir::GetRef<ir::StmtNode>(op));
    return *r;
  }

  ir::Stmt VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    if (!flat.count(op->buffer.get())) {
      absl::StatusOr<ir::Buffer> f = MakeFlat(op->buffer, op->buffer->name, /*keep_offset=*/true);
      if (!f.ok()) return FailBuffer(op->buffer, f.status(), ir::GetRef<ir::StmtNode>(op));
      flat[op->buffer.get()] = *f;
    }
    ir::Stmt body = VisitStmt(op->body);
    // A view of a parameter stays a view of the parameter; any other source is
    // replaced by its own 1-D form (views share storage, ir/stmt.h).
    auto src = flat.find(op->source.get());
    ir::Buffer source = src != flat.end() && !params_.count(op->source.get()) ? src->second : op->source;
    absl::StatusOr<ir::Stmt> r = ir::MakeDeclBuffer(flat.at(op->buffer.get()), source, body);
    if (!r.ok()) return FailBuffer(op->buffer, r.status(), ir::GetRef<ir::StmtNode>(op));
    return *r;
  }

  void AddParam(const ir::Buffer& b) { params_[b.get()] = true; }

 private:
  absl::StatusOr<std::vector<ir::Expr>> FlatIndex(const ir::Buffer& b,
                                                  const std::vector<ir::Expr>& indices) {
    auto it = flat.find(b.get());
    if (it == flat.end()) {
      return FailBuffer(b, absl::FailedPreconditionError(
                               "it is not bound by a parameter, allocate or decl_buffer"));
    }
    ++accesses;
    if (it->second.get() == b.get()) return indices;  // Already 1-D and compact.
    // The flat offset is linear in the indices, so a vector index (base + lane *
    // stride, lane_index.h) flattens to the offset of its bases plus lane times
    // the offset of its strides: a ramp in the last dimension of a compact
    // buffer keeps stride 1, one in another dimension strides by that dimension.
    ir::DataType t = it->second->shape[0]->dtype;
    std::vector<ir::Expr> bases, steps;
    int lanes = 1;
    for (size_t d = 0; d < indices.size(); ++d) {
      std::optional<lowering::LaneIndex> li = lowering::AsLaneIndex(indices[d]);
      if (!li) {
        return FailBuffer(b, absl::UnimplementedError(absl::StrCat(
                                 "index ", d, " (", ir::PrintExpr(indices[d]),
                                 ") is a vector that is neither a ramp nor a broadcast; a gather "
                                 "has no flat ramp form")));
      }
      bases.push_back(AsIndex(li->base, t));
      steps.push_back(AsIndex(li->stride, t));
      lanes = std::max(lanes, li->lanes);
    }
    ir::Expr base = Index(Offset(b, bases, t));
    if (lanes == 1) return std::vector<ir::Expr>{base};
    absl::StatusOr<ir::Expr> flat_index = lowering::MakeLaneIndex(base, Index(Offset(b, steps, t)), lanes);
    if (!flat_index.ok()) return FailBuffer(b, flat_index.status());
    return std::vector<ir::Expr>{*flat_index};
  }

  // The row-major (or strided) offset of the element at `idx`, in type `t`.
  static ir::Expr Offset(const ir::Buffer& b, const std::vector<ir::Expr>& idx, ir::DataType t) {
    ir::Expr off = IntImm(t, 0);
    if (b->strides.empty()) {
      // Horner form: ((i0 * s1 + i1) * s2 + i2) ...
      for (int d = 0; d < b->ndim(); ++d) {
        off = d == 0 ? idx[0] : AddE(MulE(off, AsIndex(b->shape[d], t)), idx[d]);
      }
    } else {
      for (int d = 0; d < b->ndim(); ++d) off = AddE(off, MulE(idx[d], AsIndex(b->strides[d], t)));
    }
    return off;
  }

  // Records the error on `b` (the first error wins) and returns the one recorded.
  absl::Status FailBuffer(const ir::Buffer& b, const absl::Status& s) {
    Fail(absl::Status(s.code(), absl::StrCat("buffer '", b->name, "': ", s.message())));
    return status();
  }
  template <typename T>
  T FailBuffer(const ir::Buffer& b, const absl::Status& s, T keep) {
    (void)FailBuffer(b, s);
    return keep;
  }

  absl::flat_hash_map<const ir::BufferNode*, bool> params_;
};

class FlattenBufferPass : public FunctionPass {
 public:
  static PassInfo Info() {
    return {.name = "flatten-buffer",
            .description =
                "Makes every buffer access 1-D (row-major or by strides); N-D parameters are "
                "accessed through a 1-D decl_buffer view",
            .opt_level = 0,
            .required = {"remove-blocks"}};
  }
  explicit FlattenBufferPass(PassOptions options) : FunctionPass(Info(), std::move(options)) {}

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    Flattener f;
    std::vector<ir::Buffer> views;
    for (const ir::Param& p : func->params) {
      if (!p.is_buffer()) continue;
      f.AddParam(p.buffer);
      if (IsFlat(p.buffer)) {
        f.flat[p.buffer.get()] = p.buffer;
        continue;
      }
      absl::StatusOr<ir::Buffer> v = f.MakeFlat(p.buffer, p.buffer->name + "_1d", /*keep_offset=*/true);
      if (!v.ok()) {
        return absl::Status(v.status().code(), absl::StrCat("parameter '", p.buffer->name, "': ",
                                                            v.status().message()));
      }
      f.flat[p.buffer.get()] = *v;
      views.push_back(p.buffer);
    }
    ir::Stmt body = f.VisitStmt(func->body);
    if (!f.ok()) return f.status();
    if (f.accesses == 0 && views.empty()) return func;
    for (auto it = views.rbegin(); it != views.rend(); ++it) {
      TESSEL_ASSIGN_OR_RETURN(body, ir::MakeDeclBuffer(f.flat.at(it->get()), *it, body));
    }
    if (body.same_as(func->body)) return func;
    ctx.log().RecordApplied(this->name(), name, "flattened-access", f.accesses);
    return ir::MakePrimFuncChecked(func->params, body, func->attrs);
  }
};

}  // namespace

TESSEL_REGISTER_PASS(FlattenBufferPass);

}  // namespace tessel::passes
