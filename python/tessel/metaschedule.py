"""Schedules from rules: design spaces and the heuristic schedule.

The schedule rules of a target (auto-inline, multi-level tiling, add-rfactor,
compute location, parallelize-vectorize for CPUs) look at a function's
structure and schedule it. Every choice they make is a sampling instruction in
the trace, so one function has a *design space*: draw from it with a seed, or
take the heuristic point that the ``default-schedule`` pass applies::

    import tessel
    mod = tessel.workloads.get("matmul_64x64x64_f32")
    space = tessel.metaschedule.generate_design_space(mod, target="llvm")
    best_guess = space.heuristic()          # what DefaultSchedule() does
    other = space.draw(seed=7)              # another point: other tiles, widths
    print(other.schedule.trace)             # replayable Python
    print(other.applied)                    # which rule did what to which block

Pipelines use the pass: ``tessel.transform.DefaultSchedule(target="llvm")``.

Measured schedules go to a tuning database, an SQLite file::

    db = tessel.metaschedule.Database("tuning.db")
    w = db.commit_workload(func)
    db.commit_record(w, "llvm", trace_json, [1.1e-3, 1.0e-3])
    len(db)                                  # committed records
    db.best(func, "llvm", k=1)[0].mean_seconds
    db.merge("other.db"); db.export_json_lines("records.jsonl")

Tuning fills it: ``tessel.metaschedule.tune(mod, target="llvm", max_trials=64,
db="tuning.db")`` (see :mod:`tessel.tuning`; dask clusters: :mod:`tessel.dask_runner`).
"""

from __future__ import annotations

from typing import Optional

from . import _core
from ._core import DesignSpace, RuleSchedule, TuningRecord, TuningTask
from ._core import TuningDatabase as Database
from .tuning import (LocalRunner, SearchStrategy, TaskResult, TuneReport, mutate,
                     register_strategy, tune)

__all__ = ["generate_design_space", "extract_tasks", "DesignSpace", "RuleSchedule", "Database",
           "TuningRecord", "TuningTask", "tune", "LocalRunner", "TuneReport", "TaskResult",
           "search_strategies", "SearchStrategy", "register_strategy", "mutate"]


def search_strategies() -> list:
    """The search strategies ``tune`` accepts."""
    return list(_core.search_strategies())


def extract_tasks(mod: _core.IRModule, target: str = "llvm") -> list:
    """The tuning tasks of ``mod``: one :class:`TuningTask` per distinct function
    (by structure, whatever its name and attributes), weighted by how many
    functions it stands for, in module order. Scheduled functions (by hand, by
    ``apply-best``, dispatched to a library) are not tasks."""
    return _core.extract_tasks(mod, target)


def generate_design_space(mod: _core.IRModule, func: Optional[str] = None,
                          target: str = "llvm") -> DesignSpace:
    """The design space of ``mod[func]`` (default: its first function) under the
    schedule rules of ``target`` (``llvm`` with ``-mcpu``, ``-mattr``,
    ``-num-threads``, ``-num-cores``). Raises :class:`ArgumentError` for an unknown
    function or target."""
    return _core.generate_design_space(mod, func or "", target)
