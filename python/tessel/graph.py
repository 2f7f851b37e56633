"""Graph functions: whole models as bindings of operator calls over tensor values.

::

    import tessel
    from tessel import ops

    with tessel.graph.Builder("mlp") as b:
        x = b.input("x", (8, 16))
        w = b.input("w", (16, 4))
        h = b.emit(ops.matmul(x, w), "h")
        y = b.emit(ops.relu(h), "y")
        mod = b.finish(y)              # an IRModule holding graph function "mlp"
    mod = tessel.transform.parse_pipeline("legalize")(mod)   # operators -> call_tir of PrimFuncs
    out, = tessel.graph.run(mod, "mlp", [x_np, w_np])        # the reference interpreter

The ops of :mod:`tessel.ops` work on graph values: they return a pending
:class:`Call` that :meth:`Builder.emit` type-checks (the op library's shape and
dtype rules) and binds to a new value. The text form and the passes over graph
functions are in docs/graph.md.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Union

import numpy as np

from . import _core
from .errors import ArgumentError

__all__ = ["Value", "Call", "Builder", "run", "bind_params", "op_names"]


class Value:
    """A tensor value of a graph function: an input or what a binding defines."""

    def __init__(self, buffer: "_core.Buffer"):
        self.buffer = buffer

    @property
    def name(self) -> str:
        """The value's name in the text."""
        return self.buffer.name

    @property
    def dtype(self) -> str:
        """The element type, as the IR spells it ("f32")."""
        return self.buffer.dtype

    @property
    def shape(self) -> list:
        """The dimensions: numbers, or expressions of size variables."""
        return list(self.buffer.shape)

    def __repr__(self) -> str:
        return f"<tessel.graph.Value {self.name}: {self.dtype}{self.shape}>"


class Call:
    """A call of graph operator ``op`` on graph values, not yet bound."""

    def __init__(self, op: str, args: Sequence[Value], attrs: Optional[Dict] = None):
        for i, a in enumerate(args):
            if not isinstance(a, Value):
                raise ArgumentError(
                    f"operator '{op}': argument {i} is {a!r}; on a graph, every operand is a "
                    "graph value (b.input or b.emit)")
        self.op = op
        self.args = list(args)
        self.attrs = dict(attrs or {})

    def __repr__(self) -> str:
        args = ", ".join(a.name for a in self.args)
        return f"<tessel.graph.Call {self.op}({args}) {self.attrs}>"


class Builder:
    """Builds one graph function, binding after binding.

    Use as a context manager or call :meth:`finish` directly; ``finish`` returns an
    IRModule holding the function (under the builder's name) and every PrimFunc
    added with :meth:`add_func` for :meth:`call_tir`.
    """

    def __init__(self, name: str = "main"):
        self.name = name
        self._params: List = []
        self._bindings: List = []
        self._funcs: Dict[str, object] = {}
        self._constants: Dict[str, np.ndarray] = {}
        self._names: set = set()
        self._module = None

    def __enter__(self) -> "Builder":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def _fresh(self, name: Optional[str]) -> str:
        if name is not None:
            if name in self._names:
                raise ArgumentError(f"graph function '{self.name}': value '{name}' is defined twice")
            self._names.add(name)
            return name
        k = len(self._names)
        while f"v{k}" in self._names:
            k += 1
        self._names.add(f"v{k}")
        return f"v{k}"

    def _check_open(self) -> None:
        if self._module is not None:
            raise ArgumentError(f"graph function '{self.name}' is finished; start a new Builder")

    def unique_name(self, base: str) -> str:
        """``base``, or ``base_1``, ``base_2``... : a name no value of this function
        has yet and that is not a reserved word of the text."""
        out, k = base, 1
        while out in self._names or _core.is_reserved_word(out):
            out, k = f"{base}_{k}", k + 1
        return out

    def input(self, name: str, shape: Sequence[Union[int, "_core.Var"]], dtype="float32") -> Value:
        """A parameter of the function. A dimension may be a size variable
        (``tessel.te.size_var("n")``), bound by the inputs of each call."""
        self._check_open()
        v = Value(_core.graph_value(self._fresh(name), list(shape), dtype))
        self._params.append(v)
        return v

    def emit(self, call: Call, name: Optional[str] = None) -> Value:
        """Binds an operator call (what a ``tessel.ops`` op returns on graph
        values) to a new value, whose type the op's rules give."""
        self._check_open()
        if not isinstance(call, Call):
            raise ArgumentError(f"emit binds a tessel.graph.Call (an op on graph values), got {call!r}")
        out = _core.graph_infer_op(call.op, [a.buffer for a in call.args], call.attrs, self._fresh(name))
        self._bindings.append(([out], "op", call.op, [a.buffer for a in call.args], call.attrs))
        return Value(out)

    def constant(self, value, name: Optional[str] = None) -> Value:
        """A value that is constant data of the module (a weight): a copy of the
        array ``value``, read with ``const @name`` and never written. Computations
        on constants alone can be done once at compile time (``fold-constants``)."""
        self._check_open()
        array = np.ascontiguousarray(np.asarray(value)) if np.ndim(value) else np.asarray(value)
        vname = self._fresh(name)
        cname, k = vname, 1
        while cname in self._constants or cname in self._funcs or cname == self.name:
            cname, k = f"{vname}_{k}", k + 1
        out = _core.graph_value(vname, list(array.shape), array.dtype)
        self._constants[cname] = array.copy()
        self._bindings.append(([out], "const", cname, [], {}))
        return Value(out)

    def add_func(self, name: str, func) -> None:
        """Adds PrimFunc ``func`` to the module as ``name``, for call_tir."""
        self._check_open()
        if name in self._funcs or name == self.name or name in self._constants:
            raise ArgumentError(f"a function named '{name}' is already in the module")
        self._funcs[name] = func

    def call_tir(self, func: str, args: Sequence[Value], shape: Sequence, dtype="float32",
                 name: Optional[str] = None) -> Value:
        """Binds a call of PrimFunc ``func`` (added with add_func) in
        destination-passing style: it gets ``args``, then the new value of type
        ``dtype[shape]`` to write."""
        self._check_open()
        out = _core.graph_value(self._fresh(name), list(shape), dtype)
        Call("call_tir", args)  # Checks the operands.
        self._bindings.append(([out], "call_tir", func, [a.buffer for a in args], {}))
        return Value(out)

    def finish(self, *results: Value):
        """The module: this graph function returning ``results``, and the added
        PrimFuncs. The verifier checks it."""
        self._check_open()
        if not results:
            raise ArgumentError(f"graph function '{self.name}' must return at least one value")
        for r in results:
            if not isinstance(r, Value):
                raise ArgumentError(f"a graph function returns graph values, got {r!r}")
        g = _core.make_graph_func([p.buffer for p in self._params], self._bindings,
                                  [r.buffer for r in results], {})
        functions = dict(self._funcs)
        functions[self.name] = g
        mod = _core.IRModule(functions, None, self._constants)
        _core.verify(mod)
        self._module = mod
        return mod


def run(mod, name: str, inputs: Sequence[np.ndarray], max_steps: int = 0) -> List[np.ndarray]:
    """Runs graph function ``name`` of ``mod`` on the reference interpreter: one
    numpy array per parameter in, one per result out. A wrong input raises
    ArgumentError naming it."""
    return _core.run_graph(mod, name, [np.asarray(x) for x in inputs], max_steps)


def bind_params(mod, params: Dict[str, np.ndarray], func: str = "main"):
    """``mod`` with the parameters of graph function ``func`` named in ``params``
    turned into constants of the module (copies of the arrays): the weights of a
    model, given once. The function then takes only its other inputs, and an
    exported library carries the weights. Raises ArgumentError for a name that is
    not a parameter, an array of another dtype or shape, or a parameter whose shape
    is symbolic."""
    if not isinstance(params, dict):
        raise ArgumentError(f"bind_params: params is a dict of name -> array, got {type(params).__name__}")
    return _core.bind_params(mod, func, {k: np.asarray(v) for k, v in params.items()})


def op_names() -> List[str]:
    """Every graph-level operator."""
    return list(_core.graph_op_names())
