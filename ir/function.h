// PrimFunc: a tensor program with buffer and scalar parameters; IRModule: an
// ordered map from names to PrimFuncs, one from names to graph functions (whole
// models over PrimFuncs, ir/graph_function.h), one from names to constant tensors
// (a model's weights, which graph functions read with `const @name`), and module
// attributes. A name belongs to one entry of any kind.
//
//   PrimFunc f = MakePrimFunc({Param::OfBuffer(A), Param::OfBuffer(B), Param::OfVar(n)}, body);
//   IRModule m = MakeIRModule({{"add_one", f}});
//   PrimFunc g = m->Lookup("add_one");
//
// A parameter is either a buffer (passed as a pointer to its data, the "buffer map"
// of the function) or a scalar Var. Both are bound by the function.
#ifndef TESSEL_IR_FUNCTION_H_
#define TESSEL_IR_FUNCTION_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/buffer.h"
#include "ir/graph_function.h"
#include "ir/host_buffer.h"
#include "ir/stmt.h"

namespace tessel::ir {

struct Param {
  Var var;        // Set for a scalar parameter.
  Buffer buffer;  // Set for a buffer parameter.
  static Param OfVar(Var v) { return Param{std::move(v), nullptr}; }
  static Param OfBuffer(Buffer b) { return Param{nullptr, std::move(b)}; }
  bool is_buffer() const { return buffer.defined(); }
  const std::string& name() const;
};

class PrimFuncNode : public Node {
 public:
  std::vector<Param> params;
  Stmt body;
  Attrs attrs;
  PrimFuncNode() : Node(NodeKind::kPrimFunc) {}
  static bool classof(NodeKind k) { return k == NodeKind::kPrimFunc; }
};
using PrimFunc = Ref<const PrimFuncNode>;

class IRModuleNode : public Node {
 public:
  std::vector<std::pair<std::string, PrimFunc>> functions;  // In insertion order.
  std::vector<std::pair<std::string, GraphFunc>> graph_functions;  // In insertion order.
  // In insertion order. Never written: copies of a HostBuffer share its data, so a
  // constant is made from a buffer nobody else holds (MakeIRModuleChecked clones).
  std::vector<std::pair<std::string, HostBuffer>> constants;
  Attrs attrs;
  IRModuleNode() : Node(NodeKind::kIRModule) {}
  static bool classof(NodeKind k) { return k == NodeKind::kIRModule; }

  // Null when absent.
  PrimFunc Lookup(const std::string& name) const;
  GraphFunc LookupGraph(const std::string& name) const;
  const HostBuffer* LookupConstant(const std::string& name) const;
};
using IRModule = Ref<const IRModuleNode>;

// Checks: every param set exactly once, a body present.
absl::StatusOr<PrimFunc> MakePrimFuncChecked(std::vector<Param> params, Stmt body, Attrs attrs = {});
PrimFunc MakePrimFunc(std::vector<Param> params, Stmt body, Attrs attrs = {});
// Checks: names non-empty and unique over both kinds, functions present.
absl::StatusOr<IRModule> MakeIRModuleChecked(std::vector<std::pair<std::string, PrimFunc>> functions,
                                             Attrs attrs = {});
absl::StatusOr<IRModule> MakeIRModuleChecked(
    std::vector<std::pair<std::string, PrimFunc>> functions,
    std::vector<std::pair<std::string, GraphFunc>> graph_functions, Attrs attrs = {});
// Also checks each constant: present, and its bytes hold its shape. Each is cloned.
absl::StatusOr<IRModule> MakeIRModuleChecked(
    std::vector<std::pair<std::string, PrimFunc>> functions,
    std::vector<std::pair<std::string, GraphFunc>> graph_functions,
    std::vector<std::pair<std::string, HostBuffer>> constants, Attrs attrs = {});
IRModule MakeIRModule(std::vector<std::pair<std::string, PrimFunc>> functions, Attrs attrs = {});

// A copy of `mod` with function `name` replaced (or appended when absent).
IRModule WithFunction(const IRModule& mod, const std::string& name, PrimFunc func);
IRModule WithGraphFunction(const IRModule& mod, const std::string& name, GraphFunc func);
// Adds (or replaces) constant `name`, cloning `value`; refuses a name a function has.
absl::StatusOr<IRModule> WithConstant(const IRModule& mod, const std::string& name,
                                      const HostBuffer& value);
// A copy without the constants no graph function reads.
IRModule WithoutUnusedConstants(const IRModule& mod);

}  // namespace tessel::ir

#endif  // TESSEL_IR_FUNCTION_H_
