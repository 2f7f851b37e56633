// The `lower` pipeline: scheduled block IR to the form codegen consumes
// (DESIGN.md decision 9; docs/lowering.md states the form exactly).
//
//   tessel-opt matmul.tsl --pipeline=lower
//
//   lower-init-block            init -> if (reduce iter vars at their minimum)
//   remove-blocks               blocks -> plain loops, ifs and allocates (GPU:
//                               cross-thread reductions, sync_threads barriers)
//   compact-buffer-allocation   allocations shrink to the box they use
//   flatten-buffer              every access 1-D (indices simplified in their loops'
//                               context); N-D params through 1-D views
//   vectorize-loop              vectorized loops -> Ramp/Broadcast code (or serial)
//   unroll-loop                 unrolled loops -> copies of the body
//   storage-rewrite             allocations with disjoint lifetimes share storage
//   lower-intrinsics            sigmoid, integer fabs -> basic ops
//   remove-no-op                clean-up
//
// The general `simplify` pass is not part of it: it enters a select's condition
// as known while simplifying its arms, so it drops the clamp of a padded load
// (select(i >= 1, A[min(max(i - 1, 0), 11)], 0) -> A[i - 1], read at i = 0
// although both arms are evaluated). The lowering passes simplify the index
// expressions they build themselves, without select conditions.
#include "passes/pass_registry.h"

TESSEL_REGISTER_PASS_ALIAS(
    "lower",
    "lower-init-block,remove-blocks,compact-buffer-allocation,flatten-buffer,vectorize-loop,"
    "unroll-loop,storage-rewrite,lower-intrinsics,remove-no-op",
    "Lowers scheduled block IR to flat loop nests over 1-D buffers with explicit vector lanes "
    "(what codegen consumes)");
