// The round trip over every `.tsl` file in the repository: each chunk (split on
// `// -----`) that parses must print, parse back to a structurally equal module,
// and print to the same text again. Chunks that do not parse are the negative
// inputs of lit tests; the example programs must all parse.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"

namespace tessel::ir {
namespace {

std::vector<std::filesystem::path> AllTslFiles() {
  std::vector<std::filesystem::path> files;
  std::filesystem::path root(TESSEL_SOURCE_DIR);
  for (const char* dir : {"tools", "tests", "docs"}) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root / dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().extension() == ".tsl") files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RoundTripFilesTest, EveryParseableChunkRoundTrips) {
  std::vector<std::filesystem::path> files = AllTslFiles();
  ASSERT_FALSE(files.empty()) << "no .tsl files under " << TESSEL_SOURCE_DIR;
  int parsed = 0, examples = 0;
  for (const auto& path : files) {
    std::string text = ReadFile(path);
    bool is_example = path.parent_path().filename() == "examples";
    std::vector<std::string> chunks = SplitInputFile(text);
    for (size_t c = 0; c < chunks.size(); ++c) {
      SCOPED_TRACE(path.string() + " chunk " + std::to_string(c));
      absl::StatusOr<IRModule> mod = ParseModule(chunks[c], path.string());
      if (!mod.ok()) {
        EXPECT_FALSE(is_example) << mod.status();
        continue;
      }
      ++parsed;
      examples += is_example;
      std::string printed = PrintModule(*mod);
      absl::StatusOr<IRModule> again = ParseModule(printed, path.string() + " (printed)");
      ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
      EXPECT_TRUE(AssertStructuralEqual(*mod, *again).ok()) << AssertStructuralEqual(*mod, *again);
      EXPECT_EQ(PrintModule(*again), printed);
    }
  }
  EXPECT_GE(examples, 5);
  std::printf("round-tripped %d modules from %zu files\n", parsed, files.size());
}

}  // namespace
}  // namespace tessel::ir
