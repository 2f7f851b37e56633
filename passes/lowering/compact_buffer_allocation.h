// compact-buffer-allocation's rule for chosen allocations, for remove-blocks: a
// buffer storage_align pads is compacted before its strides are padded, so that
// the padding is asked of the box a kernel keeps (a slice of the reduction), not
// of the whole buffer (compact_buffer_allocation.cc has the rule).
//
//   allocate A_shared: f16[256, 128] { (k_0 loop: A_shared[.., k_0 * 32 + ..]) }
//   -> allocate A_shared: f16[32, 32]; then storage_align's [0, 64, 40] strides [40, 1]
#ifndef TESSEL_PASSES_LOWERING_COMPACT_BUFFER_ALLOCATION_H_
#define TESSEL_PASSES_LOWERING_COMPACT_BUFFER_ALLOCATION_H_

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/buffer.h"
#include "ir/stmt.h"

namespace tessel::passes::lowering {

// `s` with the allocations of `buffers` shrunk to the boxes accessed; `shrunk`
// (when given) maps each allocation shrunk to its new buffer.
ir::Stmt CompactAllocationsOf(const ir::Stmt& s,
                              const absl::flat_hash_set<const ir::BufferNode*>& buffers,
                              absl::flat_hash_map<const ir::BufferNode*, ir::Buffer>* shrunk);

}  // namespace tessel::passes::lowering

#endif  // TESSEL_PASSES_LOWERING_COMPACT_BUFFER_ALLOCATION_H_
