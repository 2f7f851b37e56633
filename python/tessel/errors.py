"""Exceptions raised by tessel.

Every failure that tessel reports is a :class:`TesselError`; the subclass says
which part failed, and the message is the C++ message (it says where: the
function, block, buffer or pass). Several also derive from the built-in
exception a Python user would expect, so ``except ValueError`` keeps working::

    >>> try:
    ...     tessel.parse("func @f(")
    ... except tessel.ParseError as e:
    ...     print(e.line, e.column)
    1 9

When a Python callback (a pass, an instrument, a compute body) raised inside a
C++ call, the tessel error's ``__cause__`` is the original exception.
"""

from __future__ import annotations

import builtins
import re
from typing import Optional

__all__ = [
    "TesselError",
    "IRError",
    "ParseError",
    "StructuralEqualError",
    "ScheduleError",
    "PassError",
    "BuildError",
    "RuntimeError",
    "ArgumentError",
]


class TesselError(Exception):
    """Base of every error tessel raises; the message is tessel's own."""

    @property
    def message(self) -> str:
        """The message, as the C++ side wrote it."""
        return str(self.args[0]) if self.args else ""


class IRError(TesselError, ValueError):
    """Invalid IR: an expression or node the IR refuses, a compute or op whose
    shape or dtype rules are broken, or a failed :func:`tessel.verify`."""


_POSITION = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): ", re.S)


class ParseError(TesselError, ValueError):
    """``.tsl`` text that does not parse. The message starts with
    ``file:line:column:`` and shows the line with a caret under the column."""

    def _position(self) -> Optional[re.Match]:
        return _POSITION.match(self.message)

    @property
    def filename(self) -> Optional[str]:
        """The file name given to parse/load (``<input>`` for text)."""
        m = self._position()
        return m.group("file") if m else None

    @property
    def line(self) -> Optional[int]:
        """1-based line of the error, or None when the message has no position."""
        m = self._position()
        return int(m.group("line")) if m else None

    @property
    def column(self) -> Optional[int]:
        """1-based column of the error, or None when the message has no position."""
        m = self._position()
        return int(m.group("col")) if m else None


class StructuralEqualError(TesselError, AssertionError):
    """Raised by :func:`tessel.assert_structural_equal`: the message names the
    first mismatch as a path from the root, with both sides as text."""


class ScheduleError(TesselError):
    """A schedule primitive refused: the message names the call, the rule it
    breaks, and shows the function with the offending loop or block marked. The
    schedule is left exactly as it was."""


class PassError(TesselError):
    """A pipeline failed: a pass returned an error (or raised, for a Python
    pass), an instrument stopped it, or the pipeline text is wrong. The module
    given to the pipeline is unchanged (IR is immutable)."""


class BuildError(TesselError):
    """Compiling a module to machine code failed."""


class RuntimeError(TesselError, builtins.RuntimeError):
    """Running a function failed: an out-of-bounds access, an integer division
    by zero, a symbolic extent that disagrees between arguments, ..."""


class ArgumentError(TesselError, TypeError, ValueError):
    """Arguments tessel cannot use: wrong types, dtypes, shapes, counts or
    option values. Both a TypeError and a ValueError."""
