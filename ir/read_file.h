// Reading a file a user names (a .tsl input, a trace, a reproducer) with a bound:
// a path to a directory, a device or a huge file is an error, never a read that
// fills memory (`manual-schedule{trace=/dev/zero}`).
//
//   absl::StatusOr<std::string> text = ReadFileBounded("mm.tsl", kMaxSourceBytes);
//   // "cannot read 'dir': it is a directory"
//   // "cannot read '/dev/zero': larger than 256 MiB, more than any input"
#ifndef TESSEL_IR_READ_FILE_H_
#define TESSEL_IR_READ_FILE_H_

#include <cstdint>
#include <istream>
#include <string>

#include "absl/status/statusor.h"

namespace tessel::ir {

// The largest .tsl module (or reproducer) read: far above any real one.
inline constexpr int64_t kMaxSourceBytes = int64_t{256} << 20;

// The file's bytes; NotFound when it cannot be opened, InvalidArgument for a
// directory or a file longer than `max_bytes` (only max_bytes + 1 bytes are read).
absl::StatusOr<std::string> ReadFileBounded(const std::string& path, int64_t max_bytes);
// The same for a stream (stdin): `what` names it in the message.
absl::StatusOr<std::string> ReadStreamBounded(std::istream& in, int64_t max_bytes,
                                              const std::string& what);

}  // namespace tessel::ir

#endif  // TESSEL_IR_READ_FILE_H_
