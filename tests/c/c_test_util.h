/* What the C tests share: a failure count, CHECK, the check of a refused call's
 * message, and aligned allocation. Each test is one translation unit, so the
 * static state here is its own. */
#ifndef TESSEL_TESTS_C_C_TEST_UTIL_H_
#define TESSEL_TESTS_C_C_TEST_UTIL_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel_runtime.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Expects `rc` to be an error whose message contains `needle`. */
static void ExpectError(int32_t rc, const char* needle, const char* what) {
  const char* msg = tessel_last_error();
  printf("%-28s -> %s\n", what, msg);
  if (rc == 0) {
    fprintf(stderr, "%s: expected an error, the call succeeded\n", what);
    ++failures;
  } else if (strstr(msg, needle) == NULL) {
    fprintf(stderr, "%s: expected the message to contain '%s', got '%s'\n", what, needle, msg);
    ++failures;
  }
}

/* 64-byte aligned, the size rounded up as aligned_alloc wants. */
static float* AllocFloats(size_t n) {
  size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  return (float*)aligned_alloc(64, bytes ? bytes : 64);
}

#endif /* TESSEL_TESTS_C_C_TEST_UTIL_H_ */
