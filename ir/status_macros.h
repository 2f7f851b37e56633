// Early returns on error, for code where most steps can fail on user input:
//
//   TESSEL_RETURN_IF_ERROR(CheckSameDtype("add", a, b));
//   TESSEL_ASSIGN_OR_RETURN(Tensor padded, Pad(x, before, after));
//
// The assign form declares or assigns `lhs` from an absl::StatusOr, returning its
// status from the enclosing function when it holds an error.
#ifndef TESSEL_IR_STATUS_MACROS_H_
#define TESSEL_IR_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TESSEL_RETURN_IF_ERROR(expr)                        \
  do {                                                      \
    if (absl::Status tessel_s_ = (expr); !tessel_s_.ok()) { \
      return tessel_s_;                                     \
    }                                                       \
  } while (0)

#define TESSEL_STATUS_CONCAT_INNER(a, b) a##b
#define TESSEL_STATUS_CONCAT(a, b) TESSEL_STATUS_CONCAT_INNER(a, b)

#define TESSEL_ASSIGN_OR_RETURN(lhs, rexpr) \
  TESSEL_ASSIGN_OR_RETURN_IMPL(TESSEL_STATUS_CONCAT(tessel_or_, __LINE__), lhs, rexpr)

#define TESSEL_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                 \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = *std::move(tmp)

#endif  // TESSEL_IR_STATUS_MACROS_H_
