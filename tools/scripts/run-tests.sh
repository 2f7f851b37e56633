#!/usr/bin/env bash
# README command (2): install what is missing, build, and run the whole test suite
# (GoogleTest units, lit tests, Python tests) through ctest.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/install-deps.sh
bash tools/scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
