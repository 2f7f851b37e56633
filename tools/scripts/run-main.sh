#!/usr/bin/env bash
# README command (1): install what is missing, build, and run tessel's main job.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/install-deps.sh
bash tools/scripts/build.sh
# The examples against their C++ references, then every example and workload lowered,
# compiled and checked against the interpreter (the large ones timed, unchecked).
build/bin/tessel-examples tools/examples --workloads=tools/examples/workloads
# Compiled code against the libraries it should match: hand schedules (codegen/),
# functions nobody scheduled through default-schedule (auto/) and functions
# dispatched to oneDNN (dispatch/), against oneDNN, OpenBLAS and memcpy bandwidth,
# with the JIT's compile time: unscheduled, ours, the reference, the ratio.
echo
build/bin/tessel-bench --filter='codegen/|auto/|dispatch/' | /usr/bin/python3 tools/scripts/bench_table.py
