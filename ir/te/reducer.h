// Reductions for compute bodies: sum, prod, max, min, and reducers of your own.
//
//   IterVar k = ReduceAxis(n, "k");
//   Compute({m}, [&](Var i) { return ReduceSum(A(i, k.var), {k}); }, "row_sum");
//   Compute({m}, [&](Var i) { return ReduceMax(A(i, k.var), {k}); }, "row_max");
//
// A reducer is a commutative, associative combiner over tuples plus its identity.
// argmax as (index, value) pairs, a two-output reduction:
//
//   CommReducer argmax = *MakeCommReducer(
//       "argmax", {DataType::Int(32), DataType::Float(32)},
//       [](const std::vector<Var>& acc, const std::vector<Var>& x) {
//         Expr take = GT(x[1], acc[1]);             // ties keep the earlier index
//         return std::vector<Expr>{Select(take, x[0], acc[0]), Select(take, x[1], acc[1])};
//       },
//       {IntImm32(-1), *MinValue(DataType::Float(32))});
//   ComputeMulti({m}, [&](Var i) {
//     return Reduce(argmax, {k.var, A(i, k.var)}, {k});
//   }, "argmax");                                   // -> {indices, values}
//
// In the PrimFunc the block's `init` stores the identity and its body stores
// combine(output, source); with several outputs the new values are bound by lets
// first so that every element combines the old ones.
#ifndef TESSEL_IR_TE_REDUCER_H_
#define TESSEL_IR_TE_REDUCER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/compute.h"

namespace tessel::ir::te {

class CommReducerNode {
 public:
  std::string name;            // "sum", "max", "argmax", ...: for messages.
  std::vector<Var> lhs;        // The accumulated values...
  std::vector<Var> rhs;        // ...and the incoming ones,
  std::vector<Expr> result;    // combined, in terms of lhs and rhs.
  std::vector<Expr> identity;  // combine(identity, x) == x.

  int arity() const { return static_cast<int>(result.size()); }
  DataType dtype(int i) const { return lhs[i]->dtype; }
  // result with lhs and rhs replaced by `acc` and `x`.
  std::vector<Expr> Combine(const std::vector<Expr>& acc, const std::vector<Expr>& x) const;
};

using Combiner =
    std::function<std::vector<Expr>(const std::vector<Var>& acc, const std::vector<Var>& x)>;

// Checks that the combiner yields one value of the right dtype per element, using
// only its arguments, and that the identities match the dtypes.
absl::StatusOr<CommReducer> MakeCommReducer(std::string name, std::vector<DataType> dtypes,
                                            const Combiner& combiner,
                                            std::vector<Expr> identity);

// The built-in reducers for a scalar dtype. Identities: sum 0, prod 1, max the
// lowest value (-inf for floats), min the highest (+inf for floats). bool is refused.
absl::StatusOr<CommReducer> SumReducer(DataType dtype);
absl::StatusOr<CommReducer> ProdReducer(DataType dtype);
absl::StatusOr<CommReducer> MaxReducer(DataType dtype);
absl::StatusOr<CommReducer> MinReducer(DataType dtype);

// The lowest and the highest value of a scalar number or bool dtype (-inf /
// +inf for floats); InvalidArgument naming the type for any other (a vector,
// a handle, void).
absl::StatusOr<Expr> MinValue(DataType dtype);
absl::StatusOr<Expr> MaxValue(DataType dtype);

// Reductions of `source` over `axis` where `condition` holds (null: everywhere).
ComputeBody ReduceSum(Expr source, std::vector<IterVar> axis, Expr condition = nullptr);
ComputeBody ReduceProd(Expr source, std::vector<IterVar> axis, Expr condition = nullptr);
ComputeBody ReduceMax(Expr source, std::vector<IterVar> axis, Expr condition = nullptr);
ComputeBody ReduceMin(Expr source, std::vector<IterVar> axis, Expr condition = nullptr);
// A reduction with any reducer; `source` has one value per reducer element.
ComputeBody Reduce(const absl::StatusOr<CommReducer>& reducer, std::vector<Expr> source,
                   std::vector<IterVar> axis, Expr condition = nullptr);

}  // namespace tessel::ir::te

#endif  // TESSEL_IR_TE_REDUCER_H_
