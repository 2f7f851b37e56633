#include "dispatch/matmul_rewrite.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/expr_util.h"

namespace tessel::dispatch {
namespace {

// The view of `buffer` (shaped like C) with C's dimension roles.
std::variant<MatrixView, std::string> OutView(const ir::Buffer& buffer, const Contraction& c) {
  std::variant<std::vector<int64_t>, std::string> s = ElementStrides(buffer);
  if (auto* why = std::get_if<std::string>(&s)) return *why;
  std::variant<std::array<int64_t, 3>, std::string> v =
      RoleStridesOfOutput(c, std::get<std::vector<int64_t>>(s));
  if (auto* why = std::get_if<std::string>(&v)) return absl::StrCat("'", buffer->name, "': ", *why);
  const std::array<int64_t, 3>& r = std::get<std::array<int64_t, 3>>(v);
  return MatrixView{buffer, r[0], r[1], r[2]};
}

}  // namespace

std::variant<std::array<int64_t, 3>, std::string> RoleStridesOfOutput(
    const Contraction& c, const std::vector<int64_t>& strides) {
  std::array<int64_t, 3> r = {0, 0, 0};
  int last_batch = -1;
  for (size_t d = 0; d < c.c_dims.size() && d < strides.size(); ++d) {
    switch (c.c_dims[d]) {
      case Role::kBatch:
        // Batch dimensions fold into one: each outer stride spans the inner one.
        if (last_batch >= 0) {
          const int64_t inner_extent = ir::arith::AsConstInt(c.c.buffer->shape[d]).value_or(0);
          if (strides[last_batch] != inner_extent * strides[d]) {
            return std::string("its batch dimensions are not laid out as one");
          }
        }
        last_batch = static_cast<int>(d);
        r[0] = strides[d];
        break;
      case Role::kM:
        r[1] = strides[d];
        break;
      case Role::kN:
        r[2] = strides[d];
        break;
      case Role::kK:
        break;
    }
  }
  return r;
}

std::vector<ir::Expr> GemmCallArgs(const MatmulSite& s) {
  const Contraction& c = s.c;
  return {I64(c.dtype.bits()),
          I64(c.batch),
          I64(c.m),
          I64(c.n),
          I64(c.k),
          ir::AddressOf(c.a.buffer),
          I64(c.a.batch_stride),
          I64(c.a.row_stride),
          I64(c.a.col_stride),
          ir::AddressOf(c.b.buffer),
          I64(c.b.batch_stride),
          I64(c.b.row_stride),
          I64(c.b.col_stride),
          ir::AddressOf(s.out.buffer),
          I64(s.out.batch_stride),
          I64(s.out.row_stride)};
}

SiteMatcher MatmulSites(MatmulRewriteOptions options) {
  return [options](const ir::PrimFunc& func, const StageList& list,
                   size_t s) -> std::variant<SiteRewrite, std::string> {
    const Stage& stage = list.stages[s];
    std::variant<Contraction, std::string> m = MatchContraction(stage.block, stage.extents);
    if (auto* why = std::get_if<std::string>(&m)) return *why;
    MatmulSite site{std::get<Contraction>(std::move(m))};
    if (std::string why = options.check(site.c); !why.empty()) return why;
    EpilogueChain chain = ChainEpilogue(func, list, s, site.c.c.buffer, options.max_epilogue);
    site.epilogue = chain.ops;
    std::variant<MatrixView, std::string> out = OutView(chain.out, site.c);
    if (auto* why = std::get_if<std::string>(&out)) return *why;
    site.out = std::get<MatrixView>(out);
    std::variant<ir::Stmt, std::string> call = options.build(site);
    if (auto* why = std::get_if<std::string>(&call)) return *why;
    SiteRewrite r{std::get<ir::Stmt>(call), chain.stages, {}, ""};
    std::vector<std::string> ops;
    for (size_t i = 0; i < site.epilogue.size(); ++i) {
      ops.push_back(site.epilogue[i].ToString());
      // Every buffer before the final output is gone with its stage.
      r.dropped.push_back(i == 0 ? site.c.c.buffer.get() : site.epilogue[i - 1].out.get());
    }
    r.summary = absl::StrCat("block '", stage.block->name, "' (", site.c.ToString(), ")");
    if (!ops.empty()) absl::StrAppend(&r.summary, " + ", absl::StrJoin(ops, ", "));
    if (!chain.stop.empty()) absl::StrAppend(&r.summary, "; epilogue stops: ", chain.stop);
    return r;
  };
}

absl::StatusOr<DispatchResult> RewriteMatmuls(const ir::PrimFunc& func,
                                              const MatmulRewriteOptions& options) {
  return RewriteStages(func, options.library, MatmulSites(options));
}

}  // namespace tessel::dispatch
