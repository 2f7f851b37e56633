#include "dispatch/contraction.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "dispatch/stages.h"
#include "ir/arith/expr_util.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"

namespace tessel::dispatch {
namespace {

constexpr int kNoRole = -1;

bool IsZero(const ir::Expr& e) {
  const auto* f = ir::dyn_cast<ir::FloatImmNode>(e);
  return f != nullptr && f->value == 0.0;
}

std::string Layout(const MatrixView& v) {
  if (v.col_stride == 1) return "row-major";
  if (v.row_stride == 1) return "transposed";
  return "strided";
}

}  // namespace

int IterIndex(const ir::BlockNode* block, const ir::Expr& e) {
  const auto* v = ir::dyn_cast<ir::VarNode>(e);
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (v != nullptr && block->iter_vars[i].var.get() == v) return static_cast<int>(i);
  }
  return -1;
}

std::string Contraction::ToString() const {
  return absl::StrCat("batch ", batch, ", ", m, "x", n, "x", k, " ", dtype.ToString(), ", A ",
                      Layout(a), ", B ", Layout(b));
}

std::variant<std::vector<int64_t>, std::string> RoleStrides(const ir::BlockNode* block,
                                                            const ir::Buffer& buffer,
                                                            const std::vector<ir::Expr>& indices,
                                                            const std::vector<int>& role_of,
                                                            int num_roles) {
  std::variant<std::vector<int64_t>, std::string> strides = ElementStrides(buffer);
  if (auto* why = std::get_if<std::string>(&strides)) return *why;
  const std::vector<int64_t>& s = std::get<std::vector<int64_t>>(strides);
  std::vector<int64_t> out(num_roles, 0);
  std::vector<bool> seen(num_roles, false);
  for (size_t d = 0; d < indices.size(); ++d) {
    const auto* imm = ir::dyn_cast<ir::IntImmNode>(indices[d]);
    if (imm != nullptr && imm->value == 0) continue;  // A broadcast dimension: B[0, k, j].
    int it = IterIndex(block, indices[d]);
    if (it < 0) {
      return absl::StrCat("index ", ir::PrintExpr(indices[d]), " of '", buffer->name,
                          "' is not a plain iterator");
    }
    int role = role_of[it];
    if (role == kNoRole || seen[role]) {
      return absl::StrCat("iterator '", block->iter_vars[it].var->name, "' indexes '", buffer->name,
                          "' in a way a matmul does not");
    }
    seen[role] = true;
    out[role] = s[d];
  }
  return out;
}

std::variant<SumOfProducts, std::string> MatchSumOfProducts(const ir::BlockNode* block) {
  const auto* store = ir::dyn_cast<ir::BufferStoreNode>(block->body);
  if (store == nullptr) return std::string("its body is not one store");
  const ir::DataType dt = store->buffer->dtype;
  if (!dt.is_float()) return absl::StrCat("it accumulates ", dt.ToString(), " (float dtypes only)");
  const auto* init = ir::dyn_cast<ir::BufferStoreNode>(block->init);
  if (init == nullptr || init->buffer.get() != store->buffer.get() ||
      !ir::StructuralEqual(init->indices, store->indices) || !IsZero(init->value)) {
    return std::string("it is not a sum from zero (no init C = 0)");
  }
  const auto* add = ir::dyn_cast<ir::BinaryNode>(store->value);
  if (add == nullptr || add->kind() != ir::NodeKind::kAdd) {
    return std::string("its update is not C + ...");
  }
  auto is_acc = [&](const ir::Expr& e) {
    const auto* ld = ir::dyn_cast<ir::BufferLoadNode>(e);
    return ld != nullptr && ld->buffer.get() == store->buffer.get() &&
           ir::StructuralEqual(ld->indices, store->indices);
  };
  ir::Expr product = is_acc(add->a) ? add->b : is_acc(add->b) ? add->a : ir::Expr();
  const auto* mul = product ? ir::dyn_cast<ir::BinaryNode>(product) : nullptr;
  if (mul == nullptr || mul->kind() != ir::NodeKind::kMul) {
    return std::string("its update is not C + X * Y");
  }
  const auto* x = ir::dyn_cast<ir::BufferLoadNode>(mul->a);
  const auto* y = ir::dyn_cast<ir::BufferLoadNode>(mul->b);
  if (x == nullptr || y == nullptr) {
    return std::string("a factor of the product is not a buffer element");
  }
  if (x->buffer->dtype != dt || y->buffer->dtype != dt) {
    return absl::StrCat("dtypes ", x->buffer->dtype.ToString(), " * ", y->buffer->dtype.ToString(),
                        " -> ", dt.ToString(), " (one float dtype only)");
  }
  return SumOfProducts{store, x, y};
}

std::variant<Contraction, std::string> MatchContraction(const ir::BlockNode* block,
                                                        const std::vector<int64_t>& extents) {
  std::variant<SumOfProducts, std::string> sp = MatchSumOfProducts(block);
  if (auto* why = std::get_if<std::string>(&sp)) return *why;
  const auto [store, x, y] = std::get<SumOfProducts>(sp);
  const ir::DataType dt = store->buffer->dtype;
  // Classify each iter var by the buffers that use it.
  const size_t n_iters = block->iter_vars.size();
  std::vector<int> in_c(n_iters, 0), in_x(n_iters, 0), in_y(n_iters, 0);
  // Any use counts here (vw + vk uses both); RoleStrides then wants plain iterators.
  auto mark = [&](const std::vector<ir::Expr>& idx, std::vector<int>& in) {
    for (const ir::Expr& e : idx) {
      for (size_t i = 0; i < n_iters; ++i) {
        const ir::VarNode* v = block->iter_vars[i].var.get();
        if (ir::arith::AnyVar(e, [v](const ir::VarNode* u) { return u == v; })) in[i] = 1;
      }
    }
  };
  mark(store->indices, in_c);
  mark(x->indices, in_x);
  mark(y->indices, in_y);
  std::vector<int> role_of(n_iters, kNoRole);
  for (size_t i = 0; i < n_iters; ++i) {
    const ir::IterVar& iv = block->iter_vars[i];
    int role = kNoRole;
    if (iv.kind == ir::IterKind::kSpatial && in_c[i]) {
      role = in_x[i] && in_y[i] ? static_cast<int>(Role::kBatch)
             : in_x[i]          ? static_cast<int>(Role::kM)
             : in_y[i]          ? static_cast<int>(Role::kN)
                                : kNoRole;
    } else if (iv.kind == ir::IterKind::kReduce && !in_c[i] && in_x[i] && in_y[i]) {
      role = static_cast<int>(Role::kK);
    }
    if (role == kNoRole) {
      return absl::StrCat("iterator '", iv.var->name, "' is not a batch, M, N or K iterator");
    }
    role_of[i] = role;
  }
  // A batch one operand does not index (C[b, i, j] += A[b, i, k] * B[k, j]) looks
  // like a second M (or N): with no other batch, C's outer one is the batch,
  // broadcast in the operand that lacks it.
  auto count = [&](Role r) {
    return std::count(role_of.begin(), role_of.end(), static_cast<int>(r));
  };
  for (Role r : {Role::kM, Role::kN}) {
    if (count(r) != 2 || count(Role::kBatch) != 0) continue;
    for (const ir::Expr& e : store->indices) {
      int it = IterIndex(block, e);
      if (it >= 0 && role_of[it] == static_cast<int>(r)) {
        role_of[it] = static_cast<int>(Role::kBatch);
        break;
      }
    }
  }
  // Several batch iterators (attention's batch and heads) fold into one where
  // every buffer lays them out as one: stride(outer) = extent(inner) * stride(inner).
  // Each gets a role of its own (4, 5, ...) until the strides are known.
  std::vector<int> batch_iters;
  for (const ir::Expr& e : store->indices) {
    int it = IterIndex(block, e);
    if (it >= 0 && role_of[it] == static_cast<int>(Role::kBatch)) batch_iters.push_back(it);
  }
  const bool fold = batch_iters.size() > 1;
  if (fold) {
    for (size_t b = 0; b < batch_iters.size(); ++b)
      role_of[batch_iters[b]] = 4 + static_cast<int>(b);
  }
  static const char* kNames[] = {"batch", "M", "N", "K"};
  for (Role r : {Role::kBatch, Role::kM, Role::kN, Role::kK}) {
    if (count(r) > 1) {
      return absl::StrCat("two ", kNames[static_cast<int>(r)],
                          " iterators (a convolution or a reshaped matmul; one of each only)");
    }
  }
  if (count(Role::kK) == 0) return std::string("no reduction iterator");
  Contraction c;
  c.dtype = dt;
  for (size_t i = 0; i < n_iters; ++i) {
    if (role_of[i] >= 4) {
      c.batch *= extents[i];
      continue;
    }
    switch (static_cast<Role>(role_of[i])) {
      case Role::kBatch:
        c.batch = extents[i];
        break;
      case Role::kM:
        c.m = extents[i];
        break;
      case Role::kN:
        c.n = extents[i];
        break;
      case Role::kK:
        c.k = extents[i];
        break;
    }
  }
  auto view = [&](const ir::Buffer& buf, const std::vector<ir::Expr>& idx, Role rows, Role cols,
                  MatrixView* out) -> std::string {
    const int num_roles = 4 + static_cast<int>(fold ? batch_iters.size() : 0);
    std::variant<std::vector<int64_t>, std::string> s =
        RoleStrides(block, buf, idx, role_of, num_roles);
    if (auto* why = std::get_if<std::string>(&s)) return *why;
    std::vector<int64_t> r = std::get<std::vector<int64_t>>(s);
    for (int b = 4; b + 1 < num_roles; ++b) {
      const int64_t inner_extent = extents[batch_iters[b - 3]];
      if (r[b] != inner_extent * r[b + 1]) {
        return absl::StrCat("the batch iterators of '", buf->name,
                            "' are not laid out as one (they do not fold into one batch)");
      }
    }
    if (fold) r[static_cast<int>(Role::kBatch)] = r[num_roles - 1];
    *out = {buf, r[static_cast<int>(Role::kBatch)], r[static_cast<int>(rows)],
            r[static_cast<int>(cols)]};
    return "";
  };
  if (std::string w = view(x->buffer, x->indices, Role::kM, Role::kK, &c.a); !w.empty()) return w;
  if (std::string w = view(y->buffer, y->indices, Role::kK, Role::kN, &c.b); !w.empty()) return w;
  if (std::string w = view(store->buffer, store->indices, Role::kM, Role::kN, &c.c); !w.empty()) {
    return w;
  }
  for (const ir::Expr& e : store->indices) {
    const int role = role_of[IterIndex(block, e)];
    c.c_dims.push_back(role >= 4 ? Role::kBatch : static_cast<Role>(role));
  }
  return c;
}

}  // namespace tessel::dispatch
