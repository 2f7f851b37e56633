// Stages over the rows of a tensor along one axis, as softmax and layer norm are
// written: reductions of X[..., k, ...] over k into row-indexed accumulators, and
// elementwise stages over X's shape that read row values. Shared by the matchers
// of softmax.cc and layer_norm.cc.
//
//   block S(vi: spatial, vk: reduce) { init { S[vi] = 0 }  S[vi] = S[vi] + exp(X[vi, vk]) }
//   MatchRowReduction(S, kAdd, 0) -> {accs [{S, exp(X[vi, vk])}], axis 1,
//                                     ix {full [vi, vk], row [vi]}, dims [4, 10]}
#ifndef TESSEL_DISPATCH_ROW_STAGES_H_
#define TESSEL_DISPATCH_ROW_STAGES_H_

#include <string>
#include <variant>
#include <vector>

#include "dispatch/stages.h"

namespace tessel::dispatch {

// How a stage indexes the tensors: `full` is X's index (the row's iter vars with
// the axis var at the axis), `row` the same without it.
struct Indexing {
  std::vector<ir::Expr> full, row;
};

// The same expressions, node for node (same_as).
bool SameExprs(const std::vector<ir::Expr>& a, const std::vector<ir::Expr>& b);

// One accumulator of a reduction: acc[row] = combine(acc[row], value), `let`s of
// the block substituted into `value`.
struct Accumulation {
  const ir::BufferNode* acc;
  ir::Expr value;
};
struct RowReduction {
  std::vector<Accumulation> accs;
  Indexing ix;
  int axis = -1;
  std::vector<int64_t> dims;  // The extents of the full index.
};
// A block with one reduce iter var whose stores (one or more, after its lets)
// accumulate with `combine` from `init` (-inf: any value at or below -3e38) into
// row-indexed buffers; the axis is where the reduce var sits in the first load of
// rank row + 1 that indexes by the row's vars and it.
std::variant<RowReduction, std::string> MatchRowReduction(const Stage& st, ir::NodeKind combine,
                                                          double init);

// A spatial block storing `*out`[full] over extents `dims` by plain iter vars; the
// indexing with the axis var at `axis`.
std::variant<Indexing, std::string> MatchRowwise(const Stage& st, int axis,
                                                 const std::vector<int64_t>& dims,
                                                 const ir::BufferStoreNode** out);

// "" when each of `buffers` is the function's own and read only by `stages`;
// otherwise why not.
std::string OwnedBy(const ir::PrimFunc& func, const StageList& list,
                    const std::vector<size_t>& stages,
                    const std::vector<const ir::BufferNode*>& buffers);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_ROW_STAGES_H_
