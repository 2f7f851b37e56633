"""Named workloads: the standard programs that tests, benchmarks and tuning
refer to by name, each with its FLOP and byte counts::

    >>> from tessel import workloads
    >>> workloads.list(small_only=True)[:2]
    ['matmul_64x64x64_f32', 'matmul_17x31x23_f32']
    >>> mod = workloads.get("softmax_16x33")          # one function, named like the workload
    >>> w = workloads.info("matmul_1024x1024x1024_f32")
    >>> w.flops / w.bytes                             # arithmetic intensity

The small ones run in the reference interpreter in tests; the large ones are
for compiled code. Counting conventions are in docs/te.md.
"""

from __future__ import annotations

import builtins
from typing import List, NamedTuple

from . import _core
from ._core import IRModule

__all__ = ["Workload", "get", "info", "list"]


class Workload(NamedTuple):
    """What describes a workload."""

    name: str
    description: str  #: one line: the math and the shapes
    flops: float  #: a multiply-accumulate counts 2
    bytes: float  #: compulsory traffic: every parameter buffer once
    small: bool  #: cheap enough for the reference interpreter


def list(small_only: bool = False) -> List[str]:  # noqa: A001
    """The workload names in a fixed order (only the small ones if asked)."""
    return builtins.list(_core.workload_names(small_only))


def info(name: str) -> Workload:
    """The description, FLOPs and bytes of workload ``name``. An unknown name
    raises :class:`tessel.ArgumentError` listing the known ones."""
    return Workload(*_core.workload_info(name))


def get(name: str) -> IRModule:
    """Builds workload ``name``: a module with one function named like it."""
    return _core.workload_build(name)
