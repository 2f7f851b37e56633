// Target strings: parsing, validation against LLVM's CPU and feature tables, and
// the host defaults. See target.h for the accepted forms.
#include "codegen/target.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/runtime/cpu_features.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace tessel::codegen {
namespace {

constexpr int kMaxThreads = 4096;

// The compute capabilities whose PTX tessel emits and checks (PTX ISA 8.0 covers all).
constexpr absl::string_view kCudaArchs[] = {"sm_80", "sm_86", "sm_89", "sm_90"};

absl::StatusOr<Target> ParseCuda(absl::string_view text,
                                 const std::vector<absl::string_view>& words) {
  Target t;
  t.kind = "cuda";
  t.arch = "sm_80";
  for (size_t i = 1; i < words.size(); ++i) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(words[i], absl::MaxSplits('=', 1));
    if (kv.first == "-arch") {
      if (std::find(std::begin(kCudaArchs), std::end(kCudaArchs), kv.second) ==
          std::end(kCudaArchs)) {
        return absl::InvalidArgumentError(
            absl::StrCat("target: unknown -arch '", kv.second, "' in '", text,
                         "' (supported: ", absl::StrJoin(kCudaArchs, ", "), ")"));
      }
      t.arch = std::string(kv.second);
    } else if (kv.first == "-max-threads-per-block") {
      int n = 0;
      if (!absl::SimpleAtoi(kv.second, &n) || n < 32 || n > 1024) {
        return absl::InvalidArgumentError(
            absl::StrCat("target: -max-threads-per-block wants an integer in [32, 1024], got '",
                         kv.second, "'"));
      }
      t.max_threads_per_block = n;
    } else if (kv.first == "-max-shared-memory-per-block") {
      int64_t n = 0;
      if (!absl::SimpleAtoi(kv.second, &n) || n < 0 || n > 232448) {
        return absl::InvalidArgumentError(
            absl::StrCat("target: -max-shared-memory-per-block wants bytes in [0, 232448], got '",
                         kv.second, "'"));
      }
      t.max_shared_memory_per_block = n;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("target: unknown option '", words[i], "' in '", text,
                       "' (accepted for cuda: -arch=sm_NN, -max-threads-per-block=N, "
                       "-max-shared-memory-per-block=BYTES)"));
    }
  }
  return t;
}

std::unique_ptr<llvm::MCSubtargetInfo> SubtargetInfo(const std::string& triple,
                                                     const std::string& cpu,
                                                     const std::string& features) {
  InitializeLLVMTargets();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (t == nullptr) return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(t->createMCSubtargetInfo(triple, cpu, features));
}

absl::Status CheckCpu(const std::string& cpu, const std::string& triple) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti = SubtargetInfo(triple, "", "");
  if (sti == nullptr) return absl::InternalError("target: LLVM has no backend for " + triple);
  if (sti->isCPUStringValid(cpu)) return absl::OkStatus();
  std::vector<std::string> known;
  for (const llvm::SubtargetSubTypeKV& kv : sti->getAllProcessorDescriptions()) {
    known.push_back(kv.Key);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "target: unknown CPU '", cpu, "' for ", triple, " (known: ", absl::StrJoin(known, ", "),
      "; 'native' is the host)"));
}

// Each item is +name or -name with a name LLVM knows for this architecture.
absl::Status CheckFeatures(const std::string& features, const std::string& triple) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti = SubtargetInfo(triple, "", "");
  if (sti == nullptr) return absl::InternalError("target: LLVM has no backend for " + triple);
  for (absl::string_view item : absl::StrSplit(features, ',')) {
    if (item.size() < 2 || (item[0] != '+' && item[0] != '-')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target: -mattr item '", item, "' must be +feature or -feature, e.g. -mattr=+avx2,-avx512f"));
    }
    absl::string_view name = item.substr(1);
    bool found = false;
    for (const llvm::SubtargetFeatureKV& kv : sti->getAllProcessorFeatures()) {
      if (name == kv.Key) found = true;
    }
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("target: unknown feature '", name, "' in -mattr for ", triple,
                       " (e.g. avx2, fma, avx512f, avx512bw, f16c)"));
    }
  }
  return absl::OkStatus();
}

// Features that choose the code model or the calling convention, which the
// triple and the host's ABI fix: LLVM aborts (or emits calls to soft-float
// helpers nothing provides) on code built with them toggled.
constexpr absl::string_view kFixedByTheTriple[] = {"16bit-mode", "32bit-mode", "64bit-mode",
                                                   "soft-float"};

// The CPU and features together must be able to run the triple's code: on
// x86-64 a 64-bit CPU with SSE2 (the psABI passes floats in SSE registers).
// LLVM itself reports "64-bit code requested on a subtarget that doesn't
// support it" (-mcpu=i386) or "SSE register return with SSE disabled"
// (-mattr=-sse) by ending the process.
absl::Status CheckSubtarget(const Target& t) {
  const std::string triple = t.Triple();
  for (absl::string_view item : absl::StrSplit(t.features, ',', absl::SkipEmpty())) {
    for (absl::string_view fixed : kFixedByTheTriple) {
      if (item.substr(1) == fixed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "target: -mattr item '", item, "' cannot be set: '", fixed, "' is fixed by the "
            "triple ", triple, " and its calling convention"));
      }
    }
  }
  if (llvm::Triple(triple).getArch() != llvm::Triple::x86_64) return absl::OkStatus();
  std::unique_ptr<llvm::MCSubtargetInfo> sti =
      SubtargetInfo(triple, t.ResolvedCpu(), t.ResolvedFeatures());
  if (sti == nullptr) return absl::InternalError("target: LLVM has no backend for " + triple);
  const std::string what =
      t.cpu.empty() ? std::string("the host CPU") : absl::StrCat("CPU '", t.cpu, "'");
  if (!sti->checkFeatures("+64bit")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "target: ", what, " cannot run 64-bit code, and only ", triple,
        " (the host's triple) is supported; pick a 64-bit CPU such as x86-64, x86-64-v3, "
        "skylake-avx512 or znver4"));
  }
  if (!sti->checkFeatures("+sse2")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "target: ", what, (t.features.empty() ? "" : " with -mattr=" + t.features),
        " lacks SSE2, which the x86-64 calling convention needs for floating-point "
        "arguments and results; keep +sse and +sse2"));
  }
  return absl::OkStatus();
}

}  // namespace

void InitializeLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

absl::StatusOr<Target> Target::Parse(absl::string_view text) {
  std::vector<absl::string_view> words = absl::StrSplit(text, ' ', absl::SkipWhitespace());
  if (words.empty()) {
    return absl::InvalidArgumentError("target: empty target string (expected e.g. 'llvm')");
  }
  if (words[0] == "cuda") return ParseCuda(text, words);
  if (words[0] != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat("target: unknown target kind '", words[0],
                                                   "' in '", text, "' (supported: llvm, cuda)"));
  }
  Target t;
  for (size_t i = 1; i < words.size(); ++i) {
    absl::string_view w = words[i];
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(w, absl::MaxSplits('=', 1));
    if (kv.first == "-mcpu" && !kv.second.empty()) {
      t.cpu = std::string(kv.second == "native" ? "" : kv.second);
      if (!t.cpu.empty()) {
        absl::Status s = CheckCpu(t.cpu, t.Triple());
        if (!s.ok()) return s;
      }
    } else if (kv.first == "-mattr" && !kv.second.empty()) {
      t.features = std::string(kv.second);
      absl::Status s = CheckFeatures(t.features, t.Triple());
      if (!s.ok()) return s;
    } else if (kv.first == "-num-threads" && !kv.second.empty()) {
      int n = 0;
      if (!absl::SimpleAtoi(kv.second, &n) || n < 0 || n > kMaxThreads) {
        return absl::InvalidArgumentError(absl::StrCat(
            "target: -num-threads wants an integer in [0, ", kMaxThreads, "], got '", kv.second,
            "'"));
      }
      t.num_threads = n;
    } else if (kv.first == "-num-cores" && !kv.second.empty()) {
      int n = 0;
      if (!absl::SimpleAtoi(kv.second, &n) || n < 0 || n > kMaxThreads) {
        return absl::InvalidArgumentError(
            absl::StrCat("target: -num-cores wants an integer in [0, ", kMaxThreads, "], got '",
                         kv.second, "'"));
      }
      t.num_cores = n;
    } else if ((kv.first == "-l1d-cache" || kv.first == "-l2-cache" || kv.first == "-l3-cache") &&
               !kv.second.empty()) {
      int64_t bytes = 0;
      if (!absl::SimpleAtoi(kv.second, &bytes) || bytes < 1024 || bytes > (int64_t{1} << 40)) {
        return absl::InvalidArgumentError(absl::StrCat("target: ", kv.first,
                                                       " wants a size in bytes in [1024, 2^40], "
                                                       "got '",
                                                       kv.second, "'"));
      }
      (kv.first == "-l1d-cache"  ? t.l1d_cache
       : kv.first == "-l2-cache" ? t.l2_cache
                                 : t.l3_cache) = bytes;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("target: unknown option '", w, "' in '", text,
                       "' (accepted: -mcpu=NAME, -mattr=+f,-g, -num-threads=N, -num-cores=N, "
                       "-l1d-cache=BYTES, -l2-cache=BYTES, -l3-cache=BYTES)"));
    }
  }
  if (absl::Status s = CheckSubtarget(t); !s.ok()) return s;
  return t;
}

std::string Target::ToString() const {
  std::string s = kind;
  if (is_cuda()) {
    absl::StrAppend(&s, " -arch=", arch);
    const Target defaults;  // Options at their default are left out.
    if (max_threads_per_block != defaults.max_threads_per_block) {
      absl::StrAppend(&s, " -max-threads-per-block=", max_threads_per_block);
    }
    if (max_shared_memory_per_block != defaults.max_shared_memory_per_block) {
      absl::StrAppend(&s, " -max-shared-memory-per-block=", max_shared_memory_per_block);
    }
    return s;
  }
  if (!cpu.empty()) absl::StrAppend(&s, " -mcpu=", cpu);
  if (!features.empty()) absl::StrAppend(&s, " -mattr=", features);
  if (num_threads != 0) absl::StrAppend(&s, " -num-threads=", num_threads);
  if (num_cores != 0) absl::StrAppend(&s, " -num-cores=", num_cores);
  if (l1d_cache != 0) absl::StrAppend(&s, " -l1d-cache=", l1d_cache);
  if (l2_cache != 0) absl::StrAppend(&s, " -l2-cache=", l2_cache);
  if (l3_cache != 0) absl::StrAppend(&s, " -l3-cache=", l3_cache);
  return s;
}

std::string Target::Triple() const {
  return is_cuda() ? "nvptx64-nvidia-cuda" : llvm::sys::getProcessTriple();
}

std::string Target::ResolvedCpu() const {
  return cpu.empty() ? std::string(llvm::sys::getHostCPUName()) : cpu;
}

std::string Target::ResolvedFeatures() const {
  std::vector<std::string> items;
  if (cpu.empty()) {
    for (const auto& f : llvm::sys::getHostCPUFeatures()) {
      items.push_back(absl::StrCat(f.second ? "+" : "-", f.first().str()));
    }
  }
  if (!features.empty()) items.push_back(features);
  // LLVM 18 split 512-bit registers off AVX-512 ("evex512"). A host without
  // AVX-512 lists -evex512, and +avx512f on top of it gives a subtarget whose
  // 512-bit operations LLVM cannot select (it crashes on them). Clang turns
  // evex512 on with any -mavx512 flag; so does an -mattr that enables AVX-512
  // and leaves evex512 alone.
  const bool avx512 = absl::StrContains(features, "+avx512");
  if (avx512 && !absl::StrContains(features, "evex512")) items.push_back("+evex512");
  return absl::StrJoin(items, ",");
}

bool Target::HasFeature(absl::string_view feature) const {
  if (is_cuda()) return feature == "fma";  // Every supported GPU fuses multiply-adds.
  std::unique_ptr<llvm::MCSubtargetInfo> sti =
      SubtargetInfo(Triple(), ResolvedCpu(), ResolvedFeatures());
  return sti != nullptr && sti->checkFeatures(absl::StrCat("+", feature));
}

std::vector<std::string> Target::IsaFeatures() const {
  std::vector<std::string> enabled;
  if (is_cuda()) return enabled;  // CPU instruction sets only.
  std::unique_ptr<llvm::MCSubtargetInfo> sti =
      SubtargetInfo(Triple(), ResolvedCpu(), ResolvedFeatures());
  if (sti == nullptr) return enabled;
  // The host's list names instruction-set features only (what CPUID reports), so
  // tuning features that differ between CPUs ("slow-3ops-lea") never count.
  for (const auto& f : llvm::sys::getHostCPUFeatures()) {
    if (sti->checkFeatures(absl::StrCat("+", f.first().str()))) enabled.push_back(f.first().str());
  }
  std::sort(enabled.begin(), enabled.end());
  return enabled;
}

std::vector<std::string> Target::FeaturesMissingOnHost() const {
  if (cpu.empty() && features.empty()) return {};
  // The same check as loading an exported library (runtime/cpu_features.h), so
  // that code refused here is refused there too, and the other way round.
  return runtime::CpuFeaturesMissing(IsaFeatures());
}

}  // namespace tessel::codegen
