#include "dispatch/site_rewrite.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel::dispatch {

EpilogueChain ChainEpilogue(const ir::PrimFunc& func, const StageList& list, size_t s,
                            const ir::Buffer& result, int max_ops) {
  EpilogueChain chain;
  chain.out = result;
  const size_t n = list.stages.size();
  for (size_t j = s + 1; j < n && static_cast<int>(chain.ops.size()) < max_ops; ++j) {
    const Stage& next = list.stages[j];
    const ir::Buffer& cur = chain.out;
    if (next.block == nullptr || !StageReads(next, cur.get())) break;
    if (IsParam(func, cur.get())) {
      chain.stop = absl::StrCat("'", cur->name, "' is a parameter (the caller reads it)");
      break;
    }
    bool elsewhere = false;
    for (size_t k = 0; k < n; ++k) {
      if (k != j && k != s && StageReads(list.stages[k], cur.get())) elsewhere = true;
    }
    if (elsewhere) {
      chain.stop = absl::StrCat("'", cur->name, "' is also read outside the matched region");
      break;
    }
    std::variant<EpilogueOp, std::string> e = MatchEpilogue(next.block, cur);
    if (auto* why = std::get_if<std::string>(&e)) {
      chain.stop = absl::StrCat("block '", next.block->name, "': ", *why);
      break;
    }
    chain.ops.push_back(std::get<EpilogueOp>(std::move(e)));
    chain.stages.push_back(j);
    chain.out = chain.ops.back().out;
  }
  return chain;
}

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

absl::StatusOr<DispatchResult> RewriteStages(const ir::PrimFunc& func, const std::string& library,
                                             const SiteMatcher& match) {
  std::variant<StageList, std::string> split = SplitStages(func);
  if (auto* why = std::get_if<std::string>(&split)) return NotApplicable{*why};
  const StageList& list = std::get<StageList>(split);
  const size_t n = list.stages.size();
  std::vector<std::optional<ir::Stmt>> replacement(n);
  std::vector<const ir::BufferNode*> dropped;
  std::vector<std::string> reasons(n), done;
  for (size_t s = 0; s < n; ++s) {
    if (replacement[s].has_value() || list.stages[s].block == nullptr) continue;
    std::variant<SiteRewrite, std::string> r = match(func, list, s);
    if (auto* why = std::get_if<std::string>(&r)) {
      reasons[s] = absl::StrCat("block '", list.stages[s].block->name, "': ", *why);
      continue;
    }
    SiteRewrite& site = std::get<SiteRewrite>(r);
    replacement[s] = site.call;
    for (size_t j : site.absorbed) replacement[j] = ir::Stmt();
    dropped.insert(dropped.end(), site.dropped.begin(), site.dropped.end());
    done.push_back(site.summary);
  }
  std::vector<std::string> left;
  for (size_t s = 0; s < n; ++s) {
    if (!replacement[s].has_value() && !reasons[s].empty()) left.push_back(reasons[s]);
  }
  if (done.empty()) return NotApplicable{absl::StrJoin(left, "; ")};
  absl::StatusOr<ir::PrimFunc> rebuilt = RebuildBody(func, list, replacement, dropped);
  if (!rebuilt.ok()) return rebuilt.status();
  bool whole = true;
  for (size_t i = 0; i < n; ++i) {
    whole = whole && (replacement[i].has_value() || list.stages[i].block == nullptr);
  }
  auto out = ir::MakeNode<ir::PrimFuncNode>(**rebuilt);
  out->attrs[kDispatchedAttr] = ir::AttrValue(library);
  if (whole) out->attrs["scheduled"] = ir::AttrValue(true);
  std::string summary = absl::StrJoin(done, "; ");
  if (!whole) absl::StrAppend(&summary, "; left to tessel: ", absl::StrJoin(left, "; "));
  return DispatchRewrite{ir::PrimFunc(std::move(out)), summary};
}

}  // namespace tessel::dispatch
