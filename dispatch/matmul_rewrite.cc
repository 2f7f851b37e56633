#include "dispatch/matmul_rewrite.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatch/stages.h"

namespace tessel::dispatch {
namespace {

// The view of `buffer` (shaped like C) with C's dimension roles.
std::variant<MatrixView, std::string> OutView(const ir::Buffer& buffer,
                                              const std::vector<Role>& dims) {
  std::variant<std::vector<int64_t>, std::string> s = ElementStrides(buffer);
  if (auto* why = std::get_if<std::string>(&s)) return *why;
  const std::vector<int64_t>& strides = std::get<std::vector<int64_t>>(s);
  MatrixView v{buffer};
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == Role::kBatch) v.batch_stride = strides[d];
    if (dims[d] == Role::kM) v.row_stride = strides[d];
    if (dims[d] == Role::kN) v.col_stride = strides[d];
  }
  return v;
}

}  // namespace

ir::Expr I64(int64_t v) { return ir::IntImm(ir::DataType::Int(64), v); }
ir::Expr F32Bits(float v) { return ir::FloatImm(ir::DataType::Float(32), v); }

std::variant<ir::Stmt, std::string> PackedCallStmt(const std::string& name,
                                                   std::vector<ir::Expr> args) {
  absl::StatusOr<ir::Expr> call =
      ir::MakeCall(ir::DataType::Int(32), ir::CallNode::Callee::kPacked, name, std::move(args));
  if (!call.ok()) return std::string(call.status().message());
  absl::StatusOr<ir::Stmt> s = ir::MakeEvaluate(*call);
  if (!s.ok()) return std::string(s.status().message());
  return *s;
}

absl::StatusOr<DispatchResult> RewriteMatmuls(const ir::PrimFunc& func,
                                              const MatmulRewriteOptions& options) {
  std::variant<StageList, std::string> split = SplitStages(func);
  if (auto* why = std::get_if<std::string>(&split)) return NotApplicable{*why};
  const StageList& list = std::get<StageList>(split);
  const size_t n = list.stages.size();
  std::vector<std::optional<ir::Stmt>> replacement(n);
  std::vector<const ir::BufferNode*> dropped;
  std::vector<std::string> reasons, done;
  for (size_t s = 0; s < n; ++s) {
    if (replacement[s].has_value()) continue;
    const Stage& stage = list.stages[s];
    if (stage.block == nullptr) continue;  // A library call placed earlier.
    const std::string block = stage.block->name;
    std::variant<Contraction, std::string> m = MatchContraction(stage.block, stage.extents);
    if (auto* why = std::get_if<std::string>(&m)) {
      reasons.push_back(absl::StrCat("block '", block, "': ", *why));
      continue;
    }
    MatmulSite site{std::get<Contraction>(std::move(m))};
    if (std::string why = options.check(site.c); !why.empty()) {
      reasons.push_back(absl::StrCat("block '", block, "': ", why));
      continue;
    }
    // Chain the epilogue.
    ir::Buffer cur = site.c.c.buffer;
    std::vector<size_t> absorbed;
    std::string stop;
    for (size_t j = s + 1; j < n && static_cast<int>(site.epilogue.size()) < options.max_epilogue;
         ++j) {
      const Stage& next = list.stages[j];
      if (next.block == nullptr || !StageReads(next, cur.get())) break;
      if (IsParam(func, cur.get())) {
        stop = absl::StrCat("'", cur->name, "' is a parameter (the caller reads it)");
        break;
      }
      bool elsewhere = false;
      for (size_t k = 0; k < n; ++k) {
        if (k != j && k != s && StageReads(list.stages[k], cur.get())) elsewhere = true;
      }
      if (elsewhere) {
        stop = absl::StrCat("'", cur->name, "' is also read outside the matched region");
        break;
      }
      std::variant<EpilogueOp, std::string> e = MatchEpilogue(next.block, cur);
      if (auto* why = std::get_if<std::string>(&e)) {
        stop = absl::StrCat("block '", next.block->name, "': ", *why);
        break;
      }
      site.epilogue.push_back(std::get<EpilogueOp>(std::move(e)));
      absorbed.push_back(j);
      cur = site.epilogue.back().out;
    }
    std::variant<MatrixView, std::string> out = OutView(cur, site.c.c_dims);
    if (auto* why = std::get_if<std::string>(&out)) {
      reasons.push_back(absl::StrCat("block '", block, "': ", *why));
      continue;
    }
    site.out = std::get<MatrixView>(out);
    std::variant<ir::Stmt, std::string> call = options.build(site);
    if (auto* why = std::get_if<std::string>(&call)) {
      reasons.push_back(absl::StrCat("block '", block, "': ", *why));
      continue;
    }
    replacement[s] = std::get<ir::Stmt>(call);
    std::vector<std::string> ops;
    for (size_t j : absorbed) replacement[j] = ir::Stmt();
    for (size_t i = 0; i < site.epilogue.size(); ++i) {
      ops.push_back(site.epilogue[i].ToString());
      // Every buffer before the final output is gone with its stage.
      dropped.push_back(i == 0 ? site.c.c.buffer.get() : site.epilogue[i - 1].out.get());
    }
    std::string text = absl::StrCat("block '", block, "' (", site.c.ToString(), ")");
    if (!ops.empty()) absl::StrAppend(&text, " + ", absl::StrJoin(ops, ", "));
    if (!stop.empty()) absl::StrAppend(&text, "; epilogue stops: ", stop);
    done.push_back(text);
  }
  if (done.empty()) return NotApplicable{absl::StrJoin(reasons, "; ")};
  absl::StatusOr<ir::PrimFunc> rebuilt = RebuildBody(func, list, replacement, dropped);
  if (!rebuilt.ok()) return rebuilt.status();
  bool whole = true;
  for (size_t i = 0; i < n; ++i) {
    whole = whole && (replacement[i].has_value() || list.stages[i].block == nullptr);
  }
  auto out = ir::MakeNode<ir::PrimFuncNode>(**rebuilt);
  out->attrs[kDispatchedAttr] = ir::AttrValue(options.library);
  if (whole) out->attrs["scheduled"] = ir::AttrValue(true);
  std::string summary = absl::StrJoin(done, "; ");
  if (!whole) absl::StrAppend(&summary, "; left to tessel: ", absl::StrJoin(reasons, "; "));
  return DispatchRewrite{ir::PrimFunc(std::move(out)), summary};
}

}  // namespace tessel::dispatch
