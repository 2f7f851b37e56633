#include "ir/packed_functions.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace tessel::ir {
namespace {

struct Entry {
  PackedFunction fn;
  std::optional<std::vector<int32_t>> written_args;
};

struct Registry {
  std::mutex mu;
  absl::flat_hash_map<std::string, Entry> functions;
};

Registry& Get() {
  static Registry* r = new Registry();  // Never destroyed: registrars run at exit too.
  return *r;
}

}  // namespace

void RegisterPackedFunction(std::string name, PackedFunction fn,
                            std::optional<std::vector<int32_t>> written_args) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.functions[std::move(name)] = Entry{std::move(fn), std::move(written_args)};
}

PackedFunction LookupPackedFunction(absl::string_view name) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? PackedFunction() : it->second.fn;
}

std::optional<std::vector<int32_t>> PackedFunctionWrittenArgs(absl::string_view name) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.functions.find(name);
  if (it == r.functions.end()) return std::nullopt;
  return it->second.written_args;
}

std::vector<std::string> RegisteredPackedFunctions() {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, fn] : r.functions) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tessel::ir
