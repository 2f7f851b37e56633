"""Auto-tuning from Python: ``tessel.metaschedule.tune`` and its runners.

Tuning measures candidates of each task's design space, keeps every result in a
tuning database, and lets ``apply-best`` schedule any structurally equal
function by the fastest::

    import tessel
    from tessel import metaschedule, transform
    mod = tessel.workloads.get("matmul_64x64x64_f32")
    report = metaschedule.tune(mod, target="llvm", max_trials=32, db="tuning.db")
    print(report)                                  # per task: trials, best, failures
    fast = transform.ApplyBest(db="tuning.db", target="llvm")(mod)

Candidates run in worker processes (``LocalRunner``, the default) or on a
dask.distributed cluster (``DaskRunner("tcp://scheduler:8786")``). A candidate
that crashes, hangs or computes a wrong result is recorded with the reason and
tuning goes on.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Union

from . import _core

__all__ = ["tune", "LocalRunner", "TuneReport", "TaskResult", "SearchStrategy",
           "register_strategy", "mutate"]


class SearchStrategy:
    """A search strategy written in Python. Subclass it, define ``propose``, and
    register the class under a name; ``tune(strategy=name)`` then makes one per task::

        class Hill(SearchStrategy):
            def propose(self, history, n):          # history: [(Trace, seconds)]
                best = min(history, key=lambda e: e[1], default=None)
                if best is None:
                    return [self.space.draw(self.seed + k).schedule.trace for k in range(n)]
                return [mutate(self.space, best[0], self.seed + len(history) + k)[0]
                        for k in range(n)]
        register_strategy("hill", Hill)

    ``init`` gets the task's :class:`DesignSpace` and the seed (kept as
    ``self.space``, ``self.seed``); ``observe`` the traces of the last batch and their
    mean seconds (``inf`` for a failure). Proposals the history already holds, or
    repeated, are dropped; an exception fails the tuning run with its message."""

    def __init__(self) -> None:
        """Made once per task (the class is called with no arguments)."""
        self.space = None  # The task's DesignSpace, set by init.
        self.seed = 0

    def init(self, space, seed: int) -> None:
        """Called once per task before the first proposal; keeps both."""
        self.space, self.seed = space, seed

    def propose(self, history: list, n: int) -> list:
        """Up to ``n`` traces to measure next; ``history`` holds ``(Trace, seconds)``."""
        raise NotImplementedError("a SearchStrategy defines propose(history, n)")

    def observe(self, traces: list, seconds: list) -> None:
        """The last batch's traces and their mean seconds (``inf``: failed)."""


def register_strategy(name: str, cls: type) -> None:
    """Makes ``cls`` (a :class:`SearchStrategy` subclass) the strategy ``name``;
    a name already taken raises :class:`tessel.ArgumentError`."""
    _core.register_search_strategy(name, cls)


def mutate(space, trace, seed: int):
    """One decision of ``trace`` changed and the schedule rebuilt by the rules:
    ``(child_trace, mutator_name)``."""
    return _core.mutate(space, trace, seed)


@dataclass
class LocalRunner:
    """Builds candidates in ``workers`` parallel processes (0: one per core) and
    runs each alone in a process of its own, checked against the unscheduled
    function, then timed: ``repeat`` figures, each lasting ``min_repeat_ms``
    (with ``flush_cache``, the caches evicted before each)."""

    workers: int = 0
    repeat: int = 3
    min_repeat_ms: float = 20.0
    build_timeout: float = 120.0
    run_timeout: float = 60.0
    work_dir: str = ""
    flush_cache: bool = False


@dataclass
class TaskResult:
    """How one task fared: ``curve`` is the best time after each trial."""

    name: str
    weight: int
    trials: int
    failed: int
    failures: Dict[str, int]
    resumed: int
    best_seconds: float
    best_trace: Optional[str]
    curve: List[float] = field(default_factory=list)


@dataclass
class TuneReport:
    """The tasks tuned, in module order."""

    target: str
    db: str
    tasks: List[TaskResult]

    def __str__(self) -> str:
        lines = [f"{'task':28} {'weight':>6} {'trials':>7} {'failed':>7} {'best':>12}"]
        for t in self.tasks:
            best = f"{t.best_seconds * 1e3:.4f} ms" if math.isfinite(t.best_seconds) else "-"
            lines.append(f"{t.name:28} {t.weight:>6} {t.trials:>7} {t.failed:>7} {best:>12}")
        return "\n".join(lines)


class _ProgressBar:
    """One line on stderr, redrawn after every batch."""

    def __init__(self, total: int):
        self.total = total
        self.done: Dict[str, int] = {}

    def __call__(self, task: str, trials: int, of: int, failed: int, best: float) -> None:
        self.done[task] = trials
        n = sum(self.done.values())
        width = 24
        filled = int(width * n / max(1, self.total))
        best_ms = f"{best * 1e3:.4f} ms" if math.isfinite(best) else "-"
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {n}/{self.total} "
                         f"{task}: best {best_ms}, {failed} failed   ")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


def tune(mod: _core.IRModule, target: str = "llvm", max_trials: int = 64,
         db: Union[str, "_core.TuningDatabase"] = "tuning.db", strategy: str = "evolutionary",
         runner: Optional[object] = None, seed: int = 1, batch: int = 16,
         cost_model: str = "xgboost", scheduler: str = "gradient", max_grid: int = 4096,
         warm_start: str = "", progress: bool = True,
         heuristic_start: bool = True) -> TuneReport:
    """Tunes the functions of ``mod`` for ``target`` with ``max_trials`` candidates
    in all, spread over its tasks by ``scheduler`` ("gradient" or "round-robin").

    ``strategy``: "evolutionary" (cost-model guided), "genetic", "annealing",
    "random" or "grid". ``runner``: a :class:`LocalRunner` (default) or a
    :class:`tessel.dask_runner.DaskRunner`. ``db``: a path or an open
    :class:`Database`; tuning again on it resumes (nothing measured twice).
    ``warm_start``: "FILE" or "FILE:TARGET", a database whose records of TARGET
    (default: ``target``) train the cost model before the first batch.
    ``heuristic_start``: evolutionary and annealing measure default-schedule's
    point first (annealing walks from it); False starts them from a random draw,
    to see what the search finds on its own. Raises :class:`tessel.ArgumentError` for an unknown strategy, model or
    scheduler, and :class:`tessel.RuntimeError` when a task cannot be measured at
    all (its reference fails)."""
    database = db if isinstance(db, _core.TuningDatabase) else _core.TuningDatabase(str(db))
    tasks = _core.extract_tasks(mod, target)
    local = runner if isinstance(runner, LocalRunner) else LocalRunner()
    factory = None if runner is None or isinstance(runner, LocalRunner) else runner.measurer
    bar = _ProgressBar(max_trials) if progress else None
    try:
        results = _core.tune_tasks(
            tasks, database, strategy, max_trials, batch, seed, cost_model, scheduler, max_grid,
            factory, bar, local.workers, local.repeat, local.min_repeat_ms, local.build_timeout,
            local.run_timeout, local.work_dir, warm_start, local.flush_cache, heuristic_start)
    finally:
        if bar is not None:
            bar.close()
    out = [TaskResult(t.name, t.weight, r["trials"], r["failed"], dict(r["failures"]),
                      r["resumed"], r["best_seconds"], r["best_trace"], list(r["curve"]))
           for t, r in zip(tasks, results)]
    return TuneReport(target, database.path, out)

