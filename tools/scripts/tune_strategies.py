#!/usr/bin/env python3
"""The tuning measurements: the strategy table, warm start, measurement
throughput, and the pictures -- one run on this machine, written to OUT/.

    PYTHONPATH=build/python python3 tools/scripts/tune_strategies.py --out=/tmp/tuning \\
        --trials=64 --workloads=matmul_1024x1024x1024_f32,conv2d_nchw_resnet50_stage2

For each workload and strategy (grid where the space allows, random, genetic,
annealing, evolutionary), a fresh database and the same seed; the table gives
the trials each needed to reach 90% and 99% of the best any of them found.
Warm start: the first workload tuned at 1 thread with a cold model, then with
the model trained on its 2-thread records (another target); the trials to reach
95% of the cold run's best, with and without. OUT/tuning.json holds every
figure; OUT/convergence-<workload>.png and OUT/roofline.png the pictures.
"""

import argparse
import json
import math
import os
import sys
import time

import tessel
from tessel import metaschedule, tuning_plots, workloads

STRATEGIES = ["grid", "random", "genetic", "annealing", "evolutionary"]


def target(threads):
    return f"llvm -num-cores={threads} -num-threads={threads}"


def trials_to(curve, goal_seconds):
    """The first trial whose best so far is within the goal, or None."""
    for i, s in enumerate(curve):
        if s <= goal_seconds:
            return i + 1
    return None


def run(mod, db, strategy, trials, threads, seed, warm_start=""):
    start = time.time()
    try:
        report = metaschedule.tune(mod, target=target(threads), max_trials=trials, db=db,
                                   strategy=strategy, seed=seed, warm_start=warm_start,
                                   progress=False)
    except tessel.TesselError as e:
        return {"refused": str(e)}
    task = report.tasks[0]
    return {"curve": task.curve, "best_seconds": task.best_seconds, "failed": task.failed,
            "trials": task.trials, "wall_s": time.time() - start}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workloads", default="matmul_1024x1024x1024_f32,conv2d_nchw_resnet50_stage2")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    result = {"trials": args.trials, "threads": args.threads, "workloads": {}}
    for name in args.workloads.split(","):
        mod = workloads.get(name)
        info = workloads.info(name)
        runs = {}
        for strategy in args.strategies.split(","):
            db = os.path.join(args.out, f"{name}-{strategy}-{args.threads}t.db")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            print(f"{name}: {strategy} ...", file=sys.stderr, flush=True)
            runs[strategy] = run(mod, db, strategy, args.trials, args.threads, args.seed)
        best = min((r["best_seconds"] for r in runs.values() if "curve" in r), default=math.inf)
        for r in runs.values():
            if "curve" in r:
                r["trials_to_90"] = trials_to(r["curve"], best / 0.90)
                r["trials_to_99"] = trials_to(r["curve"], best / 0.99)
                r["best_gflops"] = info.flops / r["best_seconds"] * 1e-9
                r["candidates_per_minute"] = r["trials"] / r["wall_s"] * 60
        result["workloads"][name] = {"flops": info.flops, "bytes": info.bytes,
                                     "best_gflops": info.flops / best * 1e-9, "strategies": runs}
        tuning_plots.convergence({s: r["curve"] for s, r in runs.items() if "curve" in r},
                                 os.path.join(args.out, f"convergence-{name}.png"),
                                 flops=info.flops, title=f"{name}, {args.threads} threads")

    # Warm start: the first workload at 1 thread, cold and warmed by its records of
    # the strategy run (another target: another thread count).
    first = args.workloads.split(",")[0]
    source = os.path.join(args.out, f"{first}-evolutionary-{args.threads}t.db")
    if os.path.exists(source):
        mod = workloads.get(first)
        cold_db = os.path.join(args.out, f"{first}-cold-1t.db")
        warm_db = os.path.join(args.out, f"{first}-warm-1t.db")
        for db in (cold_db, warm_db):
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
        cold = run(mod, cold_db, "evolutionary", args.trials // 2, 1, args.seed + 1)
        warm = run(mod, warm_db, "evolutionary", args.trials // 2, 1, args.seed + 1,
                   warm_start=f"{source}:{target(args.threads)}")
        if "curve" in cold and "curve" in warm:
            goal = min(cold["best_seconds"], warm["best_seconds"]) / 0.95
            result["warm_start"] = {
                "workload": first, "from": target(args.threads), "to": target(1),
                "cold_trials_to_95": trials_to(cold["curve"], goal),
                "warm_trials_to_95": trials_to(warm["curve"], goal),
                "cold_best_ms": cold["best_seconds"] * 1e3, "warm_best_ms": warm["best_seconds"] * 1e3,
                "cold_curve": cold["curve"], "warm_curve": warm["curve"]}

    peak, bandwidth = tuning_plots.measure_machine()
    result["machine"] = {"peak_gflops_numpy_sgemm": peak, "copy_gbs": bandwidth,
                         "loadavg": os.getloadavg()}
    points = [(n, w["flops"], w["bytes"], w["flops"] / (w["best_gflops"] * 1e9))
              for n, w in result["workloads"].items()]
    # numpy's sgemm (OpenBLAS) is no peak where tuned code beats it: the roof is the
    # best of both, and the legend says which.
    best_tuned = max(w["best_gflops"] for w in result["workloads"].values())
    label = " (numpy sgemm)" if peak >= best_tuned else " (best tuned kernel)"
    tuning_plots.roofline(points, max(peak, best_tuned), bandwidth,
                          os.path.join(args.out, "roofline.png"),
                          title=f"tuned workloads, {args.threads} threads", peak_label=label)
    with open(os.path.join(args.out, "tuning.json"), "w") as f:
        json.dump(result, f, indent=1)
    # The table.
    print(f"{'workload':32} {'strategy':13} {'best GFLOP/s':>12} {'to 90%':>7} {'to 99%':>7} "
          f"{'cand/min':>9}")
    for name, w in result["workloads"].items():
        for s, r in w["strategies"].items():
            if "curve" not in r:
                print(f"{name:32} {s:13} {'refused: ' + r['refused'][:60]}")
                continue
            print(f"{name:32} {s:13} {r['best_gflops']:12.1f} {str(r['trials_to_90']):>7} "
                  f"{str(r['trials_to_99']):>7} {r['candidates_per_minute']:9.1f}")
    if "warm_start" in result:
        ws = result["warm_start"]
        print(f"warm start ({ws['workload']}, {ws['from']} -> {ws['to']}): trials to 95% of the "
              f"best: cold {ws['cold_trials_to_95']}, warm {ws['warm_trials_to_95']}")


if __name__ == "__main__":
    main()
