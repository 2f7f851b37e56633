"""Constants of a module (a model's weights): made by the builder, by
tessel.graph.bind_params and by from_onnx(freeze_params=True); printed, parsed and
compared; folded at compile time by fold-constants; run by the interpreter, by
compiled graph functions and by exported libraries, which carry them."""

import numpy as np
import pytest

import tessel
from tessel import graph, ops
from tessel.errors import ArgumentError

RNG = np.random.default_rng(5)
PIPELINE = "legalize,fold-constants,fuse-ops,fuse-tir,default-schedule,plan-memory"


def rand(*shape):
    return RNG.uniform(-1, 1, size=shape).astype("float32")


def mlp(m=8, d=16, f=32):
    """y = relu(x @ w1t.T + b) @ w2: w1 comes transposed, as in a Gemm with transB."""
    with graph.Builder("mlp") as b:
        x = b.input("x", (m, d))
        w1t, bias, w2 = b.input("w1t", (f, d)), b.input("b", (f,)), b.input("w2", (f, d))
        w1 = b.emit(ops.transpose(w1t, [1, 0]), "w1")
        h = b.emit(ops.relu(b.emit(ops.add(b.emit(ops.matmul(x, w1), "h"), bias), "hb")), "g")
        return b.finish(b.emit(ops.matmul(h, w2), "y"))


def weights(d=16, f=32):
    return {"w1t": rand(f, d), "b": rand(f), "w2": rand(f, d)}


def numpy_mlp(x, w1t, b, w2):
    return np.maximum(x @ w1t.T + b, 0) @ w2


def test_bound_weights_fold_and_run_compiled_and_interpreted():
    W, x = weights(), rand(8, 16)
    mod = mlp()
    before = str(mod)
    bound = graph.bind_params(mod, W, "mlp")
    assert str(mod) == before  # a new module; the old one is unchanged
    assert [p.name for p in bound["mlp"].params] == ["x"]
    assert sorted(bound.constants) == ["b", "w1t", "w2"]
    np.testing.assert_array_equal(bound.constants["w1t"], W["w1t"])
    planned = tessel.transform.parse_pipeline(PIPELINE)(bound)
    # The transpose ran once, at compile time: its value is a constant now, and the
    # weight it read left the module.
    assert "w1t" not in planned.constants
    np.testing.assert_array_equal(planned.constants["w1"], W["w1t"].T)
    assert not any(b[1] == "call_tir" and "transpose" in b[2] for b in planned["mlp"].bindings)
    want = numpy_mlp(x, **W)
    np.testing.assert_allclose(graph.run(planned, "mlp", [x])[0], want, rtol=1e-5, atol=1e-5)
    f = tessel.build(planned)["mlp"]
    assert f.input_names == ["x"]
    np.testing.assert_allclose(f(x), want, rtol=1e-5, atol=1e-5)
    assert "constants of" in f.describe().splitlines()[0]


def test_constants_print_parse_and_compare():
    W = weights()
    mod = graph.bind_params(mlp(), W, "mlp")
    text = str(mod)
    assert 'const @w2: f32[32, 16] = "' in text
    assert "w2: f32[32, 16] = const @w2" in text
    back = tessel.parse(text)
    assert tessel.structural_equal(back, mod)
    assert tessel.structural_hash(back) == tessel.structural_hash(mod)
    other = mod.with_constant("w2", W["w2"] + 1)
    assert not tessel.structural_equal(other, mod)
    assert tessel.structural_hash(other) != tessel.structural_hash(mod)


def test_builder_constants_and_a_returned_constant():
    c = np.arange(4, dtype="float32")
    with graph.Builder("main") as b:
        x = b.input("x", (4,))
        k = b.constant(c, "k")
        mod = b.finish(b.emit(ops.add(x, k), "y"), k)
    c[0] = 100  # the module holds its own copy
    x = rand(4)
    y, k = tessel.build(tessel.transform.parse_pipeline("legalize")(mod))["main"](x)
    np.testing.assert_allclose(y, x + np.arange(4))
    np.testing.assert_array_equal(k, np.arange(4, dtype="float32"))
    k[1] = 7  # a returned constant is the caller's copy
    y2, k2 = tessel.build(tessel.transform.parse_pipeline("legalize")(mod))["main"](x)
    np.testing.assert_array_equal(k2, np.arange(4, dtype="float32"))


def test_an_exported_library_carries_its_weights(tmp_path):
    W, x = weights(), rand(8, 16)
    planned = tessel.transform.parse_pipeline(PIPELINE)(graph.bind_params(mlp(), W, "mlp"))
    path = str(tmp_path / "mlp.so")
    tessel.build(planned).export_library(path)
    del planned
    lib = tessel.load_library(path)
    np.testing.assert_allclose(lib["mlp"](x), numpy_mlp(x, **W), rtol=1e-5, atol=1e-5)


def test_bind_params_refusals_change_nothing():
    mod = mlp()
    before = str(mod)
    with pytest.raises(ArgumentError, match=r"has no parameter 'w3' \(it has: x, w1t, b, w2\)"):
        graph.bind_params(mod, {"w3": rand(4)}, "mlp")
    with pytest.raises(ArgumentError, match=r"parameter 'w2' is f32\[32, 16\], the value is f32\[32, 15\]"):
        graph.bind_params(mod, {"w2": rand(32, 15)}, "mlp")
    with pytest.raises(ArgumentError, match=r"the value is f64\[32\]"):
        graph.bind_params(mod, {"b": rand(32).astype("float64")}, "mlp")
    with pytest.raises(ArgumentError, match="no graph function 'nope'"):
        graph.bind_params(mod, {"b": rand(32)}, "nope")
    assert str(mod) == before
    n = tessel.te.size_var("n")
    with graph.Builder("sym") as b:
        x = b.input("x", (n, 4))
        mod = b.finish(b.emit(ops.relu(x), "y"))
    with pytest.raises(ArgumentError, match=r"parameter 'x' is f32\[n, 4\], whose size each call gives"):
        graph.bind_params(mod, {"x": rand(3, 4)}, "sym")


def test_params_at_build_are_constants_too():
    W, x = weights(), rand(8, 16)
    planned = tessel.transform.parse_pipeline("legalize,default-schedule,plan-memory")(mlp())
    f = tessel.build(planned, params=W)["mlp"]
    assert f.input_names == ["x"]
    np.testing.assert_allclose(f(x), numpy_mlp(x, **W), rtol=1e-5, atol=1e-5)
    with pytest.raises(ArgumentError, match=r"mlp\(x: f32\[8, 16\]\): expected 1 arguments, given 4"):
        f(x, *W.values())


def test_two_graphs_share_one_constant_in_an_exported_library(tmp_path):
    c = np.arange(1, 5, dtype="float32")
    text = f"""
graph @plus(x: f32[4]) {{
  c: f32[4] = const @c
  y: f32[4] = add(x, c)
  return y
}}
graph @times(x: f32[4]) {{
  c: f32[4] = const @c
  y: f32[4] = multiply(x, c)
  return y
}}
const @c: f32[4] = "{c.tobytes().hex()}"
"""
    mod = tessel.transform.parse_pipeline("legalize")(tessel.parse(text))
    np.testing.assert_array_equal(mod.constants["c"], c)
    path = str(tmp_path / "two.so")
    tessel.build(mod).export_library(path)
    lib = tessel.load_library(path)
    x = rand(4)
    np.testing.assert_allclose(lib["plus"](x), x + c)
    np.testing.assert_allclose(lib["times"](x), x * c)


def test_an_empty_constant_builds_runs_and_exports(tmp_path):
    with graph.Builder("main") as b:
        x = b.input("x", (0, 4))
        k = b.constant(np.zeros((0, 4), "float32"), "k")
        mod = b.finish(b.emit(ops.add(x, k), "y"))
    mod = tessel.transform.parse_pipeline("legalize")(mod)
    assert tessel.build(mod)["main"](np.zeros((0, 4), "float32")).shape == (0, 4)
    path = str(tmp_path / "empty.so")
    tessel.build(mod).export_library(path)
    assert tessel.load_library(path)["main"](np.zeros((0, 4), "float32")).shape == (0, 4)


def test_a_module_made_from_python_takes_its_constants():
    bound = graph.bind_params(mlp(), weights(), "mlp")
    again = tessel.IRModule(dict(bound.items()) | dict(bound.graph_functions), None, bound.constants)
    assert tessel.structural_equal(again, bound)
    with pytest.raises(ArgumentError, match="constants is a dict"):
        tessel.IRModule({"mlp": bound["mlp"]}, None, [1, 2])
    with pytest.raises(tessel.IRError, match="'mlp' is defined twice"):
        tessel.IRModule({"mlp": bound["mlp"]}, None, {"mlp": np.zeros(2, "float32")})


def numpy_conv2d(x, k):
    """NCHW x OIHW, stride 1, no padding."""
    n, c, h, w = x.shape
    o, _, r, t = k.shape
    win = np.lib.stride_tricks.sliding_window_view(x, (r, t), axis=(2, 3))
    return np.einsum("nchwrt,ocrt->nohw", win, k)


def test_a_packed_weight_is_packed_once_at_compile_time():
    # The CPU rule packs a conv2d kernel whole, channels last, at the start of
    # every call; with the kernel constant, hoist-constant-packing makes the packed
    # kernel a constant (computed once by fold-constants) that the call reads.
    k, x = rand(16, 8, 3, 3), rand(1, 8, 14, 14)
    with graph.Builder("conv") as b:
        c = b.emit(ops.conv2d(b.input("x", (1, 8, 14, 14)), b.input("k", (16, 8, 3, 3))), "c")
        mod = b.finish(c)
    pipeline = "legalize,fuse-ops,fuse-tir,default-schedule,hoist-constant-packing,plan-memory"
    planned = tessel.transform.parse_pipeline(pipeline)(graph.bind_params(mod, {"k": k}, "conv"))
    assert sorted(planned.constants) == ["k_global"]  # the weight itself left
    np.testing.assert_array_equal(planned.constants["k_global"], k.transpose(1, 2, 3, 0))
    calls = [b[2] for b in planned["conv"].bindings if b[1] == "call_tir"]
    assert calls == ["conv2d_prepacked"]
    want = numpy_conv2d(x, k)
    np.testing.assert_allclose(graph.run(planned, "conv", [x])[0], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tessel.build(planned)["conv"](x), want, rtol=1e-5, atol=1e-5)
    # A weight that is an input is packed in every call, as before.
    unbound = tessel.transform.parse_pipeline(pipeline)(mod)
    assert not unbound.constants and "conv2d_prepacked" not in unbound.keys()


def test_a_matmul_panel_of_a_constant_weight_is_packed_once_panel_major():
    # multi-level-tiling copies B's panel per column tile, laid out panel-major
    # ([N / T * K, T]); hoisted, the constant holds every tile's panel, one
    # contiguous run each, and the kernel reads them in place.
    target = "llvm -mattr=+avx,+avx2,+fma,+avx512f -num-cores=2 -l2-cache=4096"
    w, x = rand(16, 64), rand(32, 16)
    with graph.Builder("mm") as b:
        y = b.emit(ops.matmul(b.input("x", (32, 16)), b.input("w", (16, 64))), "y")
        mod = b.finish(y)
    pipeline = f'legalize,fuse-ops,fuse-tir,default-schedule{{target="{target}"}},hoist-constant-packing'
    planned = tessel.transform.parse_pipeline(pipeline)(graph.bind_params(mod, {"w": w}, "mm"))
    assert sorted(planned.constants) == ["w_global"]
    # Tile t (32 columns) is rows [16t, 16t + 16).
    want_packed = w.reshape(16, 2, 32).transpose(1, 0, 2).reshape(32, 32)
    np.testing.assert_array_equal(planned.constants["w_global"], want_packed)
    np.testing.assert_allclose(graph.run(planned, "mm", [x])[0], x @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tessel.build(planned, target="llvm")["mm"](x), x @ w,
                               rtol=1e-5, atol=1e-5)
