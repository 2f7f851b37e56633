// The tensor intrinsic registry (see tensor_intrin.h).
#include "ir/schedule/tensor_intrin.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/parser.h"
#include "ir/schedule/intrin/cpu_fma.h"
#include "ir/status_macros.h"
#include "ir/verifier.h"
#include "ir/visitor.h"

namespace tessel::ir::schedule {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, TensorIntrin> intrins;
};

absl::Status Add(Registry& r, const std::string& name, PrimFunc desc, PrimFunc impl, bool replace);

Registry& Global() {
  static Registry* registry = [] {
    auto* r = new Registry();
    for (const auto& [name, text] : intrin::CpuFmaIntrinsicTexts()) {
      absl::StatusOr<IRModule> m = ParseModule(text, name);
      absl::Status s = m.ok() ? ((*m)->functions.size() == 2
                                     ? Add(*r, name, (*m)->functions[0].second,
                                           (*m)->functions[1].second, false)
                                     : absl::InternalError("expected two functions"))
                              : m.status();
      if (!s.ok()) {  // A built-in intrinsic is wrong: a bug in tessel itself.
        std::fprintf(stderr, "built-in tensor intrinsic '%s': %s\n", name.c_str(),
                     std::string(s.message()).c_str());
        std::abort();
      }
    }
    return r;
  }();
  return *registry;
}

class HasBlock : public IRVisitor {
 public:
  void VisitBlock(const BlockNode*) override { found = true; }
  bool found = false;
};

std::string Shape(const Buffer& b) {
  std::vector<std::string> dims;
  for (const Expr& e : b->shape) {
    const auto* c = dyn_cast<IntImmNode>(e);
    dims.push_back(c ? absl::StrCat(c->value) : "?");
  }
  return absl::StrCat(b->dtype.ToString(), "[", absl::StrJoin(dims, ", "), "]");
}

absl::Status Check(const std::string& name, const PrimFunc& desc, const PrimFunc& impl) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("tensor intrinsic '", name, "': ", why));
  };
  if (name.empty()) return absl::InvalidArgumentError("tensor intrinsic: the name is empty");
  if (!desc || !impl) return bad("the description and the implementation are both needed");
  if (absl::Status s = VerifyFunction(desc, "desc"); !s.ok()) {
    return bad(absl::StrCat("the description is not valid IR: ", s.message()));
  }
  if (absl::Status s = VerifyFunction(impl, "impl"); !s.ok()) {
    return bad(absl::StrCat("the implementation is not valid IR: ", s.message()));
  }
  if (desc->params.size() != impl->params.size()) {
    return bad(absl::StrCat("the description has ", desc->params.size(),
                            " parameters, the implementation ", impl->params.size()));
  }
  for (size_t k = 0; k < desc->params.size(); ++k) {
    const Param& d = desc->params[k];
    const Param& i = impl->params[k];
    if (!d.is_buffer() || !i.is_buffer()) return bad("parameters must all be buffers");
    for (const Expr& e : d.buffer->shape) {
      if (!isa<IntImmNode>(e)) return bad(absl::StrCat("parameter ", k, " has a symbolic shape"));
    }
    if (Shape(d.buffer) != Shape(i.buffer)) {
      return bad(absl::StrCat("parameter ", k, " is ", Shape(d.buffer),
                              " in the description but ", Shape(i.buffer),
                              " in the implementation"));
    }
  }
  const StmtNode* s = desc->body.get();
  while (const auto* f = dyn_cast<ForNode>(s)) s = f->body.get();
  const auto* realize = dyn_cast<BlockRealizeNode>(s);
  if (realize == nullptr) {
    return bad("the description's body must be a chain of loops ending in one block");
  }
  const auto* always = dyn_cast<IntImmNode>(realize->predicate);
  if (realize->block->init || !realize->block->alloc_buffers.empty() || !always ||
      always->value != 1) {
    return bad("the description's block must have no init, allocations or predicate");
  }
  HasBlock blocks;
  blocks.VisitStmt(impl->body);
  if (blocks.found) {
    return bad("the implementation holds a block; it is inlined into the tensorized block, so "
               "it must be plain loops and statements");
  }
  return absl::OkStatus();
}

absl::Status Add(Registry& r, const std::string& name, PrimFunc desc, PrimFunc impl,
                 bool replace) {
  TESSEL_RETURN_IF_ERROR(Check(name, desc, impl));
  if (!replace && r.intrins.contains(name)) {
    return absl::AlreadyExistsError(
        absl::StrCat("tensor intrinsic '", name, "' is registered already"));
  }
  r.intrins[name] = TensorIntrin{name, std::move(desc), std::move(impl)};
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterTensorIntrin(const std::string& name, PrimFunc desc, PrimFunc impl,
                                  bool replace) {
  Registry& r = Global();
  std::lock_guard<std::mutex> lock(r.mu);
  return Add(r, name, std::move(desc), std::move(impl), replace);
}

absl::Status RegisterTensorIntrinText(const std::string& name, const std::string& text,
                                      bool replace) {
  TESSEL_ASSIGN_OR_RETURN(IRModule m, ParseModule(text, name));
  if (m->functions.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor intrinsic '", name,
                     "': the text must hold two functions, the description "
                     "then the implementation; it holds ",
                     m->functions.size()));
  }
  return RegisterTensorIntrin(name, m->functions[0].second, m->functions[1].second, replace);
}

absl::StatusOr<TensorIntrin> GetTensorIntrin(const std::string& name) {
  Registry& r = Global();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.intrins.find(name);
  if (it != r.intrins.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [n, i] : r.intrins) names.push_back(n);
  return absl::NotFoundError(absl::StrCat("no tensor intrinsic named '", name,
                                          "'; registered: ", absl::StrJoin(names, ", ")));
}

std::vector<std::string> TensorIntrinNames() {
  Registry& r = Global();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [n, i] : r.intrins) names.push_back(n);
  return names;
}

}  // namespace tessel::ir::schedule
