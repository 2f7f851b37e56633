"""ONNX import (tessel.frontend.from_onnx): models built with onnx.helper, run by
the reference interpreter before and after the graph pipeline and compiled
(tessel.build, planned storage), against numpy."""

import math

import numpy as np
import pytest

import tessel
from tessel import frontend, graph
from tessel.errors import ArgumentError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(3)
PIPELINE = ("sink-reshapes,legalize,eliminate-common-calls,annotate-op-pattern,fuse-ops,fuse-tir,"
            "default-schedule,plan-memory")


def w(*shape, scale=0.5):
    return (RNG.standard_normal(shape) * scale).astype("float32")


def make_model(nodes, inputs, outputs, weights, opset=17):
    g = helper.make_graph(
        nodes, "m",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        [numpy_helper.from_array(v, k) for k, v in weights.items()])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    return model


def run_both(model, inputs):
    """Results of the imported model, before and after the graph pipeline; the
    compiled model (its kernels built, its storage planned) must give the latter."""
    mod, params = frontend.from_onnx(model)
    args = list(inputs) + list(params.values())
    before = graph.run(mod, "main", args)
    planned = tessel.transform.parse_pipeline(PIPELINE)(mod)
    after = graph.run(planned, "main", args)
    compiled = tessel.build(planned, params=params)["main"](*inputs)
    compiled = compiled if isinstance(compiled, tuple) else (compiled,)
    for want, got in zip(after, compiled):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    return mod, before, after


def layer_norm(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    v = x.var(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_mlp():
    W = {"w1": w(8, 16), "b1": w(16), "w2": w(16, 3), "b2": w(3)}
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        helper.make_node("Relu", ["hb"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["o"]),
        helper.make_node("Softmax", ["o"], ["y"], axis=-1),
    ]
    x = w(4, 8, scale=1.0)
    mod, before, after = run_both(make_model(nodes, [("x", [4, 8])], [("y", [4, 3])], W), [x])
    want = softmax(np.maximum(x @ W["w1"] + W["b1"], 0) @ W["w2"] + W["b2"])
    np.testing.assert_allclose(before[0], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(after[0], want, rtol=1e-5, atol=1e-6)
    assert [p.name for p in mod["main"].params] == ["x", "w1", "b1", "w2", "b2"]


def encoder_block(S=4, D=8, H=2, F=16):
    dh = D // H
    W = {"ln1_g": w(D) + 1, "ln1_b": w(D), "wq": w(D, D), "wk": w(D, D), "wv": w(D, D), "wo": w(D, D),
         "ln2_g": w(D) + 1, "ln2_b": w(D), "w1": w(D, F), "b1": w(F), "w2": w(F, D), "b2": w(D),
         "heads": np.array([1, S, H, dh], dtype="int64"), "merged": np.array([1, S, D], dtype="int64"),
         "scale": np.array(math.sqrt(dh), dtype="float32")}
    const = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(v, "float32")))  # noqa: E731
    n = helper.make_node
    nodes = [
        n("LayerNormalization", ["x", "ln1_g", "ln1_b"], ["ln1"], axis=-1, epsilon=1e-5),
        n("MatMul", ["ln1", "wq"], ["q"]), n("MatMul", ["ln1", "wk"], ["k"]), n("MatMul", ["ln1", "wv"], ["v"]),
        n("Reshape", ["q", "heads"], ["q4"]), n("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
        n("Reshape", ["k", "heads"], ["k4"]), n("Transpose", ["k4"], ["kt"], perm=[0, 2, 3, 1]),
        n("Reshape", ["v", "heads"], ["v4"]), n("Transpose", ["v4"], ["vh"], perm=[0, 2, 1, 3]),
        n("MatMul", ["qh", "kt"], ["s"]), n("Div", ["s", "scale"], ["ss"]), n("Softmax", ["ss"], ["p"], axis=-1),
        n("MatMul", ["p", "vh"], ["a"]), n("Transpose", ["a"], ["at"], perm=[0, 2, 1, 3]),
        n("Reshape", ["at", "merged"], ["am"]), n("MatMul", ["am", "wo"], ["o"]), n("Add", ["x", "o"], ["r1"]),
        n("LayerNormalization", ["r1", "ln2_g", "ln2_b"], ["ln2"], axis=-1, epsilon=1e-5),
        n("MatMul", ["ln2", "w1"], ["f1"]), n("Add", ["f1", "b1"], ["f1b"]),
        # GELU spelled with Erf: 0.5 x (1 + erf(x / sqrt(2))).
        const("sqrt2", math.sqrt(2.0)), const("one", 1.0), const("half", 0.5),
        n("Div", ["f1b", "sqrt2"], ["g1"]), n("Erf", ["g1"], ["g2"]), n("Add", ["g2", "one"], ["g3"]),
        n("Mul", ["f1b", "g3"], ["g4"]), n("Mul", ["g4", "half"], ["gelu"]),
        n("MatMul", ["gelu", "w2"], ["f2"]), n("Add", ["f2", "b2"], ["f2b"]), n("Add", ["r1", "f2b"], ["y"]),
    ]
    return W, nodes


def numpy_encoder(x, W, S=4, D=8, H=2):
    from math import erf
    dh = D // H
    ln1 = layer_norm(x, W["ln1_g"], W["ln1_b"])
    heads = lambda t: t.reshape(1, S, H, dh).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = heads(ln1 @ W["wq"]), heads(ln1 @ W["wk"]), heads(ln1 @ W["wv"])
    p = softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh))
    a = (p @ v).transpose(0, 2, 1, 3).reshape(1, S, D)
    r1 = x + a @ W["wo"]
    f = layer_norm(r1, W["ln2_g"], W["ln2_b"]) @ W["w1"] + W["b1"]
    gelu = 0.5 * f * (1 + np.vectorize(erf)(f / math.sqrt(2)))
    return r1 + gelu @ W["w2"] + W["b2"]


def test_transformer_encoder_block():
    W, nodes = encoder_block()
    x = w(1, 4, 8, scale=1.0)
    mod, before, after = run_both(make_model(nodes, [("x", [1, 4, 8])], [("y", [1, 4, 8])], W), [x])
    want = numpy_encoder(x, W)
    np.testing.assert_allclose(before[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(after[0], want, rtol=1e-4, atol=1e-5)
    fused = tessel.transform.parse_pipeline("legalize,fuse-ops,fuse-tir")(mod)
    kernels = [b[2] for b in fused["main"].bindings]
    assert any(k.startswith("fused_") for k in kernels)
    assert len(kernels) < len(mod["main"].bindings)


def test_frozen_weights_are_constants_of_the_module():
    W, nodes = encoder_block()
    x = w(1, 4, 8, scale=1.0)
    model = make_model(nodes, [("x", [1, 4, 8])], [("y", [1, 4, 8])], W)
    mod, params = frontend.from_onnx(model, freeze_params=True)
    assert params == {} and [p.name for p in mod["main"].params] == ["x"]
    assert {"wq", "w1", "ln1_g", "scale", "sqrt2"} <= set(mod.constants)
    np.testing.assert_array_equal(mod.constants["wq"], W["wq"])
    planned = tessel.transform.parse_pipeline(PIPELINE.replace("legalize,", "legalize,fold-constants,"))(mod)
    want = numpy_encoder(x, W)
    np.testing.assert_allclose(graph.run(planned, "main", [x])[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(tessel.build(planned)["main"](x), want, rtol=1e-4, atol=1e-5)


def test_a_frozen_transposed_gemm_weight_is_transposed_once_at_compile_time():
    W = {"w": w(3, 8), "b": w(3)}  # Gemm with transB: y = x @ w.T + b
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)]
    model = make_model(nodes, [("x", [4, 8])], [("y", [4, 3])], W)
    mod, _ = frontend.from_onnx(model, freeze_params=True)
    folded = tessel.transform.parse_pipeline("legalize,fold-constants")(mod)
    assert "w" not in folded.constants
    np.testing.assert_array_equal(next(v for k, v in folded.constants.items() if v.shape == (8, 3)),
                                  W["w"].T)
    assert [b[1] for b in folded["main"].bindings].count("call_tir") == 2  # matmul, add
    x = w(4, 8, scale=1.0)
    want = x @ W["w"].T + W["b"]
    np.testing.assert_allclose(graph.run(folded, "main", [x])[0], want, rtol=1e-5, atol=1e-6)
    unfrozen, params = frontend.from_onnx(model)  # a parameter: transpose_b in the matmul
    assert not any(b[2] == "transpose" for b in unfrozen["main"].bindings)


def test_conv_pool_reduce_concat():
    W = {"k": w(4, 3, 3, 3), "kb": w(4)}
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "k", "kb"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
        n("Relu", ["c"], ["r"]),
        n("MaxPool", ["r"], ["m"], kernel_shape=[2, 2], strides=[2, 2]),
        n("AveragePool", ["r"], ["a"], kernel_shape=[2, 2], strides=[2, 2]),
        n("Concat", ["m", "a"], ["cat"], axis=1),
        n("ReduceMean", ["cat"], ["y"], axes=[2, 3], keepdims=0),
    ]
    x = w(1, 3, 6, 6, scale=1.0)
    _, before, after = run_both(make_model(nodes, [("x", [1, 3, 6, 6])], [("y", [1, 8])], W, opset=13), [x])
    # numpy: conv (pad 1), relu, 2x2 pools, concat, spatial mean.
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c = np.zeros((1, 4, 6, 6), "float32")
    for i in range(6):
        for j in range(6):
            c[0, :, i, j] = np.tensordot(W["k"], xp[0, :, i:i + 3, j:j + 3], axes=([1, 2, 3], [0, 1, 2]))
    r = np.maximum(c + W["kb"].reshape(1, 4, 1, 1), 0)
    win = r.reshape(1, 4, 3, 2, 3, 2)
    cat = np.concatenate([win.max(axis=(3, 5)), win.mean(axis=(3, 5))], axis=1)
    want = cat.mean(axis=(2, 3))
    np.testing.assert_allclose(before[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(after[0], want, rtol=1e-4, atol=1e-5)


def test_symbolic_batch_from_dim_param():
    W = {"w1": w(8, 4)}
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w1"], ["y"])], "m",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
                          [numpy_helper.from_array(W["w1"], "w1")])
    mod, params = frontend.from_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    assert "graph @main[batch](x: f32[batch, 8]" in str(mod)
    for rows in (1, 3):
        x = w(rows, 8)
        (y,) = graph.run(mod, "main", [x, params["w1"]])
        np.testing.assert_allclose(y, x @ W["w1"], rtol=1e-5, atol=1e-6)


def test_unsupported_operator_names_the_node():
    nodes = [helper.make_node("LeakyRelu", ["x"], ["y"], name="act1")]
    with pytest.raises(ArgumentError, match=r"ONNX node 'act1' \(LeakyRelu\): operator 'LeakyRelu' is not supported"):
        frontend.from_onnx(make_model(nodes, [("x", [2, 2])], [("y", [2, 2])], {}))


def test_a_refused_shape_names_the_node():
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["y"], name="mm")]
    with pytest.raises(ArgumentError, match=r"ONNX node 'mm' \(MatMul\): .*matmul"):
        frontend.from_onnx(make_model(nodes, [("x", [2, 3])], [("y", [2, 5])], {"w1": w(4, 5)}))
