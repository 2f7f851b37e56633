// The region rule of the verifier (see verify_regions.h).
//
//   for k in range(0, 4) { C[vi] = C[vi] + A[vi * 4 + k] }   under reads(A[vi * 4 +: 2])
//   containment: 0 <= vi*4 + k - vi*4 < 2 is not provable (k ranges up to 3);
//   escape: at k = 3 (the loop's last iteration, for every vi) the load reads
//   A[vi * 4 + 3], past the region's end vi * 4 + 2  ->  refused.
#include "ir/verify_regions.h"

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/printer.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace tessel::ir {
namespace {

// A comparison of two index expressions, the narrower one widened; nullopt
// when they are not both scalar signed integers (the rule then cannot decide).
std::optional<Expr> Compare(NodeKind kind, Expr a, Expr b) {
  if (!a || !b || !arith::IsIndexType(a->dtype) || !arith::IsIndexType(b->dtype)) return std::nullopt;
  if (a->dtype.bits() < b->dtype.bits()) a = *MakeCast(b->dtype, a);
  if (b->dtype.bits() < a->dtype.bits()) b = *MakeCast(a->dtype, b);
  absl::StatusOr<Expr> e = MakeBinary(kind, std::move(a), std::move(b));
  return e.ok() ? std::optional<Expr>(*std::move(e)) : std::nullopt;
}

std::optional<Expr> End(const Range& r) {
  if (!r.min || !r.extent || !arith::IsIndexType(r.min->dtype) ||
      !arith::IsIndexType(r.extent->dtype)) {
    return std::nullopt;
  }
  Expr min = r.min, extent = r.extent;
  if (min->dtype.bits() < extent->dtype.bits()) min = *MakeCast(extent->dtype, min);
  if (extent->dtype.bits() < min->dtype.bits()) extent = *MakeCast(min->dtype, extent);
  absl::StatusOr<Expr> e = MakeBinary(NodeKind::kAdd, min, extent);
  return e.ok() ? std::optional<Expr>(*std::move(e)) : std::nullopt;
}

// A variable the block runs over, a witness of an escape may pin it to either
// end of its range.
struct Spot {
  Var var;
  Expr lo, hi;     // The first and the last value; null when the range is empty.
  bool constant;   // Both ends are constants.
  bool nonempty;   // The range provably holds a value.
};

class AccessScan : public IRVisitor {
 public:
  explicit AccessScan(const BlockNode& block) : block_(block) {
    for (const IterVar& iv : block.iter_vars) Enter(iv.var, iv.dom);
    for (const Buffer& b : block.alloc_buffers) own_.insert(b.get());
  }

  std::optional<RegionEscape> Run() {
    // A block without iter vars that declares no region (a root block, an
    // opaque wrapper) states nothing about its accesses to hold it to.
    if (block_.iter_vars.empty() && block_.reads.empty() && block_.writes.empty()) return {};
    if (block_.init) Visit(block_.init);
    if (!found_) Visit(block_.body);
    return std::move(found_);
  }

 private:
  void Visit(const Stmt& s) {
    if (s && !found_) VisitStmt(s);
  }
  void VisitExprIn(const StmtNode* at, const Expr& e) {
    if (!e || found_) return;
    const StmtNode* saved = stmt_;
    stmt_ = at;
    VisitExpr(e);
    stmt_ = saved;
  }

  // `v` ranges over `r` from here to the end of the enclosing scope.
  void Enter(const Var& v, const Range& r) {
    ana_.Bind(v, r);
    Spot s{v, nullptr, nullptr, false, false};
    std::optional<Expr> end = End(r);
    if (end) {
      std::optional<Expr> one = Compare(NodeKind::kGE, r.extent, *MakeIntImm(r.extent->dtype, 1));
      absl::StatusOr<Expr> last = MakeBinary(NodeKind::kSub, *end, *MakeIntImm((*end)->dtype, 1));
      s.nonempty = one && last.ok() && ana_.CanProve(*one);
      if (s.nonempty) {
        // In terms of the spots outside: a witness pins those first.
        s.lo = ana_.Simplify(r.min);
        s.hi = ana_.Simplify(*last);
        s.constant = arith::AsConstInt(s.lo) && arith::AsConstInt(s.hi);
      }
    }
    spots_.push_back(std::move(s));
  }

  void VisitFor(const ForNode* op) override {
    VisitExprIn(op, op->min);
    VisitExprIn(op, op->extent);
    arith::Analyzer::Scope scope(&ana_);
    Enter(op->loop_var, Range{op->min, op->extent});
    Visit(op->body);
    spots_.pop_back();
  }
  void VisitIfThenElse(const IfThenElseNode* op) override {
    VisitExprIn(op, op->condition);
    // An access under an `if` may never run: it is checked for containment
    // under the condition, and never refused on a witness.
    ++guards_;
    {
      arith::Analyzer::Scope scope(&ana_);
      ana_.EnterConstraint(op->condition);
      Visit(op->then_case);
    }
    if (op->else_case) {
      arith::Analyzer::Scope scope(&ana_);
      if (absl::StatusOr<Expr> no = MakeNot(op->condition); no.ok()) ana_.EnterConstraint(*no);
      Visit(op->else_case);
    }
    --guards_;
  }
  void VisitLetStmt(const LetStmtNode* op) override {
    VisitExprIn(op, op->value);
    arith::Analyzer::Scope scope(&ana_);
    ana_.Bind(op->var, op->value);
    lets_[op->var.get()] = Substitute(op->value, lets_);
    Visit(op->body);
    lets_.erase(op->var.get());
  }
  void VisitEvaluate(const EvaluateNode* op) override { VisitExprIn(op, op->value); }
  void VisitAllocate(const AllocateNode* op) override {
    own_.insert(op->buffer.get());
    Visit(op->body);
  }
  void VisitDeclBuffer(const DeclBufferNode* op) override {
    // A view addresses its source in its own shape: it is left undecided.
    own_.insert(op->buffer.get());
    Visit(op->body);
  }
  void VisitBlockRealize(const BlockRealizeNode* op) override {
    // A nested block's bindings and predicate run in this block; its body
    // answers to its own regions.
    for (const Expr& v : op->iter_values) VisitExprIn(op, v);
    VisitExprIn(op, op->predicate);
  }
  void VisitBufferStore(const BufferStoreNode* op) override {
    VisitExprIn(op, op->value);
    for (const Expr& i : op->indices) VisitExprIn(op, i);
    const StmtNode* saved = stmt_;
    stmt_ = op;
    Check(op->buffer, op->indices, nullptr);
    stmt_ = saved;
  }
  void VisitBufferLoad(const BufferLoadNode* op) override {
    IRVisitor::VisitBufferLoad(op);
    Check(op->buffer, op->indices, op);
  }

  void Check(const Buffer& buffer, const std::vector<Expr>& indices, const BufferLoadNode* load);
  bool Inside(const std::vector<Expr>& idx, const BufferRegion& r);
  bool Outside(const std::vector<Expr>& idx, const BufferRegion& r, const VarMap& at);
  std::vector<VarMap> Witnesses() const;

  const BlockNode& block_;
  arith::Analyzer ana_;
  std::vector<Spot> spots_;  // Iter vars, then the loops around the access.
  VarMap lets_;              // Let variables by their values.
  absl::flat_hash_set<const BufferNode*> own_;
  int guards_ = 0;
  const StmtNode* stmt_ = nullptr;
  std::optional<RegionEscape> found_;
};

bool AccessScan::Inside(const std::vector<Expr>& idx, const BufferRegion& r) {
  if (r.region.size() != idx.size()) return false;
  for (size_t d = 0; d < idx.size(); ++d) {
    std::optional<Expr> end = End(r.region[d]);
    std::optional<Expr> lo = Compare(NodeKind::kGE, idx[d], r.region[d].min);
    std::optional<Expr> hi = end ? Compare(NodeKind::kLT, idx[d], *end) : std::nullopt;
    if (!lo || !hi || !ana_.CanProve(*lo) || !ana_.CanProve(*hi)) return false;
  }
  return true;
}

bool AccessScan::Outside(const std::vector<Expr>& idx, const BufferRegion& r, const VarMap& at) {
  if (r.region.size() != idx.size()) return false;
  for (size_t d = 0; d < idx.size(); ++d) {
    std::optional<Expr> end = End(r.region[d]);
    if (!end) continue;
    Expr i = Substitute(idx[d], at);
    std::optional<Expr> before = Compare(NodeKind::kLT, i, Substitute(r.region[d].min, at));
    std::optional<Expr> after = Compare(NodeKind::kGE, i, Substitute(*end, at));
    if ((before && ana_.CanProve(*before)) || (after && ana_.CanProve(*after))) return true;
  }
  return false;
}

// Points the block certainly runs, when every range is non-empty: the loops
// around the access at their first or last iteration (the iter vars left
// symbolic), then the corners of all spots with constant ends.
std::vector<VarMap> AccessScan::Witnesses() const {
  std::vector<VarMap> out;
  const size_t n_iter = block_.iter_vars.size();
  for (bool last : {false, true}) {
    VarMap m;
    for (size_t k = n_iter; k < spots_.size(); ++k) {
      m[spots_[k].var.get()] = Substitute(last ? spots_[k].hi : spots_[k].lo, m);
    }
    out.push_back(std::move(m));
  }
  std::vector<const Spot*> fixed;
  for (const Spot& s : spots_) {
    if (s.constant) fixed.push_back(&s);
  }
  // Every corner up to four pinned variables; beyond, the two extreme ones.
  const bool all_corners = fixed.size() <= 4;
  const uint32_t corners = all_corners ? (1u << fixed.size()) : 2u;
  for (uint32_t c = 0; c < corners; ++c) {
    VarMap m;
    for (size_t k = 0; k < fixed.size(); ++k) {
      bool hi = all_corners ? ((c >> k) & 1u) != 0 : c == 1;
      m[fixed[k]->var.get()] = hi ? fixed[k]->hi : fixed[k]->lo;
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::string RegionsText(const std::vector<const BufferRegion*>& regions) {
  std::vector<std::string> parts;
  for (const BufferRegion* r : regions) {
    parts.push_back(arith::AccessRegionToString(arith::AccessRegion{*r, true}));
  }
  return absl::StrJoin(parts, ", ");
}

void AccessScan::Check(const Buffer& buffer, const std::vector<Expr>& indices,
                       const BufferLoadNode* load) {
  if (found_ || own_.contains(buffer.get())) return;
  const bool is_load = load != nullptr;
  // The regions this access may lie in.
  std::vector<const BufferRegion*> regions;
  if (is_load) {
    for (const BufferRegion& r : block_.reads) {
      if (r.buffer.get() == buffer.get()) regions.push_back(&r);
    }
  }
  if (!is_load || block_.init) {
    for (const BufferRegion& r : block_.writes) {
      if (r.buffer.get() == buffer.get()) regions.push_back(&r);
    }
  }
  std::vector<Expr> idx;
  for (const Expr& i : indices) idx.push_back(lets_.empty() ? i : Substitute(i, lets_));
  for (const BufferRegion* r : regions) {
    if (Inside(idx, *r)) return;
  }
  // Not shown inside. An escape needs a point that certainly runs.
  if (guards_ > 0) return;
  for (const Spot& s : spots_) {
    if (!s.nonempty) return;
  }
  const std::string what = is_load ? "load" : "store";
  const std::string access =
      is_load ? PrintExpr(GetRef(load)) : PrintExpr(*MakeBufferLoad(buffer, indices));
  const char* kind = is_load ? (block_.init ? "read or write" : "read") : "write";
  if (regions.empty()) {
    found_ = RegionEscape{stmt_, load,
                          absl::StrCat("the ", what, " ", access, " ", is_load ? "reads" : "writes",
                                       " buffer '", buffer->name, "', of which the block declares no ",
                                       kind, " region; declared regions must cover every access")};
    return;
  }
  for (const VarMap& at : Witnesses()) {
    bool everywhere_out = true;
    for (const BufferRegion* r : regions) everywhere_out = everywhere_out && Outside(idx, *r, at);
    if (!everywhere_out) continue;
    std::vector<std::string> pinned, touched;
    for (const Spot& s : spots_) {
      if (auto it = at.find(s.var.get()); it != at.end()) {
        pinned.push_back(absl::StrCat(s.var->name, " = ", PrintExpr(ana_.Simplify(it->second))));
      }
    }
    for (const Expr& i : idx) touched.push_back(PrintExpr(ana_.Simplify(Substitute(i, at))));
    std::string where = pinned.empty() ? "for every value of the block's iter vars"
                                       : absl::StrCat("at ", absl::StrJoin(pinned, ", "));
    found_ = RegionEscape{
        stmt_, load,
        absl::StrCat("the ", what, " ", access, " lies outside the ", kind, " region",
                     regions.size() > 1 ? "s " : " ", RegionsText(regions), " of buffer '",
                     buffer->name, "' that the block declares (", where, " it ",
                     is_load ? "reads " : "writes ", buffer->name, "[",
                     absl::StrJoin(touched, ", "), "]); declared regions must cover every access")};
    return;
  }
}

}  // namespace

std::optional<RegionEscape> FindRegionEscape(const BlockNode& block) {
  return AccessScan(block).Run();
}

}  // namespace tessel::ir
