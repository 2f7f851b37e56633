// Bounded reads of user-named files (see read_file.h).
#include "ir/read_file.h"

#include <sys/stat.h>

#include <fstream>

#include "absl/strings/str_cat.h"

namespace tessel::ir {

namespace {

std::string Size(int64_t bytes) {
  return bytes % (int64_t{1} << 20) == 0 ? absl::StrCat(bytes >> 20, " MiB")
                                          : absl::StrCat(bytes, " bytes");
}

}  // namespace

absl::StatusOr<std::string> ReadStreamBounded(std::istream& in, int64_t max_bytes,
                                              const std::string& what) {
  std::string text;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof(chunk));
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(text.size()) > max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("cannot read ", what, ": larger than ",
                                                     Size(max_bytes), ", more than any input"));
    }
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", what));
  return text;
}

absl::StatusOr<std::string> ReadFileBounded(const std::string& path, int64_t max_bytes) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "': it is a directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  return ReadStreamBounded(in, max_bytes, absl::StrCat("'", path, "'"));
}

}  // namespace tessel::ir
