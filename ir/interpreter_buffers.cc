// Buffers in the reference interpreter: evaluating a binding's layout, giving it
// storage, and checking each access against the shape and the storage.
//
//   Allocate(tmp: f32[4, 4])                 -> 16 zeroed elements, strides [4, 1]
//   DeclBuffer(v: f32[8], source = A[4])     -> a view over A's 4 elements
//   v[5] = 1.0  -> "BufferStore to 'v' index [5] reaches element 5 (elem_offset 0,
//                   strides [1]) outside the storage of 'A' holding 4 elements"
//
// A layout is validated once, where the buffer is bound: no negative extents, and
// the lowest and highest reachable offsets must fit in 64 bits. After that, the
// offset arithmetic of every in-shape index is overflow-free, so the per-access
// fast path (FastOffset) needs no overflow checks.
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/interpreter_internal.h"

namespace tessel::ir::interp {
namespace {

// Storage larger than this is refused rather than risking the host's memory.
constexpr int64_t kMaxAllocBytes = int64_t{1} << 30;

}  // namespace

bool CBufferDef::EvalLayout(Ctx& c, const StmtNode* where) {
  BufState& b = c.bufs[slot];
  int nd = static_cast<int>(shape.size());
  b.shape.resize(nd);
  b.strides.resize(nd);
  Lane v;
  for (int d = 0; d < nd; ++d) {
    if (!EvalScalar(c, shape[d].get(), &v)) return false;
    if (v.i < 0) {
      c.Fail(absl::StatusCode::kInvalidArgument, where,
             absl::StrCat("buffer '", node->name, "' has negative extent ", v.i, " in dimension ", d));
      return false;
    }
    b.shape[d] = v.i;
  }
  auto overflow = [&]() {
    c.Fail(absl::StatusCode::kInvalidArgument, where,
           absl::StrCat("the layout of buffer '", node->name, "' (shape [",
                        absl::StrJoin(b.shape, ", "), "]) overflows 64-bit offsets"));
    return false;
  };
  if (!strides.empty()) {
    for (int d = 0; d < nd; ++d) {
      if (!EvalScalar(c, strides[d].get(), &v)) return false;
      b.strides[d] = v.i;
    }
  } else {
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; --d) {
      b.strides[d] = s;
      if (d > 0 && b.shape[d] > 0 && __builtin_mul_overflow(s, b.shape[d], &s)) return overflow();
    }
  }
  b.elem_offset = 0;
  if (elem_offset) {
    if (!EvalScalar(c, elem_offset.get(), &v)) return false;
    b.elem_offset = v.i;
  }
  lo = hi = b.elem_offset;
  for (int d = 0; d < nd; ++d) {
    if (b.shape[d] == 0) {
      lo = 0;
      hi = -1;
      return true;
    }
    int64_t t;
    if (__builtin_mul_overflow(b.shape[d] - 1, b.strides[d], &t)) return overflow();
    if (__builtin_add_overflow(t > 0 ? hi : lo, t, t > 0 ? &hi : &lo)) return overflow();
  }
  return true;
}

int64_t CBufferDef::RequiredElems(Ctx& c, const StmtNode* where) const {
  if (hi < lo) return 0;
  if (lo < 0) {
    c.Fail(absl::StatusCode::kInvalidArgument, where,
           absl::StrCat("allocated buffer '", node->name, "' reaches element offset ", lo,
                        ", below the start of its storage"));
    return -1;
  }
  return hi + 1;
}

absl::StatusOr<std::unique_ptr<CBufferDef>> Compiler::DefineBuffer(const Buffer& b,
                                                                    const StmtNode* where) {
  if (!b) return Error(where, "a buffer definition is missing");
  if (!b->dtype.is_scalar() || b->dtype.is_handle() || b->dtype.is_void()) {
    return Error(where, absl::StrCat("buffer '", b->name, "' has element type ",
                                     b->dtype.ToString(), ", not a scalar value type"));
  }
  if (!b->strides.empty() && b->strides.size() != b->shape.size()) {
    return Error(where, absl::StrCat("buffer '", b->name, "' has ", b->strides.size(),
                                     " strides for ", b->shape.size(), " dimensions"));
  }
  auto def = std::make_unique<CBufferDef>();
  def->node = b.get();
  // Inside a kernel only shared storage is the block's; any other allocation there
  // is the thread's own.
  def->race_checked = thread_mode_ == ThreadMode::kGpu ? b->scope == "shared" : b->scope != "local";
  auto compile_index = [&](const Expr& e, const char* what) -> absl::StatusOr<CExprPtr> {
    if (!e || !e->dtype.is_integer() || !e->dtype.is_scalar()) {
      return Error(where, absl::StrCat("buffer '", b->name, "': ", what, " is not a scalar integer"));
    }
    return CompileExpr(e, where);
  };
  for (const Expr& e : b->shape) {
    absl::StatusOr<CExprPtr> ce = compile_index(e, "a shape extent");
    if (!ce.ok()) return ce.status();
    def->shape.push_back(*std::move(ce));
  }
  for (const Expr& e : b->strides) {
    absl::StatusOr<CExprPtr> ce = compile_index(e, "a stride");
    if (!ce.ok()) return ce.status();
    def->strides.push_back(*std::move(ce));
  }
  if (b->elem_offset) {
    absl::StatusOr<CExprPtr> ce = compile_index(b->elem_offset, "the element offset");
    if (!ce.ok()) return ce.status();
    def->elem_offset = *std::move(ce);
  }
  def->slot = BindBuffer(b.get());
  return def;
}

bool AllocateStorage(Ctx& c, CBufferDef& def, Storage& storage, const StmtNode* where) {
  if (!def.EvalLayout(c, where)) return false;
  int64_t elems = def.RequiredElems(c, where);
  if (elems < 0) return false;
  int64_t bytes_per = def.node->dtype.bytes();
  if (elems > kMaxAllocBytes / bytes_per) {
    c.Fail(absl::StatusCode::kResourceExhausted, where,
           absl::StrCat("allocation of '", def.node->name, "' needs ", elems, " elements of ",
                        bytes_per, " bytes, more than the interpreter's limit of ",
                        kMaxAllocBytes / bytes_per, " such elements (", kMaxAllocBytes,
                        " bytes)"));
    return false;
  }
  // Zero-filled as well, so that nothing depends on what the host left there.
  storage.bytes.assign(static_cast<size_t>(elems * bytes_per), 0);
  storage.written.assign(static_cast<size_t>(elems), 0);
  BufState& b = c.bufs[def.slot];
  b.data = storage.bytes.data();
  b.written = storage.written.data();
  b.storage_elems = elems;
  b.storage_of = def.node;
  b.race_checked = def.race_checked;
  return true;
}

bool BindView(Ctx& c, CBufferDef& def, int source_slot, const StmtNode* where) {
  if (!def.EvalLayout(c, where)) return false;
  const BufState& src = c.bufs[source_slot];
  BufState& b = c.bufs[def.slot];
  b.data = src.data;
  b.storage_elems = src.storage_elems;
  b.storage_of = src.storage_of;
  b.written = src.written;
  b.race_checked = src.race_checked;
  return true;
}

void UninitializedRead(Ctx& c, const BufState& b, const BufferNode* node, const int64_t* idx,
                       const StmtNode* where, int lane) {
  std::vector<int64_t> index(idx, idx + b.shape.size());
  c.Fail(absl::StatusCode::kFailedPrecondition, where,
         absl::StrCat("BufferLoad from '", node->name, "' index [", absl::StrJoin(index, ", "), "]",
                      lane >= 0 ? absl::StrCat(" (lane ", lane, ")") : "", " reads an element of '",
                      b.storage_of ? b.storage_of->name : node->name,
                      "' that was never written since it was allocated",
                      // Threads run in order: another may store it later in this phase.
                      c.gpu != nullptr && b.race_checked
                          ? " (in a GPU kernel: a missing sync_threads()?)"
                          : ""));
}

int64_t CheckedOffset(Ctx& c, const BufState& b, const BufferNode* node, const int64_t* idx,
                      bool is_store, const StmtNode* where, int lane) {
  int nd = static_cast<int>(b.shape.size());
  std::vector<int64_t> index(idx, idx + nd);
  std::string access = absl::StrCat(is_store ? "BufferStore to '" : "BufferLoad from '",
                                    node->name, "' index [", absl::StrJoin(index, ", "), "]",
                                    lane >= 0 ? absl::StrCat(" (lane ", lane, ")") : "");
  for (int d = 0; d < nd; ++d) {
    if (idx[d] < 0 || idx[d] >= b.shape[d]) {
      c.Fail(absl::StatusCode::kOutOfRange, where,
             absl::StrCat(access, " is outside shape [", absl::StrJoin(b.shape, ", "), "]"));
      return -1;
    }
  }
  // In shape, so the arithmetic cannot overflow (CBufferDef::EvalLayout checked).
  int64_t off = b.elem_offset;
  for (int d = 0; d < nd; ++d) off += idx[d] * b.strides[d];
  if (off < 0 || off >= b.storage_elems) {
    c.Fail(absl::StatusCode::kOutOfRange, where,
           absl::StrCat(access, " reaches element ", off, " (elem_offset ", b.elem_offset,
                        ", strides [", absl::StrJoin(b.strides, ", "), "]) outside the storage of '",
                        b.storage_of ? b.storage_of->name : node->name, "' holding ",
                        b.storage_elems, " elements"));
    return -1;
  }
  return off;
}

}  // namespace tessel::ir::interp
