"""tessel: compile tensor programs, scripted from Python.

A tensor program is a :class:`PrimFunc` inside an :class:`IRModule`. Build one
with tensor expressions (:mod:`tessel.te`, :mod:`tessel.ops`), load named ones
(:mod:`tessel.workloads`) or parse ``.tsl`` text; transform it with passes and
pipelines (:mod:`tessel.transform`) and schedules (:class:`Schedule`); run it
on numpy arrays in the reference interpreter::

    import numpy as np
    import tessel
    from tessel import te

    A = te.placeholder((64, 32), "float32", name="A")
    B = te.placeholder((32, 16), "float32", name="B")
    k = te.reduce_axis(32, name="k")
    C = te.compute((64, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    mod = tessel.IRModule({"matmul": te.create_prim_func([A, B, C])})
    mod = tessel.transform.parse_pipeline("simplify,remove-no-op")(mod)

    a, b = np.random.rand(64, 32).astype("float32"), np.random.rand(32, 16).astype("float32")
    c = np.zeros((64, 16), "float32")
    tessel.interpret(mod["matmul"], a, b, c)       # c is written in place
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)

IR objects are immutable: methods such as ``with_attr`` return new objects.
Errors are :class:`TesselError` subclasses (see :mod:`tessel.errors`).
"""

from __future__ import annotations

from typing import Optional, Union

from . import errors
from .errors import (
    ArgumentError,
    BuildError,
    IRError,
    ParseError,
    PassError,
    RuntimeError,
    ScheduleError,
    StructuralEqualError,
    TesselError,
)
from . import _core
from ._core import (
    Buffer,
    Expr,
    FloatImm,
    GraphFunc,
    IntImm,
    IRModule,
    IterVar,
    Node,
    PrimFunc,
    Stmt,
    Var,
)

__all__ = [
    # IR
    "Node", "Expr", "Var", "IntImm", "FloatImm", "Stmt", "Buffer", "IterVar", "PrimFunc",
    "GraphFunc", "IRModule",
    "parse", "load", "structural_equal", "assert_structural_equal", "structural_hash", "verify",
    "interpret", "check_same_results", "DEFAULT_MAX_STEPS",
    # Schedules
    "Schedule", "Trace", "BlockRV", "LoopRV", "ExprRV",
    # Compiled code
    "build", "load_library", "set_num_threads", "get_num_threads",
    # Submodules
    "te", "ops", "workloads", "transform", "schedule", "metaschedule", "errors", "nd", "runtime", "cuda",
    "graph", "frontend",
    "ir", "dispatch",
    # Errors
    "TesselError", "IRError", "ParseError", "StructuralEqualError", "ScheduleError", "PassError",
    "BuildError", "RuntimeError", "ArgumentError",
]

Comparable = Union[IRModule, PrimFunc, Stmt, Expr]


def parse(text: str, filename: str = "<input>") -> IRModule:
    """Parses ``.tsl`` text into an IRModule.

    Raises :class:`ParseError` whose message starts ``filename:line:column:``
    (also available as ``e.line`` and ``e.column``) and shows the line.
    """
    return _core.parse(text, filename)


def load(path: str) -> IRModule:
    """Reads and parses a ``.tsl`` file. Raises FileNotFoundError when it cannot
    be opened and :class:`ParseError` when it does not parse."""
    return _core.load(str(path))


def structural_equal(a: Comparable, b: Comparable, map_free_vars: bool = False) -> bool:
    """True when ``a`` and ``b`` are the same IR up to renaming of bound
    variables and buffers (alpha-equivalence). Free variables are equal only to
    themselves unless ``map_free_vars``, which matches them up on first use.
    Objects of different kinds (a module and a function) are never equal."""
    return _core.structural_equal(a, b, map_free_vars)


def assert_structural_equal(a: Comparable, b: Comparable, map_free_vars: bool = False) -> None:
    """Raises :class:`StructuralEqualError` (an AssertionError) unless ``a`` and
    ``b`` are structurally equal; the message names the first mismatch as a path
    from the root and shows both sides, e.g.
    ``mismatch at func[mm].body...init.value: 0.0f32 vs 1.0f32``."""
    _core.assert_structural_equal(a, b, map_free_vars)


def structural_hash(x: Comparable, map_free_vars: bool = False) -> int:
    """A 64-bit hash that agrees with :func:`structural_equal`. It is the same on
    every platform and in every process (it keys tuning databases)."""
    return _core.structural_hash(x, map_free_vars)


def verify(x: Union[IRModule, PrimFunc], name: str = "main") -> None:
    """Checks well-formedness beyond what constructing IR checks (variables
    bound before use, buffer accesses, block bindings, unique names, ...).
    Raises :class:`IRError` naming the function, block and node; returns None
    when the IR is fine. ``name`` names a lone PrimFunc in messages."""
    _core.verify(x, name)


# The statements interpret() and check_same_results() run before they stop with
# RuntimeError, unless given max_steps (0: no limit): a few seconds of work.
DEFAULT_MAX_STEPS = 100_000_000


def interpret(func: Union[PrimFunc, IRModule], *args, name: Optional[str] = None,
              max_steps: int = DEFAULT_MAX_STEPS) -> None:
    """Runs ``func`` in the reference interpreter on ``args``, one per parameter:
    numpy arrays for buffer parameters (written in place where the function
    writes them), Python or numpy numbers for scalar parameters.

    Every access is bounds-checked. Arrays must have the parameter's dtype
    exactly (``f32`` is numpy ``float32``, ``f16`` ``float16``, ``bool`` numpy
    ``bool_``; ``bf16`` needs a numpy ``bfloat16`` such as ml_dtypes provides)
    and its shape; symbolic extents take their values from the arrays.

    For an IRModule, ``name`` picks the function (optional when there is one).
    ``max_steps`` stops a run after that many statements (default
    ``DEFAULT_MAX_STEPS``, 10^8: a few seconds; 0: no limit); Ctrl-C stops it
    too, raising ``KeyboardInterrupt``.

    Raises :class:`ArgumentError` for arguments that do not fit the parameters
    and :class:`RuntimeError` for a failure while running.
    """
    _core.interpret(func, list(args), name, max_steps)


def check_same_results(a: PrimFunc, b: PrimFunc, seed: int = 1, rtol: float = 1e-5,
                       atol: float = 1e-6, max_steps: int = DEFAULT_MAX_STEPS) -> None:
    """Runs ``a`` and ``b`` in the interpreter on the same seeded random inputs
    and compares every buffer afterwards: the differential test of a transform.
    Raises :class:`RuntimeError` naming the parameter and the first index that
    differs (or the failure of either run). ``max_steps`` bounds each run, as
    for :func:`interpret`."""
    _core.check_same_results(a, b, seed, rtol, atol, max_steps)


from . import te, ops, workloads, transform, schedule  # noqa: E402  (they use the names above)
from .schedule import BlockRV, ExprRV, LoopRV, Schedule, Trace  # noqa: E402
from . import cuda, metaschedule, nd, runtime  # noqa: E402
from . import dispatch, frontend, graph, ir  # noqa: E402
from .runtime import build, get_num_threads, load_library, set_num_threads  # noqa: E402
