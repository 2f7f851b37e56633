#!/usr/bin/env python3
"""Warm start across shapes, with default-schedule's point left out of every run
(heuristic_start=False): what the evolutionary search and its model find on their
own, cold and warm-started, on one machine in one run.

    PYTHONPATH=build/python /usr/bin/python3 tools/scripts/warm_start_shapes.py \\
        --out=/tmp/warm --source-trials=48 --trials=32 --seeds=1,2,3

Source: ResNet-50's stage-2 conv2d (64 channels, 56x56) tuned once. Target: a
stage-3 conv2d (128 channels, 28x28, 3x3), tuned cold and warm-started from the
source's records, same seed, per seed. Prints one JSON line per seed (each run's
best-so-far curve in ms) and a summary line: best by trial k and the trials to a
threshold (--threshold-ms). Keep the machine otherwise idle: the runs are timed.
"""

import argparse
import json
import os
import statistics

import tessel
from tessel import metaschedule, ops, te, workloads


def target(threads):
    return f"llvm -num-cores={threads} -num-threads={threads}"


def stage3():
    data = te.placeholder((1, 128, 28, 28), name="data")
    kernel = te.placeholder((128, 128, 3, 3), name="kernel")
    return tessel.IRModule({"conv2d_stage3": te.create_prim_func(
        [data, kernel, ops.conv2d(data, kernel, padding=1)])})


def tune(mod, db, trials, seed, threads, warm=""):
    report = metaschedule.tune(mod, target=target(threads), max_trials=trials, db=db,
                               strategy="evolutionary", seed=seed, warm_start=warm,
                               progress=False, heuristic_start=False)
    return [s * 1e3 for s in report.tasks[0].curve]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--source-trials", type=int, default=48)
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--threshold-ms", type=float, default=3.5)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    source = os.path.join(a.out, "source.db")
    if not os.path.exists(source):
        tune(workloads.get("conv2d_nchw_resnet50_stage2"), source, a.source_trials, 1, a.threads)
    warm_from = f"{source}:{target(a.threads)}"
    runs = {"cold": [], "warm": []}
    for seed in (int(s) for s in a.seeds.split(",")):
        row = {"seed": seed}
        for kind in ("cold", "warm"):
            db = os.path.join(a.out, f"{kind}-{seed}.db")
            if os.path.exists(db):
                os.remove(db)
            curve = tune(stage3(), db, a.trials, seed, a.threads, warm_from if kind == "warm" else "")
            runs[kind].append(curve)
            row[kind] = [round(c, 3) for c in curve]
        print(json.dumps(row), flush=True)

    def reached(curve):
        return next((i + 1 for i, c in enumerate(curve) if c <= a.threshold_ms), None)

    summary = {}
    for kind, curves in runs.items():
        summary[kind] = {f"mean_best_at_{k}": round(statistics.fmean(c[k - 1] for c in curves), 3)
                         for k in sorted({1, 8, 16, a.trials}) if k <= a.trials}
        summary[kind]["trials_to_threshold"] = [reached(c) for c in curves]
    print(json.dumps({"threshold_ms": a.threshold_ms, **summary}), flush=True)


if __name__ == "__main__":
    main()
