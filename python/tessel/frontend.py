"""Model import: an ONNX model as a graph function.

::

    import onnx, tessel
    model = onnx.load("mlp.onnx")
    mod, params = tessel.frontend.from_onnx(model)
    mod = tessel.transform.parse_pipeline("legalize,fuse-ops,fuse-tir")(mod)
    (y,) = tessel.graph.run(mod, "main", [x] + list(params.values()))

The graph function's parameters are the model's inputs, then its initializers
and the tensors of its Constant nodes, in that order; ``params`` maps those
weights' names to their arrays (numpy), in parameter order. With
``from_onnx(model, freeze_params=True)`` the weights are constants of the
module instead, and ``params`` is empty; a ``Gemm`` with ``transB`` on a
constant weight then transposes it with a binding of its own, which
``fold-constants`` computes once. Opsets up to 17, for
MatMul, Gemm, Add, Sub, Mul, Div (numpy broadcasting), Relu, Erf, Sqrt, Tanh,
Sigmoid, Softmax, LayerNormalization, Transpose, Reshape (constant shape), Conv
(NCHW), MaxPool, AveragePool, ReduceMean, ReduceSum, Concat, Constant and
Identity. Any other operator raises ArgumentError naming it and its node.
A symbolic input dimension (``dim_param``) becomes a size variable.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from . import graph, ops, te
from .errors import ArgumentError

__all__ = ["from_onnx", "SUPPORTED_ONNX_OPS"]

SUPPORTED_ONNX_OPS = (
    "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Relu", "Erf", "Sqrt", "Tanh", "Sigmoid", "Softmax",
    "LayerNormalization", "Transpose", "Reshape", "Conv", "MaxPool", "AveragePool", "ReduceMean",
    "ReduceSum", "Concat", "Constant", "Identity",
)

_DTYPES = {1: "float32", 10: "float16", 11: "float64", 6: "int32", 7: "int64", 9: "bool"}


class _Importer:
    def __init__(self, model, opset: int, freeze_params: bool = False):
        self.model = model
        self.opset = opset
        self.freeze_params = freeze_params
        self.b = graph.Builder("main")
        self.values: Dict[str, graph.Value] = {}
        self.consts: Dict[str, np.ndarray] = {}  # Weights and Constant tensors, by ONNX name.
        self.params: Dict[str, np.ndarray] = {}
        self.size_vars: Dict[str, object] = {}
        self.node = None

    # ---- Values ------------------------------------------------------------------------

    def fail(self, message: str):
        n = self.node
        where = f"ONNX node '{n.name or n.output[0]}' ({n.op_type})" if n is not None else "ONNX model"
        raise ArgumentError(f"{where}: {message}")

    def value(self, name: str) -> graph.Value:
        if name in self.values:
            return self.values[name]
        if name in self.consts:
            arr = self.consts[name]
            if self.freeze_params:
                v = self.b.constant(arr, _safe(name, self.b))
            else:
                v = self.b.input(_safe(name, self.b), arr.shape, str(arr.dtype))
                self.params[v.name] = arr
            self.values[name] = v
            return v
        self.fail(f"input '{name}' is not defined")

    def const(self, name: str) -> np.ndarray:
        if name not in self.consts:
            self.fail(f"input '{name}' must be a constant (an initializer or a Constant node)")
        return self.consts[name]

    def emit(self, call, name=None) -> graph.Value:
        return self.b.emit(call, _safe(name, self.b) if name else None)

    # ---- The model ---------------------------------------------------------------------

    def run(self) -> Tuple[object, Dict[str, np.ndarray]]:
        from onnx import numpy_helper
        g = self.model.graph
        for init in g.initializer:
            self.consts[init.name] = numpy_helper.to_array(init)
        for inp in g.input:
            if inp.name in self.consts:
                continue
            t = inp.type.tensor_type
            if t.elem_type not in _DTYPES:
                raise ArgumentError(f"ONNX input '{inp.name}': element type {t.elem_type} is not supported")
            dims = []
            for d in t.shape.dim:
                if d.HasField("dim_value"):
                    dims.append(d.dim_value)
                elif d.dim_param:
                    dims.append(self.size_vars.setdefault(d.dim_param, te.size_var(_ident(d.dim_param))))
                else:
                    raise ArgumentError(f"ONNX input '{inp.name}' has a dimension of unknown size")
            self.values[inp.name] = self.b.input(_safe(inp.name, self.b), dims, _DTYPES[t.elem_type])
        for node in g.node:
            self.node = node
            handler = getattr(self, "op_" + node.op_type, None)
            if handler is None:
                self.fail(f"operator '{node.op_type}' is not supported (supported: {', '.join(SUPPORTED_ONNX_OPS)})")
            attrs = {a.name: _attr(a) for a in node.attribute}
            try:
                out = handler(node, attrs)
            except ArgumentError:
                raise
            except Exception as e:  # An op's refusal (IRError) names the op; say which node.
                self.fail(str(e))
            if out is not None:
                self.values[node.output[0]] = out
        self.node = None
        results = [self.value(o.name) for o in g.output]
        mod = self.b.finish(*results)
        return mod, self.params

    # ---- Operators ---------------------------------------------------------------------

    def _in(self, node, i):
        return self.value(node.input[i])

    def op_Identity(self, node, a):
        return self._in(node, 0)

    def op_Constant(self, node, a):
        if "value" not in a:
            self.fail("only the 'value' form is supported")
        self.consts[node.output[0]] = a["value"]
        return None

    def _unary(op):
        def f(self, node, a):
            return self.emit(getattr(ops, op)(self._in(node, 0)), node.output[0])
        return f

    op_Relu, op_Erf, op_Sqrt = _unary("relu"), _unary("erf"), _unary("sqrt")
    op_Tanh, op_Sigmoid = _unary("tanh"), _unary("sigmoid")

    def _binary(op):
        def f(self, node, a):
            return self.emit(getattr(ops, op)(self._in(node, 0), self._in(node, 1)), node.output[0])
        return f

    op_Add, op_Sub = _binary("add"), _binary("subtract")
    op_Mul, op_Div = _binary("multiply"), _binary("divide")

    def op_MatMul(self, node, a):
        x, y = self._in(node, 0), self._in(node, 1)
        xs, ys = x.shape, y.shape
        if len(xs) == 2 and len(ys) == 2:
            return self.emit(ops.matmul(x, y), node.output[0])
        if len(ys) == 2:  # [..., M, K] @ [K, N]: one matmul over the flattened rows.
            rows = int(np.prod([int(d) for d in xs[:-1]]))
            flat = self.emit(ops.reshape(x, [rows, int(xs[-1])]))
            out = self.emit(ops.matmul(flat, y))
            return self.emit(ops.reshape(out, [int(d) for d in xs[:-1]] + [int(ys[-1])]), node.output[0])
        if len(xs) == len(ys) and len(xs) >= 3:
            batch = [int(d) for d in xs[:-2]]
            if batch != [int(d) for d in ys[:-2]]:
                self.fail(f"batch dimensions {batch} and {ys[:-2]} differ")
            n = int(np.prod(batch))
            x3 = x if len(xs) == 3 else self.emit(ops.reshape(x, [n] + [int(d) for d in xs[-2:]]))
            y3 = y if len(ys) == 3 else self.emit(ops.reshape(y, [n] + [int(d) for d in ys[-2:]]))
            out = self.emit(ops.batch_matmul(x3, y3), None if len(xs) > 3 else node.output[0])
            if len(xs) == 3:
                return out
            return self.emit(ops.reshape(out, batch + [int(xs[-2]), int(ys[-1])]), node.output[0])
        self.fail(f"shapes {xs} and {ys} are not supported")

    def op_Gemm(self, node, a):
        if a.get("alpha", 1.0) != 1.0 or a.get("beta", 1.0) != 1.0:
            self.fail("alpha and beta other than 1 are not supported")
        b, trans_b = self._in(node, 1), bool(a.get("transB", 0))
        if trans_b and self.freeze_params and node.input[1] in self.consts:
            # A constant weight: transposed once, by fold-constants, not in every call.
            b, trans_b = self.emit(ops.transpose(b, [1, 0])), False
        out = self.emit(ops.matmul(self._in(node, 0), b, transpose_a=bool(a.get("transA", 0)),
                                   transpose_b=trans_b),
                        None if len(node.input) > 2 else node.output[0])
        if len(node.input) > 2 and node.input[2]:
            out = self.emit(ops.add(out, self._in(node, 2)), node.output[0])
        return out

    def op_Softmax(self, node, a):
        x = self._in(node, 0)
        axis = a.get("axis", -1 if self.opset >= 13 else 1)
        if self.opset < 13 and axis % len(x.shape) != len(x.shape) - 1:
            self.fail("before opset 13, only a softmax over the last axis is supported")
        return self.emit(ops.softmax(x, axis=axis), node.output[0])

    def op_LayerNormalization(self, node, a):
        x = self._in(node, 0)
        axis = a.get("axis", -1) % len(x.shape)
        scale = self._in(node, 1)
        bias = self._in(node, 2) if len(node.input) > 2 and node.input[2] else None
        if bias is None:
            self.fail("a LayerNormalization without B is not supported")
        return self.emit(ops.layer_norm(x, scale, bias, axis=list(range(axis, len(x.shape))),
                                        eps=a.get("epsilon", 1e-5)), node.output[0])

    def op_Transpose(self, node, a):
        x = self._in(node, 0)
        perm = a.get("perm", list(reversed(range(len(x.shape)))))
        return self.emit(ops.transpose(x, perm), node.output[0])

    def op_Reshape(self, node, a):
        x = self._in(node, 0)
        target = [int(d) for d in self.const(node.input[1])]
        if a.get("allowzero", 0):
            self.fail("allowzero is not supported")
        dims = [int(d) for d in x.shape]
        shape = [dims[i] if d == 0 else d for i, d in enumerate(target)]
        if shape.count(-1) == 1:
            known = int(np.prod([d for d in shape if d != -1]))
            shape[shape.index(-1)] = int(np.prod(dims)) // known if known else 0
        return self.emit(ops.reshape(x, shape), node.output[0])

    def op_Concat(self, node, a):
        return self.emit(ops.concat([self.value(n) for n in node.input], axis=a["axis"]), node.output[0])

    def _reduce(op):
        def f(self, node, a):
            x = self._in(node, 0)
            axes = a.get("axes")
            if axes is None and len(node.input) > 1 and node.input[1]:
                axes = [int(v) for v in self.const(node.input[1])]
            if axes is None or len(axes) == 0:
                if a.get("noop_with_empty_axes", 0):
                    return x
                axes = list(range(len(x.shape)))
            return self.emit(getattr(ops, op)(x, axis=list(axes), keepdims=bool(a.get("keepdims", 1))),
                             node.output[0])
        return f

    op_ReduceMean, op_ReduceSum = _reduce("mean"), _reduce("sum")

    def _pads(self, a, rank):
        if a.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
            self.fail(f"auto_pad {a['auto_pad']} is not supported")
        pads = a.get("pads", [0] * (2 * rank))
        return [pads[0], pads[1], pads[2], pads[3]]  # top, left, bottom, right

    def op_Conv(self, node, a):
        x, w = self._in(node, 0), self._in(node, 1)
        if len(x.shape) != 4:
            self.fail("only 2-D convolution (NCHW) is supported")
        out = self.emit(ops.conv2d(x, w, strides=a.get("strides", [1, 1]), padding=self._pads(a, 2),
                                   dilation=a.get("dilations", [1, 1]), groups=a.get("group", 1)),
                        None if len(node.input) > 2 else node.output[0])
        if len(node.input) > 2 and node.input[2]:
            bias = self._in(node, 2)
            b4 = self.emit(ops.reshape(bias, [1, int(bias.shape[0]), 1, 1]))
            out = self.emit(ops.add(out, b4), node.output[0])
        return out

    def _pool(op):
        def f(self, node, a):
            x = self._in(node, 0)
            if len(x.shape) != 4:
                self.fail("only 2-D pooling (NCHW) is supported")
            if a.get("ceil_mode", 0):
                self.fail("ceil_mode is not supported")
            kwargs = dict(strides=a.get("strides", [1, 1]), padding=self._pads(a, 2),
                          dilation=a.get("dilations", [1, 1]))
            if op == "avg_pool2d":
                kwargs["count_include_pad"] = bool(a.get("count_include_pad", 0))
            return self.emit(getattr(ops, op)(x, a["kernel_shape"], **kwargs), node.output[0])
        return f

    op_MaxPool, op_AveragePool = _pool("max_pool2d"), _pool("avg_pool2d")


def _attr(a):
    from onnx import helper, numpy_helper
    v = helper.get_attribute_value(a)
    if a.type == a.TENSOR:
        return numpy_helper.to_array(v)
    if isinstance(v, bytes):
        return v.decode()
    return v


def _ident(name: str) -> str:
    """An ONNX name as a tessel identifier."""
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return out if out and not out[0].isdigit() else "v_" + out


def _safe(name: str, b: graph.Builder) -> str:
    return b.unique_name(_ident(name))


def from_onnx(model, freeze_params: bool = False) -> Tuple[object, Dict[str, np.ndarray]]:
    """The ONNX ``model`` (a ModelProto) as an IRModule with graph function "main",
    and its weights by parameter name (see the module's documentation).

    With ``freeze_params=True`` the weights are constants of the module instead
    (``const @name`` bindings; the returned dict is empty): ``fold-constants``
    can then compute what depends on them alone once, and an exported library
    carries them."""
    try:
        import onnx  # noqa: F401
    except ImportError as e:  # pragma: no cover - python3-onnx is installed by the project's script
        raise ArgumentError("tessel.frontend.from_onnx needs python3-onnx") from e
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=17)
    if opset > 17:
        raise ArgumentError(f"ONNX opset {opset} is newer than 17, the newest supported")
    return _Importer(model, opset, bool(freeze_params)).run()
