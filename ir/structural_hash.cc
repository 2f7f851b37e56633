// Structural hash, version 1 (kStructuralHashVersion): a fixed 64-bit algorithm,
// consistent with StructuralEqual and independent of addresses, variable and
// buffer names, platform and process, so that it can key the tuning database.
//
//   StructuralHash(for i in 0..16 { A[i] = 0 }) == StructuralHash(for k in 0..16 { A[k] = 0 })
//
// ---- The algorithm (a reimplementation must follow it word for word) -----------
//
// The IR is turned into a stream of 64-bit words w_1..w_n by the traversal below;
// the words are folded with the xxHash64 round and finished with its avalanche:
//
//   P1 = 0x9E3779B185EBCA87  P2 = 0xC2B2AE3D27D4EB4F  P3 = 0x165667B19E3779F9
//   acc = 0x74657373656C0000 + version                  ("tessel\0\0" + 1)
//   for each word w:  acc = rotl64(acc + w * P2, 31) * P1      (mod 2^64)
//   h = acc ^ n;  h ^= h >> 33;  h *= P2;  h ^= h >> 29;  h *= P3;  h ^= h >> 32
//
// Words (all arithmetic mod 2^64; [x] is one word, T(x) the words of x):
//   dtype      = code | bits << 8 | lanes << 16, code: int 0, uint 1, float 2,
//                bfloat 3, bool 4, handle 5 (void is handle with 0 bits, 0 lanes)
//   S(string)  = [byte length], then the bytes in words of 8, little-endian, the
//                last word zero-padded
//   T(absent)  = [0]
//   an expression starts with [kind | dtype << 8] (kind codes below), then:
//     Var        bound, or matched free under map_free_vars: [binding number]
//                free otherwise: [2^64 - 1], S(name)
//     IntImm     [value as two's complement]      FloatImm  [bits of the double]
//     binary     T(a), T(b)                       Not       T(a)
//     Select     T(condition), T(true_value), T(false_value)
//     Cast       T(value)                         Ramp      T(base), T(stride), [lanes]
//     BufferLoad U(buffer), [count], T(index)...  Broadcast T(value), [lanes]
//     Call       [0 intrinsic | 1 extern], S(name), [count], T(arg)...
//   U(buffer use) = [51, binding number] when bound or matched; free otherwise:
//                under map_free_vars [52], D(buffer) (first use binds it);
//                without, [53], S(name), [dtype]
//   D(buffer definition) = [48, dtype, ndim], T(shape)..., [count], T(stride)...,
//                T(elem_offset), S(scope), [alignment]; then the buffer is bound
//   statements:
//     BufferStore  [32], U(buffer), T(value), [count], T(index)...
//     For          [33], T(min), T(extent), [loop_var dtype] (binds loop_var),
//                  [for_kind], S(thread_tag), A(annotations), T(body)
//     IfThenElse   [34], T(condition), T(then_case), T(else_case)
//     LetStmt      [35], T(value), [var dtype] (binds var), T(body)
//     SeqStmt      [36], [count], T(stmt)...
//     Evaluate     [37], T(value)
//     Allocate     [38], D(buffer), T(body)
//     DeclBuffer   [39], U(source), D(buffer), T(body)
//     BlockRealize [41], [count], T(iter_value)..., T(predicate), T(block)
//     Block        [40], S(name), [count], per iter var: [var dtype], T(dom.min),
//                  T(dom.extent), [kind: spatial 0, reduce 1, opaque 2]; then the
//                  iter vars are bound in order; [count], D(alloc_buffer)...,
//                  R(reads), R(writes), T(init), T(body), A(annotations)
//   R(regions)  = [count], per region: U(buffer), [count], per range T(min), T(extent)
//   PrimFunc    = [49, count], per parameter [0, var dtype] (binds the var) or [1];
//                then per buffer parameter, in order, D(buffer) where any variable
//                not yet bound is bound (symbolic shapes); A(attrs), T(body)
//   IRModule    = [50, count], per function S(name), T(PrimFunc); A(attrs)
//   A(attrs)    = [count], per entry in byte order of keys: S(key), V(value)
//   V(value)    = [0, int] | [1, bits of the double] | [2, 0 or 1] | [3], S |
//                [4], T(expr) | [5, count], V(element)...
//   for_kind    = serial 0, parallel 1, vectorized 2, unrolled 3, thread 4
//   kind codes  = Var 1, IntImm 2, FloatImm 3, Add 4, Sub 5, Mul 6, Div 7, Mod 8,
//                FloorDiv 9, FloorMod 10, Min 11, Max 12, EQ 13, NE 14, LT 15,
//                LE 16, GT 17, GE 18, And 19, Or 20, Not 21, Select 22, Cast 23,
//                BufferLoad 24, Ramp 25, Broadcast 26, Call 27
//
// Binding numbers count every binding of a variable or buffer (and every first
// use of a free one under map_free_vars) from 0 in traversal order, across the
// whole traversal. A binding is scoped as in StructuralEqual: after a loop, its
// variable again means what it meant before. Since equal IR produces the same
// stream, equal IR hashes equal; the tests pin a few values so that any change
// of the stream is noticed (then bump kStructuralHashVersion).
#include "ir/structural_hash.h"

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tessel::ir {
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kSeed = 0x74657373656C0000ULL;
constexpr uint64_t kFreeVarMark = ~uint64_t{0};

constexpr uint64_t kTagBuffer = 48;
constexpr uint64_t kTagPrimFunc = 49;
constexpr uint64_t kTagModule = 50;
constexpr uint64_t kTagBufferRef = 51;
constexpr uint64_t kTagFreeBufferMapped = 52;
constexpr uint64_t kTagFreeBuffer = 53;
constexpr uint64_t kTagGraphFunc = 54;
constexpr uint64_t kTagConstant = 55;

// Stable codes: NodeKind's numbering may change, the stored hash may not.
uint64_t KindCode(NodeKind k) {
  switch (k) {
    case NodeKind::kVar: return 1;
    case NodeKind::kIntImm: return 2;
    case NodeKind::kFloatImm: return 3;
    case NodeKind::kAdd: return 4;
    case NodeKind::kSub: return 5;
    case NodeKind::kMul: return 6;
    case NodeKind::kDiv: return 7;
    case NodeKind::kMod: return 8;
    case NodeKind::kFloorDiv: return 9;
    case NodeKind::kFloorMod: return 10;
    case NodeKind::kMin: return 11;
    case NodeKind::kMax: return 12;
    case NodeKind::kEQ: return 13;
    case NodeKind::kNE: return 14;
    case NodeKind::kLT: return 15;
    case NodeKind::kLE: return 16;
    case NodeKind::kGT: return 17;
    case NodeKind::kGE: return 18;
    case NodeKind::kAnd: return 19;
    case NodeKind::kOr: return 20;
    case NodeKind::kNot: return 21;
    case NodeKind::kSelect: return 22;
    case NodeKind::kCast: return 23;
    case NodeKind::kBufferLoad: return 24;
    case NodeKind::kRamp: return 25;
    case NodeKind::kBroadcast: return 26;
    case NodeKind::kCall: return 27;
    case NodeKind::kBufferStore: return 32;
    case NodeKind::kFor: return 33;
    case NodeKind::kIfThenElse: return 34;
    case NodeKind::kLetStmt: return 35;
    case NodeKind::kSeqStmt: return 36;
    case NodeKind::kEvaluate: return 37;
    case NodeKind::kAllocate: return 38;
    case NodeKind::kDeclBuffer: return 39;
    case NodeKind::kBlock: return 40;
    case NodeKind::kBlockRealize: return 41;
    case NodeKind::kBuffer: return kTagBuffer;
    case NodeKind::kPrimFunc: return kTagPrimFunc;
    case NodeKind::kGraphFunc:
      return kTagGraphFunc;
    case NodeKind::kIRModule: return kTagModule;
  }
  return 63;
}

uint64_t DTypeWord(DataType t) {
  uint64_t code = 0;
  switch (t.code()) {
    case DataType::Code::kInt: code = 0; break;
    case DataType::Code::kUInt: code = 1; break;
    case DataType::Code::kFloat: code = 2; break;
    case DataType::Code::kBFloat: code = 3; break;
    case DataType::Code::kBool: code = 4; break;
    case DataType::Code::kHandle: code = 5; break;
  }
  return code | static_cast<uint64_t>(t.bits()) << 8 | static_cast<uint64_t>(t.lanes()) << 16;
}

uint64_t ForKindCode(ForKind k) {
  switch (k) {
    case ForKind::kSerial: return 0;
    case ForKind::kParallel: return 1;
    case ForKind::kVectorized: return 2;
    case ForKind::kUnrolled: return 3;
    case ForKind::kThreadBinding: return 4;
  }
  return 5;
}

uint64_t IterKindCode(IterKind k) {
  switch (k) {
    case IterKind::kSpatial: return 0;
    case IterKind::kReduce: return 1;
    case IterKind::kOpaque: return 2;
  }
  return 3;
}

class Hasher {
 public:
  explicit Hasher(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  uint64_t Finish() const {
    uint64_t h = acc_ ^ count_;
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }

  void Module(const IRModuleNode* m);
  void Func(const PrimFuncNode* f);
  void Graph(const GraphFuncNode* g);
  void S(const StmtNode* s);
  void E(const ExprNode* e);

 private:
  struct Undo {
    const Node* key;
    uint64_t prev;  // kUnbound: was not bound.
  };
  static constexpr uint64_t kUnbound = ~uint64_t{0};

  void W(uint64_t w) {
    acc_ = std::rotl(acc_ + w * kP2, 31) * kP1;
    ++count_;
  }
  void Str(const std::string& s) { Bytes(s.data(), s.size()); }
  // The length, then little-endian words of 8 bytes (the last one partial): the
  // encoding of strings since v1, so a constant's bytes hash the same way.
  void Bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    W(n);
    for (size_t i = 0; i < n; i += 8) {
      uint64_t word = 0;
      for (size_t j = 0; j < 8 && i + j < n; ++j)
        word |= static_cast<uint64_t>(p[i + j]) << (8 * j);
      W(word);
    }
  }

  size_t Mark() const { return log_.size(); }
  void Restore(size_t mark) {
    while (log_.size() > mark) {
      const Undo& u = log_.back();
      if (u.prev == kUnbound) {
        index_.erase(u.key);
      } else {
        index_[u.key] = u.prev;
      }
      log_.pop_back();
    }
  }
  void Bind(const Node* key) {
    auto [it, inserted] = index_.try_emplace(key, next_);
    log_.push_back(Undo{key, inserted ? kUnbound : it->second});
    it->second = next_++;
  }
  void BindVar(const Var& v) {
    if (!v) return W(0);
    W(DTypeWord(v->dtype));
    Bind(v.get());
  }

  void VarUse(const VarNode* v);
  void BufferUse(const Buffer& b);
  void BufferFields(const BufferNode* b);
  void BufferDef(const Buffer& b, bool defines_shape_vars);
  void Exprs(const std::vector<Expr>& es) {
    W(es.size());
    for (const Expr& e : es) E(e.get());
  }
  void Regions(const std::vector<BufferRegion>& rs);
  void Block(const BlockNode* b);
  void AttrsHash(const Attrs& attrs);
  void AttrHash(const AttrValue& v);

  bool map_free_vars_;
  bool defining_ = false;  // In a parameter buffer's definition (see StructuralEqual).
  uint64_t acc_ = kSeed + kStructuralHashVersion;
  uint64_t count_ = 0;
  uint64_t next_ = 0;  // The next binding number.
  absl::flat_hash_map<const Node*, uint64_t> index_;
  std::vector<Undo> log_;
};

void Hasher::VarUse(const VarNode* v) {
  auto it = index_.find(v);
  if (it != index_.end()) return W(it->second);
  if (defining_) {
    Bind(v);
    return W(next_ - 1);
  }
  if (map_free_vars_) {
    index_.emplace(v, next_);  // Matched for good, as in StructuralEqual.
    return W(next_++);
  }
  W(kFreeVarMark);
  Str(v->name);
}

void Hasher::BufferUse(const Buffer& b) {
  if (!b) return W(0);
  auto it = index_.find(b.get());
  if (it != index_.end()) {
    W(kTagBufferRef);
    return W(it->second);
  }
  if (map_free_vars_) {
    W(kTagFreeBufferMapped);
    BufferFields(b.get());
    index_.emplace(b.get(), next_++);
    return;
  }
  W(kTagFreeBuffer);
  Str(b->name);
  W(DTypeWord(b->dtype));
}

void Hasher::BufferFields(const BufferNode* b) {
  W(kTagBuffer);
  W(DTypeWord(b->dtype));
  W(b->shape.size());
  for (const Expr& e : b->shape) E(e.get());
  Exprs(b->strides);
  E(b->elem_offset.get());
  Str(b->scope);
  W(static_cast<uint64_t>(static_cast<int64_t>(b->alignment)));
}

void Hasher::BufferDef(const Buffer& b, bool defines_shape_vars) {
  if (!b) return W(0);
  defining_ = defines_shape_vars;
  BufferFields(b.get());
  defining_ = false;
  Bind(b.get());
}

void Hasher::Regions(const std::vector<BufferRegion>& rs) {
  W(rs.size());
  for (const BufferRegion& r : rs) {
    BufferUse(r.buffer);
    W(r.region.size());
    for (const Range& range : r.region) {
      E(range.min.get());
      E(range.extent.get());
    }
  }
}

void Hasher::AttrHash(const AttrValue& v) {
  W(v.storage().index());
  if (const auto* x = v.get_if<int64_t>()) {
    W(static_cast<uint64_t>(*x));
  } else if (const auto* x = v.get_if<double>()) {
    W(std::bit_cast<uint64_t>(*x));
  } else if (const auto* x = v.get_if<bool>()) {
    W(*x ? 1 : 0);
  } else if (const auto* x = v.get_if<std::string>()) {
    Str(*x);
  } else if (const auto* x = v.get_if<Expr>()) {
    E(x->get());
  } else if (const auto* x = v.get_if<AttrValue::List>()) {
    W(x->size());
    for (const AttrValue& e : *x) AttrHash(e);
  }
}

void Hasher::AttrsHash(const Attrs& attrs) {
  W(attrs.size());
  for (const auto& [key, value] : attrs) {
    Str(key);
    AttrHash(value);
  }
}

void Hasher::E(const ExprNode* e) {
  if (e == nullptr) return W(0);
  W(KindCode(e->kind()) | DTypeWord(e->dtype) << 8);
  switch (e->kind()) {
    case NodeKind::kVar: return VarUse(static_cast<const VarNode*>(e));
    case NodeKind::kIntImm: return W(static_cast<uint64_t>(static_cast<const IntImmNode*>(e)->value));
    case NodeKind::kFloatImm:
      return W(std::bit_cast<uint64_t>(static_cast<const FloatImmNode*>(e)->value));
    case NodeKind::kNot: return E(static_cast<const NotNode*>(e)->a.get());
    case NodeKind::kSelect: {
      const auto* x = static_cast<const SelectNode*>(e);
      E(x->condition.get());
      E(x->true_value.get());
      return E(x->false_value.get());
    }
    case NodeKind::kCast: return E(static_cast<const CastNode*>(e)->value.get());
    case NodeKind::kBufferLoad: {
      const auto* x = static_cast<const BufferLoadNode*>(e);
      BufferUse(x->buffer);
      return Exprs(x->indices);
    }
    case NodeKind::kRamp: {
      const auto* x = static_cast<const RampNode*>(e);
      E(x->base.get());
      E(x->stride.get());
      return W(static_cast<uint64_t>(static_cast<int64_t>(x->lanes)));
    }
    case NodeKind::kBroadcast: {
      const auto* x = static_cast<const BroadcastNode*>(e);
      E(x->value.get());
      return W(static_cast<uint64_t>(static_cast<int64_t>(x->lanes)));
    }
    case NodeKind::kCall: {
      const auto* x = static_cast<const CallNode*>(e);
      W(static_cast<int>(x->callee));
      Str(x->name);
      return Exprs(x->args);
    }
    default: {
      const auto* x = static_cast<const BinaryNode*>(e);
      E(x->a.get());
      return E(x->b.get());
    }
  }
}

void Hasher::Block(const BlockNode* b) {
  W(KindCode(NodeKind::kBlock));
  Str(b->name);
  W(b->iter_vars.size());
  for (const IterVar& iv : b->iter_vars) {
    W(iv.var ? DTypeWord(iv.var->dtype) : 0);
    E(iv.dom.min.get());
    E(iv.dom.extent.get());
    W(IterKindCode(iv.kind));
  }
  size_t mark = Mark();
  for (const IterVar& iv : b->iter_vars) {
    if (iv.var) Bind(iv.var.get());
  }
  W(b->alloc_buffers.size());
  for (const Buffer& buf : b->alloc_buffers) BufferDef(buf, false);
  Regions(b->reads);
  Regions(b->writes);
  S(b->init.get());
  S(b->body.get());
  AttrsHash(b->annotations);
  Restore(mark);
}

void Hasher::S(const StmtNode* s) {
  if (s == nullptr) return W(0);
  if (s->kind() == NodeKind::kBlock) return Block(static_cast<const BlockNode*>(s));
  W(KindCode(s->kind()));
  switch (s->kind()) {
    case NodeKind::kBufferStore: {
      const auto* x = static_cast<const BufferStoreNode*>(s);
      BufferUse(x->buffer);
      E(x->value.get());
      return Exprs(x->indices);
    }
    case NodeKind::kFor: {
      const auto* x = static_cast<const ForNode*>(s);
      E(x->min.get());
      E(x->extent.get());
      size_t mark = Mark();
      BindVar(x->loop_var);
      W(ForKindCode(x->for_kind));
      Str(x->thread_tag);
      AttrsHash(x->annotations);
      S(x->body.get());
      return Restore(mark);
    }
    case NodeKind::kIfThenElse: {
      const auto* x = static_cast<const IfThenElseNode*>(s);
      E(x->condition.get());
      S(x->then_case.get());
      return S(x->else_case.get());
    }
    case NodeKind::kLetStmt: {
      const auto* x = static_cast<const LetStmtNode*>(s);
      E(x->value.get());
      size_t mark = Mark();
      BindVar(x->var);
      S(x->body.get());
      return Restore(mark);
    }
    case NodeKind::kSeqStmt: {
      const auto& seq = static_cast<const SeqStmtNode*>(s)->seq;
      W(seq.size());
      for (const Stmt& st : seq) S(st.get());
      return;
    }
    case NodeKind::kEvaluate: return E(static_cast<const EvaluateNode*>(s)->value.get());
    case NodeKind::kAllocate: {
      const auto* x = static_cast<const AllocateNode*>(s);
      size_t mark = Mark();
      BufferDef(x->buffer, false);
      S(x->body.get());
      return Restore(mark);
    }
    case NodeKind::kDeclBuffer: {
      const auto* x = static_cast<const DeclBufferNode*>(s);
      BufferUse(x->source);
      size_t mark = Mark();
      BufferDef(x->buffer, false);
      S(x->body.get());
      return Restore(mark);
    }
    case NodeKind::kBlockRealize: {
      const auto* x = static_cast<const BlockRealizeNode*>(s);
      Exprs(x->iter_values);
      E(x->predicate.get());
      return S(x->block.get());
    }
    default: return;
  }
}

void Hasher::Func(const PrimFuncNode* f) {
  if (f == nullptr) return W(0);
  W(kTagPrimFunc);
  W(f->params.size());
  size_t mark = Mark();
  for (const Param& p : f->params) {
    if (p.is_buffer()) {
      W(1);
    } else {
      W(0);
      BindVar(p.var);
    }
  }
  for (const Param& p : f->params) {
    if (p.is_buffer()) BufferDef(p.buffer, true);
  }
  AttrsHash(f->attrs);
  S(f->body.get());
  Restore(mark);
}

void Hasher::Graph(const GraphFuncNode* g) {
  if (g == nullptr) return W(0);
  W(kTagGraphFunc);
  size_t mark = Mark();
  W(g->params.size());
  for (const Buffer& p : g->params) BufferDef(p, true);
  W(g->bindings.size());
  for (const GraphBinding& b : g->bindings) {
    W(static_cast<uint64_t>(b.call.kind));  // 0 op, 1 call_tir, 2 const: stored, keep stable.
    Str(b.call.callee);
    W(b.call.args.size());
    for (const Buffer& a : b.call.args) BufferUse(a);
    AttrsHash(b.call.attrs);
    W(b.outputs.size());
    for (const Buffer& o : b.outputs) BufferDef(o, false);
  }
  W(g->results.size());
  for (const Buffer& r : g->results) BufferUse(r);
  AttrsHash(g->attrs);
  Restore(mark);
}

void Hasher::Module(const IRModuleNode* m) {
  if (m == nullptr) return W(0);
  W(kTagModule);
  W(m->functions.size());
  for (const auto& [name, f] : m->functions) {
    Str(name);
    Func(f.get());
  }
  // Only when present, so that a module of PrimFuncs keeps the hash that
  // databases of version 1 stored for it.
  if (!m->graph_functions.empty()) {
    W(kTagGraphFunc);
    W(m->graph_functions.size());
    for (const auto& [name, g] : m->graph_functions) {
      Str(name);
      Graph(g.get());
    }
  }
  if (!m->constants.empty()) {
    W(kTagConstant);
    W(m->constants.size());
    for (const auto& [name, c] : m->constants) {
      Str(name);
      Str(c.dtype().ToString());
      W(c.shape().size());
      for (int64_t d : c.shape()) W(static_cast<uint64_t>(d));
      Bytes(c.data(), static_cast<size_t>(c.byte_size()));
    }
  }
  AttrsHash(m->attrs);
}

}  // namespace

uint64_t StructuralHash(const IRModule& mod, bool map_free_vars) {
  Hasher h(map_free_vars);
  h.Module(mod.get());
  return h.Finish();
}

uint64_t StructuralHash(const PrimFunc& func, bool map_free_vars) {
  Hasher h(map_free_vars);
  h.Func(func.get());
  return h.Finish();
}

uint64_t StructuralHash(const Stmt& stmt, bool map_free_vars) {
  Hasher h(map_free_vars);
  h.S(stmt.get());
  return h.Finish();
}

uint64_t StructuralHash(const Expr& expr, bool map_free_vars) {
  Hasher h(map_free_vars);
  h.E(expr.get());
  return h.Finish();
}

}  // namespace tessel::ir
