"""Schedules: change how a function's loops run without changing what it
computes (docs/schedule.md).

::

    sch = tessel.Schedule(mod)                   # works on the first function
    b0 = sch.get_block(name="C")
    l1, l2, l3 = sch.get_loops(block=b0)
    l4, l5 = sch.split(loop=l1, factors=[None, 32])
    l6, l7 = sch.split(loop=l2, factors=[None, 32])
    sch.reorder(l4, l6, l3, l5, l7)
    sch.parallel(loop=l4)
    sch.vectorize(loop=l7)
    scheduled = sch.mod
    print(sch.trace)                             # the lines above, as a program

Primitives take and return handles (:class:`BlockRV`, :class:`LoopRV`,
:class:`ExprRV`) that follow blocks by name and loops by variable. Method and
keyword names are those a trace prints, so a printed trace runs as Python
against a Schedule of a structurally equal module, and
``Trace.from_json(trace.as_json()).apply_to_schedule(other)`` replays it.

A primitive that breaks a rule raises :class:`tessel.ScheduleError` naming the
call and the rule and showing the function with the loop or block marked; the
schedule is left exactly as it was.
"""

from __future__ import annotations

from typing import List, Tuple

from . import _core
from ._core import BlockRV, ExprRV, LoopRV, Schedule, Trace

__all__ = ["Schedule", "Trace", "BlockRV", "LoopRV", "ExprRV", "list_schedules",
           "apply_schedule"]


def list_schedules() -> List[Tuple[str, str]]:
    """(name, description) of every registered C++ schedule function (what the
    manual-schedule pass applies with ``schedule=<name>``)."""
    return _core.list_schedules()


def apply_schedule(sch: Schedule, name: str) -> bool:
    """Runs the registered C++ schedule function ``name`` on ``sch``. Returns
    False when it does not apply to the function (nothing changed), True when
    it scheduled it; raises :class:`tessel.ScheduleError` when it claimed the
    function and a primitive failed."""
    return _core.apply_schedule(sch, name)
