// The JIT: an optimised llvm::Module (llvm_backend.cc) handed to ORC's LLJIT with
// the target's CPU and features; every packed function is looked up (so compiled)
// at once, so that compile errors and unresolved symbols surface here and later
// lookups are free. A process-wide cache keyed by structural hash + target, bounded
// (see JitCache).
#include "codegen/jit.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/llvm_module.h"
#include "ir/status_macros.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Error.h"

namespace tessel::codegen {
namespace {

std::string ErrorText(llvm::Error e) { return llvm::toString(std::move(e)); }

class LLJitModule : public JitModule {
 public:
  absl::StatusOr<TesselPackedFunc> Lookup(const std::string& name) const override {
    for (const auto& [n, symbol, fn] : funcs_) {
      if (n == name || symbol == name) return fn;
    }
    std::vector<std::string> names;
    for (const auto& f : funcs_) names.push_back(std::get<0>(f));
    return absl::NotFoundError(absl::StrCat("JIT module has no function '", name, "' (functions: ",
                                            absl::StrJoin(names, ", "), ")"));
  }
  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (const auto& f : funcs_) names.push_back(std::get<0>(f));
    return names;
  }
  const Target& target() const override { return target_; }
  double compile_ms() const override { return compile_ms_; }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<std::tuple<std::string, std::string, TesselPackedFunc>> funcs_;
  Target target_;
  double compile_ms_ = 0;
};

std::string GlobalSymbol(const std::string& name, const ir::PrimFunc& f) {
  auto it = f->attrs.find("global_symbol");
  if (it != f->attrs.end()) {
    if (const std::string* s = it->second.get_if<std::string>()) return *s;
  }
  return name;
}

absl::StatusOr<std::shared_ptr<JitModule>> Compile(const ir::IRModule& mod, const Target& target,
                                                   const JitOptions& options) {
  auto start = std::chrono::steady_clock::now();
  InitializeLLVMTargets();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                          CompileToOptimizedModule(mod, target, ctx.get()));

  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.Triple())};
  jtmb.setCPU(target.ResolvedCpu());
  std::vector<std::string> features = absl::StrSplit(target.ResolvedFeatures(), ',', absl::SkipEmpty());
  jtmb.addFeatures(features);
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) return absl::InternalError("codegen: JIT: " + ErrorText(jit.takeError()));
  auto out = std::make_shared<LLJitModule>();
  out->jit_ = std::move(*jit);
  // The session reports what failed (e.g. "Symbols not found: [ foo ]") here, not
  // in the lookup's error; keep it for the message.
  auto session_errors = std::make_shared<std::string>();
  out->jit_->getExecutionSession().setErrorReporter([session_errors](llvm::Error e) {
    absl::StrAppend(session_errors.get(), session_errors->empty() ? "" : "; ", ErrorText(std::move(e)));
  });
  out->target_ = target;
  llvm::orc::JITDylib& jd = out->jit_->getMainJITDylib();
  char prefix = out->jit_->getDataLayout().getGlobalPrefix();

  if (!options.symbols.empty()) {
    llvm::orc::SymbolMap map;
    for (const auto& [name, address] : options.symbols) {
      map[out->jit_->mangleAndIntern(name)] = llvm::orc::ExecutorSymbolDef(
          llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported);
    }
    if (llvm::Error e = jd.define(llvm::orc::absoluteSymbols(std::move(map)))) {
      return absl::InvalidArgumentError("codegen: JIT: " + ErrorText(std::move(e)));
    }
  }
  for (const std::string& lib : options.shared_libraries) {
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::Load(lib.c_str(), prefix);
    if (!gen) {
      return absl::InvalidArgumentError(absl::StrCat("codegen: JIT: cannot load shared library '", lib,
                                                     "': ", ErrorText(gen.takeError())));
    }
    jd.addGenerator(std::move(*gen));
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process) return absl::InternalError("codegen: JIT: " + ErrorText(process.takeError()));
  jd.addGenerator(std::move(*process));

  if (llvm::Error e = out->jit_->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(module), std::move(ctx)))) {
    return absl::InternalError("codegen: JIT: " + ErrorText(std::move(e)));
  }
  for (const auto& [name, func] : mod->functions) {
    std::string symbol = GlobalSymbol(name, func);
    llvm::Expected<llvm::orc::ExecutorAddr> addr = out->jit_->lookup("tessel_packed_" + symbol);
    if (!addr) {
      std::string error = ErrorText(addr.takeError());
      return absl::InvalidArgumentError(absl::StrCat(
          "codegen: JIT: function '", name, "': ", session_errors->empty() ? error : *session_errors,
          " (extern symbols are resolved from JitOptions::symbols, JitOptions::shared_libraries "
          "and the process; parallel loops need tessel_parallel_for from libtessel_runtime)"));
    }
    out->funcs_.emplace_back(name, symbol, addr->toPtr<TesselPackedFunc>());
  }
  out->compile_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return std::shared_ptr<JitModule>(std::move(out));
}

// The cache: every compiled module still alive anywhere can be found again (a weak
// reference per module), and the most recently used `limit` are kept alive by the
// cache itself; the rest are freed once their last user lets go. Without the bound a
// tuning run kept every candidate's code, ~0.6 MB each, for the life of the process.
struct CacheEntry {
  ir::IRModule mod;
  std::weak_ptr<JitModule> jit;
};

struct JitCache {
  std::mutex mu;
  std::map<std::string, std::vector<CacheEntry>> index;  // By CacheKey.
  std::list<std::shared_ptr<JitModule>> recent;          // Most recently used first.
  int64_t limit = DefaultLimit();
  size_t entries = 0;  // Over every key of `index`.

  static int64_t DefaultLimit() {
    if (const char* env = std::getenv("TESSEL_JIT_CACHE_SIZE")) {
      int64_t n = 0;
      if (absl::SimpleAtoi(env, &n) && n >= 0) return n;
    }
    return kDefaultJitCacheLimit;
  }

  // Holding mu: `jit` becomes the most recent; the oldest beyond the limit are let go.
  void Touch(const std::shared_ptr<JitModule>& jit) {
    recent.remove(jit);
    if (limit > 0) recent.push_front(jit);
    Trim();
  }
  void Trim() {
    while (static_cast<int64_t>(recent.size()) > limit) recent.pop_back();
  }
  // Holding mu: forgets the entries whose module is gone, once they outnumber the
  // live ones well (amortised: each sweep at least halves them).
  void SweepIfStale() {
    if (entries < 2 * recent.size() + 64) return;
    entries = 0;
    for (auto it = index.begin(); it != index.end();) {
      std::vector<CacheEntry>& v = it->second;
      v.erase(std::remove_if(v.begin(), v.end(), [](const CacheEntry& e) { return e.jit.expired(); }),
              v.end());
      entries += v.size();
      it = v.empty() ? index.erase(it) : std::next(it);
    }
  }
};

JitCache& Cache() {
  static auto* cache = new JitCache();
  return *cache;
}
std::atomic<int64_t> compile_count{0};

std::string CacheKey(const ir::IRModule& mod, const Target& target, const JitOptions& options) {
  std::string key = absl::StrCat(ir::StructuralHash(mod), "|", target.ToString());
  for (const std::string& lib : options.shared_libraries) absl::StrAppend(&key, "|lib:", lib);
  for (const auto& [name, address] : options.symbols) {
    absl::StrAppend(&key, "|sym:", name, "=", reinterpret_cast<uintptr_t>(address));
  }
  return key;
}

}  // namespace

absl::StatusOr<std::shared_ptr<JitModule>> JitCompile(const ir::IRModule& mod, const Target& target,
                                                      const JitOptions& options) {
  if (!options.use_cache) {
    ++compile_count;
    return Compile(mod, target, options);
  }
  std::string key = CacheKey(mod, target, options);
  JitCache& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.index.find(key);
    if (it != cache.index.end()) {
      for (const CacheEntry& e : it->second) {
        std::shared_ptr<JitModule> jit = e.jit.lock();
        if (jit && ir::StructuralEqual(e.mod, mod)) {
          cache.Touch(jit);
          return jit;
        }
      }
    }
  }
  ++compile_count;
  TESSEL_ASSIGN_OR_RETURN(std::shared_ptr<JitModule> jit, Compile(mod, target, options));
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.index[key].push_back(CacheEntry{mod, jit});
  ++cache.entries;
  cache.Touch(jit);
  cache.SweepIfStale();
  return jit;
}

int64_t JitCompileCount() { return compile_count.load(); }

void ClearJitCache() {
  JitCache& cache = Cache();
  std::list<std::shared_ptr<JitModule>> dropped;  // Freed outside the lock.
  std::lock_guard<std::mutex> lock(cache.mu);
  dropped.swap(cache.recent);
  cache.index.clear();
  cache.entries = 0;
}

void SetJitCacheLimit(int64_t limit) {
  JitCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.limit = std::max<int64_t>(limit, 0);
  cache.Trim();
}

int64_t JitCacheLimit() {
  JitCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.limit;
}

int64_t JitCacheSize() {
  JitCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return static_cast<int64_t>(cache.recent.size());
}

}  // namespace tessel::codegen
