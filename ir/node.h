// The base of every IR node: an immutable, reference-counted object tagged with
// its kind, so that `isa`/`dyn_cast`/`cast` work without RTTI.
//
//   Expr e = Add(x, IntImm(DataType::Int(32), 1));
//   if (const BinaryNode* b = dyn_cast<BinaryNode>(e)) { ... b->a ... }
//   Ref<const VarNode> v = cast_ref<VarNode>(e);   // aborts if e is not a Var
//
// Nodes are created once, filled in, and from then on only read: every holder sees
// a `Ref<const T>`. A mutator that changes nothing returns the same object, so
// "did this change" is a pointer comparison (DESIGN.md, decision 2).
#ifndef TESSEL_IR_NODE_H_
#define TESSEL_IR_NODE_H_

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <utility>

namespace tessel::ir {

// Every concrete node kind. Ranges (kFirstExpr..kLastExpr and so on) let a class
// stand for a family of kinds, e.g. BinaryNode for every two-operand expression.
enum class NodeKind : uint8_t {
  // Expressions.
  kVar,
  kIntImm,
  kFloatImm,
  // Binary arithmetic: operands and result share one dtype.
  kAdd,
  kSub,
  kMul,
  kDiv,       // Integers: truncates toward zero (C semantics). Floats: IEEE division.
  kMod,       // Integers: remainder of kDiv, sign follows the dividend (C semantics).
  kFloorDiv,  // Integers: rounds toward negative infinity. Floats: floor(a / b).
  kFloorMod,  // Integers: a - b * floordiv(a, b), sign follows the divisor.
  kMin,
  kMax,
  // Comparisons: operands share a dtype, the result is bool with the same lanes.
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  // Logical: bool operands and result.
  kAnd,
  kOr,
  kNot,
  kSelect,
  kCast,
  kBufferLoad,
  kRamp,
  kBroadcast,
  kCall,
  // Statements.
  kBufferStore,
  kFor,
  kIfThenElse,
  kLetStmt,
  kSeqStmt,
  kEvaluate,
  kAllocate,
  kDeclBuffer,
  kBlock,
  kBlockRealize,
  // Everything else.
  kBuffer,
  kPrimFunc,
  kGraphFunc,
  kIRModule,
};

inline constexpr NodeKind kFirstExpr = NodeKind::kVar;
inline constexpr NodeKind kLastExpr = NodeKind::kCall;
inline constexpr NodeKind kFirstBinary = NodeKind::kAdd;
inline constexpr NodeKind kLastBinary = NodeKind::kOr;
inline constexpr NodeKind kFirstStmt = NodeKind::kBufferStore;
inline constexpr NodeKind kLastStmt = NodeKind::kBlockRealize;

// The name of a kind as it appears in messages, e.g. "Add", "BufferStore".
const char* NodeKindName(NodeKind kind);

class Node {
 public:
  explicit Node(NodeKind kind) : kind_(kind) {}
  Node(const Node& other) : kind_(other.kind_) {}  // A copy starts unshared.
  Node& operator=(const Node&) = delete;
  virtual ~Node() = default;

  NodeKind kind() const { return kind_; }

  void IncRef() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void DecRef() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  int32_t use_count() const { return refs_.load(std::memory_order_relaxed); }

 private:
  const NodeKind kind_;
  mutable std::atomic<int32_t> refs_{0};
};

// An intrusive reference-counted pointer. Null is allowed and means "absent"
// (e.g. a block without `init`).
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}  // NOLINT: implicit from nullptr is the point.
  explicit Ref(T* p) : p_(p) {
    if (p_) p_->IncRef();
  }
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->IncRef();
  }
  Ref(Ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(const Ref<U>& o) : p_(o.get()) {  // NOLINT: upcasts are implicit.
    if (p_) p_->IncRef();
  }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(Ref<U>&& o) noexcept : p_(o.release()) {}  // NOLINT
  ~Ref() {
    if (p_) p_->DecRef();
  }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool defined() const { return p_ != nullptr; }
  bool same_as(const Ref& o) const { return p_ == o.p_; }
  template <typename U>
  bool same_as(const Ref<U>& o) const {
    return static_cast<const Node*>(p_) == static_cast<const Node*>(o.get());
  }
  // Gives up ownership without decrementing; used by move-upcasts.
  T* release() {
    T* p = p_;
    p_ = nullptr;
    return p;
  }

  friend bool operator==(const Ref& a, const Ref& b) { return a.p_ == b.p_; }
  friend bool operator!=(const Ref& a, const Ref& b) { return a.p_ != b.p_; }
  friend bool operator==(const Ref& a, std::nullptr_t) { return a.p_ == nullptr; }
  friend bool operator!=(const Ref& a, std::nullptr_t) { return a.p_ != nullptr; }
  template <typename H>
  friend H AbslHashValue(H h, const Ref& r) {  // Identity hash, for in-memory maps.
    return H::combine(std::move(h), static_cast<const void*>(r.p_));
  }

 private:
  T* p_ = nullptr;
};

// Creates a fresh node. The result is mutable until it is handed out as Ref<const T>.
template <typename T, typename... Args>
Ref<T> MakeNode(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

// Every node class declares `static bool classof(NodeKind)`.
template <typename T>
bool isa(const Node* n) {
  return n != nullptr && T::classof(n->kind());
}
template <typename T, typename U>
bool isa(const Ref<U>& r) {
  return isa<T>(static_cast<const Node*>(r.get()));
}

template <typename T>
const T* dyn_cast(const Node* n) {
  return isa<T>(n) ? static_cast<const T*>(n) : nullptr;
}
template <typename T, typename U>
const T* dyn_cast(const Ref<U>& r) {
  return dyn_cast<T>(static_cast<const Node*>(r.get()));
}

// Checked downcast to a raw pointer; aborts on a wrong kind (a programming error).
template <typename T>
const T* cast(const Node* n) {
  if (!isa<T>(n)) std::abort();
  return static_cast<const T*>(n);
}
template <typename T, typename U>
const T* cast(const Ref<U>& r) {
  return cast<T>(static_cast<const Node*>(r.get()));
}

// Re-wraps a raw pointer to a live node (the count is intrusive, so this is safe
// for any node reachable from a Ref).
template <typename T>
Ref<const T> GetRef(const T* p) {
  return Ref<const T>(p);
}

// Checked downcast keeping ownership: Ref<const Base> -> Ref<const T>.
template <typename T, typename U>
Ref<const T> cast_ref(const Ref<U>& r) {
  return Ref<const T>(cast<T>(r));
}
template <typename T, typename U>
Ref<const T> dyn_cast_ref(const Ref<U>& r) {
  const T* p = dyn_cast<T>(r);
  return p ? Ref<const T>(p) : Ref<const T>();
}

}  // namespace tessel::ir

#endif  // TESSEL_IR_NODE_H_
