"""Every op of tessel.ops, run in the reference interpreter and compared with
numpy on random inputs; and the ops' refusals."""

import math

import numpy as np
import pytest

import tessel
from tessel import ops, te

RNG = np.random.default_rng(42)


def rand(shape, dtype="float32", lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def evaluate(inputs, output, arrays, out_dtype=None):
    """Builds a function of `inputs` -> `output`, runs it on `arrays` and
    returns the output array."""
    f = te.create_prim_func(list(inputs) + [output])
    tessel.verify(f)
    shape = tuple(int(d) for d in output.shape)
    out = np.zeros(shape, out_dtype or np.dtype(_NP[output.dtype]))
    tessel.interpret(f, *arrays, out)
    return out


_NP = {"f32": "float32", "f64": "float64", "f16": "float16", "i32": "int32", "i64": "int64",
       "bool": "bool", "i8": "int8", "u8": "uint8"}


def ph(shape, dtype="float32", name="x"):
    return te.placeholder(shape, dtype, name=name)


def erf(a):
    return np.vectorize(math.erf)(a.astype("float64"))


def sigmoid(a):
    return 1 / (1 + np.exp(-a.astype("float64")))


UNARY = [
    (ops.relu, lambda a: np.maximum(a, 0), (-1, 1)),
    (ops.neg, lambda a: -a, (-1, 1)),
    (ops.abs, np.abs, (-1, 1)),
    (ops.exp, np.exp, (-1, 1)),
    (ops.log, np.log, (0.1, 2)),
    (ops.sqrt, np.sqrt, (0.1, 2)),
    (ops.rsqrt, lambda a: 1 / np.sqrt(a), (0.1, 2)),
    (ops.tanh, np.tanh, (-2, 2)),
    (ops.erf, erf, (-2, 2)),
    (ops.sigmoid, sigmoid, (-3, 3)),
    (ops.silu, lambda a: a * sigmoid(a), (-3, 3)),
    (ops.gelu, lambda a: 0.5 * a * (1 + erf(a / math.sqrt(2))), (-3, 3)),
    (lambda x: ops.gelu(x, approximate="tanh"),
     lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3))), (-3, 3)),
]


@pytest.mark.parametrize("op,ref,dom", UNARY, ids=lambda v: getattr(v, "__name__", ""))
def test_unary(op, ref, dom):
    x = ph((3, 5))
    a = rand((3, 5), lo=dom[0], hi=dom[1])
    out = evaluate([x], op(x), [a])
    np.testing.assert_allclose(out, ref(a), rtol=2e-5, atol=2e-6)


def test_cast():
    x = ph((6,))
    a = np.array([-2.7, -0.5, 0, 0.5, 3.9, 1e10], "float32")
    out = evaluate([x], ops.cast(x, "int32"), [a])
    np.testing.assert_array_equal(out, [-2, 0, 0, 0, 3, 2**31 - 1])  # truncates, saturates


BINARY = [
    (ops.add, np.add), (ops.subtract, np.subtract), (ops.multiply, np.multiply),
    (ops.divide, np.divide), (ops.maximum, np.maximum), (ops.minimum, np.minimum),
]


@pytest.mark.parametrize("op,ref", BINARY, ids=lambda v: getattr(v, "__name__", ""))
def test_binary_broadcasting(op, ref):
    x, y = ph((4, 1, 3), name="x"), ph((5, 1), name="y")
    a, b = rand((4, 1, 3)), rand((5, 1), lo=0.5, hi=1.5)
    out = evaluate([x, y], op(x, y), [a, b])
    assert out.shape == (4, 5, 3)
    np.testing.assert_allclose(out, ref(a, b), rtol=1e-6)
    # A plain number takes the tensor's dtype.
    out = evaluate([x], op(x, 2), [a])
    np.testing.assert_allclose(out, ref(a, np.float32(2)), rtol=1e-6)


def test_power_and_where_and_broadcast_to():
    x, y = ph((3, 4), name="x"), ph((4,), name="y")
    a, b = rand((3, 4), lo=0.5, hi=2), rand((4,), lo=-2, hi=2)
    np.testing.assert_allclose(evaluate([x, y], ops.power(x, y), [a, b]), a ** b, rtol=1e-5)
    c = ph((3, 1), "bool", name="c")
    cond = np.array([[True], [False], [True]])
    np.testing.assert_array_equal(evaluate([c, x, y], ops.where(c, x, y), [cond, a, b]),
                                  np.where(cond, a, b))
    out = evaluate([y], ops.broadcast_to(y, [2, 3, 4]), [b])
    np.testing.assert_array_equal(out, np.broadcast_to(b, (2, 3, 4)))


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(ta, tb):
    m, k, n = 5, 7, 3
    A = ph((k, m) if ta else (m, k), name="A")
    B = ph((n, k) if tb else (k, n), name="B")
    a, b = rand(tuple(int(d) for d in A.shape)), rand(tuple(int(d) for d in B.shape))
    out = evaluate([A, B], ops.matmul(A, B, transpose_a=ta, transpose_b=tb), [a, b])
    np.testing.assert_allclose(out, (a.T if ta else a) @ (b.T if tb else b), rtol=1e-5, atol=1e-6)


def test_matmul_accumulates_in_out_dtype():
    A, B = ph((4, 6), "float16", "A"), ph((6, 2), "float16", "B")
    a, b = rand((4, 6), "float16"), rand((6, 2), "float16")
    C = ops.matmul(A, B, out_dtype="float32")
    assert C.dtype == "f32"
    out = evaluate([A, B], C, [a, b])
    np.testing.assert_allclose(out, a.astype("float32") @ b.astype("float32"), rtol=1e-3)


def test_batch_matmul_dense_gemv():
    A, B = ph((3, 4, 5), name="A"), ph((1, 5, 2), name="B")
    a, b = rand((3, 4, 5)), rand((1, 5, 2))
    np.testing.assert_allclose(evaluate([A, B], ops.batch_matmul(A, B), [a, b]), a @ b,
                               rtol=1e-5, atol=1e-6)
    X, W, bias = ph((4, 6), name="X"), ph((3, 6), name="W"), ph((3,), name="bias")
    x, w, bb = rand((4, 6)), rand((3, 6)), rand((3,))
    np.testing.assert_allclose(evaluate([X, W, bias], ops.dense(X, W, bias), [x, w, bb]),
                               x @ w.T + bb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(evaluate([X, W], ops.dense(X, W), [x, w]), x @ w.T, rtol=1e-5,
                               atol=1e-6)
    V = ph((6,), name="v")
    v = rand((6,))
    np.testing.assert_allclose(evaluate([X, V], ops.gemv(X, V), [x, v]), x @ v, rtol=1e-5,
                               atol=1e-6)


def conv2d_nchw(x, w, stride, pad, dilation, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow), "float64")
    og = o // groups
    for oc in range(o):
        g = oc // og
        for y in range(oh):
            for z in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg,
                           y * stride:y * stride + dilation * (kh - 1) + 1:dilation,
                           z * stride:z * stride + dilation * (kw - 1) + 1:dilation]
                out[:, oc, y, z] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("stride,pad,dilation,groups", [(1, 1, 1, 1), (2, 0, 1, 2), (1, 2, 2, 4)])
def test_conv2d_nchw(stride, pad, dilation, groups):
    x, w = ph((1, 4, 7, 6), name="x"), ph((4, 4 // groups, 3, 3), name="w")
    a, b = rand((1, 4, 7, 6)), rand((4, 4 // groups, 3, 3))
    out = evaluate([x, w], ops.conv2d(x, w, strides=stride, padding=pad, dilation=dilation,
                                      groups=groups), [a, b])
    np.testing.assert_allclose(out, conv2d_nchw(a, b, stride, pad, dilation, groups), rtol=1e-4,
                               atol=1e-5)


def test_conv2d_nhwc_matches_nchw():
    x, w = ph((1, 6, 5, 3), name="x"), ph((3, 3, 3, 2), name="w")  # HWIO
    a, b = rand((1, 6, 5, 3)), rand((3, 3, 3, 2))
    out = evaluate([x, w], ops.conv2d(x, w, padding=1, layout="NHWC"), [a, b])
    ref = conv2d_nchw(a.transpose(0, 3, 1, 2), b.transpose(3, 2, 0, 1), 1, 1, 1, 1)
    np.testing.assert_allclose(out, ref.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)


def test_pools():
    x = ph((1, 2, 6, 6), name="x")
    a = rand((1, 2, 6, 6))
    out = evaluate([x], ops.max_pool2d(x, kernel=2, strides=2), [a])
    np.testing.assert_array_equal(out, a.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5)))
    out = evaluate([x], ops.avg_pool2d(x, kernel=(2, 2), strides=2), [a])
    np.testing.assert_allclose(out, a.reshape(1, 2, 3, 2, 3, 2).mean(axis=(3, 5)), rtol=1e-6)
    # Padding never wins a max; without count_include_pad the border averages fewer values.
    out = evaluate([x], ops.max_pool2d(x, kernel=3, padding=1), [a - 5])
    assert out.shape == (1, 2, 6, 6) and out.max() < -3
    out = evaluate([x], ops.avg_pool2d(x, kernel=3, padding=1, count_include_pad=False), [a])
    np.testing.assert_allclose(out[0, 0, 0, 0], a[0, 0, :2, :2].mean(), rtol=1e-5)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ([0, -1], True)])
def test_reductions(name, axis, keepdims):
    x = ph((3, 4, 2))
    a = rand((3, 4, 2), lo=0.5, hi=1.5)
    out = evaluate([x], getattr(ops, name)(x, axis=axis, keepdims=keepdims), [a])
    ref = getattr(np, name)(a, axis=None if axis is None else tuple(axis) if isinstance(
        axis, list) else axis, keepdims=keepdims)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_argmax_argmin():
    x = ph((3, 5))
    a = rand((3, 5))
    np.testing.assert_array_equal(evaluate([x], ops.argmax(x, 1), [a]), a.argmax(1))
    np.testing.assert_array_equal(evaluate([x], ops.argmin(x, 0, keepdims=True), [a]),
                                  a.argmin(0)[None, :])


def test_softmax_and_log_softmax():
    x = ph((4, 7))
    a = rand((4, 7), lo=-3, hi=3)
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(evaluate([x], ops.softmax(x), [a]), e / e.sum(-1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    e0 = np.exp(a - a.max(0, keepdims=True))
    np.testing.assert_allclose(evaluate([x], ops.log_softmax(x, axis=0), [a]),
                               np.log(e0 / e0.sum(0, keepdims=True)), rtol=1e-5, atol=1e-6)


def test_norms():
    x, g, b = ph((2, 3, 8), name="x"), ph((8,), name="g"), ph((8,), name="b")
    a, gg, bb = rand((2, 3, 8)), rand((8,)), rand((8,))
    mean = a.mean(-1, keepdims=True)
    var = a.var(-1, keepdims=True)
    np.testing.assert_allclose(evaluate([x, g, b], ops.layer_norm(x, g, b), [a, gg, bb]),
                               (a - mean) / np.sqrt(var + 1e-5) * gg + bb, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(evaluate([x], ops.layer_norm(x, axis=[-2, -1]), [a]),
                               (a - a.mean((1, 2), keepdims=True))
                               / np.sqrt(a.var((1, 2), keepdims=True) + 1e-5), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(evaluate([x, g], ops.rms_norm(x, g), [a, gg]),
                               a / np.sqrt((a * a).mean(-1, keepdims=True) + 1e-5) * gg,
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(evaluate([x], ops.l2_normalize(x, 1), [a]),
                               a / np.sqrt((a * a).sum(1, keepdims=True) + 1e-12), rtol=1e-5)


def test_transforms():
    x = ph((2, 3, 4))
    a = rand((2, 3, 4))
    np.testing.assert_array_equal(evaluate([x], ops.transpose(x, [2, 0, 1]), [a]),
                                  a.transpose(2, 0, 1))
    np.testing.assert_array_equal(evaluate([x], ops.transpose(x), [a]), a.transpose())
    np.testing.assert_array_equal(evaluate([x], ops.reshape(x, [6, -1]), [a]), a.reshape(6, 4))
    np.testing.assert_array_equal(evaluate([x], ops.pad(x, [0, 1, 2], [1, 0, 1], 9.0), [a]),
                                  np.pad(a, ((0, 1), (1, 0), (2, 1)), constant_values=9))
    y = ph((2, 5, 4), name="y")
    b = rand((2, 5, 4))
    np.testing.assert_array_equal(evaluate([x, y], ops.concat([x, y], axis=1), [a, b]),
                                  np.concatenate([a, b], axis=1))


@pytest.mark.parametrize("causal", [False, True])
def test_attention(causal):
    q, k, v = ph((1, 2, 4, 8), name="q"), ph((1, 2, 4, 8), name="k"), ph((1, 2, 4, 6), name="v")
    qa, ka, va = rand((1, 2, 4, 8)), rand((1, 2, 4, 8)), rand((1, 2, 4, 6))
    s = qa @ ka.transpose(0, 1, 3, 2) / math.sqrt(8)
    if causal:
        s = np.where(np.tril(np.ones((4, 4), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    out = evaluate([q, k, v], ops.attention(q, k, v, causal=causal), [qa, ka, va])
    np.testing.assert_allclose(out, p @ va, rtol=1e-4, atol=1e-6)


def test_op_refusals_raise_ir_errors():
    x = ph((3, 4), name="x")
    i = ph((3, 4), "int32", name="i")
    with pytest.raises(tessel.IRError, match="matmul: contracted extents differ"):
        ops.matmul(x, x)
    with pytest.raises(tessel.IRError, match="exp"):
        ops.exp(i)
    with pytest.raises(tessel.IRError, match="softmax"):
        ops.softmax(x, axis=5)
    with pytest.raises(tessel.IRError):
        ops.add(x, ph((5,), name="y"))
    with pytest.raises(tessel.IRError, match="reshape"):
        ops.reshape(x, [5, -1])
    with pytest.raises(tessel.ArgumentError, match="layout"):
        ops.conv2d(ph((1, 1, 4, 4), name="d"), ph((1, 1, 3, 3), name="w"), layout="NCWH")
    with pytest.raises(tessel.ArgumentError, match="approximate"):
        ops.gelu(x, approximate="fast")
    with pytest.raises(tessel.ArgumentError, match="operand"):
        ops.add(x, "a")
    with pytest.raises(tessel.ArgumentError, match="scale"):
        ops.attention(x, x, x, scale=0)
