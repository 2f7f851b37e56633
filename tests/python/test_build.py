"""tessel.build: every op of tessel.ops compiled (lowered with the 'lower'
pipeline, then JIT-compiled) and compared with numpy at odd sizes, unscheduled
and with a simple schedule; targets, errors, export and load of built code."""

import math
import subprocess

import numpy as np
import pytest

import tessel
from tessel import nd, ops, te

# The op tests' helpers and numpy references (tests/python/test_ops.py); not its
# random generator, whose sequence its own tests rely on.
from test_ops import conv2d_nchw, erf, ph, sigmoid  # noqa: E402
from test_runtime import ticks_during  # noqa: E402

RNG = np.random.default_rng(7)


def rand(shape, dtype="float32", lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def softmax(a, axis):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def attention(q, k, v):
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    return softmax(s, -1) @ v


# Each case: op name -> (placeholders, output tensor, input arrays, numpy result).
# Sizes are odd so that no split divides them.
def unary(op, ref, lo=-1.0, hi=1.0):
    def make():
        x = ph((5, 13))
        a = rand((5, 13), lo=lo, hi=hi)
        return [x], op(x), [a], ref(a)
    return make


def binary(op, ref):
    def make():
        x, y = ph((3, 1, 7), name="x"), ph((5, 1), name="y")
        a, b = rand((3, 1, 7)), rand((5, 1), lo=0.5, hi=1.5)
        return [x, y], op(x, y), [a, b], ref(a, b)
    return make


def case_power():
    x, y = ph((3, 7), name="x"), ph((7,), name="y")
    a, b = rand((3, 7), lo=0.5, hi=2), rand((7,), lo=-2, hi=2)
    return [x, y], ops.power(x, y), [a, b], a.astype("float64") ** b


def case_where():
    c, x, y = ph((3, 1), "bool", "c"), ph((3, 7), name="x"), ph((7,), name="y")
    cond, a, b = np.array([[True], [False], [True]]), rand((3, 7)), rand((7,))
    return [c, x, y], ops.where(c, x, y), [cond, a, b], np.where(cond, a, b)


def case_cast():
    x = ph((11,))
    a = rand((11,), lo=-50, hi=50)
    return [x], ops.cast(x, "int32"), [a], a.astype("int32")


def case_broadcast_to():
    y = ph((7,), name="y")
    b = rand((7,))
    return [y], ops.broadcast_to(y, [3, 5, 7]), [b], np.broadcast_to(b, (3, 5, 7))


def case_matmul():
    A, B = ph((13, 7), name="A"), ph((7, 9), name="B")
    a, b = rand((13, 7)), rand((7, 9))
    return [A, B], ops.matmul(A, B), [a, b], a @ b


def case_batch_matmul():
    A, B = ph((3, 5, 7), name="A"), ph((1, 7, 3), name="B")
    a, b = rand((3, 5, 7)), rand((1, 7, 3))
    return [A, B], ops.batch_matmul(A, B), [a, b], a @ b


def case_dense():
    X, W, bias = ph((5, 9), name="X"), ph((3, 9), name="W"), ph((3,), name="bias")
    x, w, bb = rand((5, 9)), rand((3, 9)), rand((3,))
    return [X, W, bias], ops.dense(X, W, bias), [x, w, bb], x @ w.T + bb


def case_gemv():
    X, V = ph((5, 9), name="X"), ph((9,), name="v")
    x, v = rand((5, 9)), rand((9,))
    return [X, V], ops.gemv(X, V), [x, v], x @ v


def case_conv2d():
    x, w = ph((1, 3, 7, 9), name="x"), ph((5, 3, 3, 3), name="w")
    a, b = rand((1, 3, 7, 9)), rand((5, 3, 3, 3))
    return [x, w], ops.conv2d(x, w, strides=2, padding=1), [a, b], conv2d_nchw(a, b, 2, 1, 1, 1)


def case_max_pool2d():
    x = ph((1, 2, 9, 7))
    a = rand((1, 2, 9, 7))
    ref = a[:, :, :8, :6].reshape(1, 2, 4, 2, 3, 2).max(axis=(3, 5))
    return [x], ops.max_pool2d(x, kernel=2, strides=2), [a], ref


def case_avg_pool2d():
    x = ph((1, 2, 9, 7))
    a = rand((1, 2, 9, 7))
    ref = a[:, :, :8, :6].reshape(1, 2, 4, 2, 3, 2).mean(axis=(3, 5))
    return [x], ops.avg_pool2d(x, kernel=2, strides=2), [a], ref


def reduction(name, axis):
    def make():
        x = ph((3, 7, 5))
        a = rand((3, 7, 5), lo=0.5, hi=1.5)
        return [x], getattr(ops, name)(x, axis=axis), [a], getattr(np, name)(a, axis=axis)
    return make


def case_argmax():
    x = ph((5, 9))
    a = rand((5, 9))
    return [x], ops.argmax(x, 1), [a], a.argmax(1)


def case_argmin():
    x = ph((5, 9))
    a = rand((5, 9))
    return [x], ops.argmin(x, 0), [a], a.argmin(0)


def case_softmax():
    x = ph((5, 11))
    a = rand((5, 11), lo=-3, hi=3)
    return [x], ops.softmax(x), [a], softmax(a, -1)


def case_log_softmax():
    x = ph((5, 11))
    a = rand((5, 11), lo=-3, hi=3)
    return [x], ops.log_softmax(x, axis=0), [a], np.log(softmax(a, 0))


def case_layer_norm():
    x, g, b = ph((3, 11), name="x"), ph((11,), name="g"), ph((11,), name="b")
    a, gg, bb = rand((3, 11)), rand((11,)), rand((11,))
    ref = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5) * gg + bb
    return [x, g, b], ops.layer_norm(x, g, b), [a, gg, bb], ref


def case_rms_norm():
    x, g = ph((3, 11), name="x"), ph((11,), name="g")
    a, gg = rand((3, 11)), rand((11,))
    return [x, g], ops.rms_norm(x, g), [a, gg], a / np.sqrt((a * a).mean(-1, keepdims=True) + 1e-5) * gg


def case_l2_normalize():
    x = ph((3, 11))
    a = rand((3, 11))
    return [x], ops.l2_normalize(x, 1), [a], a / np.sqrt((a * a).sum(1, keepdims=True) + 1e-12)


def case_transpose():
    x = ph((3, 5, 7))
    a = rand((3, 5, 7))
    return [x], ops.transpose(x, [2, 0, 1]), [a], a.transpose(2, 0, 1)


def case_reshape():
    x = ph((3, 5, 7))
    a = rand((3, 5, 7))
    return [x], ops.reshape(x, [15, -1]), [a], a.reshape(15, 7)


def case_pad():
    x = ph((3, 5))
    a = rand((3, 5))
    return [x], ops.pad(x, [1, 2], [2, 0], 9.0), [a], np.pad(a, ((1, 2), (2, 0)), constant_values=9)


def case_concat():
    x, y = ph((3, 5), name="x"), ph((3, 7), name="y")
    a, b = rand((3, 5)), rand((3, 7))
    return [x, y], ops.concat([x, y], axis=1), [a, b], np.concatenate([a, b], axis=1)


def case_attention():
    q, k, v = ph((1, 2, 5, 8), name="q"), ph((1, 2, 5, 8), name="k"), ph((1, 2, 5, 3), name="v")
    qa, ka, va = rand((1, 2, 5, 8)), rand((1, 2, 5, 8)), rand((1, 2, 5, 3))
    return [q, k, v], ops.attention(q, k, v), [qa, ka, va], attention(qa, ka, va)


CASES = {
    "relu": unary(ops.relu, lambda a: np.maximum(a, 0)),
    "neg": unary(ops.neg, lambda a: -a),
    "abs": unary(ops.abs, np.abs),
    "exp": unary(ops.exp, np.exp),
    "log": unary(ops.log, np.log, 0.1, 2),
    "sqrt": unary(ops.sqrt, np.sqrt, 0.1, 2),
    "rsqrt": unary(ops.rsqrt, lambda a: 1 / np.sqrt(a), 0.1, 2),
    "tanh": unary(ops.tanh, np.tanh, -2, 2),
    "erf": unary(ops.erf, erf, -2, 2),
    "sigmoid": unary(ops.sigmoid, sigmoid, -3, 3),
    "silu": unary(ops.silu, lambda a: a * sigmoid(a), -3, 3),
    "gelu": unary(ops.gelu, lambda a: 0.5 * a * (1 + erf(a / math.sqrt(2))), -3, 3),
    "cast": case_cast,
    "add": binary(ops.add, np.add),
    "subtract": binary(ops.subtract, np.subtract),
    "multiply": binary(ops.multiply, np.multiply),
    "divide": binary(ops.divide, np.divide),
    "maximum": binary(ops.maximum, np.maximum),
    "minimum": binary(ops.minimum, np.minimum),
    "power": case_power,
    "where": case_where,
    "broadcast_to": case_broadcast_to,
    "matmul": case_matmul,
    "batch_matmul": case_batch_matmul,
    "dense": case_dense,
    "gemv": case_gemv,
    "conv2d": case_conv2d,
    "max_pool2d": case_max_pool2d,
    "avg_pool2d": case_avg_pool2d,
    "sum": reduction("sum", 1),
    "prod": reduction("prod", 2),
    "max": reduction("max", 0),
    "min": reduction("min", None),
    "mean": reduction("mean", 1),
    "argmax": case_argmax,
    "argmin": case_argmin,
    "softmax": case_softmax,
    "log_softmax": case_log_softmax,
    "layer_norm": case_layer_norm,
    "rms_norm": case_rms_norm,
    "l2_normalize": case_l2_normalize,
    "transpose": case_transpose,
    "reshape": case_reshape,
    "pad": case_pad,
    "concat": case_concat,
    "attention": case_attention,
}


def test_every_op_has_a_case():
    assert sorted(CASES) == sorted(ops.__all__)


def simple_schedule(mod, block_name):
    """Splits the output block's outer loop by 4 (never dividing the odd sizes
    here), runs the outer part in parallel and vectorizes the innermost loop."""
    sch = tessel.Schedule(mod)
    loops = sch.get_loops(block=sch.get_block(name=block_name))
    if not loops:
        return sch.mod
    outer, _ = sch.split(loop=loops[0], factors=[None, 4])
    sch.parallel(loop=outer)
    if len(loops) > 1:
        try:
            sch.vectorize(loop=loops[-1])
        except tessel.ScheduleError:
            pass  # a reduction loop innermost; the split and parallel stay
    return sch.mod


def run_case(name, scheduled):
    inputs, output, arrays, ref = CASES[name]()
    mod = tessel.IRModule({"f": te.create_prim_func(list(inputs) + [output])})
    if scheduled:
        mod = simple_schedule(mod, output.name)
    ex = tessel.build(mod, target="llvm")
    out = np.zeros(ref.shape, tessel.nd.empty(1, output.dtype).dtype)
    ex["f"](*arrays, out)
    # The interpreter runs the same module: compiled and interpreted agree too.
    expected = np.zeros_like(out)
    tessel.interpret(mod, *arrays, expected)
    return out, expected, ref


@pytest.mark.parametrize("scheduled", [False, True], ids=["unscheduled", "scheduled"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_numpy(name, scheduled):
    out, interpreted, ref = run_case(name, scheduled)
    if out.dtype.kind in "iub":
        np.testing.assert_array_equal(out, ref)
        np.testing.assert_array_equal(out, interpreted)
    else:
        np.testing.assert_allclose(out, ref, rtol=2e-4, atol=2e-5)
        np.testing.assert_allclose(out, interpreted, rtol=2e-4, atol=2e-5)


# ---- targets, pipelines and errors ---------------------------------------------------

def vector_add_module(n=1003):
    A, B = ph((n,), name="A"), ph((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    return tessel.IRModule({"vector_add": te.create_prim_func([A, B, C])})


def test_build_takes_targets_and_names_functions():
    mod = vector_add_module()
    ex = tessel.build(mod, target="llvm -mcpu=x86-64 -mattr=+avx2,+fma")
    assert ex.target == "llvm -mcpu=x86-64 -mattr=+avx2,+fma"
    assert ex.function_names == ["vector_add"] and ex.library_path == ""
    assert ex["vector_add"].signature == "vector_add(A: f32[1003], B: f32[1003], C: f32[1003])"
    a, b = rand(1003), rand(1003)
    c = nd.empty(1003, "float32")
    ex["vector_add"](nd.array(a), nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b)
    assert "define" in ex.source("llvm") and ex.lowered is not None


def test_build_takes_a_prim_func_or_a_schedule():
    f = vector_add_module(5)["vector_add"]
    assert tessel.build(f).function_names == ["main"]
    assert tessel.build(f, name="va").function_names == ["va"]
    sch = tessel.Schedule(vector_add_module(21))
    (i,) = sch.get_loops(block=sch.get_block(name="C"))
    sch.parallel(loop=i)
    ex = tessel.build(sch)
    a = rand(21)
    c = np.zeros(21, "float32")
    ex["vector_add"](a, a, c)
    np.testing.assert_allclose(c, 2 * a)


@pytest.mark.parametrize("intrin, rows", [("f32_fma_4x16", 4), ("f32_fma_1x16", 1)])
def test_a_tensorized_schedule_builds(intrin, rows):
    # Row tiles in parallel, each tile of C accumulated in a local buffer and
    # written back, its k step the built-in FMA kernel: lowered to one 16-lane
    # fma per tile row on the local tile, compiled, equal to numpy.
    A, B = ph((12, 7), name="A"), ph((7, 48), name="B")
    mod = tessel.IRModule({"mm": te.create_prim_func([A, B, ops.matmul(A, B, name="C")])})
    sch = tessel.Schedule(mod)
    c = sch.get_block(name="C")
    i, j, k = sch.get_loops(block=c)
    i0, i1 = sch.split(loop=i, factors=[None, rows])
    j0, j1 = sch.split(loop=j, factors=[None, 16])
    sch.reorder(i0, j0, k, i1, j1)
    sch.parallel(loop=i0)
    sch.reverse_compute_at(
        block=sch.cache_write(block=c, write_buffer_index=0, storage_scope="local"), loop=j0)
    sch.decompose_reduction(block=c, loop=k)
    sch.tensorize(block_or_loop=i1, intrin_name=intrin)
    ex = tessel.build(sch)
    assert "C_local[ramp(0, 1, 16)] = fma(broadcast(A_1d[" in str(ex.lowered)
    assert "@llvm.fma.v16f32" in ex.source("llvm")
    a, b = rand((12, 7)), rand((7, 48))
    out = np.zeros((12, 48), "float32")
    ex["mm"](a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target, message", [
    ("cuda", "cuda"),
    ("llvm -mcpu=nosuchcpu", "nosuchcpu"),
    ("llvm -mattr=+nosuchfeature", "nosuchfeature"),
    ("llvm -frobnicate=1", "frobnicate"),
])
def test_bad_targets_raise_build_error(target, message):
    with pytest.raises(tessel.BuildError, match=message):
        tessel.build(vector_add_module(), target=target)


def test_unlowered_code_is_refused_with_the_reason():
    with pytest.raises(tessel.BuildError, match="run the 'lower' pipeline first"):
        tessel.build(vector_add_module(), pipeline=None)


def test_build_argument_errors():
    with pytest.raises(tessel.ArgumentError, match="IRModule, a Schedule or a PrimFunc"):
        tessel.build("func @f() {}")
    with pytest.raises(tessel.ArgumentError, match="target"):
        tessel.build(vector_add_module(), target=None)
    with pytest.raises(tessel.PassError):
        tessel.build(vector_add_module(), pipeline="no-such-pass")


def test_a_pipeline_runs_first():
    ex = tessel.build(vector_add_module(7), pipeline="simplify,lower")
    a = rand(7)
    c = np.zeros(7, "float32")
    ex["vector_add"](a, a, c)
    np.testing.assert_allclose(c, 2 * a)


def test_num_threads_of_the_target_applies_to_calls_only():
    ex = tessel.build(vector_add_module(), target="llvm -num-threads=1")
    before = tessel.get_num_threads()
    a = rand(1003)
    c = np.zeros(1003, "float32")
    ex["vector_add"](a, a, c)
    np.testing.assert_allclose(c, 2 * a)
    assert tessel.get_num_threads() == before


def test_num_threads_of_the_target_holds_under_concurrent_calls():
    # Each call runs with the module's own count; the process-wide setting is
    # never saved and restored around calls, so threads calling at once cannot
    # leave it changed.
    import threading

    ex = tessel.build(vector_add_module(), target="llvm -num-threads=1")
    tessel.set_num_threads(3)
    try:
        a = rand(1003)
        errors = []

        def worker():
            c = np.zeros(1003, "float32")
            try:
                for _ in range(300):
                    ex["vector_add"](a, a, c)
                np.testing.assert_allclose(c, 2 * a)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=worker) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert tessel.get_num_threads() == 3
    finally:
        tessel.set_num_threads(0)


def test_calls_check_their_arguments():
    ex = tessel.build(vector_add_module())
    a = rand(1003)
    c = np.zeros(1003, "float32")
    with pytest.raises(tessel.ArgumentError, match=r"argument 1 \(B\): expected shape \[1003\], given \[1002\]"):
        ex["vector_add"](a, a[:1002], c)
    with pytest.raises(tessel.ArgumentError, match="expected dtype f32, given f64"):
        ex["vector_add"](a, a, c.astype("float64"))
    with pytest.raises(tessel.ArgumentError, match="expected 3 arguments, given 2"):
        ex["vector_add"](a, a)
    assert not c.any()


def test_scalar_parameters_and_symbolic_shapes():
    mod = tessel.parse("""
func @scale(A: f32[n], B: f32[n], n: i32, s: f32) {
  for i in range(0, n) {
    B[i] = A[i] * s
  }
}
""")
    ex = tessel.build(mod)
    for n in (1, 17, 1000):
        a = rand(n)
        b = np.zeros(n, "float32")
        ex["scale"](a, b, n, 2.5)
        np.testing.assert_allclose(b, a * 2.5, rtol=1e-6)


def test_shape_variables_are_bound_from_the_tensors():
    # ABI version 2: n and m come from A's shape; no scalar parameter passes them.
    mod = tessel.parse("""
func @rows[n, m](A: f32[n, m], B: f32[n], s: f32) {
  for i in range(0, n) {
    B[i] = 0.0f32
    for j in range(0, m) {
      B[i] = B[i] + A[i, j] * s
    }
  }
}
""")
    ex = tessel.build(mod)
    for n, m in ((1, 1), (5, 17), (64, 3)):
        a = rand((n, m))
        b = np.zeros(n, "float32")
        ex["rows"](a, b, 2.0)
        np.testing.assert_allclose(b, a.sum(axis=1) * 2.0, rtol=1e-5, atol=1e-6)
    with pytest.raises(tessel.ArgumentError, match=r"argument 1 \(B\): dimension 0 is n = 4, but argument 0 \(A\) dimension 0 gave n = 5"):
        ex["rows"](rand((5, 3)), np.zeros(4, "float32"), 1.0)
    # An extent beyond the variable's i32 range is refused by the kernel, not wrapped
    # (empty tensors: nothing is allocated or read).
    wide = tessel.build(tessel.parse("""
func @wide[n, m](A: f32[n, m], B: f32[m]) {
  for i in range(0, n) {
    for j in range(0, m) {
      B[j] = A[i, j]
    }
  }
}
"""))
    with pytest.raises(tessel.RuntimeError, match=r"wide: a tensor extent does not fit the type of n \(i32\)"):
        wide["wide"](np.zeros((2**31, 0), "float32"), np.zeros(0, "float32"))
    wide["wide"](np.zeros((2**31 - 1, 0), "float32"), np.zeros(0, "float32"))


def test_time_evaluator_on_built_code():
    ex = tessel.build(vector_add_module())
    a, b, c = (nd.array(rand(1003)) for _ in range(3))
    r = ex.time_evaluator("vector_add", number=10, repeat=3, min_repeat_ms=1)(a, b, c)
    assert len(r.results) == 3 and r.median > 0 and r.number >= 10


def test_export_library_and_load_it_back(tmp_path):
    inputs, output, _, _ = case_matmul()
    mod = tessel.IRModule({"matmul": te.create_prim_func(inputs + [output])})
    ex = tessel.build(mod)
    path = tmp_path / "kernels.so"
    ex.export_library(str(path))
    assert path.exists() and (tmp_path / "kernels.h").exists()
    header = (tmp_path / "kernels.h").read_text()
    assert "kernels_matmul(TesselModule*" in header
    lib = tessel.load_library(str(path))
    assert lib.function_names == ["matmul"]
    assert lib["matmul"].signature == ex["matmul"].signature
    a, b = rand((13, 7)), rand((7, 9))
    c1, c2 = np.zeros((13, 9), "float32"), np.zeros((13, 9), "float32")
    ex["matmul"](a, b, c1)
    lib["matmul"](a, b, c2)
    np.testing.assert_allclose(c1, a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(c1, c2)


def test_export_library_bundles_the_runtime(tmp_path):
    # bundle_runtime: the runtime libraries beside the library, which looks nowhere
    # else ($ORIGIN); a dispatched function adds libtessel_dispatch_runtime.
    A, B = ph((8, 16), name="A"), ph((16, 4), name="B")
    mod = te.create_module([A, B, ops.matmul(A, B)], name="mm")
    mod = tessel.transform.DispatchLibrary(rules=["onednn"])(mod)
    ex = tessel.build(mod)
    ship = tmp_path / "ship"
    ship.mkdir()
    ex.export_library(str(ship / "k.so"), bundle_runtime=True)
    assert sorted(p.name for p in ship.iterdir()) == [
        "k.h", "k.so", "libtessel_dispatch_runtime.so", "libtessel_runtime.so"]
    dynamic = subprocess.run(["readelf", "-d", str(ship / "k.so")], capture_output=True,
                             text=True, check=True).stdout
    assert "Library runpath: [$ORIGIN]" in dynamic
    moved = tmp_path / "moved"
    ship.rename(moved)
    a, b = rand((8, 16)), rand((16, 4))
    c = np.zeros((8, 4), "float32")
    tessel.load_library(str(moved / "k.so"))["mm"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-5)


def test_export_to_an_unwritable_place_raises(tmp_path):
    ex = tessel.build(vector_add_module(9))
    with pytest.raises(tessel.BuildError):
        ex.export_library(str(tmp_path / "no-such-dir" / "k.so"))


def test_the_gil_is_released_while_compiled_code_runs():
    n = 512
    A, B = ph((n, n), name="A"), ph((n, n), name="B")
    k = te.reduce_axis(n, name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    ex = tessel.build(tessel.IRModule({"mm": te.create_prim_func([A, B, C])}))  # unscheduled: slow
    a, b, c = nd.array(rand((n, n))), nd.array(rand((n, n))), nd.empty((n, n), "float32")
    elapsed, ticks = ticks_during(lambda: ex.time_evaluator("mm", number=3, warmup=0)(a, b, c))
    assert elapsed > 0.05, "the call is long enough to see"
    assert ticks >= 5  # the ticking thread ran while the call was in compiled code


def test_the_gil_is_released_while_compiling():
    # Sizes no other test uses: the JIT's cache must not have it.
    q, k, v = ph((1, 3, 6, 8), name="q"), ph((1, 3, 6, 8), name="k"), ph((1, 3, 6, 5), name="v")
    mod = tessel.IRModule({"attention": te.create_prim_func([q, k, v, ops.attention(q, k, v)])})
    lowered = tessel.transform.parse_pipeline("lower")(mod)
    elapsed, ticks = ticks_during(lambda: tessel.build(lowered, pipeline=None))
    assert elapsed > 0.05, "compiling attention takes long enough to see"
    assert ticks >= 5


def test_source_at_every_stage():
    ex = tessel.build(vector_add_module(33))
    assert "func.func" in ex.source("mlir")
    assert "llvm.func" in ex.source("mlir-llvm")
    assert "define" in ex.source("llvm") and "tessel_packed_vector_add" in ex.source("llvm")
    assert "tessel_packed_vector_add" in ex.source("asm")
    with pytest.raises(tessel.ArgumentError, match="unknown stage 'ptx'"):
        ex.source("ptx")
    assert "decl_buffer" not in str(vector_add_module(33)) and ex.lowered["vector_add"] is not None


def test_export_library_with_a_header_elsewhere(tmp_path):
    ex = tessel.build(vector_add_module(35))
    (tmp_path / "include").mkdir()
    ex.export_library(tmp_path / "va.so", header_path=tmp_path / "include" / "va_api.h")
    assert "va_vector_add(TesselModule*" in (tmp_path / "include" / "va_api.h").read_text()
    lib = tessel.load_library(tmp_path / "va.so")
    a = rand(35)
    c = np.zeros(35, "float32")
    lib["vector_add"](a, a, c)
    np.testing.assert_allclose(c, 2 * a)
