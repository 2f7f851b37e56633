// Headers nearly every unit test includes, compiled once per test binary
// (target_precompile_headers in tests/unit/CMakeLists.txt). Parsing GoogleTest,
// Abseil and the IR headers took about 80% of each test file's compile time.
#ifndef TESSEL_TESTS_UNIT_PRECOMPILED_TEST_HEADERS_H_
#define TESSEL_TESTS_UNIT_PRECOMPILED_TEST_HEADERS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/te/workloads.h"
#include "passes/pass_manager.h"

#endif  // TESSEL_TESTS_UNIT_PRECOMPILED_TEST_HEADERS_H_
