// The packed-convention symbols the reference interpreter can run (see CallNode in
// ir/expr.h for the convention): a registry from symbol name to a host function.
//
//   RegisterPackedFunction("tessel_blas_sgemm", [](const int64_t* args, int32_t n) {
//     return tessel_blas_sgemm(args, n) == 0 ? absl::OkStatus()
//                                            : absl::InternalError(tessel_last_error());
//   });
//   // now Run(func, ...) executes `@tessel_blas_sgemm(...): packed` by calling it
//
// Library dispatch (dispatch/) registers its runtime shims here, so a dispatched
// function runs in the interpreter on the same library code compiled code calls,
// and `check-semantics` compares it with the function it replaced. The interpreter
// passes an address_of argument as the address of that element in its own storage.
#ifndef TESSEL_IR_PACKED_FUNCTIONS_H_
#define TESSEL_IR_PACKED_FUNCTIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tessel::ir {

using PackedFunction = std::function<absl::Status(const int64_t* args, int32_t num_args)>;

// Registers (or replaces) `name`. Thread-safe. `written_args`, when given, are the
// argument positions whose address_of buffers the function may write; without it,
// every buffer passed to it counts as written (PackedFunctionWrittenArgs).
void RegisterPackedFunction(std::string name, PackedFunction fn,
                            std::optional<std::vector<int32_t>> written_args = std::nullopt);
// A copy of the registered function; an empty function when `name` is unknown.
PackedFunction LookupPackedFunction(absl::string_view name);
// The argument positions `name` may write through, as registered; nullopt when the
// function is unknown or did not say (then any address_of argument may be written).
std::optional<std::vector<int32_t>> PackedFunctionWrittenArgs(absl::string_view name);
// Every registered name, sorted.
std::vector<std::string> RegisteredPackedFunctions();

}  // namespace tessel::ir

#endif  // TESSEL_IR_PACKED_FUNCTIONS_H_
