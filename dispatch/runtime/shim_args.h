// What every shim of dispatch_runtime.h starts with: count its arguments, read
// f32 bits, report a failure through tessel_last_error. Internal to the library.
#ifndef TESSEL_DISPATCH_RUNTIME_SHIM_ARGS_H_
#define TESSEL_DISPATCH_RUNTIME_SHIM_ARGS_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "codegen/runtime/tessel_runtime.h"

namespace tessel::dispatch::shim {

inline int32_t Fail(const std::string& message) { return tessel_set_last_error(message.c_str()); }

inline float F32(int64_t slot) {
  uint32_t bits = static_cast<uint32_t>(slot);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

template <typename T>
T* Ptr(int64_t slot) {
  return reinterpret_cast<T*>(static_cast<intptr_t>(slot));
}

// "name: takes N arguments, got M" when the count is wrong, else "".
inline std::string CountProblem(const char* name, int32_t num_args, int32_t want) {
  if (num_args == want) return "";
  return std::string(name) + ": takes " + std::to_string(want) + " arguments, got " +
         std::to_string(num_args);
}

// "" when `strides` (element strides of `n` dimensions of extents `dims`) can be
// given to a library: none negative, and for an output none zero where its extent
// is above 1 (two elements in one place); else the problem, naming `what`.
inline std::string StrideProblem(const char* shim, const char* what, const int64_t* dims,
                                 const int64_t* strides, int n, bool output) {
  for (int d = 0; d < n; ++d) {
    if (strides[d] < 0 || (output && dims[d] > 1 && strides[d] == 0)) {
      return std::string(shim) + ": " + what + " stride " + std::to_string(strides[d]) +
             " of dimension " + std::to_string(d) +
             (output ? " (an output needs positive strides)" : " (negative)");
    }
  }
  return "";
}

}  // namespace tessel::dispatch::shim

#endif  // TESSEL_DISPATCH_RUNTIME_SHIM_ARGS_H_
