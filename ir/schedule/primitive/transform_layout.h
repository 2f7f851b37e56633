// transform_layout: changes how a buffer is laid out by an index map; its
// shape becomes the image of its shape, every access and region is rewritten.
//
//   block root { alloc_buffers(T: f32[64, 32])               transform_layout(B, "T",
//     ... block B(vi, vj) { T[vi, vj] = A[vi, vj] * 2.0f32 }   lambda i, j: (i // 16, j, i % 16))
//     ... block C(vi, vj) { C[vi, vj] = T[vi, vj] + 1.0f32 }   ------------------------------->
//
//   block root { alloc_buffers(T: f32[4, 32, 16])
//     ... block B(vi, vj) { T[vi // 16, vj, vi %% 16] = A[vi, vj] * 2.0f32 }
//     ... block C(vi, vj) { C[vi, vj] = T[vi // 16, vj, vi %% 16] + 1.0f32 }
//
// The buffer is named (or indexed in the block's reads then writes, each buffer
// once) through a block that accesses it. Rules: the map takes one index per
// dimension of the buffer and is a bijection of the buffer's box onto a box
// starting at 0 (iter-map detection, ir/arith/iter_map.h): no element is lost
// or shared, so the new buffer holds exactly the old one's elements, and no
// padding is invented (pad a computation first with pad_einsum). The buffer is
// allocated inside the function (a block's alloc_buffers or an Allocate): a
// parameter's layout is the caller's contract -- its shape is what callers pass
// -- so parameters are refused; stage a parameter through a copy (cache_read /
// cache_write) and transform the copy. Accesses are scalar (a vectorized access
// keeps its lanes only under the identity) and the buffer is no view's source.
#ifndef TESSEL_IR_SCHEDULE_PRIMITIVE_TRANSFORM_LAYOUT_H_
#define TESSEL_IR_SCHEDULE_PRIMITIVE_TRANSFORM_LAYOUT_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "ir/index_map.h"
#include "ir/schedule/handles.h"
#include "ir/schedule/primitive_decl.h"
#include "ir/schedule/state.h"

namespace tessel::ir::schedule {

absl::Status TransformLayout(ScheduleState* state, const std::string& block,
                             const BufferRef& buffer, const IndexMap& map);

// ---- Declarations (primitive_decl.h) ----

namespace primitive {

// sch.transform_layout(...): Changes the layout of a buffer the block accesses (by name, or by
// index in its reads then writes) by a bijective index map: a lambda or its text.
struct TransformLayout {
  using Self = TransformLayout;
  BlockRV block;
  BufferRef buffer;
  IndexMapText index_map;

  static constexpr PrimitiveInfo kInfo{
      .name = "transform_layout",
      .doc =
          "Changes the layout of a buffer the block accesses (by name, or by index in its reads "
          "then writes) by a bijective index map: a lambda or its text."};
  static constexpr auto kArgs =
      std::tuple{TESSEL_ARG(block), TESSEL_ARG(buffer), TESSEL_ARG(index_map)};
  static absl::Status Apply(PrimitiveContext& ctx, const std::string& block,
                            const BufferRef& buffer, const IndexMapText& index_map);
};

}  // namespace primitive

}  // namespace tessel::ir::schedule

#endif  // TESSEL_IR_SCHEDULE_PRIMITIVE_TRANSFORM_LAYOUT_H_
