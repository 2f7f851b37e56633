#!/usr/bin/env bash
# README command (2): install what is missing, build, and run the whole test suite
# (GoogleTest units, lit tests, Python tests) through ctest. With TESSEL_CI=1
# (.ci/run) the build treats warnings as errors, and the IR core's units then run
# again under ASan + UBSan with a short parser fuzz (tools/scripts/run-sanitizers.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/install-deps.sh
bash tools/scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
if [ "${TESSEL_CI:-0}" = 1 ]; then
  bash tools/scripts/run-sanitizers.sh
fi
