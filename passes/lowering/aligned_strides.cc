// Reading storage_align's annotation and laying a buffer out by it (see
// aligned_strides.h).
#include "passes/lowering/aligned_strides.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/arith/expr_util.h"
#include "ir/schedule/primitive/storage_align.h"

namespace tessel::passes::lowering {
namespace {

absl::Status Malformed(const ir::BlockNode* block, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("block '", block->name, "': annotation '",
                                                 ir::schedule::kBufferDimAlign, "' ", why));
}

std::optional<int64_t> IntAt(const ir::AttrValue::List& l, size_t k) {
  if (k >= l.size()) return std::nullopt;
  const int64_t* v = l[k].get_if<int64_t>();
  return v == nullptr ? std::nullopt : std::optional<int64_t>(*v);
}

absl::Status Overflows(const ir::Buffer& buffer) {
  return absl::InvalidArgumentError(absl::StrCat(
      "storage_align of buffer '", buffer->name, "': the padded layout overflows 64 bits"));
}

absl::Status DoesNotFit(const ir::Buffer& buffer, const std::string& what, int64_t value,
                        ir::DataType t) {
  return absl::InvalidArgumentError(absl::StrCat(
      "storage_align of buffer '", buffer->name, "': the padded layout's ", what, ", ", value,
      ", does not fit its extents' type ", t.ToString(), " (give the buffer i64 extents)"));
}

}  // namespace

absl::StatusOr<std::vector<std::vector<DimAlign>>> ReadDimAligns(const ir::BlockNode* block) {
  std::vector<std::vector<DimAlign>> out(block->writes.size());
  auto it = block->annotations.find(ir::schedule::kBufferDimAlign);
  if (it == block->annotations.end()) return out;
  const ir::AttrValue::List* per_buffer = it->second.get_if<ir::AttrValue::List>();
  if (per_buffer == nullptr) return Malformed(block, "is not a list (one list per write buffer)");
  if (per_buffer->size() > block->writes.size()) {
    return Malformed(block, absl::StrCat("has ", per_buffer->size(), " lists but the block writes ",
                                         block->writes.size(), " buffers"));
  }
  for (size_t w = 0; w < per_buffer->size(); ++w) {
    const ir::AttrValue::List* entries = (*per_buffer)[w].get_if<ir::AttrValue::List>();
    if (entries == nullptr) return Malformed(block, absl::StrCat("entry ", w, " is not a list"));
    const ir::Buffer& buf = block->writes[w].buffer;
    for (const ir::AttrValue& e : *entries) {
      const ir::AttrValue::List* t = e.get_if<ir::AttrValue::List>();
      std::optional<int64_t> axis, factor, offset;
      if (t != nullptr && t->size() == 3) {
        axis = IntAt(*t, 0);
        factor = IntAt(*t, 1);
        offset = IntAt(*t, 2);
      }
      if (!axis || !factor || !offset) {
        return Malformed(block, absl::StrCat("for buffer '", buf->name,
                                             "' holds an entry that is not [axis, factor, offset]"));
      }
      const int64_t ndim = buf->ndim();
      if (*axis < -ndim || *axis >= ndim) {
        return Malformed(block, absl::StrCat("names axis ", *axis, " of buffer '", buf->name,
                                             "', which has ", ndim, " dimensions"));
      }
      if (*factor < 1 || *offset < 0 || *offset >= *factor) {
        return Malformed(block, absl::StrCat("for buffer '", buf->name, "' asks factor ", *factor,
                                             " and offset ", *offset,
                                             " (need factor >= 1 and 0 <= offset < factor)"));
      }
      out[w].push_back(DimAlign{*axis < 0 ? *axis + ndim : *axis, *factor, *offset});
    }
  }
  return out;
}

absl::StatusOr<ir::Buffer> AlignBuffer(const ir::Buffer& buffer, const std::vector<DimAlign>& aligns) {
  const int ndim = buffer->ndim();
  std::vector<int64_t> shape(ndim);
  for (int d = 0; d < ndim; ++d) {
    std::optional<int64_t> e = ir::arith::AsConstInt(buffer->shape[d]);
    if (!e) {
      return absl::UnimplementedError(absl::StrCat(
          "storage_align of buffer '", buffer->name, "' needs a constant shape; dimension ", d,
          " is not constant"));
    }
    shape[d] = *e;
  }
  if (!buffer->strides.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "storage_align of buffer '", buffer->name, "': the buffer already has explicit strides"));
  }
  std::vector<ir::Expr> strides(ndim);
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    for (const DimAlign& a : aligns) {
      if (a.axis != d) continue;
      const int64_t pad = ((a.offset - stride % a.factor) % a.factor + a.factor) % a.factor;
      if (__builtin_add_overflow(stride, pad, &stride)) return Overflows(buffer);
    }
    // A stride, and the padded size (the last `stride`), must fit the type of
    // the extents: flatten-buffer computes offsets in it, and an i32 offset
    // that wraps addresses the wrong element.
    const ir::DataType t = buffer->shape[d]->dtype;
    absl::StatusOr<ir::Expr> s = ir::MakeIntImm(t, stride);
    if (!s.ok()) return DoesNotFit(buffer, "stride of dimension " + std::to_string(d), stride, t);
    strides[d] = *s;
    if (__builtin_mul_overflow(stride, shape[d], &stride)) return Overflows(buffer);
  }
  if (ndim > 0 && !ir::MakeIntImm(buffer->shape[0]->dtype, stride).ok()) {
    return DoesNotFit(buffer, "padded size", stride, buffer->shape[0]->dtype);
  }
  auto n = ir::MakeNode<ir::BufferNode>(*buffer);
  n->strides = std::move(strides);
  return ir::Buffer(std::move(n));
}

}  // namespace tessel::passes::lowering
