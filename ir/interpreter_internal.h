// Internals of the reference interpreter (ir/interpreter.h), shared by its files:
// the compiled form that a PrimFunc is turned into before it runs.
//
//   Compiler comp("main");
//   int slot = comp.BindVar(i.get());                 // `i` now lives in frame[slot]
//   absl::StatusOr<CExprPtr> e = comp.CompileExpr(Add(i, IntImm32(1)), store);
//   ... (*e)->Eval(ctx, out);                         // out[0].i == frame[slot].i + 1
//
// Why compile: a tree walk that looks variables and buffers up in maps spends most
// of its time hashing. The compiler resolves every Var to a slot of a flat frame
// and every Buffer to a slot of a buffer table once, picks a specialised function
// for each operator and dtype once, and preallocates every scratch array, so that
// running does no lookup and no heap allocation per access.
//
// Errors while running are recorded in the Ctx (first one wins) instead of being
// returned through every evaluation: an expression that fails still writes some
// value, and statements check `ctx.failed` before any side effect.
#ifndef TESSEL_IR_INTERPRETER_INTERNAL_H_
#define TESSEL_IR_INTERPRETER_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/interpreter.h"
#include "ir/scalar_value.h"

namespace tessel::ir::interp {

// The run-time state of one bound buffer: a view (shape, strides, offset, all in
// elements) of some storage.
struct BufState {
  uint8_t* data = nullptr;
  int64_t storage_elems = 0;  // How many elements of the buffer's dtype the storage holds.
  int64_t elem_offset = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // Always filled (compact row-major when the IR gives none).
  const BufferNode* storage_of = nullptr;  // Whose storage this views (for messages).
  // One flag per storage element, set when it is stored to; null when every
  // element holds a value (an argument). Reading an unset element is an error: a
  // transform that drops an initialisation must not pass because fresh memory
  // happens to be zero.
  uint8_t* written = nullptr;
  // Whether a GPU kernel's loads and stores of it go to the race detector: true
  // for parameters, shared buffers and the workspaces outside kernels; false for a
  // thread's own (local) storage.
  bool race_checked = false;
};

struct GpuRun;  // The run of one GPU kernel (interpreter_gpu.cc).

// The storage an Allocate or alloc_buffer owns, reused each time it runs.
struct Storage {
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> written;
};

struct Ctx {
  Lane* frame = nullptr;
  BufState* bufs = nullptr;
  bool failed = false;
  absl::Status status;
  int64_t steps = 0;
  int64_t max_steps = 0;
  std::function<bool()> interrupted;  // RunOptions::interrupted.
  BankConflicts* bank_conflicts = nullptr;  // RunOptions::bank_conflicts.
  std::string func_name;
  GpuRun* gpu = nullptr;  // Set while a GPU kernel runs.
  int frame_slots = 0;    // The sizes of `frame` and `bufs`.
  int buf_slots = 0;

  // Records the first error: "interpreter: function 'f': <what> in: <statement>".
  void Fail(absl::StatusCode code, const StmtNode* where, const std::string& what);
  // Counts one executed statement; false (and an error) past max_steps or once
  // `interrupted` says so.
  bool Step(const StmtNode* s) {
    ++steps;
    if (max_steps > 0 && steps > max_steps) return StepLimit(s);
    if ((steps & kPollMask) == 0 && interrupted) return Poll(s);
    return true;
  }

 private:
  static constexpr int64_t kPollMask = (int64_t{1} << 20) - 1;
  bool StepLimit(const StmtNode* s);
  bool Poll(const StmtNode* s);
};

// The first line of a printed statement (a loop or block prints its header),
// for messages.
std::string StmtSummary(const StmtNode* s);

class CExpr {
 public:
  explicit CExpr(int l) : lanes(l) {}
  virtual ~CExpr() = default;
  // Writes `lanes` values to `out`.
  virtual void Eval(Ctx& c, Lane* out) = 0;
  const int lanes;
  // Set by the leaves so that a parent can read them without a virtual call.
  int var_slot = -1;  // A scalar variable: frame[var_slot].
  bool is_const = false;
  Lane const_value = IntLane(0);
};
using CExprPtr = std::unique_ptr<CExpr>;

// A scalar operand read the cheapest way: a frame slot, a constant, or a call.
// The hot path of every scalar node (index arithmetic, loads, stores, block
// bindings) goes through these.
class Operand {
 public:
  Operand() = default;
  explicit Operand(CExpr* e)
      : slot_(e->var_slot), is_const_(e->is_const), value_(e->const_value),
        expr_(e->var_slot < 0 && !e->is_const ? e : nullptr) {}
  Lane Get(Ctx& c) const {
    if (slot_ >= 0) return c.frame[slot_];
    if (expr_ == nullptr) return value_;
    Lane v;
    expr_->Eval(c, &v);
    return v;
  }
  bool is_const() const { return is_const_; }
  Lane value() const { return value_; }

 private:
  int slot_ = -1;
  bool is_const_ = false;
  Lane value_ = IntLane(0);
  CExpr* expr_ = nullptr;
};

// Evaluates a one-lane expression into `out`; false once the run has failed.
inline bool EvalScalar(Ctx& c, CExpr* e, Lane* out) {
  e->Eval(c, out);
  return !c.failed;
}

// The value of a loop variable at `min` + `k`, wrapped to its dtype (the sum in
// unsigned arithmetic: no signed overflow whatever the bounds).
inline int64_t LoopValue(const IntWrap& wrap, int64_t min, int64_t k) {
  return wrap(static_cast<int64_t>(static_cast<uint64_t>(min) + static_cast<uint64_t>(k)));
}

class CStmt {
 public:
  explicit CStmt(const StmtNode* n) : node(n) {}
  virtual ~CStmt() = default;
  virtual void Exec(Ctx& c) = 0;
  const StmtNode* const node;
};
using CStmtPtr = std::unique_ptr<CStmt>;

// ---- Operator kernels (interpreter_ops.cc) ----------------------------------------

// Computes n lanes of a binary operator; returns -1, or the first lane that divided
// an integer by zero. `w` wraps integer results to the operand width.
using BinFn = int (*)(const Lane* a, const Lane* b, Lane* out, int n, IntWrap w);
// Null when the operator does not apply to the representation (e.g. + on bool).
BinFn SelectBinFn(NodeKind k, Repr r);

enum class Intr : uint8_t { kExp, kLog, kSqrt, kRsqrt, kTanh, kErf, kSigmoid, kFabs, kFloor,
                            kCeil, kPow, kFma };
std::optional<Intr> IntrinsicId(const std::string& name);
// One lane of an intrinsic of element representation `r` (b, c unused below the arity).
Lane ApplyIntrinsicLane(Intr id, Repr r, IntWrap w, Lane a, Lane b, Lane c);

// Where a buffer is bound: its layout expressions compiled in the binding's scope.
struct CBufferDef {
  const BufferNode* node = nullptr;
  int slot = -1;
  std::vector<CExprPtr> shape;
  std::vector<CExprPtr> strides;  // Empty: compact row-major.
  CExprPtr elem_offset;
  // Set by EvalLayout: the lowest and highest element offsets the view can reach
  // (hi < lo when some extent is 0). Checked for overflow there, so that the
  // offset arithmetic of every in-shape access is overflow-free.
  int64_t lo = 0, hi = -1;
  bool race_checked = false;  // Copied to BufState::race_checked when bound.

  // Evaluates shape, strides and offset into c.bufs[slot] (not the storage);
  // false (with an error) on a negative extent or an overflowing layout.
  bool EvalLayout(Ctx& c, const StmtNode* where);
  // Elements a fresh storage needs for the layout last evaluated: hi + 1, or 0
  // for an empty view; -1 (with an error) when the view reaches below offset 0.
  int64_t RequiredElems(Ctx& c, const StmtNode* where) const;
};

// Evaluates `def`'s layout and gives it fresh storage kept in `storage`, every
// element marked unwritten
// (one vector per binding site: IR has no recursion, so a site is never live twice).
bool AllocateStorage(Ctx& c, CBufferDef& def, Storage& storage, const StmtNode* where);

// Binds DeclBuffer view `def` over the storage bound at `source_slot` (same dtype:
// MakeDeclBuffer's rule); false with an error on a bad layout.
bool BindView(Ctx& c, CBufferDef& def, int source_slot, const StmtNode* where);

// Records the error for a load of an element never written since its allocation.
void UninitializedRead(Ctx& c, const BufState& b, const BufferNode* node, const int64_t* idx,
                       const StmtNode* where, int lane);

// Bounds-checks one element access of `b` (multi-index `idx`) and returns its
// element offset into the storage, or -1 after recording an error that names the
// buffer, the index and the statement. `lane` >= 0 names a vector lane.
int64_t CheckedOffset(Ctx& c, const BufState& b, const BufferNode* node, const int64_t* idx,
                      bool is_store, const StmtNode* where, int lane);

// Records one element access (element offset `off` of `b`, multi-index `idx`) made
// inside a GPU kernel for the race detector; fails the run on a race.
void RecordGpuAccess(Ctx& c, const BufState& b, const BufferNode* node, int64_t off, int elem_bytes,
                     const int64_t* idx, bool is_store, const StmtNode* where);
inline void CheckGpuAccess(Ctx& c, const BufState& b, const BufferNode* node, int64_t off,
                           int elem_bytes, const int64_t* idx, bool is_store,
                           const StmtNode* where) {
  if (c.gpu != nullptr && b.race_checked) {
    RecordGpuAccess(c, b, node, off, elem_bytes, idx, is_store, where);
  }
}

inline int64_t FastOffset(const BufState& b, const int64_t* idx, int ndim) {
  // The common in-bounds case without overflow checks: indices in [0, shape)
  // and a storage-checked result are verified by CheckedOffset otherwise.
  int64_t off = b.elem_offset;
  for (int d = 0; d < ndim; ++d) {
    if (static_cast<uint64_t>(idx[d]) >= static_cast<uint64_t>(b.shape[d])) return -1;
    off += idx[d] * b.strides[d];
  }
  return off;
}

class Compiler;
// A packed call (interpreter_packed.cc).
absl::StatusOr<CExprPtr> CompilePackedCall(Compiler& comp, const CallNode* call,
                                           const StmtNode* where);

class Compiler {
 public:
  explicit Compiler(std::string func_name) : func_name_(std::move(func_name)) {}

  // Scopes: a binding takes a fresh slot and shadows an outer binding of the same
  // object until it is unbound.
  int BindVar(const VarNode* v);
  void UnbindVar(const VarNode* v);
  std::optional<int> SlotOf(const VarNode* v) const;
  int BindBuffer(const BufferNode* b);
  void UnbindBuffer(const BufferNode* b);
  std::optional<int> BufferSlotOf(const BufferNode* b) const;

  // `where` is the statement the expression belongs to (for messages; may be null).
  absl::StatusOr<CExprPtr> CompileExpr(const Expr& e, const StmtNode* where);
  absl::StatusOr<CStmtPtr> CompileStmt(const Stmt& s);
  // The store `op` writing what `value` computes in place of op->value (a
  // collective's result, computed for all threads at once).
  absl::StatusOr<CStmtPtr> CompileStore(const BufferStoreNode* op, CExprPtr value);
  // Binds `b` to a fresh slot after compiling its layout in the current scope.
  absl::StatusOr<std::unique_ptr<CBufferDef>> DefineBuffer(const Buffer& b, const StmtNode* where);

  int frame_size() const { return frame_size_; }
  const std::vector<const BufferNode*>& buffer_nodes() const { return buf_nodes_; }
  const std::string& func_name() const { return func_name_; }

  // "interpreter: function 'f': <what>[ in: <statement>]".
  absl::Status Error(const StmtNode* where, const std::string& what) const;

  // Expressions and statements nested deeper than this are refused: compiling and
  // running recurse once per level, and the host stack is finite. (Chains of
  // LetStmts and the statements of a SeqStmt do not count as nesting.)
  static constexpr int kMaxNesting = 1024;

  // How loops bound to blockIdx/threadIdx run (interpreter_gpu.cc): outside any
  // kernel; inside one, as serial loops (the function still has blocks); or inside
  // one, thread by thread with barriers.
  enum class ThreadMode : uint8_t { kHost, kSerial, kGpu };
  ThreadMode thread_mode() const { return thread_mode_; }

 private:
  // A loop bound to a launch axis (interpreter_gpu.cc).
  absl::StatusOr<CStmtPtr> CompileKernel(const ForNode* op);
  absl::StatusOr<CStmtPtr> CompileThreadFor(const ForNode* op);

  absl::StatusOr<CExprPtr> CompileExprNode(const Expr& e, const StmtNode* where);
  absl::StatusOr<CStmtPtr> CompileStmtNode(const Stmt& s);
  absl::Status TooDeep(const StmtNode* where) const;

  int depth_ = 0;
  ThreadMode thread_mode_ = ThreadMode::kHost;
  std::string func_name_;
  absl::flat_hash_map<const VarNode*, std::vector<int>> var_slots_;
  absl::flat_hash_map<const BufferNode*, std::vector<int>> buf_slots_;
  int frame_size_ = 0;
  std::vector<const BufferNode*> buf_nodes_;
};

// Sizes a frame and buffer table for everything `comp` bound.
struct Machine {
  std::vector<Lane> frame;
  std::vector<BufState> bufs;
  Ctx ctx;
  explicit Machine(const Compiler& comp);
};

// Evaluates an integer scalar expression whose variables are all given in `env`
// (e.g. a buffer shape under known symbolic sizes).
absl::StatusOr<int64_t> EvalIntExpr(const Expr& e,
                                    const std::vector<std::pair<const VarNode*, int64_t>>& env);

}  // namespace tessel::ir::interp

#endif  // TESSEL_IR_INTERPRETER_INTERNAL_H_
