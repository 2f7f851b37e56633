// The layout storage_align asks for: remove-blocks gives a buffer that a block
// annotated with `buffer_dim_align` (ir/schedule/primitive/storage_align.h) explicit
// strides, padded so that the stride of each named dimension is
// `factor * k + offset` elements; flatten-buffer then addresses it by them.
//
//   alloc_buffer T: f32[64, 64]                    allocate T: f32[64, 64] strides [65, 1]
//   block B(...) attrs {buffer_dim_align =   ->    (row pitch 64 rounded up to 65 = 32 * 2 + 1:
//                       [[[0, 32, 1]]]}             consecutive rows start in different banks)
//
// Strides are built from the innermost dimension outwards: the compact stride
// s of a named dimension becomes the least s' >= s with s' % factor == offset,
// and the dimensions outside it are laid out on the padded one.
#ifndef TESSEL_PASSES_LOWERING_ALIGNED_STRIDES_H_
#define TESSEL_PASSES_LOWERING_ALIGNED_STRIDES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/stmt.h"

namespace tessel::passes::lowering {

// One `[axis, factor, offset]` entry of the annotation (axis non-negative).
struct DimAlign {
  int64_t axis = 0;
  int64_t factor = 1;
  int64_t offset = 0;
};

// The entries the block's annotation gives for each of its write buffers
// (index-aligned with `block->writes`; empty lists where it asks nothing).
// A malformed annotation (not nested lists of three integers, an axis out of
// range, factor < 1, offset outside [0, factor)) is an error naming the block.
absl::StatusOr<std::vector<std::vector<DimAlign>>> ReadDimAligns(const ir::BlockNode* block);

// `buffer` with the strides the entries ask for. Its shape must be constant.
absl::StatusOr<ir::Buffer> AlignBuffer(const ir::Buffer& buffer, const std::vector<DimAlign>& aligns);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_ALIGNED_STRIDES_H_
