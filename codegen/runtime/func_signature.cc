// Signatures of PrimFuncs and dtype mapping (see func_signature.h).
#include "codegen/runtime/func_signature.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "ir/written_buffers.h"

namespace tessel::runtime {

absl::StatusOr<DLDataType> ToDLDataType(ir::DataType dtype) {
  using Code = ir::DataType::Code;
  DLDataType t{0, static_cast<uint8_t>(dtype.bits()), static_cast<uint16_t>(dtype.lanes())};
  switch (dtype.code()) {
    case Code::kInt:
      t.code = kDLInt;
      break;
    case Code::kUInt:
      t.code = kDLUInt;
      break;
    case Code::kFloat:
      t.code = kDLFloat;
      break;
    case Code::kBFloat:
      t.code = kDLBfloat;
      break;
    case Code::kBool:
      t.code = kDLBoolCode;
      t.bits = 8;
      break;
    case Code::kHandle:
      return absl::InvalidArgumentError(
          absl::StrCat("dtype ", dtype.ToString(), " has no DLPack equivalent"));
  }
  return t;
}

absl::StatusOr<ir::DataType> ToIRDataType(DLDataType t) {
  using Code = ir::DataType::Code;
  Code code;
  switch (t.code) {
    case kDLInt:
      code = Code::kInt;
      break;
    case kDLUInt:
      code = Code::kUInt;
      break;
    case kDLFloat:
      code = Code::kFloat;
      break;
    case kDLBfloat:
      code = Code::kBFloat;
      break;
    case kDLBoolCode:
      if (t.bits != 8)
        return absl::InvalidArgumentError(absl::StrCat("bool dtype with ", t.bits, " bits"));
      return ir::DataType::Bool(t.lanes);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("DLPack dtype ", DTypeToString(t), " has no tessel equivalent"));
  }
  return ir::DataType(code, t.bits, t.lanes);
}

std::string FunctionSymbol(const std::string& module_name, const ir::PrimFunc& func) {
  auto it = func->attrs.find("global_symbol");
  if (it != func->attrs.end()) {
    if (const std::string* s = it->second.get_if<std::string>()) return *s;
  }
  return module_name;
}

absl::StatusOr<FunctionSignature> SignatureOf(const std::string& module_name,
                                              const ir::PrimFunc& func) {
  FunctionSignature sig;
  sig.name = FunctionSymbol(module_name, func);
  auto error = [&](const std::string& param, const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("function ", sig.name, ", parameter ", param, ": ", why));
  };
  // Extents and scalars match by name in a call; two variables sharing a name would
  // be silently tied together, so refuse them.
  std::map<std::string, const ir::VarNode*> vars;
  const std::set<const ir::BufferNode*> written = ir::WrittenBuffers(func);
  auto claim = [&](const ir::VarNode* v) { return vars.emplace(v->name, v).first->second == v; };
  for (const ir::Param& p : func->params) {
    if (!p.is_buffer()) {
      if (!p.var.defined()) return error("?", "neither a buffer nor a variable");
      ir::DataType t = p.var->dtype;
      if (!t.is_scalar() || t.is_handle() || t.is_void()) {
        return error(p.var->name,
                     absl::StrCat("a scalar of type ", t.ToString(), " cannot be passed"));
      }
      if (!claim(p.var.get()))
        return error(p.var->name, "another variable of the function has this name");
      absl::StatusOr<DLDataType> dl = ToDLDataType(t);
      if (!dl.ok()) return error(p.var->name, std::string(dl.status().message()));
      sig.params.push_back(ParamSignature::Scalar(p.var->name, *dl));
      continue;
    }
    const ir::BufferNode* b = p.buffer.get();
    if (!b->strides.empty()) {
      return error(b->name, "explicit strides; only compact row-major buffers can be passed");
    }
    if (b->elem_offset.defined()) {
      const auto* off = ir::dyn_cast<ir::IntImmNode>(b->elem_offset);
      if (off == nullptr || off->value != 0) return error(b->name, "a non-zero elem_offset");
    }
    absl::StatusOr<DLDataType> dl = ToDLDataType(b->dtype);
    if (!dl.ok()) return error(b->name, std::string(dl.status().message()));
    std::vector<Dim> shape;
    for (const ir::Expr& e : b->shape) {
      if (const auto* imm = ir::dyn_cast<ir::IntImmNode>(e)) {
        shape.push_back(Dim::Const(imm->value));
      } else if (const auto* v = ir::dyn_cast<ir::VarNode>(e)) {
        if (!claim(v)) {
          return error(b->name, absl::StrCat("extent ", v->name,
                                             " is another variable than the one of that name"));
        }
        shape.push_back(Dim::Var(v->name));
      } else {
        return error(b->name, absl::StrCat("extent ", ir::PrintExpr(e),
                                           " is neither a constant nor a variable"));
      }
    }
    sig.params.push_back(
        ParamSignature::Buffer(b->name, *dl, std::move(shape), written.count(b) > 0));
  }
  if (std::string why = ValidateSignature(sig); !why.empty()) {
    return absl::InvalidArgumentError(why);
  }
  return sig;
}

absl::StatusOr<std::vector<FunctionSignature>> SignaturesOf(const ir::IRModule& mod) {
  std::vector<FunctionSignature> sigs;
  for (const auto& [name, func] : mod->functions) {
    absl::StatusOr<FunctionSignature> sig = SignatureOf(name, func);
    if (!sig.ok()) return sig.status();
    sigs.push_back(*std::move(sig));
  }
  return sigs;
}

}  // namespace tessel::runtime
