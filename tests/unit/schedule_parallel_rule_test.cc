// The rule parallel, vectorize and bind share (ir/schedule/loop_independence.h)
// where blocks meet inside the loop: regions compared per iteration, buffers
// private to an iteration, and compute_at / reverse_compute_at rechecking the
// non-serial loops around the block they move. Each accepted schedule is run
// against the original on random inputs; each refusal leaves it unchanged.
#include <set>
#include <utility>

#include "absl/strings/str_replace.h"
#include "tests/unit/schedule_compute_te.h"

namespace tessel::ir::schedule::testing {
namespace {

using Fixture = ComputeFixture;

// relu(A @ B + bias), 64 x 80 x 37, tiled (i_0, j_0, k, i_1, j_1) by 8 x 16,
// relu inlined into the bias add, and the add moved under j_0: the usual CPU
// order, with the outer tile loop i_0 returned.
LoopRV TileAndFuseTheEpilogue(Fixture& t) {
  Must(t.sch.ReverseComputeInline(t.Block("T_relu")));
  std::vector<LoopRV> l = t.Loops("T_matmul");
  std::vector<LoopRV> i = Must(t.sch.Split(l[0], {std::nullopt, 8}));
  std::vector<LoopRV> j = Must(t.sch.Split(l[1], {std::nullopt, 16}));
  Must(t.sch.Reorder({i[0], j[0], l[2], i[1], j[1]}));
  Must(t.sch.ReverseComputeAt(t.Block("T_add"), j[0]));
  return i[0];
}

TEST(ScheduleParallelRule, TiledMatmulWithItsEpilogueMovedIn) {
  Fixture t(MatmulBiasRelu(64, 80, 37));
  LoopRV i0 = TileAndFuseTheEpilogue(t);
  Must(t.sch.Parallel(i0));
  ExpectSameResults(t.original, t.sch);
  EXPECT_EQ(Must(t.sch.Get(i0))->for_kind, ForKind::kParallel);
  EXPECT_EQ(Must(t.sch.GetChildBlocks(i0)).size(), 2u);
}

// Bound to blockIdx.x the matmul's buffer is not private to an iteration (only
// a parallel loop gets a copy per iteration), so this rests on the regions
// alone: per iteration v, T_matmul writes rows [8 v, 8 v + 8) of it and T_add
// reads the same rows.
TEST(ScheduleParallelRule, RegionsOfOneIterationAreComparedWithTheOthers) {
  Fixture t(MatmulBiasRelu(64, 80, 37));
  LoopRV i0 = TileAndFuseTheEpilogue(t);
  Must(t.sch.Bind(i0, "blockIdx.x"));
  ExpectSameResults(t.original, t.sch);
  // A tile that does not divide the rows (61 by 8): the last iteration's rows
  // are clipped, the others still never meet.
  Fixture u(MatmulBiasRelu(61, 80, 37));
  Must(u.sch.Bind(TileAndFuseTheEpilogue(u), "blockIdx.x"));
  ExpectSameResults(u.original, u.sch);
}

// D reads one element past the tile C writes in the same iteration (the first
// row of the next tile), or C writes one past the tile D reads: either way
// one iteration touches what another writes.
TEST(ScheduleParallelRule, OverlapWithTheNextOrThePreviousIterationIsRefused) {
  for (const char* shift : {"+ 1", "- 1"}) {
    const bool ahead = std::string(shift) == "+ 1";
    Schedule sch = MustSchedule(absl::StrReplaceAll(R"(
func @f(A: f32[17], C: f32[17], D: f32[16]) {
  for i_0 in range(0, 4) {
    for i_1 in range(0, 4) {
      block C(vi: spatial[0, 16] = i_0 * 4 + i_1) {
        reads(A[vi])
        writes(C[vi WRITE])
        C[vi WRITE] = A[vi] * 2.0f32
      }
    }
    for ax0 in range(0, 4) {
      block D(vi: spatial[0, 16] = i_0 * 4 + ax0) {
        reads(C[vi READ])
        writes(D[vi])
        D[vi] = C[vi READ]
      }
    }
  }
})",
                                                    {{"WRITE", ahead ? "" : "+ 1"},
                                                     {"READ", ahead ? "+ 1" : ""}}));
    LoopRV i0 = Must(sch.GetLoops(Must(sch.GetBlock("C"))))[0];
    for (auto step : std::vector<std::function<absl::Status()>>{
             [&] { return sch.Parallel(i0); }, [&] { return sch.Vectorize(i0); },
             [&] { return sch.Bind(i0, "blockIdx.x"); }}) {
      ExpectFailsUnchanged(
          sch, step,
          {"block D reads buffer C that block C writes, at a place that may belong to another "
           "iteration of loop i_0",
           ahead ? "(in one iteration C writes C[i_0 * 4 +: 4] and D reads C[i_0 * 4 + 1 +: 4])"
                 : "(in one iteration C writes C[i_0 * 4 + 1 +: 4] and D reads C[i_0 * 4 +: 4])",
           ">>       block D("});
    }
  }
}

// Against brute force: C writes C[vi + a] and D reads C[vi + b +: w] in tiles
// of t; parallel(i_0) is accepted exactly when no element one iteration
// writes is touched by another (enumerated), for every small a, b, w, t.
TEST(ScheduleParallelRule, AcceptedExactlyWhenNoElementIsShared) {
  const int64_t n = 12;
  int accepted = 0, refused = 0;
  for (int64_t t : {2, 3, 4}) {
    for (int64_t a = 0; a <= 2; ++a) {
      for (int64_t b = -2; b <= 2; ++b) {
        for (int64_t w = 1; w <= 3; ++w) {
          std::set<std::pair<int64_t, int64_t>> writes, touches;  // (iteration, element)
          for (int64_t v = 0; v < n / t; ++v) {
            for (int64_t x = 0; x < t; ++x) {
              writes.insert({v, v * t + x + a});
              for (int64_t k = 0; k < w; ++k) touches.insert({v, v * t + x + b + k});
            }
          }
          bool shared = false;
          for (const auto& [v, e] : writes) {
            for (const auto& [u, f] : touches) shared |= u != v && e == f;
          }
          Schedule sch = MustSchedule(absl::StrReplaceAll(R"(
func @f(A: f32[20], C: f32[20], D: f32[N]) {
  for i_0 in range(0, M) {
    for i_1 in range(0, T) {
      block C(vi: spatial[0, N] = i_0 * T + i_1) {
        reads(A[vi])
        writes(C[vi + 4 + WA])
        C[vi + 4 + WA] = A[vi] * 2.0f32
      }
    }
    for ax0 in range(0, T) {
      block D(vi: spatial[0, N] = i_0 * T + ax0) {
        reads(C[vi + 4 + RB +: W])
        writes(D[vi])
        D[vi] = C[vi + 4 + RB] + C[vi + 4 + RB + W - 1]
      }
    }
  }
})",
              {{"WA", absl::StrCat(a)}, {"RB", absl::StrCat(b)}, {"W", absl::StrCat(w)},
               {"T", absl::StrCat(t)}, {"M", absl::StrCat(n / t)}, {"N", absl::StrCat(n)}}));
          PrimFunc original = sch.func();
          LoopRV i0 = Must(sch.GetLoops(Must(sch.GetBlock("C"))))[0];
          absl::Status s = sch.Parallel(i0);
          EXPECT_EQ(s.ok(), !shared) << "t=" << t << " a=" << a << " b=" << b << " w=" << w
                                     << ": " << s.message();
          (s.ok() ? accepted : refused)++;
          if (s.ok()) ExpectSameResults(original, sch);
        }
      }
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}

// A load outside the blocks (here an `if` condition) is a read in every
// iteration: iteration 0 writes A[0], which all the others test.
TEST(ScheduleParallelRule, LoadOutsideBlocksOfAWrittenBuffer) {
  constexpr const char* kGuarded = R"(
func @f(A: f32[8], B: f32[8], G: f32[1]) {
  for i in range(0, 8) {
    if GUARD[0] > 0.0f32 {
      block W(vi: spatial[0, 8] = i) {
        reads(B[vi])
        writes(A[vi])
        A[vi] = B[vi] - 100.0f32
      }
    }
  }
})";
  Fixture racy(absl::StrReplaceAll(kGuarded, {{"GUARD", "A"}}));
  LoopRV i = racy.Loops("W")[0];
  ExpectFailsUnchanged(racy.sch, [&] { return racy.sch.Parallel(i); },
                       {"loop i loads A[0] outside its blocks (a condition, bound or binding), "
                        "and block W writes buffer A in some iteration; the loop cannot be "
                        "parallel"});
  Fixture fine(absl::StrReplaceAll(kGuarded, {{"GUARD", "G"}}));
  Must(fine.sch.Parallel(fine.Loops("W")[0]));
  ExpectSameResults(fine.original, fine.sch);
}

// B reads a window of three elements of P, so compute_at gives every iteration
// of i its own three elements of P: iterations recompute and overwrite what
// their neighbours wrote.
constexpr const char* kHalo = R"(
func @f(A: f32[18], B: f32[16]) {
  block root() {
    alloc_buffer P: f32[18]
    for i in range(0, 18) {
      block P(vi: spatial[0, 18] = i) {
        reads(A[vi])
        writes(P[vi])
        P[vi] = A[vi] * 2.0f32
      }
    }
    for i in range(0, 16) {
      block B(vi: spatial[0, 16] = i) {
        reads(P[vi +: 3])
        writes(B[vi])
        B[vi] = P[vi] + P[vi + 1] + P[vi + 2]
      }
    }
  }
})";

// Under a parallel loop that holds all its accesses, P is allocated per
// iteration (remove-blocks, passes/lowering/allocation_place.h): the halo is
// no race, in either order of compute_at and parallel.
TEST(ScheduleParallelRule, HaloProducerUnderAParallelLoopIsPrivate) {
  Fixture before(kHalo);
  LoopRV i = before.Loops("B")[0];
  Must(before.sch.Parallel(i));
  Must(before.sch.ComputeAt(before.Block("P"), i));
  ExpectSameResults(before.original, before.sch);
  Fixture after(kHalo);
  LoopRV j = after.Loops("B")[0];
  Must(after.sch.ComputeAt(after.Block("P"), j));
  Must(after.sch.Parallel(j));
  EXPECT_TRUE(AssertStructuralEqual(before.sch.func(), after.sch.func()).ok())
      << PrintFunction(after.sch.func(), "f");
  // The padded conv2d of the op library, its pad per output row (finding 7's case).
  Fixture conv(PaddedConv2D(2, 7, 3));
  LoopRV oh = conv.Loops("conv2d")[2];
  Must(conv.sch.ComputeAt(conv.Block("conv2d_pad"), oh));
  Must(conv.sch.Parallel(oh));
  ExpectSameResults(conv.original, conv.sch);
}

// A vectorized or thread-bound loop gets no copy per iteration: compute_at
// under it is refused once the moved block would break its rule.
TEST(ScheduleParallelRule, ComputeAtRechecksTheLoopsAroundTheMovedBlock) {
  for (bool vectorize : {true, false}) {
    Fixture t(kHalo);
    LoopRV i = t.Loops("B")[0];
    Must(vectorize ? t.sch.Vectorize(i) : t.sch.Bind(i, "threadIdx.x"));
    const std::string kind = vectorize ? "vectorized" : "bound to threadIdx.x";
    BlockRV p = t.Block("P");
    ExpectFailsUnchanged(
        t.sch, [&] { return t.sch.ComputeAt(p, i); },
        {"compute_at: moving block P under loop i would break the rule of loop i, which is " + kind,
         "block P does not run a distinct instance in each iteration of loop i",
         "so the loop cannot be " + kind, ">>     for i_1 in "});
  }
  // A serial loop under the parallel one is checked through it.
  Fixture t(kHalo);
  std::vector<LoopRV> i = Must(t.sch.Split(t.Loops("B")[0], {std::nullopt, 4}));
  Must(t.sch.Vectorize(i[0]));
  BlockRV p = t.Block("P");
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.ComputeAt(p, i[1]); },
                       {"moving block P under loop i_1 would break the rule of loop i_0, which "
                        "is vectorized"});
}

// The epilogue follows the tile under a loop already parallel.
TEST(ScheduleParallelRule, ReverseComputeAtUnderAParallelLoop) {
  Fixture t(MatmulBiasRelu(64, 80, 37));
  Must(t.sch.ReverseComputeInline(t.Block("T_relu")));
  std::vector<LoopRV> l = t.Loops("T_matmul");
  std::vector<LoopRV> tile =
      Must(t.sch.Tile({l[0], l[1]}, {{std::nullopt, 8}, {std::nullopt, 16}}));
  Must(t.sch.Parallel(tile[0]));
  Must(t.sch.ReverseComputeAt(t.Block("T_add"), tile[1]));
  ExpectSameResults(t.original, t.sch);
}

// P is private to i only while every access of it is under i, and only where
// remove-blocks would allocate it inside i: not past a vectorized loop.
TEST(ScheduleParallelRule, PrivateOnlyWhereLoweringAllocatesPerIteration) {
  constexpr const char* kPlaced = R"(
func @f(A: f32[18], B: f32[16], C: f32[18]) {
  block root() {
    alloc_buffer P: f32[18]
    for i in range(0, 16) {
      for ax0 in range(0, 3) {
        block P(vi: spatial[0, 18] = i + ax0) {
          reads(A[vi])
          writes(P[vi])
          P[vi] = A[vi] * 2.0f32
        }
      }
      block B(vi: spatial[0, 16] = i) {
        reads(P[vi +: 3])
        writes(B[vi])
        B[vi] = P[vi] + P[vi + 1] + P[vi + 2]
      }
    }
    READ_AFTER
  }
})";
  constexpr const char* kReadAfter = R"(
    for j in range(0, 18) {
      block C(vj: spatial[0, 18] = j) {
        reads(P[vj])
        writes(C[vj])
        C[vj] = P[vj]
      }
    })";
  Fixture shared(absl::StrReplaceAll(kPlaced, {{"READ_AFTER", kReadAfter}}));
  LoopRV shared_i = shared.Loops("B")[0];
  ExpectFailsUnchanged(shared.sch, [&] { return shared.sch.Parallel(shared_i); },
                       {"block P does not run a distinct instance in each iteration of loop i"});
  Fixture own(absl::StrReplaceAll(kPlaced, {{"READ_AFTER", ""}}));
  Must(own.sch.Parallel(own.Loops("B")[0]));
  ExpectSameResults(own.original, own.sch);

  Schedule vector_between = MustSchedule(R"(
func @f(A: f32[2, 18], B: f32[2, 16]) {
  block root() {
    alloc_buffer P: f32[2, 18]
    for r in vectorized(0, 2) {
      for i in range(0, 16) {
        for ax0 in range(0, 3) {
          block P(vr: spatial[0, 2] = r, vi: spatial[0, 18] = i + ax0) {
            reads(A[vr, vi])
            writes(P[vr, vi])
            P[vr, vi] = A[vr, vi] * 2.0f32
          }
        }
        block B(vr: spatial[0, 2] = r, vi: spatial[0, 16] = i) {
          reads(P[vr, vi +: 3])
          writes(B[vr, vi])
          B[vr, vi] = P[vr, vi] + P[vr, vi + 1] + P[vr, vi + 2]
        }
      }
    }
  }
})");
  LoopRV i = Must(vector_between.GetLoops(Must(vector_between.GetBlock("B"))))[1];
  ExpectFailsUnchanged(vector_between, [&] { return vector_between.Parallel(i); },
                       {"block P does not run a distinct instance in each iteration of loop i"});
}

// A writer guarded on loops its bindings do not use skips whole iterations;
// a per-iteration copy would then hold nothing for the reader there, where the
// shared buffer still held an earlier iteration's value (property-test race
// seed 20 case 426: rms_norm's reduction recomputed under its consumer's
// tail-split loop). Such a buffer is not private, and the loop is refused.
TEST(ScheduleParallelRule, WriterSkippingIterationsMakesNoPrivateBuffer) {
  Fixture t(R"(
func @f(A: f32[9], B: f32[10]) {
  block root() {
    alloc_buffer T: f32[1]
    for i_0 in range(0, 5) {
      for i_1 in range(0, 2) {
        block P(vi: spatial[0, 1] = 0) where i_0 * 2 + i_1 < 9 {
          reads(A[0])
          writes(T[vi])
          T[vi] = A[0] * 2.0f32
        }
        block Q(vj: spatial[0, 10] = i_0 * 2 + i_1) {
          reads(T[0])
          writes(B[vj])
          B[vj] = T[0] + 1.0f32
        }
      }
    }
  }
})");
  LoopRV i_1 = t.Loops("Q")[1];
  ExpectFailsUnchanged(t.sch, [&] { return t.sch.Parallel(i_1); },
                       {"block P", "loop i_1", "cannot be parallel"});
}

// A tail guard on the writer's own iter vars (conv2d's cache_write under a
// split ow, docs/schedule.md's worked example) skips no iteration, and the
// reader, under the same guard, reads only what the writer wrote: T, one row
// that every iteration of i rewrites, is private to it. The reader's region is
// trimmed by its guard as the writer's is: untrimmed (T[0 +: 16]) it would
// pass the row the writer covers (T[0 +: 15]).
TEST(ScheduleParallelRule, ReaderUnderTheWritersTailGuardKeepsTheBufferPrivate) {
  Fixture t(R"(
func @f(A: f32[4, 15], B: f32[4, 15]) {
  block root() {
    alloc_buffer T: f32[15]
    for i in range(0, 4) {
      for j_0 in range(0, 2) {
        for j_1 in range(0, 8) {
          block W(vi: spatial[0, 4] = i, vj: spatial[0, 15] = j_0 * 8 + j_1) where j_0 * 8 + j_1 < 15 {
            reads(A[vi, vj])
            writes(T[vj])
            T[vj] = A[vi, vj] * 2.0f32
          }
        }
        for ax in range(0, 8) {
          block R(vi: spatial[0, 4] = i, vj: spatial[0, 15] = j_0 * 8 + ax) where j_0 * 8 + ax < 15 {
            reads(T[vj])
            writes(B[vi, vj])
            B[vi, vj] = T[vj] + 1.0f32
          }
        }
      }
    }
  }
})");
  LoopRV i = t.Loops("R")[0];
  Must(t.sch.Parallel(i));
  EXPECT_EQ(Must(t.sch.Get(i))->for_kind, ForKind::kParallel);
  ExpectSameResults(t.original, t.sch);
}

}  // namespace
}  // namespace tessel::ir::schedule::testing
