// Target strings: parsing, validation against LLVM's CPU and feature tables, and
// the host defaults. See target.h for the accepted forms.
#include "codegen/target.h"

#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

namespace tessel::codegen {
namespace {

constexpr int kMaxThreads = 4096;

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
  if (words[0] != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "target: unknown target kind '", words[0], "' in '", text, "' (supported: llvm)"));
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
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("target: unknown option '", w, "' in '", text,
                       "' (accepted: -mcpu=NAME, -mattr=+f,-g, -num-threads=N)"));
    }
  }
  return t;
}

std::string Target::ToString() const {
  std::string s = kind;
  if (!cpu.empty()) absl::StrAppend(&s, " -mcpu=", cpu);
  if (!features.empty()) absl::StrAppend(&s, " -mattr=", features);
  if (num_threads != 0) absl::StrAppend(&s, " -num-threads=", num_threads);
  return s;
}

std::string Target::Triple() const { return llvm::sys::getProcessTriple(); }

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
  return absl::StrJoin(items, ",");
}

bool Target::HasFeature(absl::string_view feature) const {
  std::unique_ptr<llvm::MCSubtargetInfo> sti =
      SubtargetInfo(Triple(), ResolvedCpu(), ResolvedFeatures());
  return sti != nullptr && sti->checkFeatures(absl::StrCat("+", feature));
}

}  // namespace tessel::codegen
