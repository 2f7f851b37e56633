// Machine (see machine.h): the host from cpuid, sysfs and the affinity mask;
// a target string's -mcpu/-mattr through the installed feature resolver.
#include "metaschedule/machine.h"

#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <fstream>
#include <mutex>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "codegen/runtime/cpu_features.h"
#include "ir/status_macros.h"

namespace tessel::metaschedule {

namespace {

std::mutex& ResolverMutex() {
  static std::mutex m;
  return m;
}

CpuFeatureResolver& Resolver() {
  static CpuFeatureResolver r;
  return r;
}

// Which of kMachineFeatures this CPU has, from the runtime's CPUID table (the
// one that checks exported libraries against the CPU they load on).
std::set<std::string> HostFeatures() {
  const std::set<std::string> host = runtime::HostCpuFeatures();
  std::set<std::string> f;
  for (const char* name : kMachineFeatures) {
    if (host.count(name) != 0) f.insert(name);
  }
  return f;
}

void SetVectorUnit(const std::set<std::string>& features, Machine* m) {
  if (features.count("avx512f") != 0) {
    m->vector_bits = 512;
    m->vector_registers = 32;
  } else if (features.count("avx") != 0 || features.count("avx2") != 0) {
    m->vector_bits = 256;
    m->vector_registers = 16;
  } else {
    m->vector_bits = 128;
    m->vector_registers = 16;
  }
  m->fma = features.count("fma") != 0 || features.count("avx512f") != 0;
}

// "48K" -> 49152; 0 when unreadable.
int64_t ReadCacheSize(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return 0;
  absl::string_view text = word;
  int64_t scale = 1;
  if (absl::ConsumeSuffix(&text, "K")) scale = 1024;
  if (absl::ConsumeSuffix(&text, "M")) scale = 1024 * 1024;
  int64_t v = 0;
  return absl::SimpleAtoi(text, &v) ? v * scale : 0;
}

std::string ReadWord(const std::string& path) {
  std::ifstream in(path);
  std::string w;
  in >> w;
  return w;
}

void ReadCaches(Machine* m) {
  for (int i = 0; i < 8; ++i) {
    std::string dir = absl::StrCat("/sys/devices/system/cpu/cpu0/cache/index", i, "/");
    std::string level = ReadWord(dir + "level"), type = ReadWord(dir + "type");
    int64_t size = ReadCacheSize(dir + "size");
    if (level.empty() || size <= 0) continue;
    if (level == "1" && type == "Data") m->l1d_bytes = size;
    if (level == "2") m->l2_bytes = size;
    if (level == "3") m->l3_bytes = size;
  }
}

// The caches CPUID describes, where sysfs does not (containers and VMs often
// hide /sys/devices/system/cpu/cpu0/cache): its deterministic cache parameters,
// leaf 4 on Intel and 0x8000001D on AMD, one subleaf per cache, each giving its
// type and level and ways x partitions x line size x sets bytes; on an AMD CPU
// whose hypervisor leaves those empty, the older leaves 0x80000005/6 (L1D and
// L2 in KiB, L3 in 512 KiB units).
void ReadCachesFromCpuid(Machine* m) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return;
  const bool amd = b == 0x68747541;  // "Auth"enticAMD
  const unsigned max_ext = __get_cpuid_max(0x80000000u, nullptr);
  const unsigned leaf = amd ? 0x8000001Du : 4u;
  if ((amd && max_ext < leaf) || (!amd && a < leaf)) return;
  bool found = false;
  for (unsigned sub = 0; sub < 16; ++sub) {
    __cpuid_count(leaf, sub, a, b, c, d);
    const unsigned type = a & 0x1f, level = (a >> 5) & 0x7;
    if (type == 0) break;  // No more caches.
    found = true;
    const int64_t bytes = int64_t{((b >> 22) & 0x3ff) + 1} * (((b >> 12) & 0x3ff) + 1) *
                          ((b & 0xfff) + 1) * (int64_t{c} + 1);
    if (level == 1 && type == 1) m->l1d_bytes = bytes;
    if (level == 2 && type != 2) m->l2_bytes = bytes;
    if (level == 3 && type != 2) m->l3_bytes = bytes;
  }
  if (found || !amd || max_ext < 0x80000006u) return;
  __cpuid(0x80000005u, a, b, c, d);
  if ((c >> 24) != 0) m->l1d_bytes = int64_t{c >> 24} * 1024;
  __cpuid(0x80000006u, a, b, c, d);
  if ((c >> 16) != 0) m->l2_bytes = int64_t{c >> 16} * 1024;
  if ((d >> 18) != 0) m->l3_bytes = int64_t{d >> 18} * 512 * 1024;
#else
  (void)m;
#endif
}

int AffinityCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

absl::StatusOr<int> PositiveOption(absl::string_view word, absl::string_view value) {
  int v = 0;
  if (!absl::SimpleAtoi(value, &v) || v < 0 || v > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("target option '", word, "' takes a whole number from 0 to 4096"));
  }
  return v;
}

// A cache size in bytes: 1 KiB to 1 TiB.
absl::StatusOr<int64_t> CacheOption(absl::string_view word, absl::string_view value) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(value, &v) || v < 1024 || v > (int64_t{1} << 40)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "target option '", word, "' takes a size in bytes from 1024 to 2^40, got '", value, "'"));
  }
  return v;
}

}  // namespace

Machine Machine::Host() {
  static const Machine host = [] {
    Machine m;
    SetVectorUnit(HostFeatures(), &m);
    m.num_cores = AffinityCores();
    ReadCachesFromCpuid(&m);
    ReadCaches(&m);  // sysfs, where it is there, has the last word.
    return m;
  }();
  return host;
}

namespace {

// A cuda target: the options codegen/target.h accepts; the rules read the block limit
// (codegen checks the architecture when it builds).
absl::StatusOr<Machine> GpuFromTarget(absl::string_view target,
                                      const std::vector<absl::string_view>& words) {
  Machine m = Machine::Host();
  m.gpu = true;
  for (size_t w = 1; w < words.size(); ++w) {
    absl::string_view word = words[w];
    if (absl::ConsumePrefix(&word, "-max-threads-per-block=")) {
      absl::StatusOr<int> v = PositiveOption("-max-threads-per-block", word);
      if (!v.ok()) return v.status();
      if (*v < 32 || *v > 1024) {
        return absl::InvalidArgumentError(absl::StrCat(
            "target '", target, "': -max-threads-per-block wants an integer in [32, 1024]"));
      }
      m.max_threads_per_block = *v;
    } else if (!absl::StartsWith(word, "-arch=") &&
               !absl::StartsWith(word, "-max-shared-memory-per-block=")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target '", target, "': unknown option '", words[w],
          "' (a cuda target takes -arch, -max-threads-per-block, -max-shared-memory-per-block)"));
    }
  }
  return m;
}

}  // namespace

absl::StatusOr<Machine> Machine::FromTarget(absl::string_view target) {
  Machine m = Host();
  std::vector<absl::string_view> words = absl::StrSplit(target, ' ', absl::SkipWhitespace());
  if (words.empty()) return m;
  if (words[0] == "cuda") return GpuFromTarget(target, words);
  if (words[0] != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "target '", target, "': the schedule rules serve the target kinds 'llvm' and 'cuda', not '",
        words[0], "'"));
  }
  std::string cpu, mattr;
  int threads = 0, cores = 0;
  Machine caches;  // Only its cache sizes: 0 where the target does not set them.
  caches.l1d_bytes = caches.l2_bytes = caches.l3_bytes = 0;
  for (size_t w = 1; w < words.size(); ++w) {
    absl::string_view word = words[w];
    if (absl::ConsumePrefix(&word, "-mcpu=")) {
      cpu = std::string(word);
    } else if (absl::ConsumePrefix(&word, "-mattr=")) {
      mattr = std::string(word);
    } else if (absl::ConsumePrefix(&word, "-num-threads=")) {
      absl::StatusOr<int> v = PositiveOption("-num-threads", word);
      if (!v.ok()) return v.status();
      threads = *v;
    } else if (absl::ConsumePrefix(&word, "-num-cores=")) {
      absl::StatusOr<int> v = PositiveOption("-num-cores", word);
      if (!v.ok()) return v.status();
      cores = *v;
    } else if (absl::ConsumePrefix(&word, "-l1d-cache=")) {
      TESSEL_ASSIGN_OR_RETURN(caches.l1d_bytes, CacheOption("-l1d-cache", word));
    } else if (absl::ConsumePrefix(&word, "-l2-cache=")) {
      TESSEL_ASSIGN_OR_RETURN(caches.l2_bytes, CacheOption("-l2-cache", word));
    } else if (absl::ConsumePrefix(&word, "-l3-cache=")) {
      TESSEL_ASSIGN_OR_RETURN(caches.l3_bytes, CacheOption("-l3-cache", word));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "target '", target, "': unknown option '", words[w],
          "' (the machine model reads -mcpu, -mattr, -num-threads, -num-cores, -l1d-cache, "
          "-l2-cache and -l3-cache)"));
    }
  }
  if (!cpu.empty() && cpu != "native") {
    CpuFeatureResolver resolver;
    {
      std::lock_guard<std::mutex> lock(ResolverMutex());
      resolver = Resolver();
    }
    if (!resolver) {
      return absl::FailedPreconditionError(absl::StrCat(
          "target '", target, "': the features of -mcpu=", cpu,
          " are known only to codegen, which this program does not link"));
    }
    absl::StatusOr<std::vector<std::string>> features = resolver(cpu, mattr);
    if (!features.ok()) return features.status();
    SetVectorUnit(std::set<std::string>(features->begin(), features->end()), &m);
  } else if (!mattr.empty()) {
    std::set<std::string> features = HostFeatures();
    for (absl::string_view f : absl::StrSplit(mattr, ',', absl::SkipEmpty())) {
      if (absl::ConsumePrefix(&f, "+")) {
        features.insert(std::string(f));
      } else if (absl::ConsumePrefix(&f, "-")) {
        features.erase(std::string(f));
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "target '", target, "': -mattr entry '", f, "' needs a leading + or -"));
      }
    }
    // Disabling a base extension disables those built on it, as LLVM does.
    if (features.count("avx") == 0) features.erase("avx2");
    if (features.count("avx2") == 0) features.erase("avx512f");
    SetVectorUnit(features, &m);
  }
  if (caches.l1d_bytes > 0) m.l1d_bytes = caches.l1d_bytes;
  if (caches.l2_bytes > 0) m.l2_bytes = caches.l2_bytes;
  if (caches.l3_bytes > 0) m.l3_bytes = caches.l3_bytes;
  if (cores > 0) {
    m.num_cores = cores;
  } else if (threads > 0) {
    m.num_cores = threads;
  }
  return m;
}

int Machine::Lanes(ir::DataType dtype) const {
  int bits = std::max(1, dtype.bits());
  return std::max(1, vector_bits / bits);
}

std::string Machine::ToString() const {
  if (gpu) return absl::StrCat("gpu max-threads-per-block=", max_threads_per_block);
  return absl::StrCat("vector-bits=", vector_bits, " vector-registers=", vector_registers,
                      " fma=", fma ? "true" : "false", " cores=", num_cores, " l1d=", l1d_bytes,
                      " l2=", l2_bytes, " l3=", l3_bytes);
}

std::string Machine::ToTarget() const {
  if (gpu) return absl::StrCat("cuda -max-threads-per-block=", max_threads_per_block);
  // The features SetVectorUnit reads, each stated so that the host's do not matter.
  const bool wide = vector_bits >= 256, widest = vector_bits >= 512;
  return absl::StrCat("llvm -mattr=", wide ? "+" : "-", "avx,", wide ? "+" : "-", "avx2,",
                      fma ? "+" : "-", "fma,", widest ? "+" : "-", "avx512f",
                      " -num-cores=", num_cores, " -l1d-cache=", l1d_bytes, " -l2-cache=", l2_bytes,
                      " -l3-cache=", l3_bytes);
}

void SetCpuFeatureResolver(CpuFeatureResolver resolver) {
  std::lock_guard<std::mutex> lock(ResolverMutex());
  Resolver() = std::move(resolver);
}

}  // namespace tessel::metaschedule
