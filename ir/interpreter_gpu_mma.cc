// Warp matrix products in the reference interpreter: `D[i] = mma_m16n8k16(a, b, c)`
// (ir/expr.h) at the phase level. Every thread's fragments are gathered, each warp
// of 32 consecutive linear thread ids rebuilds its 16 x 16 A, 16 x 8 B and C from
// its lanes' fragments in PTX's layout, multiplies, and scatters D back.
//
//   lane 5 (g = 1, t = 1):  a = A[1, 2..3], A[9, 2..3], A[1, 10..11], A[9, 10..11]
//                           b = B[2..3, 1], B[10..11, 1]
//                           c = C[1, 2..3], C[9, 2..3]   (and D likewise)
//
// D[i, j] = C[i, j] + sum over k of A[i, k] * B[k, j], accumulated in f32 in order
// of k: the products of two f16 are exact in f32, so this is what the unscheduled
// f32 matmul over the same f16 values computes for the same 16 steps of k. An
// mma is not a barrier: it exchanges registers only, so the race detector still
// wants sync_threads() between shared memory written and the fragments loaded.
#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/interpreter_gpu_internal.h"

namespace tessel::ir::interp {
namespace {

constexpr int kWarp = 32;

// A store's value that a collective computed: `lanes` values set before each
// thread runs the store.
class CPreset : public CExpr {
 public:
  explicit CPreset(int lanes) : CExpr(lanes) {}
  void Eval(Ctx&, Lane* out) override { std::copy(src, src + lanes, out); }
  const Lane* src = nullptr;
};

// Where fragment element r of a lane (g = lane / 4, t = lane % 4) sits in its matrix.
struct At {
  int row, col;
};
At AOf(int g, int t, int r) { return {g + 8 * (r / 2 % 2), 2 * t + r % 2 + 8 * (r / 4)}; }
At BOf(int g, int t, int r) { return {2 * t + r % 2 + 8 * (r / 2), g}; }
At COf(int g, int t, int r) { return {g + 8 * (r / 2), 2 * t + r % 2}; }

class PWarpMma : public PNode {
 public:
  PWarpMma(const StmtNode* n, CExprPtr a, CExprPtr b, CExprPtr c, CPreset* result, CStmtPtr store)
      : PNode(n),
        a_(std::move(a)),
        b_(std::move(b)),
        c_(std::move(c)),
        result_(result),
        store_(std::move(store)) {}

  void Run(Threads& ts) override {
    if (!ts.c.Step(node)) return;
    const int64_t n = ts.count();
    if (n % kWarp != 0) {
      ts.c.Fail(absl::StatusCode::kFailedPrecondition, node,
                absl::StrCat("mma_m16n8k16 is a warp's: every lane of 32 takes part, but the "
                             "block has ",
                             n, " threads, not whole warps"));
      return;
    }
    std::vector<Lane> a(n * 8), b(n * 4), c(n * 4), d(n * 4);
    for (int64_t t = 0; t < n; ++t) {
      ts.Enter(t);
      a_->Eval(ts.c, &a[t * 8]);
      b_->Eval(ts.c, &b[t * 4]);
      c_->Eval(ts.c, &c[t * 4]);
      if (ts.c.failed) return;
    }
    for (int64_t base = 0; base < n; base += kWarp)
      Multiply(&a[base * 8], &b[base * 4], &c[base * 4], &d[base * 4]);
    for (int64_t t = 0; t < n && !ts.c.failed; ++t) {
      ts.Enter(t);
      result_->src = &d[t * 4];
      store_->Exec(ts.c);
    }
  }

 private:
  // One warp: fragments of lanes 0..31 in, D's fragments out.
  static void Multiply(const Lane* a, const Lane* b, const Lane* c, Lane* d) {
    std::array<std::array<double, 16>, 16> am{};
    std::array<std::array<double, 8>, 16> bm{}, cm{};
    for (int lane = 0; lane < kWarp; ++lane) {
      const int g = lane / 4, t = lane % 4;
      for (int r = 0; r < 8; ++r) am[AOf(g, t, r).row][AOf(g, t, r).col] = a[lane * 8 + r].f;
      for (int r = 0; r < 4; ++r) {
        bm[BOf(g, t, r).row][BOf(g, t, r).col] = b[lane * 4 + r].f;
        cm[COf(g, t, r).row][COf(g, t, r).col] = c[lane * 4 + r].f;
      }
    }
    for (int lane = 0; lane < kWarp; ++lane) {
      const int g = lane / 4, t = lane % 4;
      for (int r = 0; r < 4; ++r) {
        const At at = COf(g, t, r);
        double acc = cm[at.row][at.col];
        for (int k = 0; k < 16; ++k) {
          acc =
              RoundToRepr(acc + RoundToRepr(am[at.row][k] * bm[k][at.col], Repr::kF32), Repr::kF32);
        }
        d[lane * 4 + r] = FloatLane(acc);
      }
    }
  }

  CExprPtr a_, b_, c_;
  CPreset* result_;  // Owned by store_.
  CStmtPtr store_;
};

}  // namespace

absl::StatusOr<PNodePtr> CompileWarpMma(Compiler& comp, const BufferStoreNode* store,
                                        const CallNode* call) {
  static constexpr int kLanes[3] = {8, 4, 4};
  if (call->args.size() != 3) return comp.Error(store, "mma_m16n8k16 takes a, b and c");
  std::vector<CExprPtr> args;
  for (int k = 0; k < 3; ++k) {
    absl::StatusOr<CExprPtr> e = comp.CompileExpr(call->args[k], store);
    if (!e.ok()) return e.status();
    if ((*e)->lanes != kLanes[k]) {
      return comp.Error(store, "mma_m16n8k16 takes fragments of 8, 4 and 4 lanes");
    }
    args.push_back(*std::move(e));
  }
  auto result = std::make_unique<CPreset>(4);
  CPreset* raw = result.get();
  absl::StatusOr<CStmtPtr> cstore = comp.CompileStore(store, std::move(result));
  if (!cstore.ok()) return cstore.status();
  return PNodePtr(new PWarpMma(store, std::move(args[0]), std::move(args[1]), std::move(args[2]),
                               raw, *std::move(cstore)));
}

}  // namespace tessel::ir::interp
