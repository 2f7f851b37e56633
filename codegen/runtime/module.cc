// Module over a loaded library or in-process functions (see module.h).
#include "codegen/runtime/module.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/library_module.h"
#include "codegen/runtime/thread_pool.h"

namespace tessel::runtime {

struct Module::State {
  std::vector<Function> functions;
  std::string path;
  std::unique_ptr<LibraryModule> library;  // Set when loaded from a file.
  std::shared_ptr<const void> owner;       // Set for in-process code.
};

absl::StatusOr<Module> Module::LoadLibrary(const std::string& path) {
  std::string error;
  std::unique_ptr<LibraryModule> library = LibraryModule::Load(path, &error);
  if (!library) return absl::InvalidArgumentError(error);
  auto state = std::make_shared<State>();
  for (const LibraryModule::Function& f : library->functions()) {
    Function function;
    function.signature = f.signature;
    function.packed = f.packed;
    function.cannot_run = f.cannot_run;
    state->functions.push_back(std::move(function));
  }
  state->path = path;
  state->library = std::move(library);
  Module m;
  m.state_ = std::move(state);
  return m;
}

absl::StatusOr<Module> Module::FromFunctions(std::vector<Function> functions,
                                             std::shared_ptr<const void> owner) {
  std::set<std::string> names;
  for (const Function& f : functions) {
    if (std::string why = ValidateSignature(f.signature); !why.empty()) {
      return absl::InvalidArgumentError(why);
    }
    if (f.packed == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("function ", f.signature.name, " has no entry point"));
    }
    if (!names.insert(f.signature.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("two functions named ", f.signature.name));
    }
  }
  auto state = std::make_shared<State>();
  state->functions = std::move(functions);
  state->owner = std::move(owner);
  Module m;
  m.state_ = std::move(state);
  return m;
}

absl::StatusOr<Module> Module::FromCompiled(const ir::IRModule& mod, const Lookup& lookup,
                                            std::shared_ptr<const void> owner,
                                            int32_t num_threads, const std::string& cannot_run) {
  std::vector<Function> functions;
  for (const auto& [name, func] : mod->functions) {
    absl::StatusOr<FunctionSignature> sig = SignatureOf(name, func);
    if (!sig.ok()) return sig.status();
    absl::StatusOr<TesselPackedFunc> packed = lookup(name);
    if (!packed.ok()) return packed.status();
    functions.push_back(Function{*std::move(sig), *packed, num_threads, cannot_run});
  }
  return FromFunctions(std::move(functions), std::move(owner));
}

std::vector<std::string> Module::FunctionNames() const {
  std::vector<std::string> names;
  if (state_) {
    for (const Function& f : state_->functions) names.push_back(f.signature.name);
  }
  return names;
}

const Module::Function* Module::Find(std::string_view name) const {
  if (!state_) return nullptr;
  for (const Function& f : state_->functions) {
    if (f.signature.name == name) return &f;
  }
  return nullptr;
}

absl::StatusOr<const Module::Function*> Module::GetFunction(std::string_view name) const {
  if (const Function* f = Find(name)) return f;
  std::vector<std::string> names = FunctionNames();
  return absl::NotFoundError(
      absl::StrCat("no function '", std::string(name), "' in ",
                   library_path().empty() ? "the module" : library_path(),
                   " (it has: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
}

std::vector<std::string> Module::GraphNames() const {
  std::vector<std::string> names;
  if (state_ && state_->library) {
    for (const auto& g : state_->library->graphs()) names.push_back(g->program().name);
  }
  return names;
}

const GraphRunner* Module::FindGraph(std::string_view name) const {
  return state_ && state_->library ? state_->library->FindGraph(name) : nullptr;
}

const std::string& Module::library_path() const {
  static const std::string kNone;
  return state_ ? state_->path : kNone;
}

absl::Status CallFunction(const Module::Function& function, absl::Span<DLTensor* const> args) {
  if (!function.cannot_run.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(function.signature.name, ": ", function.cannot_run));
  }
  ThreadPool::CallThreads threads(function.num_threads);
  CallOutcome outcome = CheckAndCall(function.signature, function.packed, args.data(),
                                     static_cast<int32_t>(args.size()));
  switch (outcome.kind) {
    case CallOutcome::kOk:
      return absl::OkStatus();
    case CallOutcome::kBadArgument:
      return absl::InvalidArgumentError(outcome.message);
    case CallOutcome::kKernelFailed:
      break;
  }
  return absl::InternalError(outcome.message);
}

absl::Status Module::Call(std::string_view name, absl::Span<DLTensor* const> args) const {
  absl::StatusOr<const Function*> f = GetFunction(name);
  if (!f.ok()) return f.status();
  return CallFunction(**f, args);
}

absl::Status Module::Call(std::string_view name, absl::Span<const NDArray> args) const {
  std::vector<DLTensor*> tensors;
  for (const NDArray& a : args) tensors.push_back(a.dltensor());  // Null for undefined: reported.
  return Call(name, absl::MakeConstSpan(tensors));
}

}  // namespace tessel::runtime
