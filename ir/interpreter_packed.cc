// Packed calls in the reference interpreter: `@f(address_of(A[0, 0]), n, 1.5f32): packed`
// packs each argument into one i64 slot exactly as compiled code does (ir/expr.h),
// calls the host function registered under `f` (ir/packed_functions.h) and turns a
// non-zero status into the interpreter's error.
//
//   address_of(A[i, j])  -> the address of that element in the interpreter's storage
//                           (bounds-checked); afterwards every element of A counts as
//                           written, since the callee may have filled it
//   n (i32)              -> sign-extended; 1.5f32 -> its 32 bits, zero-extended
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ir/interpreter_internal.h"
#include "ir/packed_functions.h"
#include "ir/printer.h"

namespace tessel::ir::interp {
namespace {

struct PackedArg {
  CExprPtr value;  // A scalar argument; null for address_of.
  DataType dtype;  // The scalar's dtype.
  int slot = -1;   // address_of: the buffer's slot ...
  const BufferNode* buffer = nullptr;
  std::vector<CExprPtr> indices;  // ... and the element's indices.
};

class PackedCallExpr : public CExpr {
 public:
  PackedCallExpr(const CallNode* op, const StmtNode* where, std::vector<PackedArg> args)
      : CExpr(1),
        op_(op),
        where_(where),
        args_(std::move(args)),
        fn_(LookupPackedFunction(op->name)) {}

  void Eval(Ctx& c, Lane* out) override {
    out[0].i = 0;
    if (!fn_) {
      c.Fail(absl::StatusCode::kUnimplemented, where_,
             absl::StrCat("packed function '", op_->name,
                          "' is not registered with the interpreter (ir/packed_functions.h; "
                          "library shims register when the dispatch library is linked)"));
      return;
    }
    std::vector<int64_t> slots(args_.size(), 0);
    for (size_t i = 0; i < args_.size(); ++i) {
      PackedArg& a = args_[i];
      Lane v;
      if (a.value == nullptr) {
        std::vector<int64_t> idx;
        for (CExprPtr& e : a.indices) {
          e->Eval(c, &v);
          idx.push_back(v.i);
        }
        const BufState& b = c.bufs[a.slot];
        int64_t off = CheckedOffset(c, b, a.buffer, idx.data(), false, where_, -1);
        if (c.failed) return;
        slots[i] = reinterpret_cast<int64_t>(b.data + off * a.buffer->dtype.bytes());
        continue;
      }
      a.value->Eval(c, &v);
      if (c.failed) return;
      if (a.dtype.is_float()) {
        uint8_t bytes[8] = {0};
        WriteElement(bytes, a.dtype, v);
        std::memcpy(&slots[i], bytes, sizeof(bytes));
      } else {
        slots[i] = v.i;
      }
    }
    absl::Status st = fn_(slots.data(), static_cast<int32_t>(slots.size()));
    for (const PackedArg& a : args_) {  // The callee may have written any element.
      if (a.value != nullptr) continue;
      const BufState& b = c.bufs[a.slot];
      if (b.written != nullptr) std::memset(b.written, 1, b.storage_elems);
    }
    if (!st.ok()) {
      c.Fail(st.code(), where_, absl::StrCat("@", op_->name, " failed: ", st.message()));
      return;
    }
    out[0].i = 0;
  }

 private:
  const CallNode* op_;
  const StmtNode* where_;
  std::vector<PackedArg> args_;
  PackedFunction fn_;
};

}  // namespace

absl::StatusOr<CExprPtr> CompilePackedCall(Compiler& comp, const CallNode* call,
                                           const StmtNode* where) {
  std::vector<PackedArg> args;
  for (const Expr& a : call->args) {
    PackedArg p;
    const auto* addr = dyn_cast<CallNode>(a.get());
    if (addr != nullptr && addr->callee == CallNode::Callee::kAddressOf) {
      const auto* ld = cast<BufferLoadNode>(addr->args[0]);
      std::optional<int> slot = comp.BufferSlotOf(ld->buffer.get());
      if (!slot) return comp.Error(where, "buffer '" + ld->buffer->name + "' is not bound here");
      p.slot = *slot;
      p.buffer = ld->buffer.get();
      for (const Expr& i : ld->indices) {
        absl::StatusOr<CExprPtr> ci = comp.CompileExpr(i, where);
        if (!ci.ok()) return ci.status();
        if ((*ci)->lanes != 1)
          return comp.Error(where, "address_of a vector of elements: " + PrintExpr(a));
        p.indices.push_back(*std::move(ci));
      }
    } else {
      absl::StatusOr<CExprPtr> ca = comp.CompileExpr(a, where);
      if (!ca.ok()) return ca.status();
      if ((*ca)->lanes != 1)
        return comp.Error(where, "a vector argument of a packed call: " + PrintExpr(a));
      p.value = *std::move(ca);
      p.dtype = a->dtype;
    }
    args.push_back(std::move(p));
  }
  return CExprPtr(new PackedCallExpr(call, where, std::move(args)));
}

}  // namespace tessel::ir::interp
