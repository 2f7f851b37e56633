"""Compiled graph functions: tessel.build of a graph module and ex["main"](...),
with planned storage; results against numpy and the reference interpreter;
inputs checked and never written; clear errors for what cannot run."""

import numpy as np
import pytest

import tessel
from tessel import graph, ops
from tessel.errors import ArgumentError, BuildError

RNG = np.random.default_rng(11)
PLANNED = "legalize,fuse-ops,fuse-tir,default-schedule,plan-memory"


def rand(*shape):
    return RNG.uniform(-1, 1, size=shape).astype("float32")


def ffn_module(m=16, d=8, f=32):
    with graph.Builder("ffn") as b:
        x = b.input("x", (m, d))
        w1, b1 = b.input("w1", (d, f)), b.input("b1", (f,))
        w2, b2 = b.input("w2", (f, d)), b.input("b2", (d,))
        h = b.emit(ops.add(b.emit(ops.matmul(x, w1), "h"), b1), "hb")
        g = b.emit(ops.relu(h), "g")
        y = b.emit(ops.add(b.emit(ops.matmul(g, w2), "y"), b2), "z")
        return b.finish(y)


def ffn_inputs(m=16, d=8, f=32):
    return [rand(m, d), rand(d, f), rand(f), rand(f, d), rand(d)]


def numpy_ffn(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


@pytest.mark.parametrize("pipeline", ["legalize", "legalize,default-schedule", PLANNED])
def test_compiled_model_equals_numpy(pipeline):
    args = ffn_inputs()
    keep = [a.copy() for a in args]
    ex = tessel.build(tessel.transform.parse_pipeline(pipeline)(ffn_module()))
    assert "ffn" in ex.function_names
    y = ex["ffn"](*args)
    np.testing.assert_allclose(y, numpy_ffn(*args), rtol=1e-5, atol=1e-5)
    for a, k in zip(args, keep):  # inputs are never written
        np.testing.assert_array_equal(a, k)


def test_planned_storage_is_smaller_and_described():
    mod = tessel.transform.parse_pipeline("legalize,plan-memory")(ffn_module())
    f = tessel.build(mod)["ffn"]
    assert f.planned_bytes == 0  # nothing allocated before the first call
    f(*ffn_inputs())
    # h, hb, g: 16x32 f32 each, y: 16x8; h and g share, hb and y share.
    assert f.unplanned_bytes == 3 * 2048 + 512
    assert f.planned_bytes == 2 * 2048
    text = f.describe()
    assert text.startswith("graph ffn: 5 kernels, 2 storages of 4096 bytes")
    assert "0 matmul  reads x, w1  writes h: f32[16, 32] @storage 0" in text
    assert "writes z: f32[16, 8] @result" in text


def test_results_of_two_calls_are_independent():
    f = tessel.build(tessel.transform.parse_pipeline(PLANNED)(ffn_module()))["ffn"]
    a, b = ffn_inputs(), ffn_inputs()
    ya = f(*a)
    yb = f(*b)
    np.testing.assert_allclose(ya, numpy_ffn(*a), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(yb, numpy_ffn(*b), rtol=1e-5, atol=1e-5)


SYMBOLIC = """
graph @sym[n](x: f32[n, 16], w: f32[16, 8]) {
  a: f32[n, 16] = relu(x)
  b: f32[n, 16] = exp(a)
  c: f32[n, 8] = matmul(b, w)
  d: f32[n] = sum(c) {axes = [1]}
  e: f32[n] = sigmoid(d)
  return e, c
}
"""


def test_symbolic_shapes_at_several_sizes():
    mod = tessel.parse(SYMBOLIC)
    planned = tessel.transform.parse_pipeline("legalize,default-schedule,plan-memory")(mod)
    assert "storage" in str(planned)
    f = tessel.build(planned)["sym"]
    w = rand(16, 8)
    sizes = []
    for n in (3, 7, 2):  # grows the storage, then reuses it
        x = rand(n, 16)
        e, c = f(x, w)
        want_e, want_c = graph.run(mod, "sym", [x, w])
        np.testing.assert_allclose(c, want_c, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(e, want_e, rtol=1e-5, atol=1e-5)
        sizes.append(f.planned_bytes)
    # a and b: 64n bytes each, live at once; d (4n bytes) takes a's storage.
    assert sizes == [128 * 3, 128 * 7, 128 * 2]


def test_a_wrong_input_names_it_and_nothing_runs():
    f = tessel.build(tessel.transform.parse_pipeline(PLANNED)(ffn_module()))["ffn"]
    args = ffn_inputs()
    with pytest.raises(ArgumentError, match=r"argument 1 \(w1\): .*shape"):
        f(args[0], rand(8, 31), *args[2:])
    with pytest.raises(ArgumentError, match=r"argument 0 \(x\): expected dtype f32, given f64"):
        f(args[0].astype("float64"), *args[1:])
    with pytest.raises(ArgumentError, match="expected 5 arguments, given 4"):
        f(*args[:4])
    np.testing.assert_allclose(f(*args), numpy_ffn(*args), rtol=1e-5, atol=1e-5)


def test_symbolic_input_that_disagrees_names_it():
    f = tessel.build(tessel.transform.parse_pipeline("legalize")(tessel.parse("""
graph @pair[n](x: f32[n], y: f32[n]) {
  z: f32[n] = add(x, y)
  return z
}""")))["pair"]
    with pytest.raises(ArgumentError, match=r"argument 1 \(y\)"):
        f(rand(4), rand(5))


def test_an_operator_binding_cannot_be_built_into_a_kernel():
    ex = tessel.build(ffn_module())
    with pytest.raises(BuildError, match=r"binding of 'h' calls operator matmul, which has no "
                                         r"kernel yet: run `legalize` before building"):
        ex["ffn"]


def test_a_parameter_returned_as_it_is_is_copied():
    mod = tessel.transform.parse_pipeline("legalize")(tessel.parse("""
graph @id(x: f32[4]) {
  y: f32[4] = relu(x)
  return x, y
}"""))
    x = rand(4)
    a, y = tessel.build(mod)["id"](x)
    np.testing.assert_array_equal(a, x)
    assert not np.shares_memory(a, x)
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_an_exported_library_runs_the_model(tmp_path):
    planned = tessel.transform.parse_pipeline(PLANNED)(ffn_module())
    ex = tessel.build(planned)
    path = tmp_path / "ffn.so"
    ex.export_library(str(path))
    header = (tmp_path / "ffn.h").read_text()
    assert "static inline int32_t ffn_ffn(TesselModule* tessel_module_, DLTensor* x" in header
    lib = tessel.load_library(str(path))
    assert "ffn" in lib.function_names
    assert lib["ffn"].input_names == ["x", "w1", "b1", "w2", "b2"]
    args = ffn_inputs()
    np.testing.assert_allclose(lib["ffn"](*args), numpy_ffn(*args), rtol=1e-5, atol=1e-5)
    with pytest.raises(ArgumentError, match=r"argument 0 \(x\)"):
        lib["ffn"](rand(3, 8), *args[1:])


def test_exporting_an_unlegalized_model_names_the_binding(tmp_path):
    ex = tessel.build(ffn_module())
    with pytest.raises(BuildError, match=r"binding of 'h' calls operator matmul"):
        ex.export_library(str(tmp_path / "m.so"))


def test_weights_bound_at_build_leave_the_inputs():
    args = ffn_inputs()
    names = ["w1", "b1", "w2", "b2"]
    planned = tessel.transform.parse_pipeline(PLANNED)(ffn_module())
    f = tessel.build(planned, params=dict(zip(names, args[1:])))["ffn"]
    assert f.input_names == ["x"]
    np.testing.assert_allclose(f(args[0]), numpy_ffn(*args), rtol=1e-5, atol=1e-5)
    with pytest.raises(ArgumentError, match=r"ffn\(x: f32\[16, 8\]\): expected 1 arguments, given 5"):
        f(*args)


def test_params_that_do_not_fit_are_refused_at_build():
    planned = tessel.transform.parse_pipeline(PLANNED)(ffn_module())
    with pytest.raises(ArgumentError, match="params names 'w3', which no graph function takes"):
        tessel.build(planned, params={"w3": rand(8, 32)})
    with pytest.raises(ArgumentError, match=r"graph function 'ffn': parameter 'w1' is f32\[8, 32\], "
                                            r"the value is f32\[8, 31\]"):
        tessel.build(planned, params={"w1": rand(8, 31)})
    with pytest.raises(ArgumentError, match=r"the value is f64\[8, 32\]"):
        tessel.build(planned, params={"w1": rand(8, 32).astype("float64")})


def test_empty_batches_strided_inputs_and_non_arrays():
    planned = tessel.transform.parse_pipeline(PLANNED)(tessel.parse(SYMBOLIC))
    f = tessel.build(planned)["sym"]
    w = rand(16, 8)
    e, c = f(np.ones((0, 16), "float32"), w)
    assert e.shape == (0,) and c.shape == (0, 8) and f.planned_bytes == 0
    x = rand(6, 32)[:, ::2]  # a strided view: staged into an aligned copy
    e, c = f(x, w)
    np.testing.assert_allclose(c, np.exp(np.maximum(x, 0)) @ w, rtol=1e-5, atol=1e-5)
    with pytest.raises(ArgumentError, match=r"argument 0 \(x\): expected a numpy array or "
                                            r"tessel.nd.NDArray for x: f32\[n, 16\], given NoneType"):
        f(None, w)


def test_building_an_equal_model_again_compiles_nothing():
    def planned():
        return tessel.transform.parse_pipeline(PLANNED)(tessel.parse(SYMBOLIC))
    tessel.build(planned())["sym"]
    compiled = tessel._core.jit_cache_info()[2]
    f = tessel.build(planned())["sym"]  # another module object, structurally equal
    assert tessel._core.jit_cache_info()[2] == compiled
    assert f(rand(2, 16), rand(16, 8))[0].shape == (2,)


def test_profile_times_every_kernel_in_launch_order():
    planned = tessel.transform.parse_pipeline(PLANNED)(ffn_module())
    f = tessel.build(planned)["ffn"]
    p = f.profile(*ffn_inputs(), repeat=3)
    kernels = [b[2] for b in planned["ffn"].bindings]
    assert [k for _, k, _ in p.rows] == kernels and [i for i, _, _ in p.rows] == [0, 1]
    assert all(ms >= 0 for _, _, ms in p.rows) and p.total_ms > 0
    text = str(p)
    assert text.startswith("graph ffn: 2 kernels, ") and kernels[0] in text and "%" in text
    with pytest.raises(ArgumentError, match="repeat must be a positive int"):
        f.profile(*ffn_inputs(), repeat=0)
    with pytest.raises(ArgumentError, match=r"argument 0 \(x\)"):
        f.profile(np.ones((3, 3), "float32"), *ffn_inputs()[1:])
