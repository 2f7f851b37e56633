#include "ir/graph_function.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"

namespace tessel::ir {

std::string TensorTypeText(const Buffer& value) {
  std::string dims;
  for (size_t i = 0; i < value->shape.size(); ++i) {
    absl::StrAppend(&dims, i ? ", " : "", PrintExpr(value->shape[i]));
  }
  return absl::StrCat(value->dtype.ToString(), "[", dims, "]");
}

std::string TensorTypeText(DataType dtype, const std::vector<int64_t>& shape) {
  return absl::StrCat(dtype.ToString(), "[", absl::StrJoin(shape, ", "), "]");
}

const char* GraphCallKindName(GraphCall::Kind kind) {
  switch (kind) {
    case GraphCall::Kind::kOp:
      return "op";
    case GraphCall::Kind::kCallTir:
      return "call_tir";
    case GraphCall::Kind::kConstant:
      return "const";
  }
  return "?";
}

absl::StatusOr<GraphFunc> MakeGraphFuncChecked(std::vector<Buffer> params,
                                               std::vector<GraphBinding> bindings,
                                               std::vector<Buffer> results, Attrs attrs) {
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i])
      return absl::InvalidArgumentError(
          absl::StrCat("graph function: parameter ", i, " is missing"));
  }
  for (size_t i = 0; i < bindings.size(); ++i) {
    const GraphBinding& b = bindings[i];
    std::string where = absl::StrCat("graph function: binding ", i);
    if (b.call.callee.empty())
      return absl::InvalidArgumentError(absl::StrCat(where, " calls nothing"));
    if (b.outputs.empty())
      return absl::InvalidArgumentError(absl::StrCat(where, " defines no value"));
    if (b.call.kind == GraphCall::Kind::kOp && b.outputs.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(where, " (operator '", b.call.callee,
                                                     "') defines ", b.outputs.size(),
                                                     " values; an operator defines one"));
    }
    if (b.call.kind == GraphCall::Kind::kCallTir && !b.call.attrs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, " (call_tir @", b.call.callee,
                                                     ") has attributes; only operators take them"));
    }
    if (b.call.kind == GraphCall::Kind::kConstant &&
        (b.outputs.size() != 1 || !b.call.args.empty() || !b.call.attrs.empty())) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " (const @", b.call.callee,
                       ") must define one value and take no arguments or attributes"));
    }
    for (const Buffer& v : b.outputs) {
      if (!v) return absl::InvalidArgumentError(absl::StrCat(where, " has a missing output"));
    }
    for (const Buffer& v : b.call.args) {
      if (!v) return absl::InvalidArgumentError(absl::StrCat(where, " has a missing argument"));
    }
  }
  if (results.empty()) return absl::InvalidArgumentError("graph function: it returns nothing");
  for (const Buffer& r : results) {
    if (!r) return absl::InvalidArgumentError("graph function: a result is missing");
  }
  auto n = MakeNode<GraphFuncNode>();
  n->params = std::move(params);
  n->bindings = std::move(bindings);
  n->results = std::move(results);
  n->attrs = std::move(attrs);
  return GraphFunc(std::move(n));
}

}  // namespace tessel::ir
