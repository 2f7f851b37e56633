"""Library dispatch from Python: dispatch-library with the oneDNN and BLAS rules on
matmuls of every layout (odd sizes, transposed, batched, broadcast batch) and each
epilogue, compiled and compared with numpy; partial dispatch scheduled afterwards;
threads; an exported dispatched library; bad shim arguments at call time."""

import math

import numpy as np
import pytest

import tessel
from tessel import dispatch, ir, nd, ops, te, transform

RNG = np.random.default_rng(11)


def rand(shape, dtype="float32"):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


def ph(shape, name, dtype="float32"):
    return te.placeholder(shape, dtype, name=name)


def erf(x):
    return np.vectorize(math.erf)(x.astype("float64"))


def dispatched(mod, rules):
    return transform.DispatchLibrary(rules=rules)(mod)


def run(mod, name, arrays, out_shape, dtype="float32"):
    ex = tessel.build(mod, target="llvm")
    args = [nd.array(a) for a in arrays] + [nd.empty(out_shape, dtype)]
    ex[name](*args)
    return args[-1].numpy()


MATMULS = [
    # (name, shapes, build, numpy)
    ("plain", [(17, 23), (23, 31)], lambda a, b: ops.matmul(a, b), lambda a, b: a @ b),
    ("ta", [(23, 17), (23, 31)], lambda a, b: ops.matmul(a, b, transpose_a=True), lambda a, b: a.T @ b),
    ("tb", [(17, 23), (31, 23)], lambda a, b: ops.matmul(a, b, transpose_b=True), lambda a, b: a @ b.T),
    ("tab", [(23, 17), (31, 23)], lambda a, b: ops.matmul(a, b, True, True), lambda a, b: a.T @ b.T),
    ("bmm", [(3, 5, 9), (3, 9, 7)], lambda a, b: ops.batch_matmul(a, b), lambda a, b: a @ b),
    ("bmm_bcast", [(3, 5, 9), (1, 9, 7)], lambda a, b: ops.batch_matmul(a, b), lambda a, b: a @ b),
    ("dense", [(8, 33), (12, 33)], lambda a, b: ops.dense(a, b), lambda a, b: a @ b.T),
]


@pytest.mark.parametrize("rule", ["onednn", "blas"])
@pytest.mark.parametrize("case", MATMULS, ids=[c[0] for c in MATMULS])
def test_matmul_layouts(rule, case):
    name, shapes, build, ref = case
    A, B = ph(shapes[0], "A"), ph(shapes[1], "B")
    C = build(A, B)
    mod = te.create_module([A, B, C], name=name)
    out = dispatched(mod, [rule])
    text = str(out)
    assert f"tessel_{'onednn' if rule == 'onednn' else 'blas'}_" in text, text
    assert "scheduled = true" in text
    a, b = rand(shapes[0]), rand(shapes[1])
    got = run(out, name, [a, b], tuple(int(d) for d in C.shape))
    np.testing.assert_allclose(got, ref(a, b), rtol=1e-4, atol=1e-5)


def test_blas_dgemm_and_gemv():
    A, B = ph((9, 13), "A", "float64"), ph((13, 6), "B", "float64")
    mod = te.create_module([A, B, ops.matmul(A, B)], name="dgemm")
    out = dispatched(mod, ["blas"])
    a, b = rand((9, 13), "float64"), rand((13, 6), "float64")
    np.testing.assert_allclose(run(out, "dgemm", [a, b], (9, 6), "float64"), a @ b, rtol=1e-12)
    M, x = ph((37, 29), "M"), ph((29,), "x")
    mod = te.create_module([M, x, ops.gemv(M, x)], name="gemv")
    out = dispatched(mod, ["blas"])
    assert "tessel_blas_gemv" in str(out)
    m, v = rand((37, 29)), rand((29,))
    np.testing.assert_allclose(run(out, "gemv", [m, v], (37,)), m @ v, rtol=1e-4, atol=1e-5)


EPILOGUES = [
    ("relu", lambda t: ops.relu(t), lambda y: np.maximum(y, 0)),
    ("gelu_erf", lambda t: ops.gelu(t), lambda y: 0.5 * y * (1 + erf(y / math.sqrt(2)))),
    ("gelu_tanh", lambda t: ops.gelu(t, approximate="tanh"),
     lambda y: 0.5 * y * (1 + np.tanh(math.sqrt(2 / math.pi) * (y + 0.044715 * y ** 3)))),
    ("sigmoid", lambda t: ops.sigmoid(t), lambda y: 1 / (1 + np.exp(-y))),
    ("silu", lambda t: ops.silu(t), lambda y: y / (1 + np.exp(-y))),
    ("tanh", lambda t: ops.tanh(t), np.tanh),
]


@pytest.mark.parametrize("epi", EPILOGUES, ids=[e[0] for e in EPILOGUES])
def test_dense_bias_epilogues_are_post_ops(epi):
    name, make, ref = epi
    X, W, b = ph((7, 19), "X"), ph((11, 19), "W"), ph((11,), "b")
    Y = make(ops.dense(X, W, b))
    mod = te.create_module([X, W, b, Y], name="layer")
    out = dispatched(mod, ["onednn"])
    text = str(out)
    assert text.count("tessel_onednn_matmul") == 1 and "block" not in text.split("root")[1], text
    x, w, bias = rand((7, 19)), rand((11, 19)), rand((11,))
    got = run(out, "layer", [x, w, bias], (7, 11))
    np.testing.assert_allclose(got, ref(x @ w.T + bias), rtol=1e-4, atol=1e-5)


def test_residual_and_scale():
    X, W, R = ph((6, 10), "X"), ph((10, 10), "W"), ph((6, 10), "R")
    Y = ops.multiply(ops.add(ops.matmul(X, W), R), 0.5)
    mod = te.create_module([X, W, R, Y], name="res")
    out = dispatched(mod, ["onednn"])
    assert "scheduled = true" in str(out)
    x, w, r = rand((6, 10)), rand((10, 10)), rand((6, 10))
    np.testing.assert_allclose(run(out, "res", [x, w, r], (6, 10)), (x @ w + r) * 0.5, rtol=1e-5,
                               atol=1e-6)


def test_partial_dispatch_then_default_schedule():
    X, W = ph((16, 24), "X"), ph((24, 32), "W")
    Y = ops.exp(ops.matmul(X, W))  # exp is no post-op of the rule: it stays tessel code
    mod = te.create_module([X, W, Y], name="partial")
    out = dispatched(mod, ["onednn"])
    text = str(out)
    assert "tessel_onednn_matmul" in text and 'dispatched = "onednn"' in text
    assert "scheduled" not in text and "exp(" in text
    scheduled = transform.DefaultSchedule()(out)
    x, w = rand((16, 24)), rand((24, 32))
    np.testing.assert_allclose(run(scheduled, "partial", [x, w], (16, 32)), np.exp(x @ w),
                               rtol=1e-5, atol=1e-6)


def test_dispatched_functions_are_skipped_by_scheduling():
    A, B = ph((8, 8), "A"), ph((8, 8), "B")
    mod = te.create_module([A, B, ops.matmul(A, B)], name="mm")
    out = dispatched(mod, ["onednn"])
    again = transform.DefaultSchedule()(out)
    assert str(again) == str(out)


def test_two_threads_beside_a_tessel_parallel_loop():
    """A 2-thread dispatched call (oneDNN on OpenMP) and a tessel parallel loop (its
    pool) run at the same time from two Python threads: both finish, both correct."""
    import threading
    before = tessel.get_num_threads()
    tessel.set_num_threads(2)
    try:
        A, B = ph((64, 96), "A"), ph((96, 80), "B")
        mm = te.create_module([A, B, ops.matmul(A, B)], name="mm")
        lib = tessel.build(dispatched(mm, ["onednn"]))
        X = ph((4096,), "X")
        par = transform.DefaultSchedule()(te.create_module([X, ops.exp(X)], name="ex"))
        assert "parallel" in str(par)
        tlib = tessel.build(par)
        a, b, x = rand((64, 96)), rand((96, 80)), rand((4096,))
        errors = []

        def dispatched_calls():
            try:
                for _ in range(50):
                    c = nd.empty((64, 80), "float32")
                    lib["mm"](nd.array(a), nd.array(b), c)
                    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-5)
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(e)

        def tessel_calls():
            try:
                for _ in range(50):
                    y = nd.empty((4096,), "float32")
                    tlib["ex"](nd.array(x), y)
                    np.testing.assert_allclose(y.numpy(), np.exp(x), rtol=1e-6)
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        threads = [threading.Thread(target=f) for f in (dispatched_calls, tessel_calls)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "a call did not finish"
        assert not errors, errors
    finally:
        tessel.set_num_threads(before)


def test_exported_dispatched_library_loads_and_runs(tmp_path):
    A, B = ph((9, 5), "A"), ph((5, 7), "B")
    mod = dispatched(te.create_module([A, B, ops.matmul(A, B)], name="mm"), ["onednn"])
    path = tmp_path / "dispatched.so"
    tessel.build(mod).export_library(str(path))
    lib = tessel.load_library(str(path))
    a, b, c = rand((9, 5)), rand((5, 7)), nd.empty((9, 7), "float32")
    lib["mm"](nd.array(a), nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-6)


def test_a_bad_shim_argument_is_a_clear_error():
    bad = tessel.parse("""\
func @bad(A: f32[4, 4], B: f32[4, 4], C: f32[4, 4]) {
  evaluate @tessel_onednn_matmul(1i64, 4i64, 4i64, -4i64, address_of(A[0, 0]), 0i64, 4i64, 1i64, address_of(B[0, 0]), 0i64, 4i64, 1i64, address_of(C[0, 0]), 0i64, 4i64, 1i64, 0i64): packed
}
""")
    a, b = rand((4, 4)), rand((4, 4))
    c = np.full((4, 4), 7.0, dtype="float32")
    lib = tessel.build(bad)
    out = nd.array(c)
    with pytest.raises(tessel.RuntimeError, match="batch, M, N, K must be positive"):
        lib["bad"](nd.array(a), nd.array(b), out)
    np.testing.assert_array_equal(out.numpy(), c)  # nothing written
    with pytest.raises(tessel.TesselError, match="batch, M, N, K must be positive"):
        tessel.interpret(bad["bad"], a, b, c)
    short = tessel.parse("""\
func @short(A: f32[4, 4]) {
  evaluate @tessel_blas_gemm(32i64, address_of(A[0, 0])): packed
}
""")
    with pytest.raises(tessel.RuntimeError, match="tessel_blas_gemm: takes 16 arguments, got 2"):
        tessel.build(short)["short"](nd.array(a))


# ---- Rules written in Python -------------------------------------------------------------


def _gemm_rule(func, target):
    """A whole-matmul rule in Python: finds the one reduction block by its iter
    kinds, reads the shapes off the buffers, calls the BLAS shim."""
    blocks = []
    ir.post_order_visit(func, lambda n: blocks.append(n) if isinstance(n, ir.Block) else None)
    reductions = [b for b in blocks if [iv.kind for iv in b.iter_vars] == ["spatial", "spatial", "reduce"]]
    if len(reductions) != 1 or len(func.params) != 3:
        return "not a lone matmul"
    a, b, c = func.params
    (m, k), (_, n) = a.shape, b.shape
    call = ir.call_packed("tessel_blas_gemm",
                          [32, 1, m, n, k, a, 0, k, 1, b, 0, n, 1, c, 0, n])
    return func.with_body(ir.Evaluate(call), attrs={"scheduled": True})


def test_a_python_rule_in_a_textual_pipeline():
    dispatch.register(_gemm_rule, name="py-gemm", priority=50)
    try:
        assert ("py-gemm", 50, ["llvm"]) in [tuple(r) for r in dispatch.list_rules()]
        A, B = ph((13, 21), "A"), ph((21, 9), "B")
        mod = te.create_module([A, B, ops.matmul(A, B)], name="mm")
        out = transform.parse_pipeline("dispatch-library{rules=[py-gemm]}")(mod)
        text = str(out)
        assert "tessel_blas_gemm" in text and 'dispatched = "py-gemm"' in text
        a, b = rand((13, 21)), rand((21, 9))
        np.testing.assert_allclose(run(out, "mm", [a, b], (13, 9)), a @ b, rtol=1e-4, atol=1e-5)
        # The rule's reason reaches the log where it declines.
        X = ph((5,), "X")
        other = te.create_module([X, ops.relu(X)], name="r")
        ctx = transform.PassContext()
        with ctx:
            same = transform.parse_pipeline("dispatch-library{rules=[py-gemm]}")(other)
        assert str(same) == str(other)
        assert "py-gemm: not a lone matmul" in ctx.log
    finally:
        assert dispatch.unregister("py-gemm")
    assert "py-gemm" not in [r.name for r in dispatch.list_rules()]


def test_reregistering_replaces_and_errors_are_pass_errors():
    @dispatch.rule(name="py-bad", priority=1)
    def first(func, target):
        return 42

    A = ph((4,), "A")
    mod = te.create_module([A, ops.relu(A)], name="r")
    try:
        with pytest.raises(tessel.PassError, match="returned 42, expected a PrimFunc"):
            transform.DispatchLibrary(rules=["py-bad"])(mod)

        @dispatch.rule(name="py-bad", priority=1)
        def second(func, target):
            raise ValueError("boom")

        with pytest.raises(tessel.PassError, match="python dispatch rule 'py-bad' raised") as e:
            transform.DispatchLibrary(rules=["py-bad"])(mod)
        assert isinstance(e.value.__cause__, ValueError)
    finally:
        dispatch.unregister("py-bad")


def test_interpreter_exit_with_a_registered_rule_is_clean():
    import subprocess
    import sys
    code = (
        "import tessel\n"
        "from tessel import dispatch, te, ops, transform\n"
        "dispatch.register(lambda f, t: None, name='kept', priority=3)\n"
        "A = te.placeholder((4,), 'float32', name='A')\n"
        "transform.DispatchLibrary(rules=['kept'])(te.create_module([A, ops.relu(A)], name='r'))\n"
        "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


# ---- Convolutions ---------------------------------------------------------------------


def conv_ref(x, w, stride, pad, dilation, groups, layout):
    """A plain numpy convolution: NCHW x with OIHW w, or NHWC x with HWIO w."""
    if layout == "NHWC":
        x = x.transpose(0, 3, 1, 2)
        w = w.transpose(3, 2, 0, 1)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    t, l, b, r = pad
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (t, b), (l, r)))
    oh = (h + t + b - (kh - 1) * dilation - 1) // stride + 1
    ow = (wd + l + r - (kw - 1) * dilation - 1) // stride + 1
    out = np.zeros((n, o, oh, ow))
    per = o // groups
    for oc in range(o):
        g = oc // per
        for ry in range(kh):
            for rx in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, ry * dilation:ry * dilation + stride * oh:stride,
                           rx * dilation:rx * dilation + stride * ow:stride]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, ry, rx])
    return out.transpose(0, 2, 3, 1) if layout == "NHWC" else out


CONVS = [
    # (id, layout, c, o, k, stride, pad, dilation, groups)
    ("nchw_3x3", "NCHW", 8, 16, 3, 1, (1, 1, 1, 1), 1, 1),
    ("nchw_stride2_asym", "NCHW", 5, 7, 3, 2, (1, 0, 2, 1), 1, 1),
    ("nhwc_dilated", "NHWC", 6, 4, 3, 1, (2, 2, 2, 2), 2, 1),
    ("nchw_groups", "NCHW", 8, 12, 3, 1, (1, 1, 1, 1), 1, 4),
    ("nhwc_depthwise", "NHWC", 8, 8, 3, 2, (1, 1, 1, 1), 1, 8),
]


@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
def test_conv2d_with_bias_and_relu(case):
    _, layout, c, o, k, stride, pad, dilation, groups = case
    h = w = 11
    xs = (2, c, h, w) if layout == "NCHW" else (2, h, w, c)
    ks = (o, c // groups, k, k) if layout == "NCHW" else (k, k, c // groups, o)
    X, K = ph(xs, "X"), ph(ks, "K")
    bias = ph((o, 1, 1) if layout == "NCHW" else (o,), "bias")
    conv = ops.conv2d(X, K, strides=stride, padding=pad, dilation=dilation, groups=groups,
                      layout=layout)
    Y = ops.relu(ops.add(conv, bias))
    mod = te.create_module([X, K, bias, Y], name="conv")
    out = dispatched(mod, ["onednn"])
    text = str(out)
    assert text.count("tessel_onednn_conv2d") == 1 and "scheduled = true" in text, text
    x, kk, bb = rand(xs), rand(ks), rand(tuple(int(d) for d in bias.shape))
    got = run(out, "conv", [x, kk, bb], tuple(int(d) for d in Y.shape))
    ref = conv_ref(x, kk, stride, pad, dilation, groups, layout)
    ref = np.maximum(ref + (bb.reshape(1, o, 1, 1) if layout == "NCHW" else bb), 0)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("workload", ["bert_ffn_8x64x32", "attention_1x2x16x8"])
def test_model_like_functions_partly_dispatched_then_scheduled(workload):
    """BERT's FFN (both matmuls with their bias and GELU as post-ops) and attention
    (Q Kᵀ with its scale as a post-op, P V; the softmax between stays tessel code,
    then default-schedule'd): compiled, against the interpreter on the original."""
    mod = tessel.workloads.get(workload)
    out = transform.DefaultSchedule()(dispatched(mod, ["onednn"]))
    text = str(out)
    assert text.count("tessel_onednn_matmul") == 2, text
    func = mod[workload]
    args = [rand(tuple(int(d) for d in p.shape)) for p in func.params]
    want = [a.copy() for a in args]
    tessel.interpret(func, *want)
    got = [nd.array(a) for a in args]
    tessel.build(out)[workload](*got)
    np.testing.assert_allclose(got[-1].numpy(), want[-1], rtol=1e-4, atol=1e-5)


def test_outputs_of_library_calls_are_written_back_and_inputs_may_be_read_only():
    # The signature knows which buffer a shim writes (its output slot): an unaligned
    # numpy output is staged and copied back, read-only inputs are accepted, and an
    # output that overlaps an input is refused.
    A, B = ph((8, 16), "A"), ph((16, 4), "B")
    mod = dispatched(te.create_module([A, B, ops.matmul(A, B)], name="mm"), ["onednn"])
    ex = tessel.build(mod)
    a, b = rand((8, 16)), rand((16, 4))
    store = np.zeros(32 + 16, "float32")
    off = next(o for o in range(1, 17) if store[o:].ctypes.data % 64 != 0)
    c = store[off:off + 32].reshape(8, 4)
    a_ro, b_ro = np.broadcast_to(a, a.shape), np.broadcast_to(b, b.shape)
    ex["mm"](a_ro, b_ro, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-5)
    shared = np.zeros(128, "float32")
    with pytest.raises(tessel.ArgumentError, match=r"argument 2 \(T_matmul\) shares memory"):
        ex["mm"](shared.reshape(8, 16), b, shared[:32].reshape(8, 4))


# ---- Softmax -----------------------------------------------------------------------------

SOFTMAXES = [
    # (shape, axis, log)
    ((4, 10), -1, False),
    ((17, 33), 0, False),
    ((3, 5, 7), 1, False),
    ((6, 9), -1, True),
    ((2, 3, 4, 5), 0, True),
]


@pytest.mark.parametrize("shape,axis,log", SOFTMAXES)
def test_softmax_and_log_softmax(shape, axis, log):
    X = ph(shape, "X")
    Y = (ops.log_softmax if log else ops.softmax)(X, axis=axis)
    out = dispatched(te.create_module([X, Y], name="sm"), ["onednn"])
    assert "tessel_onednn_softmax" in str(out) and "block T_" not in str(out)
    x = rand(shape) * 4
    got = run(out, "sm", [x], shape)
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=axis, keepdims=True)
    np.testing.assert_allclose(got, x - m - np.log(s) if log else e / s, rtol=1e-5, atol=1e-6)
    y = np.zeros(shape, "float32")
    tessel.interpret(out["sm"], x, y)  # The interpreter runs the same oneDNN call.
    np.testing.assert_allclose(got, y, rtol=1e-6, atol=1e-7)


def test_attention_scores_softmax_after_a_matmul():
    # Q K^T then softmax: two library calls in one function, the scores between them.
    Q, K = ph((8, 16), "Q"), ph((12, 16), "K")
    P = ops.softmax(ops.matmul(Q, K, transpose_b=True), axis=-1)
    out = dispatched(te.create_module([Q, K, P], name="scores"), ["onednn"])
    text = str(out)
    assert "tessel_onednn_matmul" in text and "tessel_onednn_softmax" in text
    q, k = rand((8, 16)), rand((12, 16))
    s = q @ k.T
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(run(out, "scores", [q, k], (8, 12)),
                               e / e.sum(axis=-1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_a_bad_softmax_argument_is_a_clear_error():
    bad = tessel.parse("""\
func @bad(A: f32[4, 4], B: f32[4, 4]) {
  evaluate @tessel_onednn_softmax(2i64, 2i64, 0i64, 4i64, 4i64, 1i64, 1i64, 1i64, 1i64, address_of(A[0, 0]), 4i64, 1i64, 0i64, 0i64, 0i64, 0i64, address_of(B[0, 0]), 4i64, 1i64, 0i64, 0i64, 0i64, 0i64): packed
}
""")
    out = nd.array(np.full((4, 4), 7.0, dtype="float32"))
    with pytest.raises(tessel.RuntimeError, match="tessel_onednn_softmax: axis 2 of 2 dimensions"):
        tessel.build(bad)["bad"](nd.array(rand((4, 4))), out)
    assert (out.numpy() == 7.0).all()
    # An output stride of 0 would make the library write two elements in one place.
    racy = tessel.parse(str(bad).replace("2i64, 2i64, 0i64, 4i64", "2i64, 1i64, 0i64, 4i64")
                        .replace("address_of(B[0, 0]), 4i64", "address_of(B[0, 0]), 0i64"))
    with pytest.raises(tessel.RuntimeError, match="dst stride 0 of dimension 0 \\(an output needs"):
        tessel.build(racy)["bad"](nd.array(rand((4, 4))), out)
    assert (out.numpy() == 7.0).all()


# ---- Layer norm --------------------------------------------------------------------------

LAYER_NORMS = [
    # (shape, gamma, beta)
    ((4, 10), True, True),
    ((3, 5, 7), True, False),
    ((6, 9), False, True),
    ((2, 3, 16), False, False),
    ((33, 768), True, True),
]


@pytest.mark.parametrize("shape,gamma,beta", LAYER_NORMS)
def test_layer_norm(shape, gamma, beta):
    X = ph(shape, "X")
    G = ph((shape[-1],), "G") if gamma else None
    B = ph((shape[-1],), "Bt") if beta else None
    Y = ops.layer_norm(X, G, B, axis=-1, eps=1e-5)
    inputs = [X] + [t for t in (G, B) if t is not None]
    out = dispatched(te.create_module(inputs + [Y], name="ln"), ["onednn"])
    assert "tessel_onednn_layer_norm" in str(out) and "block T_" not in str(out)
    x = rand(shape) * 3 + 0.5
    g, b = rand(shape[-1]), rand(shape[-1])
    args = [x] + ([g] if gamma else []) + ([b] if beta else [])
    got = run(out, "ln", args, shape)
    m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    want = (x - m) / np.sqrt(v + 1e-5) * (g if gamma else 1.0) + (b if beta else 0.0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_layer_norm_over_two_axes_stays_tessel_code():
    # oneDNN normalises over the last axis only: a norm over two is left as it is.
    X = ph((3, 6, 9), "X")
    mod = te.create_module([X, ops.layer_norm(X, axis=(1, 2))], name="ln2")
    ctx = transform.PassContext()
    with ctx:
        out = dispatched(mod, ["onednn"])
    assert str(out) == str(mod)
    assert "skipped ln2 (no dispatch rule applies" in ctx.log


def test_bert_output_dense_residual_layer_norm():
    # dense + bias + residual as matmul post-ops, then the layer norm: two calls.
    X, W, bias, R = ph((16, 64), "X"), ph((32, 64), "W"), ph((32,), "bias"), ph((16, 32), "R")
    G, B = ph((32,), "G"), ph((32,), "Bt")
    Y = ops.layer_norm(ops.add(ops.add(ops.dense(X, W), bias), R), G, B, axis=-1)
    out = dispatched(te.create_module([X, W, bias, R, G, B, Y], name="bert_out"), ["onednn"])
    text = str(out)
    assert "tessel_onednn_matmul" in text and "tessel_onednn_layer_norm" in text
    x, w, bb, r, g, be = rand((16, 64)), rand((32, 64)), rand(32), rand((16, 32)), rand(32), rand(32)
    h = x @ w.T + bb + r
    want = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5) * g + be
    np.testing.assert_allclose(run(out, "bert_out", [x, w, bb, r, g, be], (16, 32)), want,
                               rtol=1e-4, atol=1e-5)


# ---- Pooling -----------------------------------------------------------------------------


def pool_reference(x, k, s, p, d, kind, layout):
    if layout == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    oh = (h + 2 * p - (d * (k - 1) + 1)) // s + 1
    ow = (w + 2 * p - (d * (k - 1) + 1)) // s + 1
    out = np.zeros((n, c, oh, ow), "float32")
    for i in range(oh):
        for j in range(ow):
            taps = [x[:, :, i * s + a * d - p, j * s + b * d - p]
                    for a in range(k) for b in range(k)
                    if 0 <= i * s + a * d - p < h and 0 <= j * s + b * d - p < w]
            v = np.stack(taps)
            out[:, :, i, j] = (v.max(0) if kind == "max" else
                               v.sum(0) / (k * k) if kind == "avg_in" else v.sum(0) / len(taps))
    return out.transpose(0, 2, 3, 1) if layout == "NHWC" else out


POOLS = [
    # (shape, kernel, stride, padding, dilation, kind, layout)
    ((1, 3, 8, 8), 2, 2, 0, 1, "max", "NCHW"),
    ((2, 4, 9, 9), 3, 2, 1, 1, "max", "NCHW"),
    ((1, 5, 7, 7), 3, 1, 1, 1, "avg_in", "NCHW"),
    ((1, 5, 7, 7), 3, 2, 1, 1, "avg_ex", "NCHW"),
    ((1, 8, 8, 3), 3, 2, 1, 1, "max", "NHWC"),
    ((1, 2, 9, 9), 2, 1, 0, 2, "max", "NCHW"),
    ((1, 8, 8, 3), 2, 2, 0, 1, "avg_ex", "NHWC"),
]


@pytest.mark.parametrize("case", POOLS, ids=[f"{c[5]}_{c[6]}_k{c[1]}s{c[2]}p{c[3]}d{c[4]}" for c in POOLS])
def test_pooling(case):
    shape, k, s, p, d, kind, layout = case
    X = ph(shape, "X")
    if kind == "max":
        Y = ops.max_pool2d(X, k, s, p, d, layout=layout)
    else:
        Y = ops.avg_pool2d(X, k, s, p, d, layout=layout, count_include_pad=kind == "avg_in")
    out = dispatched(te.create_module([X, Y], name="pool"), ["onednn"])
    assert "tessel_onednn_pool2d" in str(out) and "block T_" not in str(out)
    x = rand(shape)
    got = run(out, "pool", [x], tuple(int(v) for v in Y.shape))
    np.testing.assert_allclose(got, pool_reference(x, k, s, p, d, kind, layout), rtol=1e-6,
                               atol=1e-6)


def test_a_bad_pooling_argument_is_a_clear_error():
    bad = tessel.parse("""\
func @bad(A: f32[1, 1, 4, 4], B: f32[1, 1, 2, 2]) {
  evaluate @tessel_onednn_pool2d(0i64, 1i64, 1i64, 4i64, 4i64, 2i64, 2i64, 2i64, 2i64, 2i64, 2i64, 1i64, 1i64, -1i64, 0i64, 0i64, 0i64, address_of(A[0, 0, 0, 0]), 16i64, 16i64, 4i64, 1i64, address_of(B[0, 0, 0, 0]), 4i64, 4i64, 2i64, 1i64): packed
}
""")
    out = nd.array(np.full((1, 1, 2, 2), 7.0, dtype="float32"))
    with pytest.raises(tessel.RuntimeError, match="tessel_onednn_pool2d: padding must be non-negative"):
        tessel.build(bad)["bad"](nd.array(rand((1, 1, 4, 4))), out)
    assert (out.numpy() == 7.0).all()
