// The per-thread message of the last failure (tessel_set_last_error / tessel_last_error).
// Thread-local so that concurrent callers never read each other's errors; the thread
// pool carries a failing worker's message over to the thread that called it.
#include <string>

#include "codegen/runtime/tessel_runtime.h"

namespace {
thread_local std::string last_error;
}  // namespace

extern "C" {

int32_t tessel_set_last_error(const char* message) {
  last_error = message ? message : "(error without a message)";
  return -1;
}

const char* tessel_last_error(void) { return last_error.c_str(); }

}  // extern "C"
