// CpuFeaturesMissing (cpu_features.h): a table of LLVM's x86 feature names and the
// CPUID bit (and register state) each needs, as llvm/lib/TargetParser/Host.cpp
// reads them.
#include "codegen/runtime/cpu_features.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace tessel::runtime {

namespace {

enum Reg { kEax, kEbx, kEcx, kEdx };
enum State { kNone, kAvx, kAvx512, kAmx };

struct Bit {
  const char* name;
  uint32_t leaf, subleaf;
  Reg reg;
  int bit;
  State state;
};

constexpr Bit kTable[] = {
    {"sse3", 1, 0, kEcx, 0, kNone},        {"pclmul", 1, 0, kEcx, 1, kNone},
    {"ssse3", 1, 0, kEcx, 9, kNone},       {"fma", 1, 0, kEcx, 12, kAvx},
    {"cx16", 1, 0, kEcx, 13, kNone},       {"sse4.1", 1, 0, kEcx, 19, kNone},
    {"sse4.2", 1, 0, kEcx, 20, kNone},     {"movbe", 1, 0, kEcx, 22, kNone},
    {"popcnt", 1, 0, kEcx, 23, kNone},     {"aes", 1, 0, kEcx, 25, kNone},
    {"xsave", 1, 0, kEcx, 26, kNone},      {"avx", 1, 0, kEcx, 28, kAvx},
    {"f16c", 1, 0, kEcx, 29, kAvx},        {"rdrnd", 1, 0, kEcx, 30, kNone},
    {"cx8", 1, 0, kEdx, 8, kNone},         {"cmov", 1, 0, kEdx, 15, kNone},
    {"mmx", 1, 0, kEdx, 23, kNone},        {"fxsr", 1, 0, kEdx, 24, kNone},
    {"sse", 1, 0, kEdx, 25, kNone},        {"sse2", 1, 0, kEdx, 26, kNone},
    {"fsgsbase", 7, 0, kEbx, 0, kNone},    {"bmi", 7, 0, kEbx, 3, kNone},
    {"avx2", 7, 0, kEbx, 5, kAvx},         {"bmi2", 7, 0, kEbx, 8, kNone},
    {"avx512f", 7, 0, kEbx, 16, kAvx512},  {"avx512dq", 7, 0, kEbx, 17, kAvx512},
    {"rdseed", 7, 0, kEbx, 18, kNone},     {"adx", 7, 0, kEbx, 19, kNone},
    {"avx512ifma", 7, 0, kEbx, 21, kAvx512}, {"clflushopt", 7, 0, kEbx, 23, kNone},
    {"clwb", 7, 0, kEbx, 24, kNone},       {"avx512pf", 7, 0, kEbx, 26, kAvx512},
    {"avx512er", 7, 0, kEbx, 27, kAvx512}, {"avx512cd", 7, 0, kEbx, 28, kAvx512},
    {"sha", 7, 0, kEbx, 29, kNone},        {"avx512bw", 7, 0, kEbx, 30, kAvx512},
    {"avx512vl", 7, 0, kEbx, 31, kAvx512}, {"avx512vbmi", 7, 0, kEcx, 1, kAvx512},
    {"avx512vbmi2", 7, 0, kEcx, 6, kAvx512}, {"gfni", 7, 0, kEcx, 8, kNone},
    {"vaes", 7, 0, kEcx, 9, kAvx},         {"vpclmulqdq", 7, 0, kEcx, 10, kAvx},
    {"avx512vnni", 7, 0, kEcx, 11, kAvx512}, {"avx512bitalg", 7, 0, kEcx, 12, kAvx512},
    {"avx512vpopcntdq", 7, 0, kEcx, 14, kAvx512}, {"movdiri", 7, 0, kEcx, 27, kNone},
    {"movdir64b", 7, 0, kEcx, 28, kNone},  {"avx512vp2intersect", 7, 0, kEdx, 8, kAvx512},
    {"serialize", 7, 0, kEdx, 14, kNone},  {"amx-bf16", 7, 0, kEdx, 22, kAmx},
    {"avx512fp16", 7, 0, kEdx, 23, kAvx512}, {"amx-tile", 7, 0, kEdx, 24, kAmx},
    {"amx-int8", 7, 0, kEdx, 25, kAmx},    {"avxvnni", 7, 1, kEax, 4, kAvx},
    {"avx512bf16", 7, 1, kEax, 5, kAvx512}, {"sahf", 0x80000001, 0, kEcx, 0, kNone},
    {"lzcnt", 0x80000001, 0, kEcx, 5, kNone}, {"sse4a", 0x80000001, 0, kEcx, 6, kNone},
    {"prfchw", 0x80000001, 0, kEcx, 8, kNone}, {"xop", 0x80000001, 0, kEcx, 11, kAvx},
    {"fma4", 0x80000001, 0, kEcx, 16, kAvx}, {"tbm", 0x80000001, 0, kEcx, 21, kNone},
    {"64bit", 0x80000001, 0, kEdx, 29, kNone}, {"xsaveopt", 0xd, 1, kEax, 0, kNone},
    {"xsavec", 0xd, 1, kEax, 1, kNone},    {"xsaves", 0xd, 1, kEax, 3, kNone},
};

bool Known(const std::string& name) {
  for (const Bit& b : kTable) {
    if (name == b.name) return true;
  }
  return false;
}

}  // namespace

std::set<std::string> HostCpuFeatures() {
  std::set<std::string> have;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  const unsigned max_ext = __get_cpuid_max(0x80000000, nullptr);
  // Which register state the OS saves (XCR0), where it says it can be read.
  uint64_t xcr0 = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) && (c >> 27 & 1) != 0) {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (uint64_t{hi} << 32) | lo;
  }
  const bool avx_state = (xcr0 & 0x6) == 0x6;
  const bool avx512_state = avx_state && (xcr0 & 0xe0) == 0xe0;
  const bool amx_state = (xcr0 & 0x60000) == 0x60000;
  for (const Bit& bit : kTable) {
    const bool extended = bit.leaf >= 0x80000000u;
    if ((extended ? max_ext : max_leaf) < bit.leaf) continue;
    __cpuid_count(bit.leaf, bit.subleaf, a, b, c, d);
    const unsigned regs[] = {a, b, c, d};
    if ((regs[bit.reg] >> bit.bit & 1) == 0) continue;
    if ((bit.state == kAvx && !avx_state) || (bit.state == kAvx512 && !avx512_state) ||
        (bit.state == kAmx && !amx_state)) {
      continue;
    }
    have.insert(bit.name);
  }
#endif
  return have;
}

std::vector<std::string> CpuFeaturesMissing(const std::vector<std::string>& required,
                                            const std::set<std::string>& host) {
  std::vector<std::string> missing;
  for (const std::string& feature : required) {
    if (Known(feature) && host.count(feature) == 0) missing.push_back(feature);
  }
  return missing;
}

std::vector<std::string> CpuFeaturesMissing(const std::vector<std::string>& required) {
  static const std::set<std::string> host = HostCpuFeatures();
  return CpuFeaturesMissing(required, host);
}

}  // namespace tessel::runtime
