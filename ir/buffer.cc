#include "ir/buffer.h"

#include "absl/strings/str_cat.h"

namespace tessel::ir {
namespace {

absl::Status CheckIndexExpr(const std::string& buffer, const char* what, const Expr& e) {
  if (!e) {
    return absl::InvalidArgumentError(absl::StrCat("Buffer '", buffer, "': ", what, " is missing"));
  }
  if (!e->dtype.is_integer() || !e->dtype.is_scalar()) {
    return absl::InvalidArgumentError(absl::StrCat("Buffer '", buffer, "': ", what,
                                                   " must be a scalar integer, not ",
                                                   e->dtype.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsKnownScope(const std::string& scope) {
  return scope == "global" || scope == "local" || scope == "shared";
}

absl::StatusOr<Buffer> MakeBufferChecked(std::string name, DataType dtype, std::vector<Expr> shape,
                                         std::vector<Expr> strides, Expr elem_offset,
                                         std::string scope, int alignment) {
  if (name.empty()) return absl::InvalidArgumentError("Buffer: a name is required");
  if (!dtype.is_scalar() || dtype.is_handle() || dtype.is_void()) {
    return absl::InvalidArgumentError(absl::StrCat("Buffer '", name, "': element type ",
                                                   dtype.ToString(), " is not a scalar value type"));
  }
  for (const Expr& e : shape) {
    if (absl::Status s = CheckIndexExpr(name, "a shape extent", e); !s.ok()) return s;
  }
  if (!strides.empty() && strides.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Buffer '", name, "': ", strides.size(),
                                                   " strides for ", shape.size(), " dimensions"));
  }
  for (const Expr& e : strides) {
    if (absl::Status s = CheckIndexExpr(name, "a stride", e); !s.ok()) return s;
  }
  if (!elem_offset) elem_offset = IntImm32(0);
  if (absl::Status s = CheckIndexExpr(name, "the element offset", elem_offset); !s.ok()) return s;
  if (!IsKnownScope(scope)) {
    return absl::InvalidArgumentError(absl::StrCat("Buffer '", name, "': unknown scope '", scope,
                                                   "' (expected global, local or shared)"));
  }
  if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("Buffer '", name, "': alignment ", alignment,
                                                   " is not a power of two"));
  }
  auto n = MakeNode<BufferNode>();
  n->name = std::move(name);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->strides = std::move(strides);
  n->elem_offset = std::move(elem_offset);
  n->scope = std::move(scope);
  n->alignment = alignment;
  return Buffer(std::move(n));
}

Buffer MakeBuffer(std::string name, DataType dtype, std::vector<Expr> shape, std::string scope) {
  return ValueOrDie(MakeBufferChecked(std::move(name), dtype, std::move(shape), {}, nullptr,
                                      std::move(scope)));
}

}  // namespace tessel::ir
