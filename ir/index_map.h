// Index maps: a function from N indices to M indices, the language of layout
// transformations, written as a Python lambda.
//
//   absl::StatusOr<IndexMap> m = IndexMap::Parse("lambda i, j: (i // 16, j, i % 16)");
//   m->Apply({Add(vi, 1), vj})      ->  {(vi + 1) // 16, vj, (vi + 1) %% 16}
//   m->ToPython()                   ->  "lambda i, j: (i // 16, j, i % 16)"
//
//   // In C++, from variables and expressions of them:
//   Var i = MakeVar("i", DataType::Int(32)), j = MakeVar("j", DataType::Int(32));
//   IndexMap t = IndexMap::Make({i, j}, {j, i});   // a transpose
//
// The text language is Python's integer arithmetic on the lambda's
// parameters: integer literals, + - *, // (floor division), % (floor modulo),
// unary minus, min(a, b), max(a, b) and parentheses. The body is one index or a
// tuple (parenthesised or not). Python's // and % are tessel's floor division
// and floor modulo (`//` and `%%` in .tsl), so a map reads the same in both
// places. Parameters are int32, the dtype of .tsl and te indices.
#ifndef TESSEL_IR_INDEX_MAP_H_
#define TESSEL_IR_INDEX_MAP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/expr.h"

namespace tessel::ir {

class IndexMap {
 public:
  // Checks: distinct parameters, at least one output, outputs of one scalar
  // integer dtype that use only the parameters and the subset above.
  static absl::StatusOr<IndexMap> Make(std::vector<Var> inputs, std::vector<Expr> outputs);
  // Parses "lambda i, j: (i // 16, j, i % 16)"; errors give the column.
  static absl::StatusOr<IndexMap> Parse(absl::string_view text);

  const std::vector<Var>& inputs() const { return inputs_; }
  const std::vector<Expr>& outputs() const { return outputs_; }

  // The outputs with the parameters replaced by `indices` (as many as inputs,
  // of the parameters' dtype).
  absl::StatusOr<std::vector<Expr>> Apply(const std::vector<Expr>& indices) const;
  // The lambda as Python source; Parse(ToPython()) gives an equal map.
  std::string ToPython() const;

 private:
  IndexMap(std::vector<Var> inputs, std::vector<Expr> outputs)
      : inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

  std::vector<Var> inputs_;
  std::vector<Expr> outputs_;
};

}  // namespace tessel::ir

#endif  // TESSEL_IR_INDEX_MAP_H_
