// Whatever parallel, vectorize and bind accept runs in any order: random
// schedules of the op library (the property test's functions and moves), then
// parallel, vectorize or bind tried on every loop left, and every loop they
// made non-serial run backwards by the interpreter. The interpreter runs such
// loops in order, so a dependence between two iterations the rule missed
// shows only when the order changes: a different result, or an element read
// before any iteration wrote it. A buffer private to a parallel loop's
// iterations stays one buffer here, so its iterations must also write all they
// read of it (what lowering's copy per iteration relies on).
//
//   for i_0 in parallel(0, 8) { ...body(i_0)... }
//   ->  for i_0 in parallel(0, 8) { ...body(7 - i_0)... }      same results
//
// TESSEL_PROPTEST_SEED and TESSEL_PROPTEST_CASES pick the run, as for the
// property test (default: its seed, 400 cases).
#include <cstdlib>

#include "ir/arith/expr_util.h"
#include "ir/mutator.h"
#include "ir/schedule/ir_util.h"
#include "ir/schedule/stmt_index.h"
#include "ir/substitute.h"
#include "ir/visitor.h"
#include "tests/unit/schedule_property_moves.h"
#include "tests/unit/schedule_property_ops.h"
#include "tests/unit/schedule_test_util.h"

namespace tessel::ir::schedule::testing {
namespace {

// Whether a block below `f` reduces over it: bound to threadIdx.x, that is a
// cross-thread reduction, whose order the lowering's collective makes free, not
// the blocks (they run its init at the loop's first iteration).
bool ReducesOverLoop(const ForNode* f) {
  class Finder : public IRVisitor {
   public:
    explicit Finder(const VarNode* v) : v_(v) {}
    bool found = false;
    void VisitBlockRealize(const BlockRealizeNode* op) override {
      found |= ReducesOver(op, v_);
      IRVisitor::VisitBlockRealize(op);
    }

   private:
    const VarNode* v_;
  };
  Finder finder(f->loop_var.get());
  finder.VisitStmt(f->body);
  return finder.found;
}

// Every parallel, vectorized and thread-bound loop runs its iterations last
// to first, except a cross-thread reduction's.
class ReverseNonSerialLoops : public IRMutator {
 public:
  int reversed = 0;
  Stmt VisitFor(const ForNode* op) override {
    Stmt s = IRMutator::VisitFor(op);
    const auto* f = cast<ForNode>(s);
    if (f->for_kind == ForKind::kSerial || f->for_kind == ForKind::kUnrolled) return s;
    if (f->for_kind == ForKind::kThreadBinding && f->thread_tag == "threadIdx.x" &&
        ReducesOverLoop(f)) {
      return s;
    }
    ++reversed;
    Expr last = arith::AddE(f->min, Sub(f->extent, IntImm(f->loop_var->dtype, 1)));
    auto n = MakeNode<ForNode>(*f);
    n->body = Substitute(f->body, {{f->loop_var.get(), Sub(last, f->loop_var)}});
    return Stmt(std::move(n));
  }
};

int64_t EnvOr(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? fallback : std::strtoll(v, nullptr, 10);
}

// Tries parallel (mostly), vectorize or bind on every loop of every block,
// outermost first; each refusal must change nothing, as in the property test.
void MakeLoopsNonSerial(MoveContext& ctx) {
  Schedule& sch = ctx.sch();
  for (const std::string& name : StmtIndex(sch.func()).BlockNames()) {
    absl::StatusOr<BlockRV> b = sch.GetBlock(name);
    if (!b.ok()) continue;
    absl::StatusOr<std::vector<LoopRV>> loops = sch.GetLoops(*b);
    if (!loops.ok()) continue;
    for (const LoopRV& l : *loops) {
      switch (ctx.Below(4)) {
        case 0:
          ctx.Call("vectorize", [&] { return sch.Vectorize(l); });
          break;
        case 1:
          ctx.Call("bind", [&] {
            return sch.Bind(l, ctx.OneIn(2) ? "blockIdx.x" : "threadIdx.x");
          });
          break;
        default:
          ctx.Call("parallel", [&] { return sch.Parallel(l); });
      }
    }
  }
}

TEST(ScheduleParallelRace, AcceptedLoopsRunInAnyOrder) {
  const uint64_t seed = static_cast<uint64_t>(EnvOr("TESSEL_PROPTEST_SEED", 20261121));
  const int64_t cases = EnvOr("TESSEL_PROPTEST_CASES", 400);
  const std::vector<PropertyOp>& ops = PropertyOps();
  std::vector<const Move*> moves;
  for (const Move& m : Moves()) {
    if (m.in_ci) moves.push_back(&m);
  }
  MoveLog log;
  int64_t checked = 0, failures = 0;
  for (int64_t index = 0; index < cases && failures < 3; ++index) {
    RandomEngine rng(seed * 0x2545F4914F6CDD1Dull + static_cast<uint64_t>(index) + 1);
    const PropertyOp& op = ops[rng.Below(ops.size())];
    absl::StatusOr<PropertyFunction> f = op.build(rng);
    ASSERT_TRUE(f.ok()) << op.name << ": " << f.status().message();
    absl::StatusOr<Schedule> created = Schedule::Create(f->mod, "", rng.Next());
    ASSERT_TRUE(created.ok()) << created.status().message();
    Schedule sch = *std::move(created);
    MoveContext ctx(&sch, &rng, &log);
    int steps = static_cast<int>(1 + rng.Below(12));
    for (int i = 0; i < steps; ++i) ctx.Pick(moves)->run(ctx);
    log.violations.clear();  // The property test reports those of the moves.
    MakeLoopsNonSerial(ctx);
    ASSERT_TRUE(log.violations.empty()) << log.violations.front();
    ReverseNonSerialLoops reverse;
    PrimFunc backwards = reverse.VisitPrimFunc(sch.func());
    if (reverse.reversed == 0) continue;
    // A schedule that already disagrees forwards is the property test's to report.
    const CompareOptions tol{.rtol = 1e-4, .atol = 1e-5};
    const RunOptions budget{.max_steps = 2'000'000, .interrupted = nullptr};
    if (!CheckSameResults(f->mod->functions.front().second, sch.func(), 1, tol, budget).ok()) {
      continue;
    }
    ++checked;
    absl::Status same = CheckSameResults(sch.func(), backwards, 1, tol, budget);
    if (!same.ok()) {
      ++failures;
      ADD_FAILURE() << "case " << index << " of seed " << seed << " (" << f->what
                    << "): with its non-serial loops run backwards, " << same.message()
                    << "\nthe trace:\n"
                    << sch.trace().AsPython() << "the function:\n"
                    << PrintFunction(sch.func(), sch.func_name());
    }
  }
  std::printf("seed %llu: %lld of %lld cases had non-serial loops to run backwards\n",
              static_cast<unsigned long long>(seed), static_cast<long long>(checked),
              static_cast<long long>(cases));
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
