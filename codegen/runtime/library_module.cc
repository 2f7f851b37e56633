// Loading an exported library (see library_module.h).
#include "codegen/runtime/library_module.h"

#include <dlfcn.h>
#include <unistd.h>

namespace tessel::runtime {

std::unique_ptr<LibraryModule> LibraryModule::Load(const std::string& path, std::string* error) {
  std::unique_ptr<LibraryModule> lib(new LibraryModule());
  lib->path_ = path;
  // dlopen searches the library path for a bare name; a file of that name here is
  // what the caller means.
  std::string open_path = path;
  if (path.find('/') == std::string::npos && access(path.c_str(), F_OK) == 0)
    open_path = "./" + path;
  dlerror();
  lib->handle_ = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle_ == nullptr) {
    const char* why = dlerror();
    *error = "cannot load " + path + ": " + (why ? why : "dlopen failed");
    return nullptr;
  }
  using MetadataFn = const char* (*)();
  auto metadata = reinterpret_cast<MetadataFn>(dlsym(lib->handle_, kMetadataSymbol));
  if (metadata == nullptr) {
    *error = path + ": not a tessel library (no " + kMetadataSymbol + " symbol)";
    return nullptr;
  }
  const char* text = metadata();
  std::vector<FunctionSignature> sigs;
  std::string why;
  if (text == nullptr || !ParseSignatures(text, &sigs, &why)) {
    *error = path + ": bad metadata: " + (text ? why : "tessel_module_metadata() returned NULL");
    return nullptr;
  }
  for (FunctionSignature& sig : sigs) {
    std::string symbol = kPackedPrefix + sig.name;
    auto packed = reinterpret_cast<TesselPackedFunc>(dlsym(lib->handle_, symbol.c_str()));
    if (packed == nullptr) {
      *error = path + ": the metadata lists " + sig.name + " but the library has no " + symbol;
      return nullptr;
    }
    lib->functions_.push_back(Function{std::move(sig), packed});
  }
  return lib;
}

LibraryModule::~LibraryModule() {
  if (handle_ != nullptr) dlclose(handle_);
}

const LibraryModule::Function* LibraryModule::Find(std::string_view name) const {
  for (const Function& f : functions_) {
    if (f.signature.name == name) return &f;
  }
  return nullptr;
}

std::string LibraryModule::NotFoundMessage(std::string_view name) const {
  std::string names;
  for (const Function& f : functions_) names += (names.empty() ? "" : ", ") + f.signature.name;
  return "no function '" + std::string(name) + "' in " + path_ +
         " (it has: " + (names.empty() ? "none" : names) + ")";
}

}  // namespace tessel::runtime
