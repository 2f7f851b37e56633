// The values a block realize binds to its block's iter vars, as a substitution:
//
//   // block C(vi = i_0 * 16 + i_1, vk = k) { ... }
//   VarMap bind = BindingMap(realize);   // {vi -> i_0 * 16 + i_1, vk -> k}
//   Expr in_loops = Substitute(index_in_block_terms, bind);
//
// Lowering (remove-blocks), tensorize, and the region and loop analyses all
// read a block instance in terms of its loops this way.
#ifndef TESSEL_IR_BINDING_MAP_H_
#define TESSEL_IR_BINDING_MAP_H_

#include <algorithm>
#include <vector>

#include "ir/stmt.h"
#include "ir/substitute.h"

namespace tessel::ir {

// Pairs past the shorter list are dropped: the verifier rejects a realize
// whose counts differ, but the analyses also run on unverified IR.
inline VarMap BindingMap(const BlockRealizeNode* realize) {
  VarMap bind;
  const std::vector<IterVar>& ivs = realize->block->iter_vars;
  size_t n = std::min(ivs.size(), realize->iter_values.size());
  for (size_t k = 0; k < n; ++k) bind[ivs[k].var.get()] = realize->iter_values[k];
  return bind;
}

}  // namespace tessel::ir

#endif  // TESSEL_IR_BINDING_MAP_H_
