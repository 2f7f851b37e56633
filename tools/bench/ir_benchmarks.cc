// Benchmarks of the IR core: structural hash and equality on a ~10,000-node function.
//
//   tessel-bench --filter=structural_   ->  structural_hash/10k_nodes, structural_equal/10k_nodes
//
// The workload is a chain of 1-D stencil stages in block form, each stage
//   for i, j: block stage_s(vi = i, vj = j) {
//     T_s[vi, vj] = select(vj > 0, sum_t c_t * T_{s-1}[vi, (vj + t) %% 64], 0) }
// which has every kind of binding (params, loops, iter vars, allocations) and
// enough buffer loads and constants to look like real scheduled IR.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/function.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "ir/visitor.h"
#include "tools/bench/benchmark.h"

namespace tessel::bench {
namespace {

using namespace ::tessel::ir;  // NOLINT: a tool file built only from IR nodes.

constexpr int kStages = 51;  // Gives ~10,000 nodes.
constexpr int kTaps = 16;
constexpr int64_t kSize = 64;

// Counts the expression and statement nodes a visitor reaches, plus buffer definitions.
class NodeCounter : public IRVisitor {
 public:
  int64_t count = 0;
  void VisitVar(const VarNode* op) override { ++count; }
  void VisitIntImm(const IntImmNode* op) override { ++count; }
  void VisitFloatImm(const FloatImmNode* op) override { ++count; }
  void VisitBinary(const BinaryNode* op) override { ++count; IRVisitor::VisitBinary(op); }
  void VisitNot(const NotNode* op) override { ++count; IRVisitor::VisitNot(op); }
  void VisitSelect(const SelectNode* op) override { ++count; IRVisitor::VisitSelect(op); }
  void VisitCast(const CastNode* op) override { ++count; IRVisitor::VisitCast(op); }
  void VisitBufferLoad(const BufferLoadNode* op) override { ++count; IRVisitor::VisitBufferLoad(op); }
  void VisitRamp(const RampNode* op) override { ++count; IRVisitor::VisitRamp(op); }
  void VisitBroadcast(const BroadcastNode* op) override { ++count; IRVisitor::VisitBroadcast(op); }
  void VisitCall(const CallNode* op) override { ++count; IRVisitor::VisitCall(op); }
  void VisitBufferStore(const BufferStoreNode* op) override { ++count; IRVisitor::VisitBufferStore(op); }
  void VisitFor(const ForNode* op) override { ++count; IRVisitor::VisitFor(op); }
  void VisitIfThenElse(const IfThenElseNode* op) override { ++count; IRVisitor::VisitIfThenElse(op); }
  void VisitLetStmt(const LetStmtNode* op) override { ++count; IRVisitor::VisitLetStmt(op); }
  void VisitSeqStmt(const SeqStmtNode* op) override { ++count; IRVisitor::VisitSeqStmt(op); }
  void VisitEvaluate(const EvaluateNode* op) override { ++count; IRVisitor::VisitEvaluate(op); }
  void VisitAllocate(const AllocateNode* op) override { ++count; IRVisitor::VisitAllocate(op); }
  void VisitDeclBuffer(const DeclBufferNode* op) override { ++count; IRVisitor::VisitDeclBuffer(op); }
  void VisitBlock(const BlockNode* op) override { ++count; IRVisitor::VisitBlock(op); }
  void VisitBlockRealize(const BlockRealizeNode* op) override { ++count; IRVisitor::VisitBlockRealize(op); }
  void VisitBufferDef(const Buffer& b) override { ++count; IRVisitor::VisitBufferDef(b); }
};

int64_t CountNodes(const PrimFunc& f) {
  NodeCounter c;
  c.VisitPrimFunc(f);
  return c.count;
}

// The stencil chain; `suffix` renames every variable and buffer, so two calls with
// different suffixes build structurally equal functions that share no node.
PrimFunc StencilChain(const std::string& suffix) {
  const DataType f32 = DataType::Float(32);
  const DataType i32 = DataType::Int(32);
  Expr n = IntImm32(kSize);
  Buffer input = MakeBuffer("In" + suffix, f32, {n, n});
  Buffer output = MakeBuffer("Out" + suffix, f32, {n, n});
  std::vector<Buffer> temps;
  std::vector<Stmt> stages;
  Buffer prev = input;
  for (int s = 0; s < kStages; ++s) {
    Buffer dst = s + 1 == kStages ? output
                                  : MakeBuffer(absl::StrCat("T", s, suffix), f32, {n, n}, "local");
    if (dst.get() != output.get()) temps.push_back(dst);
    Var i = MakeVar("i" + suffix, i32), j = MakeVar("j" + suffix, i32);
    Var vi = MakeVar("vi" + suffix, i32), vj = MakeVar("vj" + suffix, i32);
    Expr sum;
    for (int t = 0; t < kTaps; ++t) {
      Expr col = FloorMod(Add(vj, IntImm32(t)), n);
      Expr term = Mul(Load(prev, {vi, col}), FloatImm(f32, 0.125 * (t + 1)));
      sum = sum ? Add(sum, term) : term;
    }
    Expr value = Select(GT(vj, IntImm32(0)), sum, FloatImm(f32, 0.0));
    Range dom{IntImm32(0), n};
    Block block = ValueOrDie(MakeBlock(
        absl::StrCat("stage_", s),
        {IterVar{vi, dom, IterKind::kSpatial}, IterVar{vj, dom, IterKind::kSpatial}},
        {BufferRegion{prev, {Range{vi, IntImm32(1)}, Range{IntImm32(0), n}}}},
        {PointRegion(dst, {vi, vj})}, Store(dst, value, {vi, vj})));
    Stmt body = ValueOrDie(MakeBlockRealize({i, j}, Bool(true), block));
    stages.push_back(For(i, IntImm32(0), n, For(j, IntImm32(0), n, body)));
    prev = dst;
  }
  Stmt body = Seq(stages);
  for (auto it = temps.rbegin(); it != temps.rend(); ++it) body = ValueOrDie(MakeAllocate(*it, body));
  return MakePrimFunc({Param::OfBuffer(input), Param::OfBuffer(output)}, body);
}

TESSEL_BENCHMARK(StructuralHash10k, "structural_hash/10k_nodes",
                 "StructuralHash of a ~10,000-node PrimFunc (a 51-stage stencil chain)") {
  PrimFunc f = StencilChain("");
  BenchResult r;
  r.Add("nodes", CountNodes(f));
  r.AddTiming(TimeCalls(opts.repeats, [&] { Sink(StructuralHash(f)); }));
  return r;
}

TESSEL_BENCHMARK(StructuralEqual10k, "structural_equal/10k_nodes",
                 "StructuralEqual of two separately built, alpha-renamed ~10,000-node PrimFuncs") {
  PrimFunc a = StencilChain("");
  PrimFunc b = StencilChain("_renamed");
  if (!StructuralEqual(a, b)) {
    return absl::InternalError(absl::StrCat("the two workloads differ: ",
                                            AssertStructuralEqual(a, b).message()));
  }
  BenchResult r;
  r.Add("nodes", CountNodes(a));
  r.AddTiming(TimeCalls(opts.repeats, [&] { Sink(StructuralEqual(a, b) ? 1 : 0); }));
  return r;
}

}  // namespace
}  // namespace tessel::bench
