// Signatures of PrimFuncs and dtype mapping (see func_signature.h).
#include "codegen/runtime/func_signature.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/packed_functions.h"
#include "ir/printer.h"
#include "ir/visitor.h"

namespace tessel::runtime {
namespace {

// The buffers a function body may store into, each followed back to the buffer it
// views (`decl_buffer C_1d: f32[16] = C` after flattening stores into C): a store,
// a block declaring a write region, or a buffer whose address a packed call takes
// (`@tessel_onednn_matmul(..., address_of(C_1d[0]), ...): packed`) at a position the
// callee registered as written (ir/packed_functions.h), or at any position when it
// registered none.
class WrittenBuffers : public ir::IRVisitor {
 public:
  std::set<const ir::BufferNode*> written;

  void VisitDeclBuffer(const ir::DeclBufferNode* op) override {
    if (op->source.defined()) views_[op->buffer.get()] = op->source.get();
    ir::IRVisitor::VisitDeclBuffer(op);
  }
  void VisitBufferStore(const ir::BufferStoreNode* op) override {
    Mark(op->buffer.get());
    ir::IRVisitor::VisitBufferStore(op);
  }
  void VisitBlock(const ir::BlockNode* op) override {
    for (const ir::BufferRegion& r : op->writes) Mark(r.buffer.get());
    ir::IRVisitor::VisitBlock(op);
  }
  void VisitCall(const ir::CallNode* op) override {
    if (op->callee == ir::CallNode::Callee::kPacked) {
      std::optional<std::vector<int32_t>> written = ir::PackedFunctionWrittenArgs(op->name);
      for (size_t i = 0; i < op->args.size(); ++i) {
        const auto* addr = ir::dyn_cast<ir::CallNode>(op->args[i]);
        if (addr == nullptr || addr->callee != ir::CallNode::Callee::kAddressOf) continue;
        if (written && std::find(written->begin(), written->end(), static_cast<int32_t>(i)) ==
                           written->end()) {
          continue;
        }
        if (const auto* load = ir::dyn_cast<ir::BufferLoadNode>(addr->args[0])) {
          Mark(load->buffer.get());
        }
      }
    }
    ir::IRVisitor::VisitCall(op);
  }

 private:
  void Mark(const ir::BufferNode* b) {
    // A view is declared before the statements that store through it.
    for (int hops = 0; b != nullptr && hops < 64; ++hops) {
      written.insert(b);
      auto it = views_.find(b);
      b = it == views_.end() ? nullptr : it->second;
    }
  }
  std::map<const ir::BufferNode*, const ir::BufferNode*> views_;
};

}  // namespace

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
  WrittenBuffers writes;
  if (func->body.defined()) writes.VisitStmt(func->body);
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
        ParamSignature::Buffer(b->name, *dl, std::move(shape), writes.written.count(b) > 0));
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
