// What the schedule rules read off a block: its loop nest, iterator kinds,
// domain size, and which iter var indexes which dimension of what it accesses.
//
//   for i in range(0, 64) { for j in range(0, 32) { for k in range(0, 16) {
//     block C(vi: spatial = i, vj: spatial = j, vk: reduce = k) ... } } }
//   AnalyzeNest(s, "C") -> {loops = [i, j, k], loop_of_iter = [0, 1, 2],
//                           extents = [64, 32, 16]}
//
// Rules match on these facts, never on names (DESIGN.md decision 10).
#ifndef TESSEL_METASCHEDULE_RULES_BLOCK_ANALYSIS_H_
#define TESSEL_METASCHEDULE_RULES_BLOCK_ANALYSIS_H_

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/function.h"
#include "ir/schedule/schedule.h"
#include "metaschedule/schedule_rule.h"

namespace tessel::metaschedule {

namespace sch = ir::schedule;

// A block alone under a perfect nest of serial loops from 0 with constant
// extents (or, where the caller allows them, symbolic ones: kSymbolicExtent), one
// loop per iter var, each iter var bound to exactly its loop.
struct TrivialNest {
  // The block as analyzed: valid until the schedule changes.
  const ir::BlockNode* block = nullptr;
  std::vector<sch::LoopRV> loops;  // Outermost first.
  std::vector<int> loop_of_iter;   // Iter var k is bound to loops[loop_of_iter[k]].
  std::vector<int64_t> extents;    // Per loop.
};

// The extent recorded for a loop whose extent is not a constant (`n`, a shape
// variable's), and the product of any extents that include one.
inline constexpr int64_t kSymbolicExtent = -1;

// The nest, or why the block does not sit in one; `symbolic` accepts loops of
// non-constant extent (recorded as kSymbolicExtent).
std::variant<TrivialNest, std::string> AnalyzeNest(sch::Schedule& s, const std::string& block,
                                                   bool symbolic = false);

// A trivial nest's loops by what they run over: extent-1 loops, and the spatial
// and reduce iter vars' other loops (each in nest order), with the products of
// their extents (kSymbolicExtent when one is symbolic); `in_order` when the nest
// already runs unit, spatial, reduce.
struct NestLoops {
  std::vector<sch::LoopRV> unit, spatial, reduce;
  int64_t spatial_extent = 1, reduce_extent = 1;
  bool in_order = true;
};
NestLoops SplitNestLoops(const TrivialNest& nest);

// The thread counts a GPU rule chooses among: powers of two from a warp (32) to
// the target's threads per block; the rules' heuristic picks none above
// kGpuHeuristicThreads (a block of 256 keeps several resident per SM).
std::vector<int64_t> GpuThreadCounts(int max_threads_per_block);
// Threads along a reduction or row of `extent` elements: a sample_categorical
// over GpuThreadCounts; the heuristic takes the largest count from 64 up to
// kGpuHeuristicThreads whose four-element steps divide the extent (see
// SampleElementsPerThread), else the largest up to kGpuHeuristicThreads that the
// extent fills, preferring one that divides it (else the split's predicate guards
// the tail). A symbolic extent (kSymbolicExtent) is taken to be long: the largest
// up to kGpuHeuristicThreads.
absl::StatusOr<int64_t> SampleThreadCount(const RuleContext& ctx, sch::Schedule& s, int64_t extent);
// What every GPU rule checks first: the target is a GPU and the block sits in
// a trivial nest (AnalyzeNest); else why not.
std::variant<TrivialNest, std::string> AnalyzeGpuNest(bool gpu, sch::Schedule& s,
                                                      const std::string& block,
                                                      bool symbolic = false);
inline constexpr int64_t kGpuHeuristicThreads = 256;
// Splits `loop` by `threads`, the threads outside (a strided walk, so that
// neighbouring threads touch neighbouring elements), and binds them to
// threadIdx.x. With `per_thread` > 1 each thread takes that many neighbouring
// elements per step, in an unrolled loop ([outer, threads, per_thread]): four
// f32 become one 16-byte load (ld.global.v4), and a warp's loads stay contiguous.
absl::Status SpreadOverThreads(sch::Schedule& s, sch::LoopRV loop, int64_t threads,
                               int64_t per_thread = 1);
// Elements per thread and step for SpreadOverThreads: a sample_categorical over
// 1, 2 and 4; the heuristic takes the largest that `threads` times it divides
// `extent` (a drawn one that does not gives 1, as any does for a symbolic extent).
absl::StatusOr<int64_t> SampleElementsPerThread(const RuleContext& ctx, sch::Schedule& s,
                                                int64_t extent, int64_t threads);
// The largest divisor of `n` no larger than `bound` (1 when none above 1 is).
int64_t LargestDivisorAtMost(int64_t n, int64_t bound);

bool AllSpatial(const ir::BlockNode* b);
bool HasReduce(const ir::BlockNode* b);
// The product of the iter vars' extents; nullopt when one is not constant.
std::optional<int64_t> DomainSize(const ir::BlockNode* b);
// The product of a buffer's extents; nullopt when one is not constant.
std::optional<int64_t> ElementCount(const ir::BufferNode* buffer);
// True when the block's body calls a function (exp, erf, tanh ...): costly to recompute.
bool CallsFunction(const ir::BlockNode* b);
// The iter var (index into b->iter_vars) that alone indexes dimension `dim` of
// `region` (the index is the iter var itself), or -1.
int IterIndexingDim(const ir::BlockNode* b, const ir::BufferRegion& region, size_t dim);
// True when some index of `region` uses iter var `k`.
bool RegionUsesIter(const ir::BlockNode* b, const ir::BufferRegion& region, size_t k);
// The rows of a tiled reduction's output tile, given its columns' iter var
// `cols`: a spatial iter var indexing a dimension of the output that no read
// indexed by `cols` uses, so that each element such a read loads serves every
// row (matmul: i, which B[k, j] lacks; conv2d NCHW with the output channels as
// columns: the output's width, which the kernel lacks); the innermost such
// dimension. When there is none (depthwise), the innermost output dimension the
// columns do not index; -1 when there is no such dimension either.
int RowsIter(const ir::BlockNode* b, int cols);
// The index map moving the dimension of `region` that iter var `cols` indexes
// to the end ("lambda v0, v1: (v1, v0)"), or none when it is last already.
std::optional<std::string> ColumnsLast(const ir::BlockNode* b, const ir::BufferRegion& region,
                                       int cols);
// The loops of `block` below `anchor` (the ones a move under it created).
absl::StatusOr<std::vector<sch::LoopRV>> LoopsBelow(sch::Schedule& s, sch::BlockRV block,
                                                    sch::LoopRV anchor);
// Folds up to four elementwise blocks that alone read what `writeback` writes
// (bias, activation) into it, one after the other, while reverse_compute_inline
// takes them; returns their names.
absl::StatusOr<std::vector<std::string>> InlineEpilogues(sch::Schedule& s, sch::BlockRV writeback);
// The first line of a status message: a primitive's error shows the whole
// function after it, too long for a log line.
std::string FirstLine(const absl::Status& status);

}  // namespace tessel::metaschedule

#endif  // TESSEL_METASCHEDULE_RULES_BLOCK_ANALYSIS_H_
