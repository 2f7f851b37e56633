"""``python3 -m tessel.tune_cli FILE.tsl --db=DB --dask=ADDRESS ...``: what
``tessel-tune --dask=ADDRESS`` runs, since the dask client is Python's. The flags
are tessel-tune's (those of the local measurer aside)."""

import sys


def main(argv=None) -> int:
    """Parses the command line, tunes on the dask cluster, prints the report."""
    import argparse

    from . import load
    from .dask_runner import DaskRunner
    from .tuning import tune

    ap = argparse.ArgumentParser(prog="tessel-tune --dask")
    ap.add_argument("file")
    ap.add_argument("--db", required=True)
    ap.add_argument("--dask", required=True, help="the dask scheduler's address")
    ap.add_argument("--target", default="llvm")
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--strategy", default="evolutionary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cost-model", default="xgboost")
    ap.add_argument("--scheduler", default="gradient")
    ap.add_argument("--warm-start", default="")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--min-repeat-ms", type=float, default=20.0)
    ap.add_argument("--build-timeout", type=float, default=120.0)
    ap.add_argument("--run-timeout", type=float, default=60.0)
    ap.add_argument("--no-heuristic-start", action="store_true")
    args = ap.parse_args(argv)
    try:
        runner = DaskRunner(args.dask, repeat=args.repeat, min_repeat_ms=args.min_repeat_ms,
                            build_timeout=args.build_timeout, run_timeout=args.run_timeout)
        report = tune(load(args.file), target=args.target, max_trials=args.trials, db=args.db,
                      strategy=args.strategy, runner=runner, seed=args.seed, batch=args.batch,
                      cost_model=args.cost_model, scheduler=args.scheduler,
                      warm_start=args.warm_start,
                      heuristic_start=not args.no_heuristic_start)
    except Exception as e:  # noqa: BLE001 -- a command line reports, it does not trace back
        print(f"tessel-tune: {e}", file=sys.stderr)
        return 1
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
