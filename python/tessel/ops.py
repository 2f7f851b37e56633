"""The operator library: tensor ops built from tensor expressions.

::

    from tessel import te, ops

    x = te.placeholder((8, 10), "float32", name="x")
    w = te.placeholder((16, 10), "float32", name="w")
    y = ops.softmax(ops.relu(ops.dense(x, w)), axis=-1)
    f = te.create_prim_func([x, w, y])

Each op returns a :class:`tessel.te.Tensor` (its output) and checks its shape and
dtype rules first: a refusal raises :class:`tessel.IRError` naming the op and
the tensors. Axes may be negative (counted from the end). Broadcasting follows
numpy. Default tensor names follow TVM (``T_add``, ``T_softmax``, ``conv2d``);
intermediates are named ``<name>_suffix``. The rules of every op are in
docs/te.md and the C++ headers under ir/te/ops/.

On values of a graph function (:class:`tessel.graph.Value`) an op returns a
pending :class:`tessel.graph.Call` of the graph operator of the same name, which
``Builder.emit`` binds::

    with tessel.graph.Builder() as b:
        x = b.input("x", (8, 16))
        y = b.emit(ops.relu(x), "y")
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

from . import _core
from ._core import Expr, Tensor
from .errors import ArgumentError

__all__ = [
    "relu", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "sigmoid", "silu", "gelu",
    "cast", "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "where",
    "broadcast_to", "matmul", "batch_matmul", "dense", "gemv", "conv2d", "max_pool2d",
    "avg_pool2d", "sum", "prod", "max", "min", "mean", "argmax", "argmin", "softmax",
    "log_softmax", "layer_norm", "rms_norm", "l2_normalize", "transpose", "reshape", "pad",
    "concat", "attention",
]

Operand = Union[Tensor, Expr, int, float]
Axes = Optional[Union[int, Sequence[int]]]
IntOrPair = Union[int, Sequence[int]]


def _axes(axis: Axes) -> list:
    if axis is None:
        return []
    if isinstance(axis, int):
        return [axis]
    return list(axis)


def _ints(v: IntOrPair) -> list:
    return [v] if isinstance(v, int) else list(v)


def _dtype_text(dtype) -> Optional[str]:
    """A dtype as a graph attribute ("f32"); None stays None."""
    return None if dtype is None else _core.dtype_text(dtype)


def _on_graph(op: str, inputs: Sequence, **attrs):
    """A pending call of graph operator ``op`` when an input is a graph value
    (:mod:`tessel.graph`), for ``Builder.emit``; None otherwise, and the op
    builds a te tensor as usual. Attributes that are None are left out."""
    from . import graph
    if not any(isinstance(v, graph.Value) for v in inputs):
        return None
    return graph.Call(op, list(inputs), {k: v for k, v in attrs.items() if v is not None})


# ---- Elementwise -------------------------------------------------------------------


def relu(x: Tensor, name: str = "T_relu") -> Tensor:
    """max(x, 0), element by element (any number type)."""
    return _on_graph("relu", [x]) or _core.op_relu(x, name)


def neg(x: Tensor, name: str = "T_neg") -> Tensor:
    """-x (any number type)."""
    return _on_graph("neg", [x]) or _core.op_neg(x, name)


def abs(x: Tensor, name: str = "T_abs") -> Tensor:  # noqa: A001
    """|x| (any number type)."""
    return _on_graph("abs", [x]) or _core.op_abs(x, name)


def exp(x: Tensor, name: str = "T_exp") -> Tensor:
    """e ** x (float)."""
    return _on_graph("exp", [x]) or _core.op_exp(x, name)


def log(x: Tensor, name: str = "T_log") -> Tensor:
    """Natural logarithm (float)."""
    return _on_graph("log", [x]) or _core.op_log(x, name)


def sqrt(x: Tensor, name: str = "T_sqrt") -> Tensor:
    """Square root (float)."""
    return _on_graph("sqrt", [x]) or _core.op_sqrt(x, name)


def rsqrt(x: Tensor, name: str = "T_rsqrt") -> Tensor:
    """1 / sqrt(x) (float)."""
    return _on_graph("rsqrt", [x]) or _core.op_rsqrt(x, name)


def tanh(x: Tensor, name: str = "T_tanh") -> Tensor:
    """Hyperbolic tangent (float)."""
    return _on_graph("tanh", [x]) or _core.op_tanh(x, name)


def erf(x: Tensor, name: str = "T_erf") -> Tensor:
    """The error function (float)."""
    return _on_graph("erf", [x]) or _core.op_erf(x, name)


def sigmoid(x: Tensor, name: str = "T_sigmoid") -> Tensor:
    """1 / (1 + exp(-x)) (float)."""
    return _on_graph("sigmoid", [x]) or _core.op_sigmoid(x, name)


def silu(x: Tensor, name: str = "T_silu") -> Tensor:
    """x * sigmoid(x) (float)."""
    return _on_graph("silu", [x]) or _core.op_silu(x, name)


def gelu(x: Tensor, approximate: str = "none", name: str = "T_gelu") -> Tensor:
    """GELU (float): ``approximate="none"`` is exact (0.5 x (1 + erf(x / sqrt 2))),
    ``"tanh"`` the common tanh approximation."""
    return _on_graph("gelu", [x], approximate=approximate) or _core.op_gelu(x, approximate, name)


def cast(x: Tensor, dtype, name: str = "T_cast") -> Tensor:
    """x converted to ``dtype`` element by element."""
    return _on_graph("cast", [x], dtype=_dtype_text(dtype)) or _core.op_cast(x, dtype, name)


# ---- Broadcasting binary ops ------------------------------------------------------------


def add(a: Operand, b: Operand, name: str = "T_add") -> Tensor:
    """a + b with numpy broadcasting; a number takes the other operand's dtype."""
    return _on_graph("add", [a, b]) or _core.op_add(a, b, name)


def subtract(a: Operand, b: Operand, name: str = "T_subtract") -> Tensor:
    """a - b with numpy broadcasting."""
    return _on_graph("subtract", [a, b]) or _core.op_subtract(a, b, name)


def multiply(a: Operand, b: Operand, name: str = "T_multiply") -> Tensor:
    """a * b with numpy broadcasting."""
    return _on_graph("multiply", [a, b]) or _core.op_multiply(a, b, name)


def divide(a: Operand, b: Operand, name: str = "T_divide") -> Tensor:
    """a / b with numpy broadcasting (integers truncate toward zero, as C)."""
    return _on_graph("divide", [a, b]) or _core.op_divide(a, b, name)


def maximum(a: Operand, b: Operand, name: str = "T_maximum") -> Tensor:
    """The larger of a and b, with numpy broadcasting."""
    return _on_graph("maximum", [a, b]) or _core.op_maximum(a, b, name)


def minimum(a: Operand, b: Operand, name: str = "T_minimum") -> Tensor:
    """The smaller of a and b, with numpy broadcasting."""
    return _on_graph("minimum", [a, b]) or _core.op_minimum(a, b, name)


def power(a: Operand, b: Operand, name: str = "T_power") -> Tensor:
    """a ** b (floats), with numpy broadcasting."""
    return _on_graph("power", [a, b]) or _core.op_power(a, b, name)


def where(condition: Operand, a: Operand, b: Operand, name: str = "T_where") -> Tensor:
    """condition ? a : b, all three broadcast together; condition is bool."""
    return _on_graph("where", [condition, a, b]) or _core.op_where(condition, a, b, name)


def broadcast_to(x: Tensor, shape: Sequence[Union[int, Expr]],
                 name: str = "T_broadcast_to") -> Tensor:
    """x repeated to ``shape`` by the broadcasting rules."""
    return (_on_graph("broadcast_to", [x], shape=list(shape))
            or _core.op_broadcast_to(x, list(shape), name))


# ---- Matrix products -------------------------------------------------------------------


def matmul(a: Tensor, b: Tensor, transpose_a: bool = False, transpose_b: bool = False,
           out_dtype=None, name: str = "T_matmul") -> Tensor:
    """[M, K] @ [K, N] -> [M, N] (operands transposed first when asked). Products
    accumulate in ``out_dtype`` (default: the operands' dtype)."""
    return (_on_graph("matmul", [a, b], transpose_a=transpose_a, transpose_b=transpose_b,
                      out_dtype=_dtype_text(out_dtype))
            or _core.op_matmul(a, b, transpose_a, transpose_b, out_dtype, name))


def batch_matmul(a: Tensor, b: Tensor, transpose_a: bool = False, transpose_b: bool = False,
                 out_dtype=None, name: str = "T_batch_matmul") -> Tensor:
    """[B, M, K] @ [B, K, N] -> [B, M, N]; a batch extent of 1 broadcasts."""
    return (_on_graph("batch_matmul", [a, b], transpose_a=transpose_a, transpose_b=transpose_b,
                      out_dtype=_dtype_text(out_dtype))
            or _core.op_batch_matmul(a, b, transpose_a, transpose_b, out_dtype, name))


def dense(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, out_dtype=None,
          name: str = "T_dense") -> Tensor:
    """x [M, K] times weight [N, K] transposed, plus bias [N] when given."""
    return (_on_graph("dense", [x, weight] + ([] if bias is None else [bias]), out_dtype=_dtype_text(out_dtype))
            or _core.op_dense(x, weight, bias, out_dtype, name))


def gemv(a: Tensor, x: Tensor, out_dtype=None, name: str = "T_gemv") -> Tensor:
    """[M, K] @ [K] -> [M]."""
    return _on_graph("gemv", [a, x], out_dtype=_dtype_text(out_dtype)) or _core.op_gemv(a, x, out_dtype, name)


# ---- Convolution and pooling ------------------------------------------------------------


def conv2d(data: Tensor, kernel: Tensor, strides: IntOrPair = 1, padding: IntOrPair = 0,
           dilation: IntOrPair = 1, groups: int = 1, layout: str = "NCHW", out_dtype=None,
           name: str = "conv2d") -> Tensor:
    """2-D convolution. NCHW data takes an OIHW kernel, NHWC data an HWIO kernel
    (I = C / groups). ``padding`` is p, (ph, pw) or (top, left, bottom, right);
    strides and dilation are s or (sh, sw)."""
    call = _on_graph("conv2d", [data, kernel], strides=_ints(strides), padding=_ints(padding),
                     dilation=_ints(dilation), groups=groups, layout=layout, out_dtype=_dtype_text(out_dtype))
    return call or _core.op_conv2d(data, kernel, _ints(strides), _ints(padding), _ints(dilation), groups,
                           layout, out_dtype, name)


def max_pool2d(x: Tensor, kernel: IntOrPair, strides: IntOrPair = 1, padding: IntOrPair = 0,
               dilation: IntOrPair = 1, layout: str = "NCHW", name: str = "T_max_pool2d"
               ) -> Tensor:
    """2-D max pooling; padded positions never win."""
    call = _on_graph("max_pool2d", [x], kernel=_ints(kernel), strides=_ints(strides), padding=_ints(padding),
                     dilation=_ints(dilation), layout=layout)
    return call or _core.op_max_pool2d(x, _ints(kernel), _ints(strides), _ints(padding), _ints(dilation),
                               layout, True, name)


def avg_pool2d(x: Tensor, kernel: IntOrPair, strides: IntOrPair = 1, padding: IntOrPair = 0,
               dilation: IntOrPair = 1, layout: str = "NCHW", count_include_pad: bool = True,
               name: str = "T_avg_pool2d") -> Tensor:
    """2-D average pooling (floats); with ``count_include_pad`` the divisor is the
    whole window, otherwise only the positions inside the input."""
    call = _on_graph("avg_pool2d", [x], kernel=_ints(kernel), strides=_ints(strides), padding=_ints(padding),
                     dilation=_ints(dilation), layout=layout, count_include_pad=count_include_pad)
    return call or _core.op_avg_pool2d(x, _ints(kernel), _ints(strides), _ints(padding), _ints(dilation),
                               layout, count_include_pad, name)


# ---- Reductions ------------------------------------------------------------------------


def sum(x: Tensor, axis: Axes = None, keepdims: bool = False,  # noqa: A001
        name: str = "T_sum") -> Tensor:
    """The sum over ``axis`` (an int, a list, or None for every axis)."""
    return (_on_graph("sum", [x], axes=_axes(axis), keepdims=keepdims)
            or _core.op_sum(x, _axes(axis), keepdims, name))


def prod(x: Tensor, axis: Axes = None, keepdims: bool = False, name: str = "T_prod") -> Tensor:
    """The product over ``axis``."""
    return (_on_graph("prod", [x], axes=_axes(axis), keepdims=keepdims)
            or _core.op_prod(x, _axes(axis), keepdims, name))


def max(x: Tensor, axis: Axes = None, keepdims: bool = False,  # noqa: A001
        name: str = "T_max") -> Tensor:
    """The maximum over ``axis``."""
    return (_on_graph("max", [x], axes=_axes(axis), keepdims=keepdims)
            or _core.op_max(x, _axes(axis), keepdims, name))


def min(x: Tensor, axis: Axes = None, keepdims: bool = False,  # noqa: A001
        name: str = "T_min") -> Tensor:
    """The minimum over ``axis``."""
    return (_on_graph("min", [x], axes=_axes(axis), keepdims=keepdims)
            or _core.op_min(x, _axes(axis), keepdims, name))


def mean(x: Tensor, axis: Axes = None, keepdims: bool = False, name: str = "T_mean") -> Tensor:
    """The mean over ``axis`` (floats)."""
    return (_on_graph("mean", [x], axes=_axes(axis), keepdims=keepdims)
            or _core.op_mean(x, _axes(axis), keepdims, name))


def argmax(x: Tensor, axis: int, keepdims: bool = False, name: str = "T_argmax") -> Tensor:
    """The i32 index along ``axis`` of the first maximum."""
    return _on_graph("argmax", [x], axis=axis, keepdims=keepdims) or _core.op_argmax(x, axis, keepdims, name)


def argmin(x: Tensor, axis: int, keepdims: bool = False, name: str = "T_argmin") -> Tensor:
    """The i32 index along ``axis`` of the first minimum."""
    return _on_graph("argmin", [x], axis=axis, keepdims=keepdims) or _core.op_argmin(x, axis, keepdims, name)


# ---- Softmax and normalizations -----------------------------------------------------------


def softmax(x: Tensor, axis: int = -1, name: str = "T_softmax") -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along ``axis`` (floats)."""
    return _on_graph("softmax", [x], axis=axis) or _core.op_softmax(x, axis, name)


def log_softmax(x: Tensor, axis: int = -1, name: str = "T_log_softmax") -> Tensor:
    """x - max - log(sum(exp(x - max))) along ``axis`` (floats)."""
    return _on_graph("log_softmax", [x], axis=axis) or _core.op_log_softmax(x, axis, name)


def layer_norm(x: Tensor, gamma: Optional[Tensor] = None, beta: Optional[Tensor] = None,
               axis: Union[int, Sequence[int]] = -1, eps: float = 1e-5,
               name: str = "T_layer_norm") -> Tensor:
    """(x - mean) / sqrt(var + eps) * gamma + beta over the trailing ``axis``;
    gamma and beta have the shape of those axes, or are left out."""
    norm = [] if gamma is None and beta is None else [gamma, beta]
    return (_on_graph("layer_norm", [x] + norm, axes=_axes(axis), eps=eps)
            or _core.op_layer_norm(x, gamma, beta, _axes(axis), eps, name))


def rms_norm(x: Tensor, weight: Optional[Tensor] = None, axis: Union[int, Sequence[int]] = -1,
             eps: float = 1e-5, name: str = "T_rms_norm") -> Tensor:
    """x / sqrt(mean(x ** 2) + eps) * weight over the trailing ``axis``."""
    return (_on_graph("rms_norm", [x] + ([] if weight is None else [weight]), axes=_axes(axis), eps=eps)
            or _core.op_rms_norm(x, weight, _axes(axis), eps, name))


def l2_normalize(x: Tensor, axis: int, eps: float = 1e-12,
                 name: str = "T_l2_normalize") -> Tensor:
    """x / sqrt(sum over ``axis`` of x ** 2 + eps)."""
    return _on_graph("l2_normalize", [x], axis=axis, eps=eps) or _core.op_l2_normalize(x, axis, eps, name)


# ---- Layout transforms and attention ---------------------------------------------------------


def transpose(x: Tensor, axes: Optional[Sequence[int]] = None,
              name: str = "T_transpose") -> Tensor:
    """Permutes the axes (default: reverses them)."""
    return _on_graph("transpose", [x], perm=list(axes or [])) or _core.op_transpose(x, list(axes or []), name)


def reshape(x: Tensor, shape: Sequence[int], name: str = "T_reshape") -> Tensor:
    """The same elements in ``shape`` (constant shapes; one -1 is inferred)."""
    return _on_graph("reshape", [x], shape=list(shape)) or _core.op_reshape(x, list(shape), name)


def pad(x: Tensor, before: Sequence[int], after: Sequence[int], value: float = 0.0,
        name: str = "T_pad") -> Tensor:
    """x padded with ``value``: ``before[d]`` and ``after[d]`` elements on axis d."""
    return (_on_graph("pad", [x], before=list(before), after=list(after), value=float(value))
            or _core.op_pad(x, list(before), list(after), value, name))


def concat(xs: Sequence[Tensor], axis: int = 0, name: str = "T_concat") -> Tensor:
    """The tensors joined along ``axis``."""
    return _on_graph("concat", list(xs), axis=axis) or _core.op_concat(list(xs), axis, name)


def attention(q: Tensor, k: Tensor, v: Tensor, scale: Optional[float] = None,
              causal: bool = False, name: str = "T_attention") -> Tensor:
    """softmax(q kᵀ * scale) v over [..., S, D], [..., T, D], [..., T, Dv];
    ``scale`` defaults to 1 / sqrt(D); ``causal`` masks keys after the query."""
    if scale is not None and scale == 0:
        raise ArgumentError("attention: scale must be nonzero (None means 1 / sqrt(D))")
    return (_on_graph("attention", [q, k, v], scale=None if scale is None else float(scale), causal=causal)
            or _core.op_attention(q, k, v, 0.0 if scale is None else scale, causal, name))
