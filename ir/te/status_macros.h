// Early returns on errors for the DSL and the op library, where most steps can
// fail on user input:
//
//   TESSEL_TE_RETURN_IF_ERROR(CheckSameDtype("add", a, b));
//   TESSEL_TE_ASSIGN_OR_RETURN(Tensor padded, Pad(x, before, after));
#ifndef TESSEL_IR_TE_STATUS_MACROS_H_
#define TESSEL_IR_TE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TESSEL_TE_RETURN_IF_ERROR(expr)              \
  do {                                               \
    if (absl::Status _te_s = (expr); !_te_s.ok()) {  \
      return _te_s;                                  \
    }                                                \
  } while (0)

#define TESSEL_TE_CONCAT_INNER(a, b) a##b
#define TESSEL_TE_CONCAT(a, b) TESSEL_TE_CONCAT_INNER(a, b)

#define TESSEL_TE_ASSIGN_OR_RETURN(lhs, rexpr) \
  TESSEL_TE_ASSIGN_OR_RETURN_IMPL(TESSEL_TE_CONCAT(_te_or_, __LINE__), lhs, rexpr)

#define TESSEL_TE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                    \
  if (!tmp.ok()) return tmp.status();                    \
  lhs = *std::move(tmp)

#endif  // TESSEL_IR_TE_STATUS_MACROS_H_
