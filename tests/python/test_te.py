"""Tensor expressions from Python: placeholders, computes with lambdas,
reductions, reducers of your own, create_prim_func, and their errors."""

import numpy as np
import pytest

import tessel
from tessel import te


def run(func, *arrays):
    tessel.interpret(func, *arrays)
    return arrays


def test_matmul_matches_numpy():
    A = te.placeholder((5, 7), "float32", name="A")
    B = te.placeholder((7, 3), "float32", name="B")
    k = te.reduce_axis(7, name="k")
    C = te.compute((5, 3), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    assert (C.name, C.dtype, C.shape, C.ndim) == ("C", "f32", (5, 3), 2)
    assert [t.name for t in C.inputs] == ["A", "B"]
    assert A.is_placeholder and not C.is_placeholder
    f = te.create_prim_func([A, B, C], "matmul")
    tessel.verify(f)
    text = f.script("matmul")
    assert "for i in range(0, 5)" in text and "for j in range(0, 3)" in text  # lambda names
    assert "block C(" in text and "init {" in text
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 7)).astype("float32")
    b = rng.standard_normal((7, 3)).astype("float32")
    c = np.zeros((5, 3), "float32")
    run(f, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-6)


def test_axis_names_and_defaults():
    A = te.placeholder((4, 4), "float32", name="A")
    B = te.compute((4, 4), lambda *idx: A[idx] + 1, name="B")
    assert "for i0 in range(0, 4)" in te.create_prim_func([A, B]).script()
    C = te.compute((4, 4), lambda r, c: A[r, c], name="C", axis_names=["y", "x"])
    assert "for y in range(0, 4)" in te.create_prim_func([A, C]).script()


def test_elementwise_chain_allocates_intermediates():
    A = te.placeholder((6,), "float32", name="A")
    B = te.compute((6,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((6,), lambda i: te.exp(B[i]) + 1, name="C")
    f = te.create_prim_func([A, C])
    assert "block root" in f.script() or "root" in f.script()
    a = np.linspace(-1, 1, 6).astype("float32")
    c = np.zeros(6, "float32")
    run(f, a, c)
    np.testing.assert_allclose(c, np.exp(2 * a) + 1, rtol=1e-6)


def test_reductions_where_and_max():
    n = 6
    A = te.placeholder((3, n), "float32", name="A")
    k = te.reduce_axis(n, name="k")
    S = te.compute((3,), lambda i: te.sum(A[i, k], axis=k, where=k % 2 == 0), name="S")
    k2 = te.reduce_axis((1, n), name="k2")
    M = te.compute((3,), lambda i: te.max(A[i, k2], axis=k2), name="M")
    k3 = te.reduce_axis(n, name="k3")
    P = te.compute((3,), lambda i: te.prod(A[i, k3], axis=[k3]), name="P")
    f = te.create_prim_func([A, S, M, P])
    a = np.random.default_rng(1).standard_normal((3, n)).astype("float32")
    s, m, p = (np.zeros(3, "float32") for _ in range(3))
    run(f, a, s, m, p)
    np.testing.assert_allclose(s, a[:, ::2].sum(1), rtol=1e-5)
    np.testing.assert_allclose(m, a[:, 1:].max(1))
    np.testing.assert_allclose(p, a.prod(1), rtol=1e-5)


def test_elementwise_max_min_select_and_math():
    A = te.placeholder((5,), "float32", name="A")
    B = te.compute((5,), lambda i: te.select(A[i] > 0, te.sqrt(A[i]), te.max(A[i], -0.5)),
                   name="B")
    C = te.compute((5,), lambda i: te.min(te.abs(A[i]), 1.0) + te.floor(A[i]), name="C")
    f = te.create_prim_func([A, B, C])
    a = np.array([-2, -0.25, 0.0, 0.5, 4], "float32")
    b, c = np.zeros(5, "float32"), np.zeros(5, "float32")
    run(f, a, b, c)
    np.testing.assert_allclose(b, np.where(a > 0, np.sqrt(np.abs(a)), np.maximum(a, -0.5)))
    np.testing.assert_allclose(c, np.minimum(np.abs(a), 1.0) + np.floor(a))


def test_integer_index_math_and_casts():
    A = te.placeholder((8,), "int32", name="A")
    B = te.compute((8,), lambda i: te.floordiv(A[i], 3) * 10 + te.floormod(A[i], 3), name="B")
    C = te.compute((8,), lambda i: te.truncdiv(A[i], 3) + te.truncmod(A[i], 3), name="C")
    D = te.compute((8,), lambda i: te.cast(A[i], "float32") * 0.5, name="D")
    f = te.create_prim_func([A, B, C, D])
    a = np.arange(-4, 4, dtype="int32")
    b, c, d = np.zeros(8, "int32"), np.zeros(8, "int32"), np.zeros(8, "float32")
    run(f, a, b, c, d)
    np.testing.assert_array_equal(b, (a // 3) * 10 + a % 3)
    np.testing.assert_array_equal(c, np.trunc(a / 3).astype("int32") + np.fmod(a, 3))
    np.testing.assert_allclose(d, a * 0.5)


def test_multi_output_compute():
    A = te.placeholder((4,), "float32", name="A")
    lo, hi = te.compute((4,), lambda i: (A[i] - 1, A[i] + 1), name="pm",
                        output_names=["lo", "hi"])
    assert (lo.name, hi.name) == ("lo", "hi")
    f = te.create_prim_func([A, lo, hi])
    a = np.arange(4, dtype="float32")
    x, y = np.zeros(4, "float32"), np.zeros(4, "float32")
    run(f, a, x, y)
    np.testing.assert_array_equal(x, a - 1)
    np.testing.assert_array_equal(y, a + 1)


def test_comm_reducer_argmax():
    A = te.placeholder((3, 5), "float32", name="A")
    k = te.reduce_axis(5, name="k")
    argmax = te.comm_reducer(
        lambda acc, x: (te.select(x[1] > acc[1], x[0], acc[0]),
                        te.select(x[1] > acc[1], x[1], acc[1])),
        lambda ti, tv: (te.const(-1, ti), te.min_value(tv)), name="argmax")
    idx, val = te.compute((3,), lambda i: argmax((k.var, A[i, k]), axis=k), name="am")
    f = te.create_prim_func([A, idx, val])
    a = np.array([[1, 5, 2, 5, 0], [-1, -2, -3, -4, -5], [0, 0, 9, 1, 9]], "float32")
    i_out, v_out = np.zeros(3, "int32"), np.zeros(3, "float32")
    run(f, a, i_out, v_out)
    np.testing.assert_array_equal(i_out, a.argmax(1))
    np.testing.assert_array_equal(v_out, a.max(1))
    mysum = te.comm_reducer(lambda x, y: x + y, lambda t: te.const(0, t), name="mysum")
    k2 = te.reduce_axis(5, name="k2")
    S = te.compute((3,), lambda i: mysum(A[i, k2], axis=k2), name="S")
    s = np.zeros(3, "float32")
    run(te.create_prim_func([A, S]), a, s)
    np.testing.assert_allclose(s, a.sum(1))


def test_symbolic_shapes_and_scalar_params():
    n = te.size_var("n")
    A = te.placeholder((n, 2), "float32", name="A")
    s = te.var("s", "float32")
    B = te.compute((n, 2), lambda i, j: A[i, j] * s, name="B")
    f = te.create_prim_func([A, B, s])
    assert f.params[0].shape[1] == 2 and isinstance(f.params[0].shape[0], tessel.Var)
    for rows in (1, 5):
        a = np.ones((rows, 2), "float32")
        b = np.zeros((rows, 2), "float32")
        tessel.interpret(f, a, b, 3.0)
        np.testing.assert_array_equal(b, 3 * a)


def test_tensor_indexing_with_expressions():
    A = te.placeholder((10,), "float32", name="A")
    B = te.compute((5,), lambda i: A[2 * i] + A[2 * i + 1], name="B")
    f = te.create_prim_func([A, B])
    a = np.arange(10, dtype="float32")
    b = np.zeros(5, "float32")
    run(f, a, b)
    np.testing.assert_array_equal(b, a[0::2] + a[1::2])
    assert str(A[3]) == "A[3]"


def test_compute_errors_name_the_compute():
    A = te.placeholder((4, 3), "float32", name="A")
    with pytest.raises(tessel.IRError, match="compute 'C': tensor 'A' has rank 2 but is indexed with 1"):
        te.compute((4, 3), lambda i, j: A[i], name="C")
    k = te.reduce_axis(3, name="k")
    with pytest.raises(tessel.IRError, match="reduce axis 'k' is used outside"):
        te.compute((4,), lambda i: A[i, k] + 1.0, name="D")
    with pytest.raises(tessel.IRError, match="index 5 is out of range"):
        te.compute((4,), lambda i: A[i, 5], name="E")
    with pytest.raises(tessel.IRError, match="placeholder 'X'"):
        te.placeholder((4, -1), "float32", name="X")
    with pytest.raises(tessel.IRError):
        te.placeholder((4,), "float32", name="not a name")
    with pytest.raises(tessel.ArgumentError, match="shape"):
        te.placeholder("abc", "float32", name="Y")
    with pytest.raises(tessel.ArgumentError, match="unknown dtype"):
        te.placeholder((4,), "float33", name="Y")
    with pytest.raises(tessel.IRError, match="placeholder 'A' is read by compute"):
        B = te.compute((4, 3), lambda i, j: A[i, j], name="B")
        te.create_prim_func([B])
    with pytest.raises(tessel.ArgumentError, match="tensors and scalar Vars"):
        te.create_prim_func([A, 3])
    with pytest.raises(TypeError, match="axis"):
        te.sum(A[0, 0])


def test_exceptions_in_the_lambda_come_back_unchanged():
    A = te.placeholder((4,), "float32", name="A")

    class Oops(Exception):
        pass

    def body(i):
        raise Oops("from the body")

    with pytest.raises(Oops, match="from the body"):
        te.compute((4,), body, name="B")
    with pytest.raises(TypeError, match="positional argument"):
        te.compute((4, 4), lambda i: A[i], name="C")  # arity mismatch
    with pytest.raises(tessel.IRError, match="cannot combine the float"):
        te.compute((4,), lambda i: i * 0.5, name="D")
    # Nothing stuck: the next compute works.
    B = te.compute((4,), lambda i: A[i], name="B")
    assert B.name == "B"


def test_reduction_must_be_the_whole_body():
    A = te.placeholder((4, 4), "float32", name="A")
    k = te.reduce_axis(4, name="k")
    with pytest.raises(TypeError):
        te.compute((4,), lambda i: te.sum(A[i, k], axis=k) * 2, name="B")
    with pytest.raises(tessel.IRError, match="whole body"):
        te.compute((4,), lambda i: (te.sum(A[i, k], axis=k), A[i, 0]), name="B")


def test_a_tensor_is_not_a_sequence():
    A = te.placeholder((4,), "float32", name="A")
    with pytest.raises(TypeError, match="tensor 'A' is not iterable"):
        list(A)
    with pytest.raises(TypeError, match="not iterable"):
        te.placeholder(A, "float32", name="B")
