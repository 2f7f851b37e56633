"""Graph functions from Python: the builder, ops on graph values, the text form,
legalize, and the reference run compared with numpy."""

import numpy as np
import pytest

import tessel
from tessel import graph, ops, te
from tessel.errors import ArgumentError, IRError

RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.uniform(-1, 1, size=shape).astype("float32")


def mlp_module():
    with graph.Builder("mlp") as b:
        x = b.input("x", (4, 8))
        w = b.input("w", (8, 6))
        bias = b.input("bias", (6,))
        h = b.emit(ops.matmul(x, w), "h")
        hb = b.emit(ops.add(h, bias), "hb")
        y = b.emit(ops.softmax(ops_relu := b.emit(ops.relu(hb), "r"), axis=-1), "y")
        assert ops_relu.shape == [4, 6]
        return b.finish(y, h)


def numpy_mlp(x, w, bias):
    h = x @ w
    r = np.maximum(h + bias, 0)
    e = np.exp(r - r.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True), h


def test_builder_makes_a_verified_module_that_prints_and_parses_back():
    mod = mlp_module()
    g = mod["mlp"]
    assert isinstance(g, tessel.GraphFunc)
    assert [p.name for p in g.params] == ["x", "w", "bias"]
    assert [b[2] for b in g.bindings] == ["matmul", "add", "relu", "softmax"]
    text = str(mod)
    assert "  y: f32[4, 6] = softmax(r) {axis = -1}\n" in text
    back = tessel.parse(text)
    assert tessel.structural_equal(mod, back)
    assert tessel.structural_hash(mod) == tessel.structural_hash(back)


def test_reference_run_matches_numpy_before_and_after_legalize():
    mod = mlp_module()
    x, w, bias = rand(4, 8), rand(8, 6), rand(6)
    want_y, want_h = numpy_mlp(x, w, bias)
    legal = tessel.transform.parse_pipeline("legalize")(mod)
    assert [b[1] for b in legal["mlp"].bindings] == ["call_tir"] * 4
    assert isinstance(legal["matmul"], tessel.PrimFunc)
    for m in (mod, legal):
        y, h = graph.run(m, "mlp", [x, w, bias])
        np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h, want_h, rtol=1e-5, atol=1e-6)
    assert x.shape == (4, 8)


def test_symbolic_batch_runs_at_any_size():
    n = te.size_var("n")
    with graph.Builder() as b:
        x = b.input("x", (n, 8))
        g = b.input("g", (8,))
        beta = b.input("beta", (8,))
        y = b.emit(ops.layer_norm(x, g, beta, eps=1e-5), "y")
        mod = b.finish(y)
    assert "graph @main[n](x: f32[n, 8]" in str(mod)
    for rows in (1, 5):
        xs, gs, bs = rand(rows, 8), rand(8), rand(8)
        (y,) = graph.run(mod, "main", [xs, gs, bs])
        mean = xs.mean(-1, keepdims=True)
        var = xs.var(-1, keepdims=True)
        np.testing.assert_allclose(y, (xs - mean) / np.sqrt(var + 1e-5) * gs + bs, rtol=1e-4, atol=1e-5)


def test_call_tir_runs_a_primfunc_of_the_module():
    a = te.placeholder((4,), "float32", name="A")
    doubled = te.compute((4,), lambda i: a[i] * 2.0, name="B")
    with graph.Builder() as b:
        b.add_func("double", te.create_prim_func([a, doubled]))
        x = b.input("x", (4,))
        y = b.call_tir("double", [x], (4,), "float32", name="y")
        z = b.emit(ops.neg(y), "z")
        mod = b.finish(z)
    (z,) = graph.run(mod, "main", [np.arange(4, dtype="float32")])
    np.testing.assert_array_equal(z, [0, -2, -4, -6])


def test_wrong_inputs_name_the_input():
    mod = mlp_module()
    with pytest.raises(ArgumentError, match=r"input 1 \('w'\) is f32\[8, 5\]; the parameter is f32\[8, 6\]"):
        graph.run(mod, "mlp", [rand(4, 8), rand(8, 5), rand(6)])
    with pytest.raises(ArgumentError, match="takes 3 inputs, got 2"):
        graph.run(mod, "mlp", [rand(4, 8), rand(8, 6)])
    with pytest.raises(ArgumentError, match="input 2"):
        graph.run(mod, "mlp", [rand(4, 8), rand(8, 6), rand(6).astype("float64")])


def test_refusals_are_errors_and_leave_the_builder_usable():
    b = graph.Builder()
    x = b.input("x", (4, 8))
    w = b.input("w", (5, 6))
    with pytest.raises(IRError, match="operator 'matmul'"):
        b.emit(ops.matmul(x, w))
    with pytest.raises(ArgumentError, match="every operand is a graph value"):
        ops.add(x, 1.0)
    with pytest.raises(ArgumentError, match="value 'x' is defined twice"):
        b.input("x", (1,))
    with pytest.raises(ArgumentError, match="emit binds a tessel.graph.Call"):
        b.emit(x)
    y = b.emit(ops.relu(x), "y")
    mod = b.finish(y)
    assert len(mod["main"].bindings) == 1
    with pytest.raises(ArgumentError, match="is finished"):
        b.emit(ops.relu(x))


def test_ops_on_te_tensors_are_unchanged():
    a = te.placeholder((3,), "float32", name="a")
    assert isinstance(ops.relu(a), te.Tensor)


def test_every_graph_operator_is_an_op_of_tessel_ops():
    for name in graph.op_names():
        assert hasattr(ops, name), name
