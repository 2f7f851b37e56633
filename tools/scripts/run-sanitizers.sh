#!/usr/bin/env bash
# The IR core's GoogleTest units (tessel_unit_tests, tessel_arith_tests) under
# AddressSanitizer + UndefinedBehaviorSanitizer, then a short run of the .tsl
# parser fuzzer (libFuzzer, tests/fuzz/), built with clang-19 in build-sanitize/.
# CI runs it after the test suite (tools/scripts/run-tests.sh with TESSEL_CI=1).
#
#   bash tools/scripts/run-sanitizers.sh                    # fuzz 30 s
#   FUZZ_SECONDS=3600 bash tools/scripts/run-sanitizers.sh  # a longer fuzz run
#   TESSEL_SANITIZE_UNITS="tessel_unit_tests tessel_arith_tests tessel_pass_tests \
#     tessel_lowering_tests tessel_schedule_tests" bash tools/scripts/run-sanitizers.sh
#                                                           # passes/ too (~15 min more)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build-sanitize
UNITS=${TESSEL_SANITIZE_UNITS:-"tessel_unit_tests tessel_arith_tests"}
if [ ! -f "$B/build.ninja" ]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DTESSEL_SANITIZE=address,undefined -DTESSEL_FUZZ=ON -DTESSEL_PYTHON=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
# shellcheck disable=SC2086
ninja -C "$B" $UNITS tessel_parser_fuzzer
export ASAN_OPTIONS=abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# ASan's frames are several times larger: the units' 9000-deep expression trees,
# which the printer, parser and structural equality walk recursively within the
# default 8 MiB, need more stack under it.
ulimit -s 262144
for unit in $UNITS; do
  echo "run-sanitizers: $unit"
  "$B/bin/$unit" --gtest_brief=1
done
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# Seeds: every lit input (the fuzzer reads the directory recursively); new inputs go
# to the scratch corpus, so the tree is never written.
"$B/bin/tessel_parser_fuzzer" "$corpus" tests/lit -max_total_time="${FUZZ_SECONDS:-30}" \
  -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
