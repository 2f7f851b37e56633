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
# A short tuning run: 16 candidates of the 1024^3 matmul for 2 threads, built and run
# in worker processes, each checked against the unscheduled function; then apply-best
# schedules the function by the fastest record, and the tuned/ row times it against
# oneDNN and default-schedule in the same run.
echo
db=build/main-job-tuning.db
target="llvm -num-cores=2 -num-threads=2"
rm -f "$db" "$db-wal" "$db-shm"
build/bin/tessel-workloads matmul_1024x1024x1024_f32 > build/matmul_1024.tsl
build/bin/tessel-tune build/matmul_1024.tsl --db="$db" --trials=16 --target="$target"
build/bin/tessel-opt build/matmul_1024.tsl --pipeline="apply-best{db=\"$db\",target=\"$target\"}" \
    --print-pass-log 2>&1 >/dev/null | grep -v '^//'
build/bin/tessel-bench --filter='tuned/matmul_1024x1024x1024_f32_2t' --tuning-db="$db" \
    | /usr/bin/python3 tools/scripts/bench_table.py
# A transformer encoder block imported from ONNX (and BERT's FFN from the graph
# builder) through legalize, fuse-ops, fuse-tir, default-schedule and plan-memory,
# built and run whole on its kernels with planned storage: its launch sequence, then
# times beside the same model unfused and PyTorch eager (torch_ms is null without
# python3-torch, an optional peer: apt-get install python3-torch).
echo
PYTHONPATH=build/python /usr/bin/python3 tools/bench/graph_models.py --describe
