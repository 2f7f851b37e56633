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

import inspect
from typing import Any, Callable, List, Tuple, Union

from . import _core
from ._core import BlockRV, ExprRV, LoopRV, Schedule, Trace

__all__ = ["Schedule", "Trace", "BlockRV", "LoopRV", "ExprRV", "list_schedules",
           "apply_schedule", "register_tensor_intrin", "list_tensor_intrins", "index_map_text"]


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


def register_tensor_intrin(name: str, desc: Union[_core.PrimFunc, str],
                           impl: Union[_core.PrimFunc, str, None] = None,
                           replace: bool = False) -> None:
    """Registers a tensor intrinsic for :meth:`Schedule.tensorize`: ``desc``
    describes the computation (loops around one block, buffer parameters for
    the tiles), ``impl`` does it (the same parameters; plain loops and
    statements). Either two PrimFuncs, or one .tsl text holding both functions,
    the description first. A taken name fails unless ``replace``."""
    if isinstance(desc, str):
        if impl is not None:
            raise TypeError("give the .tsl text of both functions as desc, or two PrimFuncs")
        from . import parse
        mod = parse(desc)
        funcs = list(mod.items())
        if len(funcs) != 2:
            raise ValueError(f"tensor intrinsic '{name}': the text must hold two functions, "
                             f"the description then the implementation; it holds {len(funcs)}")
        desc, impl = funcs[0][1], funcs[1][1]
    _core.register_tensor_intrin(name, desc, impl, replace)


def list_tensor_intrins() -> List[str]:
    """The names of the registered tensor intrinsics, sorted (the built-in
    ``f32_fma_1x16`` and ``f32_fma_4x16`` among them)."""
    return _core.list_tensor_intrins()


class _IndexVar:
    """A lambda parameter while :func:`index_map_text` traces the lambda:
    arithmetic builds the text of the index expression."""

    def __init__(self, text: str) -> None:
        self.text = text

    @staticmethod
    def _of(x: Any) -> str:
        if isinstance(x, _IndexVar):
            return x.text
        if isinstance(x, int) and not isinstance(x, bool):
            return str(x) if x >= 0 else f"({x})"
        raise TypeError(f"index maps use integers and the lambda's parameters, not {x!r}")

    def _bin(self, op: str, other: Any, swap: bool = False) -> "_IndexVar":
        a, b = self._of(self), self._of(other)
        return _IndexVar(f"({b} {op} {a})" if swap else f"({a} {op} {b})")

    def __add__(self, o: Any) -> "_IndexVar": return self._bin("+", o)
    def __radd__(self, o: Any) -> "_IndexVar": return self._bin("+", o, True)
    def __sub__(self, o: Any) -> "_IndexVar": return self._bin("-", o)
    def __rsub__(self, o: Any) -> "_IndexVar": return self._bin("-", o, True)
    def __mul__(self, o: Any) -> "_IndexVar": return self._bin("*", o)
    def __rmul__(self, o: Any) -> "_IndexVar": return self._bin("*", o, True)
    def __floordiv__(self, o: Any) -> "_IndexVar": return self._bin("//", o)
    def __rfloordiv__(self, o: Any) -> "_IndexVar": return self._bin("//", o, True)
    def __mod__(self, o: Any) -> "_IndexVar": return self._bin("%", o)
    def __rmod__(self, o: Any) -> "_IndexVar": return self._bin("%", o, True)
    def __neg__(self) -> "_IndexVar": return _IndexVar(f"(-{self.text})")

    def __truediv__(self, o: Any) -> "_IndexVar":
        raise TypeError("'/' is true division; index maps use '//' (floor division)")


def index_map_text(fn: Callable[..., Any]) -> str:
    """The text of an index map given as a Python lambda, by calling it on
    symbolic parameters: ``index_map_text(lambda i, j: (i // 16, j, i % 16))``
    is ``"lambda i, j: ((i // 16), j, (i % 16))"``. The lambda may use
    + - * // % and integer constants; :meth:`Schedule.transform_layout` takes
    the lambda itself and calls this."""
    names = list(inspect.signature(fn).parameters)
    if not names:
        raise ValueError("an index map takes at least one index")
    out = fn(*[_IndexVar(n) for n in names])
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    texts = [_IndexVar._of(o) for o in outs]
    return f"lambda {', '.join(names)}: ({', '.join(texts)}{',' if len(texts) == 1 else ''})"
