// The module half of the C API (tessel_module_*), over LibraryModule and
// CheckAndCall; the thread and error halves live in thread_pool.cc and last_error.cc.
#include <memory>
#include <string>

#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/library_module.h"
#include "codegen/runtime/tessel_runtime.h"

struct TesselModule {
  std::unique_ptr<tessel::runtime::LibraryModule> library;
};

namespace {
int32_t Fail(const std::string& message) { return tessel_set_last_error(message.c_str()); }
}  // namespace

extern "C" {

TesselModule* tessel_module_load(const char* path) {
  if (path == nullptr) {
    Fail("tessel_module_load: the path is NULL");
    return nullptr;
  }
  std::string error;
  auto library = tessel::runtime::LibraryModule::Load(path, &error);
  if (!library) {
    Fail(error);
    return nullptr;
  }
  return new TesselModule{std::move(library)};
}

void tessel_module_free(TesselModule* module) { delete module; }

int32_t tessel_module_num_functions(const TesselModule* module) {
  if (module == nullptr) return Fail("tessel_module_num_functions: the module is NULL");
  return static_cast<int32_t>(module->library->functions().size());
}

const char* tessel_module_function_name(const TesselModule* module, int32_t index) {
  if (module == nullptr) {
    Fail("tessel_module_function_name: the module is NULL");
    return nullptr;
  }
  const auto& functions = module->library->functions();
  if (index < 0 || static_cast<size_t>(index) >= functions.size()) {
    Fail("tessel_module_function_name: index " + std::to_string(index) + " out of range [0, " +
         std::to_string(functions.size()) + ")");
    return nullptr;
  }
  return functions[index].signature.name.c_str();
}

int32_t tessel_module_call(TesselModule* module, const char* function, DLTensor* const* args,
                           int32_t num_args) {
  if (module == nullptr) return Fail("tessel_module_call: the module is NULL");
  if (function == nullptr) return Fail("tessel_module_call: the function name is NULL");
  const auto* f = module->library->Find(function);
  if (f == nullptr) return Fail(module->library->NotFoundMessage(function));
  if (!f->cannot_run.empty()) return Fail(std::string(function) + ": " + f->cannot_run);
  auto outcome = tessel::runtime::CheckAndCall(f->signature, f->packed, args, num_args);
  return outcome.kind == tessel::runtime::CallOutcome::kOk ? 0 : Fail(outcome.message);
}

}  // extern "C"
