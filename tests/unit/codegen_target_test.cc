// Target strings: what parses, what is refused and why, and the canonical text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "codegen/runtime/cpu_features.h"
#include "codegen/target.h"

namespace tessel::codegen {
namespace {

TEST(CodegenTarget, ParsesAndPrintsCanonically) {
  absl::StatusOr<Target> host = Target::Parse("llvm");
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->ToString(), "llvm");
  EXPECT_FALSE(host->ResolvedCpu().empty());
  absl::StatusOr<Target> t = Target::Parse("  llvm   -mcpu=skylake-avx512 -mattr=+avx2,-avx512bw -num-threads=3 ");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->cpu, "skylake-avx512");
  EXPECT_EQ(t->features, "+avx2,-avx512bw");
  EXPECT_EQ(t->num_threads, 3);
  EXPECT_EQ(t->ToString(), "llvm -mcpu=skylake-avx512 -mattr=+avx2,-avx512bw -num-threads=3");
  EXPECT_EQ(Target::Parse(t->ToString())->ToString(), t->ToString());
  EXPECT_TRUE(t->HasFeature("avx512f"));
  EXPECT_TRUE(t->HasFeature("fma"));
  EXPECT_FALSE(t->HasFeature("avx512bw"));
  EXPECT_EQ(Target::Parse("llvm -mcpu=native")->ToString(), "llvm");
}

// The machine model's options ride along: one string for default-schedule and build.
TEST(CodegenTarget, ParsesCudaTargets) {
  absl::StatusOr<Target> t = Target::Parse("cuda");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->is_cuda());
  EXPECT_EQ(t->arch, "sm_80");
  EXPECT_EQ(t->ToString(), "cuda -arch=sm_80");
  EXPECT_EQ(t->Triple(), "nvptx64-nvidia-cuda");
  t = Target::Parse(
      "cuda -arch=sm_90 -max-threads-per-block=256 -max-shared-memory-per-block=1024");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->max_threads_per_block, 256);
  EXPECT_EQ(t->max_shared_memory_per_block, 1024);
  EXPECT_EQ(Target::Parse(t->ToString())->ToString(), t->ToString());
  EXPECT_FALSE(Target::Parse("llvm")->is_cuda());
  for (const char* bad : {"cuda -arch=sm_70", "cuda -arch=", "cuda -max-threads-per-block=2048",
                          "cuda -max-shared-memory-per-block=-1", "cuda -num-threads=2"}) {
    EXPECT_FALSE(Target::Parse(bad).ok()) << bad;
  }
}

TEST(CodegenTarget, KeepsTheMachineModelsOptions) {
  const std::string text =
      "llvm -mattr=+avx2 -num-cores=8 -l1d-cache=49152 -l2-cache=1048576 -l3-cache=33554432";
  absl::StatusOr<Target> t = Target::Parse(text);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->num_cores, 8);
  EXPECT_EQ(t->l2_cache, 1048576);
  EXPECT_EQ(t->ToString(), text);
  absl::StatusOr<Target> bad = Target::Parse("llvm -l3-cache=1k");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "target: -l3-cache wants a size in bytes in [1024, 2^40], got '1k'");
  EXPECT_FALSE(Target::Parse("llvm -num-cores=-2").ok());
}

TEST(CodegenTarget, RefusesWithReasons) {
  struct Bad {
    const char* text;
    const char* message_start;
  };
  const Bad bad[] = {
      {"", "target: empty target string (expected e.g. 'llvm')"},
      {"rocm", "target: unknown target kind 'rocm' in 'rocm' (supported: llvm, cuda)"},
      {"llvm -mcpu=pentium9", "target: unknown CPU 'pentium9' for "},
      {"llvm -mattr=+avx9", "target: unknown feature 'avx9' in -mattr for "},
      {"llvm -mattr=avx2", "target: -mattr item 'avx2' must be +feature or -feature"},
      {"llvm -mattr=", "target: unknown option '-mattr=' in 'llvm -mattr='"},
      {"llvm -num-threads=-1", "target: -num-threads wants an integer in [0, 4096], got '-1'"},
      {"llvm -num-threads=99999",
       "target: -num-threads wants an integer in [0, 4096], got '99999'"},
      {"llvm -O3",
       "target: unknown option '-O3' in 'llvm -O3' (accepted: -mcpu=NAME, -mattr=+f,-g, "
       "-num-threads=N, -num-cores=N, -l1d-cache=BYTES, -l2-cache=BYTES, "
       "-l3-cache=BYTES)"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    absl::StatusOr<Target> t = Target::Parse(b.text);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().message().substr(0, std::string(b.message_start).size()), b.message_start)
        << t.status().message();
  }
}

// Targets LLVM accepts by name but ends the process on when it compiles for
// them (a 32-bit CPU on the x86-64 triple, SSE turned off under the x86-64
// calling convention, a mode feature): refused when parsed.
TEST(CodegenTarget, RefusesWhatLLVMWouldAbortOn) {
  struct Bad {
    const char* text;
    const char* message_part;
  };
  const Bad bad[] = {
      {"llvm -mcpu=i386", "target: CPU 'i386' cannot run 64-bit code"},
      {"llvm -mcpu=pentium", "target: CPU 'pentium' cannot run 64-bit code"},
      {"llvm -mcpu=lakemont", "cannot run 64-bit code"},
      {"llvm -mattr=-64bit", "the host CPU cannot run 64-bit code"},
      {"llvm -mattr=-sse", "the host CPU with -mattr=-sse lacks SSE2"},
      {"llvm -mcpu=x86-64 -mattr=-sse2", "CPU 'x86-64' with -mattr=-sse2 lacks SSE2"},
      {"llvm -mattr=-64bit-mode", "-mattr item '-64bit-mode' cannot be set"},
      {"llvm -mattr=+32bit-mode", "-mattr item '+32bit-mode' cannot be set"},
      {"llvm -mattr=+soft-float", "-mattr item '+soft-float' cannot be set"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    absl::StatusOr<Target> t = Target::Parse(b.text);
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find(b.message_part), std::string::npos) << t.status().message();
  }
  // Other 64-bit CPUs and feature sets stay legal (building for them is export).
  for (const char* ok : {"llvm -mcpu=x86-64", "llvm -mcpu=sapphirerapids", "llvm -mattr=-avx2",
                         "llvm -mcpu=x86-64 -mattr=+avx2,+fma", "llvm -mattr=-x87"}) {
    EXPECT_TRUE(Target::Parse(ok).ok()) << ok << ": " << Target::Parse(ok).status();
  }
}

// AVX-512 asked on top of a CPU without it gets LLVM's 512-bit registers too
// (evex512): without them LLVM cannot select 512-bit operations. x86-64 stands
// for any host without AVX-512, where the host's features say -evex512.
TEST(CodegenTarget, Avx512BringsItsRegisters) {
  auto resolved = [](const char* text) {
    absl::StatusOr<Target> t = Target::Parse(text);
    EXPECT_TRUE(t.ok()) << text << ": " << t.status();
    return t.ok() ? t->ResolvedFeatures() : std::string();
  };
  EXPECT_EQ(resolved("llvm -mcpu=x86-64 -mattr=+avx512f"), "+avx512f,+evex512");
  EXPECT_EQ(resolved("llvm -mcpu=x86-64 -mattr=+avx2,+avx512bw"), "+avx2,+avx512bw,+evex512");
  // Said either way, evex512 is the caller's.
  EXPECT_EQ(resolved("llvm -mcpu=x86-64 -mattr=+avx512f,-evex512"), "+avx512f,-evex512");
  EXPECT_EQ(resolved("llvm -mcpu=x86-64 -mattr=+avx2"), "+avx2");
  EXPECT_EQ(resolved("llvm -mcpu=x86-64 -mattr=-avx512f"), "-avx512f");
  const std::string host = resolved("llvm -mattr=+avx512f");
  EXPECT_EQ(host.substr(host.size() - std::string(",+avx512f,+evex512").size()),
            ",+avx512f,+evex512");
}

// The host and a baseline CPU run here; a CPU's missing features are named, and
// only instruction-set features count.
TEST(CodegenTarget, FeaturesMissingOnHost) {
  EXPECT_TRUE(Target::Host().FeaturesMissingOnHost().empty());
  EXPECT_TRUE(Target::Parse("llvm -mcpu=x86-64")->FeaturesMissingOnHost().empty());
  EXPECT_TRUE(Target::Parse("llvm -mattr=-avx2")->FeaturesMissingOnHost().empty());
  for (const char* cpu : {"sapphirerapids", "znver4", "skylake-avx512"}) {
    absl::StatusOr<Target> t = Target::Parse(absl::StrCat("llvm -mcpu=", cpu));
    ASSERT_TRUE(t.ok()) << t.status();
    for (const std::string& f : t->FeaturesMissingOnHost()) {
      EXPECT_TRUE(t->HasFeature(f)) << cpu << " " << f;
      EXPECT_FALSE(Target::Host().HasFeature(f)) << cpu << " " << f;
    }
  }
}

// What an exported library records (IsaFeatures) and what the runtime checks at
// load without LLVM (CPUID) agree: the host's own features are never missing, and
// a foreign CPU's missing features, where the runtime knows them, are found by both.
TEST(CodegenTarget, IsaFeaturesAgreeWithTheRuntimesCheck) {
  const std::vector<std::string> host = Target::Host().IsaFeatures();
  EXPECT_THAT(host, ::testing::Contains("sse2"));
  EXPECT_THAT(runtime::CpuFeaturesMissing(host), ::testing::IsEmpty());
  for (const char* cpu : {"sapphirerapids", "znver4", "skylake-avx512", "knl"}) {
    absl::StatusOr<Target> t = Target::Parse(absl::StrCat("llvm -mcpu=", cpu));
    ASSERT_TRUE(t.ok()) << t.status();
    const std::vector<std::string> llvm = t->FeaturesMissingOnHost();
    for (const std::string& f : runtime::CpuFeaturesMissing(t->IsaFeatures())) {
      EXPECT_THAT(llvm, ::testing::Contains(f)) << cpu;
    }
  }
}

}  // namespace
}  // namespace tessel::codegen
