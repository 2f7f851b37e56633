// The module half of the C API (tessel_module_*, tessel_graph_run), over
// LibraryModule, CheckAndCall and GraphRunner; the thread and error halves live
// in thread_pool.cc and last_error.cc.
#include <memory>
#include <string>
#include <vector>

#include "codegen/runtime/arg_check.h"
#include "codegen/runtime/library_module.h"
#include "codegen/runtime/tessel_runtime.h"

struct TesselModule {
  std::unique_ptr<tessel::runtime::LibraryModule> library;
};

namespace {
int32_t Fail(const std::string& message) { return tessel_set_last_error(message.c_str()); }

// The name of item `index` of `size` (`name_of(i)`), or NULL with the error set.
template <typename NameOf>
const char* NameAt(const char* what, int32_t index, size_t size, NameOf name_of) {
  if (index < 0 || static_cast<size_t>(index) >= size) {
    Fail(std::string(what) + ": index " + std::to_string(index) + " out of range [0, " +
         std::to_string(size) + ")");
    return nullptr;
  }
  return name_of(static_cast<size_t>(index)).c_str();
}
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
  return NameAt("tessel_module_function_name", index, functions.size(),
                [&](size_t i) -> const std::string& { return functions[i].signature.name; });
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

int32_t tessel_graph_run(TesselModule* module, const char* graph, DLTensor* const* inputs,
                         int32_t num_inputs, DLTensor* const* outputs, int32_t num_outputs) {
  if (module == nullptr) return Fail("tessel_graph_run: the module is NULL");
  if (graph == nullptr) return Fail("tessel_graph_run: the graph name is NULL");
  const tessel::runtime::GraphRunner* g = module->library->FindGraph(graph);
  if (g == nullptr) {
    std::string names;
    for (const auto& r : module->library->graphs())
      names += (names.empty() ? "" : ", ") + r->program().name;
    return Fail("no graph function '" + std::string(graph) + "' in " + module->library->path() +
                " (it has: " + (names.empty() ? "none" : names) + ")");
  }
  const int32_t want_in = g->program().num_inputs;
  const int32_t want_out = static_cast<int32_t>(g->program().results.size());
  if (num_inputs != want_in || num_outputs != want_out || (num_inputs > 0 && inputs == nullptr) ||
      (num_outputs > 0 && outputs == nullptr)) {
    return Fail(tessel::runtime::DescribeSignature(g->call_signature()) + ": expected " +
                std::to_string(want_in) + " inputs and " + std::to_string(want_out) +
                " outputs, given " + std::to_string(num_inputs) + " and " +
                std::to_string(num_outputs));
  }
  std::vector<DLTensor*> args(inputs, inputs + num_inputs);
  args.insert(args.end(), outputs, outputs + num_outputs);
  auto outcome = g->Run(args.data(), static_cast<int32_t>(args.size()));
  return outcome.kind == tessel::runtime::CallOutcome::kOk ? 0 : Fail(outcome.message);
}

int32_t tessel_module_num_graphs(const TesselModule* module) {
  if (module == nullptr) return Fail("tessel_module_num_graphs: the module is NULL");
  return static_cast<int32_t>(module->library->graphs().size());
}

const char* tessel_module_graph_name(const TesselModule* module, int32_t index) {
  if (module == nullptr) {
    Fail("tessel_module_graph_name: the module is NULL");
    return nullptr;
  }
  const auto& graphs = module->library->graphs();
  return NameAt("tessel_module_graph_name", index, graphs.size(),
                [&](size_t i) -> const std::string& { return graphs[i]->program().name; });
}

}  // extern "C"
