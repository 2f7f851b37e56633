// The stages of an unscheduled function, as dispatch rules see it: each top-level
// statement of the body (or of the root block's body) is a perfect nest of loops
// from 0 with constant extents around one block, each iter var bound to its own
// loop. Rules match blocks by their iterators and accesses, then replace whole
// stages with library calls and rebuild the body.
//
//   func @mm(A: f32[64, 32], B: f32[32, 16], C: f32[64, 16]) {
//     for i, j, k: block C(vi = i, vj = j, vk = k) { ... } }
//   SplitStages(mm) -> {stages = [{block C, extents [64, 16, 32]}], root = null}
//   RebuildBody(mm, stages, {Evaluate(@tessel_blas_gemm(...))}, {}) -> the call alone
#ifndef TESSEL_DISPATCH_STAGES_H_
#define TESSEL_DISPATCH_STAGES_H_

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/function.h"
#include "ir/stmt.h"

namespace tessel::dispatch {

struct Stage {
  ir::Stmt stmt;                 // The top-level statement: the outermost loop.
  const ir::BlockNode* block;    // The block it realizes; null for a call (Evaluate).
  std::vector<int64_t> extents;  // Per iter var of the block.
};

struct StageList {
  std::vector<Stage> stages;
  const ir::BlockNode* root = nullptr;  // The root block, when the body has one.
};

// The stages, or why the function is not a sequence of plain loop nests (already
// scheduled, a loop bound to an expression, a symbolic extent, ...).
std::variant<StageList, std::string> SplitStages(const ir::PrimFunc& func);

// The element strides of each dimension of `buffer` (its own strides, or compact
// row-major), or why there are none: a symbolic extent or a non-zero offset.
std::variant<std::vector<int64_t>, std::string> ElementStrides(const ir::Buffer& buffer);

// True when stage `s` reads `buffer` (its block's reads regions).
bool StageReads(const Stage& s, const ir::BufferNode* buffer);
// True when `buffer` is a parameter of `func`.
bool IsParam(const ir::PrimFunc& func, const ir::BufferNode* buffer);

// `func` with stage i replaced by replacement[i] (an empty Stmt drops the stage)
// and `dropped` removed from the root block's alloc_buffers.
absl::StatusOr<ir::PrimFunc> RebuildBody(const ir::PrimFunc& func, const StageList& stages,
                                         const std::vector<std::optional<ir::Stmt>>& replacement,
                                         const std::vector<const ir::BufferNode*>& dropped);

}  // namespace tessel::dispatch

#endif  // TESSEL_DISPATCH_STAGES_H_
