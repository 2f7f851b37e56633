"""Tensor expressions: describe a tensor by what each element is, not by loops.

::

    from tessel import te

    n = te.size_var("n")
    A = te.placeholder((n, 64), "float32", name="A")
    k = te.reduce_axis(64, name="k")
    S = te.compute((n,), lambda i: te.sum(A[i, k] * A[i, k], axis=k), name="S")
    R = te.compute((n,), lambda i: te.sqrt(S[i]), name="R")
    f = te.create_prim_func([A, R])          # a PrimFunc in block form

``compute`` calls the lambda once with one :class:`tessel.Var` per output
dimension; the body uses ordinary operators on expressions
(``+ - * / // % < <= > >= == != & | ~``; ``//`` and ``%`` are floor division
and modulo, as in Python; ``/`` divides floats). A plain number takes the dtype
of the expression it meets (``A[i] * 2`` is ``A[i] * 2.0f32`` for f32 ``A``).
A reduction (``te.sum`` and friends) must be the whole body. Mistakes -- shapes,
dtypes, indexing with the wrong number of indices, a reduce axis used outside its
reduction -- raise :class:`tessel.IRError` naming the compute; an exception the
lambda itself raises comes back unchanged.

The rules and every op are described in docs/te.md.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _core
from ._core import Expr, IterVar, Reduction, Tensor, Var

__all__ = [
    "Tensor", "Reduction", "IterVar", "CommReducer",
    "placeholder", "compute", "reduce_axis", "size_var", "var", "const",
    "sum", "prod", "max", "min", "comm_reducer",
    "create_prim_func", "create_module",
    "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "abs", "floor", "ceil", "pow", "fma",
    "select", "if_then_else", "cast", "floordiv", "floormod", "truncdiv", "truncmod",
    "all", "any", "min_value", "max_value",
]

ExprLike = Union[Expr, IterVar, int, float, bool]
Dim = Union[int, Expr]
Shape = Union[Dim, Sequence[Dim]]
DType = Union[str, Any]  # "f32", "float32", numpy dtypes and types

_builtin_max = max
_builtin_min = min
_builtin_sum = sum
_builtin_abs = abs
_builtin_all = all
_builtin_any = any


# ---- Tensors and computes ----------------------------------------------------------


def placeholder(shape: Shape, dtype: DType = "float32", name: str = "placeholder") -> Tensor:
    """An input tensor: a parameter of the function made by create_prim_func.

    ``shape`` holds ints (i32 extents) and integer expressions such as a
    :func:`size_var`; ``dtype`` is a scalar dtype ("f32"/"float32", "i64",
    "bool", numpy dtypes). ``name`` must be an identifier.
    """
    return _core.placeholder(shape, dtype, name)


def size_var(name: str = "n") -> Var:
    """A symbolic extent (an i32 Var) for shapes. The function binds it from the
    first parameter whose shape has it as a whole extent."""
    return _core.size_var(name)


def var(name: str = "v", dtype: DType = "int32") -> Var:
    """A scalar variable, e.g. a scalar parameter for create_prim_func."""
    return Var(name, dtype)


def reduce_axis(dom: Union[Dim, Tuple[Dim, Dim]], name: str = "k") -> IterVar:
    """A reduction axis over ``[0, dom)`` or, for a pair, ``[begin, end)``.

    Use it in the body of one reduction (``te.sum(A[i, k], axis=k)``). Its domain
    may not depend on the compute's indices; use ``where=`` for that.
    """
    return _core.reduce_axis(dom, name)


def compute(shape: Shape, fcompute: Callable[..., Any], name: str = "compute", tag: str = "",
            attrs: Optional[Dict[str, Any]] = None, axis_names: Optional[Sequence[str]] = None,
            output_names: Optional[Sequence[str]] = None) -> Union[Tensor, List[Tensor]]:
    """A tensor whose element at ``(i, j, ...)`` is ``fcompute(i, j, ...)``.

    ``fcompute`` receives one Var per dimension of ``shape`` and returns an
    expression (or a plain number), a :class:`Reduction` (``te.sum(...)``), or a
    tuple of expressions for several outputs computed by one block -- then
    ``compute`` returns a list of tensors, named ``output_names`` (default
    ``name_0``, ``name_1``, ...).

    ``tag`` names the op family (kept on the tensor, e.g. "elemwise"), ``attrs``
    become the block's annotations, ``axis_names`` name the loops (default: the
    names of fcompute's parameters when it has one per dimension, else i0, i1, ...).
    """
    if axis_names is None:
        axis_names = _parameter_names(fcompute, shape)
    return _core.compute(shape, fcompute, name, tag, attrs, list(axis_names or []),
                         list(output_names or []))


def _parameter_names(fcompute: Callable[..., Any], shape: Shape) -> List[str]:
    # Loops take the names of the lambda's parameters (lambda i, j: ... -> i, j)
    # when it has exactly one plain parameter per dimension.
    rank = 1 if isinstance(shape, (int, Expr)) else len(shape)
    try:
        params = list(inspect.signature(fcompute).parameters.values())
    except (TypeError, ValueError):
        return []
    plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if len(params) != rank or _builtin_any(p.kind not in plain for p in params):
        return []
    names = [p.name for p in params]
    return names if len(set(names)) == len(names) else []


def _reduction(kind: str, args: tuple, axis: Any, where: Optional[ExprLike]) -> Any:
    if axis is None:
        # Two plain operands: the elementwise form, e.g. te.max(a, b).
        if len(args) == 2 and where is None and kind in ("max", "min"):
            return _core._binary(kind, args[0], args[1])
        raise TypeError(f"te.{kind} reduces over axis=...: te.{kind}(expr, axis=k[, where=cond])"
                        + (f"; or takes two expressions: te.{kind}(a, b)"
                           if kind in ("max", "min") else ""))
    if len(args) != 1:
        raise TypeError(f"te.{kind}(expr, axis=...) takes one expression")
    return _core.reduce(kind, args[0], axis, where)


def sum(expr: ExprLike, axis: Union[IterVar, Sequence[IterVar]] = None,  # noqa: A001
        where: Optional[ExprLike] = None) -> Reduction:
    """The sum of ``expr`` over the reduce axis (or axes) ``axis``, restricted to
    where the bool condition ``where`` holds. The whole body of a compute."""
    return _reduction("sum", (expr,), axis, where)


def prod(expr: ExprLike, axis: Union[IterVar, Sequence[IterVar]] = None,
         where: Optional[ExprLike] = None) -> Reduction:
    """The product of ``expr`` over ``axis`` (where ``where`` holds)."""
    return _reduction("prod", (expr,), axis, where)


def max(*args: ExprLike, axis: Union[IterVar, Sequence[IterVar]] = None,  # noqa: A001
        where: Optional[ExprLike] = None) -> Union[Reduction, Expr]:
    """``te.max(expr, axis=k)``: the maximum over ``axis`` (a reduction; -inf
    identity for floats). ``te.max(a, b)``: the larger of two expressions."""
    return _reduction("max", args, axis, where)


def min(*args: ExprLike, axis: Union[IterVar, Sequence[IterVar]] = None,  # noqa: A001
        where: Optional[ExprLike] = None) -> Union[Reduction, Expr]:
    """``te.min(expr, axis=k)``: the minimum over ``axis`` (a reduction).
    ``te.min(a, b)``: the smaller of two expressions."""
    return _reduction("min", args, axis, where)


class CommReducer:
    """A reducer of your own (see :func:`comm_reducer`); call it like te.sum."""

    def __init__(self, combine: Callable[..., Any], identity: Callable[..., Any], name: str):
        self.combine = combine
        self.identity = identity
        self.name = name

    def __call__(self, expr: Union[ExprLike, Sequence[ExprLike]],
                 axis: Union[IterVar, Sequence[IterVar]], where: Optional[ExprLike] = None
                 ) -> Reduction:
        """The reduction of ``expr`` (an expression, or a tuple for a reducer over
        tuples) over ``axis`` where ``where`` holds."""
        exprs = list(expr) if isinstance(expr, (tuple, list)) else [expr]
        dtypes = [_core._const(e).dtype if not isinstance(e, (Expr, IterVar)) else e.dtype
                  for e in exprs]
        ident = self.identity(*dtypes)
        reducer = _core.make_reducer(self.name, dtypes, self.combine, ident)
        return _core.reduce_with(reducer, exprs, axis, where)

    def __repr__(self) -> str:
        return f"CommReducer({self.name})"


def comm_reducer(combine: Callable[..., Any], identity: Callable[..., Any],
                 name: str = "reducer") -> CommReducer:
    """A commutative, associative reducer from a combiner and its identity.

    ``combine(acc, x)`` returns the combined value; for a reducer over tuples
    (several values reduced together, e.g. argmax as (index, value)) it gets two
    tuples of Vars and returns a tuple. ``identity(*dtypes)`` returns the identity
    (a value, or a tuple) for the dtypes of the reduced values::

        mysum = te.comm_reducer(lambda a, b: a + b, lambda t: te.const(0, t), name="mysum")
        argmax = te.comm_reducer(
            lambda acc, x: (te.select(x[1] > acc[1], x[0], acc[0]),
                            te.select(x[1] > acc[1], x[1], acc[1])),
            lambda ti, tv: (te.const(-1, ti), te.min_value(tv)), name="argmax")
        I, V = te.compute((m,), lambda i: argmax((k.var, A[i, k]), axis=k), name="am")
    """
    return CommReducer(combine, identity, name)


def create_prim_func(args: Sequence[Union[Tensor, Var]], name: str = "main") -> _core.PrimFunc:
    """A PrimFunc in block form from tensors (buffer parameters, in order) and
    Vars (scalar parameters). Every placeholder the outputs depend on must be an
    argument; tensors computed but not passed become allocations. ``name`` is
    used in messages."""
    return _core.create_prim_func(list(args), name)


def create_module(args: Sequence[Union[Tensor, Var]], name: str = "main") -> _core.IRModule:
    """An IRModule holding create_prim_func(args) under ``name``."""
    return _core.create_module(list(args), name)


# ---- Scalar expressions -------------------------------------------------------------


def const(value: Union[int, float, bool], dtype: Optional[DType] = None) -> Expr:
    """A constant of ``dtype`` (default: i32 for ints, f32 for floats, bool)."""
    return _core._const(value, dtype)


def cast(expr: ExprLike, dtype: DType) -> Expr:
    """``expr`` converted to ``dtype`` (C-like rules; float to int saturates)."""
    return _core._cast(dtype, expr)


def select(cond: ExprLike, true_value: ExprLike, false_value: ExprLike) -> Expr:
    """``cond ? true_value : false_value``. Both arms are evaluated."""
    return _core._select(cond, true_value, false_value)


if_then_else = select


def _intrinsic(name: str, *args: ExprLike) -> Expr:
    return _core._call_intrinsic(name, list(args))


def exp(x: ExprLike) -> Expr:
    """e ** x (float)."""
    return _intrinsic("exp", x)


def log(x: ExprLike) -> Expr:
    """Natural logarithm (float)."""
    return _intrinsic("log", x)


def sqrt(x: ExprLike) -> Expr:
    """Square root (float)."""
    return _intrinsic("sqrt", x)


def rsqrt(x: ExprLike) -> Expr:
    """1 / sqrt(x) (float)."""
    return _intrinsic("rsqrt", x)


def tanh(x: ExprLike) -> Expr:
    """Hyperbolic tangent (float)."""
    return _intrinsic("tanh", x)


def erf(x: ExprLike) -> Expr:
    """The error function (float)."""
    return _intrinsic("erf", x)


def sigmoid(x: ExprLike) -> Expr:
    """1 / (1 + exp(-x)) (float)."""
    return _intrinsic("sigmoid", x)


def abs(x: ExprLike) -> Expr:  # noqa: A001
    """Absolute value (floats and integers)."""
    return _intrinsic("fabs", x)


def floor(x: ExprLike) -> Expr:
    """Largest integer value not greater than x (float)."""
    return _intrinsic("floor", x)


def ceil(x: ExprLike) -> Expr:
    """Smallest integer value not less than x (float)."""
    return _intrinsic("ceil", x)


def pow(x: ExprLike, y: ExprLike) -> Expr:  # noqa: A001
    """x ** y (float)."""
    return _intrinsic("pow", x, y)


def fma(a: ExprLike, b: ExprLike, c: ExprLike) -> Expr:
    """a * b + c (float)."""
    return _intrinsic("fma", a, b, c)


def floordiv(a: ExprLike, b: ExprLike) -> Expr:
    """Division rounding toward negative infinity (Python's ``//``)."""
    return _core._binary("floordiv", a, b)


def floormod(a: ExprLike, b: ExprLike) -> Expr:
    """Modulo with the divisor's sign (Python's ``%``)."""
    return _core._binary("floormod", a, b)


def truncdiv(a: ExprLike, b: ExprLike) -> Expr:
    """Integer division truncating toward zero (C's ``/``); floats divide exactly."""
    return _core._binary("div", a, b)


def truncmod(a: ExprLike, b: ExprLike) -> Expr:
    """Remainder of truncdiv, with the dividend's sign (C's ``%``)."""
    return _core._binary("mod", a, b)


def all(*conds: ExprLike) -> Expr:  # noqa: A001
    """The logical and of bool expressions."""
    if not conds:
        return const(True)
    out = conds[0]
    for c in conds[1:]:
        out = _core._binary("and", out, c)
    return out if isinstance(out, Expr) else const(out)


def any(*conds: ExprLike) -> Expr:  # noqa: A001
    """The logical or of bool expressions."""
    if not conds:
        return const(False)
    out = conds[0]
    for c in conds[1:]:
        out = _core._binary("or", out, c)
    return out if isinstance(out, Expr) else const(out)


def min_value(dtype: DType) -> Expr:
    """The lowest value of a dtype (-inf for floats)."""
    return _core.min_value(dtype)


def max_value(dtype: DType) -> Expr:
    """The highest value of a dtype (+inf for floats)."""
    return _core.max_value(dtype)
