"""tessel.build with a cuda target: PTX and launches built on any machine, calls
checked before the device, a clear error without a driver, and -- on a machine
with a GPU -- results equal to the CPU's (those tests skip elsewhere)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tessel
from tessel import workloads

T = "cuda -arch=sm_90"
HERE = os.path.dirname(os.path.abspath(__file__))
ELEMENTWISE = os.path.join(HERE, "..", "lit", "gpu", "Inputs", "elementwise.tsl")


def scheduled(name):
    mod = workloads.get(name)
    return mod, tessel.transform.parse_pipeline(f'default-schedule{{target="{T}"}}')(mod)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def gpu_error():
    """None on a machine that runs GPU code, else why not (the runtime's message)."""
    with open(ELEMENTWISE) as f:
        ex = tessel.build(tessel.parse(f.read()), target=T)
    a, b = rand(64, 64), np.zeros((64, 64), "float32")
    try:
        ex["two_kernels"](a, b)
    except tessel.RuntimeError as e:
        return str(e)
    return None


needs_gpu = pytest.mark.skipif(gpu_error() is not None, reason="no CUDA driver or device")


def test_a_cuda_build_gives_ptx_and_launches():
    _, mod = scheduled("matmul_64x64x64_f32")
    ex = tessel.build(mod, target=T)
    assert isinstance(ex, tessel.cuda.CudaModule)
    assert ex.function_names == ["matmul_64x64x64_f32"]
    assert ex.kernels("matmul_64x64x64_f32") == ["matmul_64x64x64_f32_kernel0"]
    assert ".visible .entry matmul_64x64x64_f32_kernel0" in ex.ptx
    assert ex["matmul_64x64x64_f32"].signature == (
        "matmul_64x64x64_f32(A: f32[64, 64], B: f32[64, 64], C: f32[64, 64])")
    kernel = json.loads(ex.manifest)["functions"][0]["kernels"][0]
    assert kernel["block"] == [16, 16, 1] and kernel["grid"][2] == 1
    assert "matmul_64x64x64_f32" in ex and "other" not in ex


def test_two_kernels_and_a_workspace_are_listed_in_order():
    with open(ELEMENTWISE) as f:
        ex = tessel.build(tessel.parse(f.read()), target=T)
    assert ex.kernels("two_kernels") == ["two_kernels_kernel0", "two_kernels_kernel1"]
    _, softmax = scheduled("softmax_16x33")
    assert tessel.build(softmax, target=T).kernels("softmax_16x33")


def test_a_call_checks_its_arguments_before_the_device():
    _, mod = scheduled("matmul_64x64x64_f32")
    f = tessel.build(mod, target=T)["matmul_64x64x64_f32"]
    a, c = rand(64, 64), np.zeros((64, 64), "float32")
    with pytest.raises(tessel.ArgumentError, match=r"argument 1 \(B\): expected dtype f32, given f64"):
        f(a, a.astype("float64"), c)
    with pytest.raises(tessel.ArgumentError, match="argument 2 .*expected shape"):
        f(a, a, np.zeros((64, 32), "float32"))
    with pytest.raises(tessel.ArgumentError):
        f(a, a)
    with pytest.raises(tessel.ArgumentError, match="no GPU function named 'mm'"):
        tessel.build(mod, target=T)["mm"]
    np.testing.assert_array_equal(c, 0)  # Nothing ran.


@pytest.mark.skipif(gpu_error() is None, reason="a GPU is present")
def test_without_a_gpu_a_call_fails_with_one_clear_message():
    _, mod = scheduled("matmul_64x64x64_f32")
    f = tessel.build(mod, target=T)["matmul_64x64x64_f32"]
    c = np.zeros((64, 64), "float32")
    with pytest.raises(tessel.RuntimeError, match="matmul_64x64x64_f32: (no CUDA driver|cuInit|no CUDA device)"):
        f(rand(64, 64), rand(64, 64), c)
    np.testing.assert_array_equal(c, 0)
    with pytest.raises(tessel.RuntimeError, match="no CUDA driver|cuInit|no CUDA device"):
        tessel.build(mod, target=T).time_evaluator("matmul_64x64x64_f32", repeat=2)(
            rand(64, 64), rand(64, 64), c)


def test_device_arrays_name_the_device_and_say_why_not_without_one():
    with pytest.raises(tessel.ArgumentError, match="unknown device 'tpu'"):
        tessel.nd.array(rand(4), device="tpu")
    with pytest.raises(tessel.ArgumentError, match="unknown device 'cuda:x'"):
        tessel.nd.empty((4,), device="cuda:x")
    with pytest.raises(tessel.ArgumentError, match="not on cuda:1"):
        tessel.nd.empty((4,), device="cuda:1")
    assert tessel.nd.empty((2,), device="cpu:0").device == "cpu:0"
    if gpu_error() is None:
        return  # Made for real below (needs_gpu).
    with pytest.raises(tessel.RuntimeError, match="no CUDA driver|cuInit|no CUDA device"):
        tessel.nd.array(rand(4), device="cuda")


@needs_gpu
def test_on_a_gpu_device_arrays_stay_on_the_device_between_calls():
    _, mod = scheduled("matmul_64x64x64_f32")
    ex = tessel.build(mod, target=T)
    f = ex["matmul_64x64x64_f32"]
    a, b = rand(64, 64, seed=1), rand(64, 64, seed=2)
    da, db = tessel.nd.array(a, device="cuda"), tessel.nd.array(b, device="cuda")
    dc = tessel.nd.empty((64, 64), device="cuda")
    assert dc.device == "cuda:0" and "cuda:0" in repr(dc)
    np.testing.assert_array_equal(da.numpy(), a)
    f(da, db, dc)
    np.testing.assert_allclose(dc.numpy(), a @ b, rtol=1e-4, atol=1e-4)
    with pytest.raises(tessel.ArgumentError, match="a numpy view needs CPU memory"):
        dc.numpy(copy=False)
    with pytest.raises(tessel.ArgumentError, match=r"argument 1 \(B\): expected a tensor on cuda:0"):
        f(da, b, dc)  # A mix of device and host buffers.
    t = ex.time_evaluator("matmul_64x64x64_f32", repeat=3)(da, db, dc)
    assert len(t.results) == 3 and t.min > 0
    cpu = tessel.build(tessel.parse("""
func @neg(A: f32[4], B: f32[4]) {
  for i in range(0, 4) {
    block B(vi: spatial[0, 4] = i) {
      B[vi] = 0.0f32 - A[vi]
    }
  }
}"""), target="llvm")["neg"]
    with pytest.raises(tessel.ArgumentError, match="expected a tensor on the CPU, given one on cuda:0"):
        cpu(tessel.nd.empty((4,), device="cuda"), np.zeros(4, "float32"))


def cublas_dense():
    """A dense layer + ReLU, its matmul dispatched to cuBLAS, the ReLU a kernel."""
    x, w = tessel.te.placeholder((8, 16), name="X"), tessel.te.placeholder((24, 16), name="W")
    y = tessel.ops.relu(tessel.ops.dense(x, w), name="Y")
    mod = tessel.te.create_module([x, w, y], "dense_relu")
    pipeline = (f'dispatch-library{{rules=[cublas],target="{T}"}},'
                f'default-schedule{{target="{T}"}}')
    return tessel.transform.parse_pipeline(pipeline)(mod)


def test_a_cublas_dispatched_matmul_is_a_library_step_between_kernels():
    mod = cublas_dense()
    assert mod["dense_relu"].attrs["dispatched"] == "cublas"
    ex = tessel.build(mod, target=T)
    steps = json.loads(ex.manifest)["functions"][0]["kernels"]
    assert [s.get("library") for s in steps] == ["tessel_cublas_gemm", None]
    x, w = rand(8, 16, seed=1), rand(24, 16, seed=2)
    want = np.maximum(x @ w.T, 0)
    got = np.zeros((8, 24), "float32")
    tessel.interpret(mod["dense_relu"], x, w, got)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # The host's reading of the call.
    y = np.zeros((8, 24), "float32")
    if gpu_error() is not None:
        with pytest.raises(tessel.RuntimeError, match="no CUDA driver|cuInit|no CUDA device"):
            ex["dense_relu"](x, w, y)
        return
    ex["dense_relu"](x, w, y)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


def test_an_f16_cublas_gemm_accumulates_in_f32():
    a = tessel.te.placeholder((2, 8, 64), dtype="float16", name="A")
    b = tessel.te.placeholder((2, 64, 16), dtype="float16", name="B")
    c = tessel.ops.batch_matmul(a, b, name="C")
    mod = tessel.te.create_module([a, b, c], "bmm")
    mod = tessel.transform.parse_pipeline(
        f'dispatch-library{{rules=[cublas],target="{T}"}}')(mod)
    assert mod["bmm"].attrs["dispatched"] == "cublas"
    x = rand(2, 8, 64, seed=3).astype("float16")
    y = rand(2, 64, 16, seed=4).astype("float16")
    got = np.zeros((2, 8, 16), "float16")
    tessel.interpret(mod["bmm"], x, y, got)
    want = (x.astype("float32") @ y.astype("float32")).astype("float16")  # f32 sums, one rounding
    np.testing.assert_array_equal(got, want)
    out = np.zeros((2, 8, 16), "float16")
    ex = tessel.build(mod, target=T)
    assert json.loads(ex.manifest)["functions"][0]["kernels"][0]["args"][0] == {"value": 16}
    if gpu_error() is None:
        ex["bmm"](x, y, out)
        np.testing.assert_allclose(out.astype("float32"), want.astype("float32"), rtol=2e-3,
                                   atol=2e-3)


SYMBOLIC_ADD = """
func @add[n](A: f32[n], B: f32[n]) {
  for i in range(0, n) {
    block B(vi: spatial[0, n] = i) {
      reads(A[vi])
      writes(B[vi])
      B[vi] = A[vi] + 1.0f32
    }
  }
}"""


def test_a_symbolic_size_gets_a_grid_the_runtime_evaluates_per_call():
    mod = tessel.transform.parse_pipeline(f'default-schedule{{target="{T}"}}')(
        tessel.parse(SYMBOLIC_ADD))
    for n in (1, 255, 256, 1000):  # The guard's tail, exact multiples, one block.
        a, b = rand(n, seed=n), np.zeros(n, "float32")
        tessel.interpret(mod["add"], a, b)
        np.testing.assert_array_equal(b, a + 1)
    ex = tessel.build(mod, target=T)
    kernel = json.loads(ex.manifest)["functions"][0]["kernels"][0]
    assert kernel["grid"] == ["(n + 255) // 256", 1, 1] and kernel["block"] == [256, 1, 1]
    if gpu_error() is not None:
        return
    for n in (0, 1, 1000, 70000):
        a, b = rand(n, seed=n), np.zeros(n, "float32")
        ex["add"](a, b)
        np.testing.assert_array_equal(b, a + 1)


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_symbolic_reductions_take_the_reduction_rules():
    text = open(os.path.join(HERE, "..", "lit", "gpu", "symbolic-grid.tsl")).read()
    mod = tessel.transform.parse_pipeline(f'default-schedule{{target="{T}"}}')(tessel.parse(text))
    for n, m in ((1, 1), (7, 33), (3, 300)):  # One thread's element, a guarded tail, several steps.
        x, y = rand(n, m, seed=n), np.zeros((n, m), "float32")
        tessel.interpret(mod["softmax_m"], x, y)
        np.testing.assert_allclose(y, softmax_ref(x), rtol=1e-5, atol=1e-6)
        x, t = rand(n, 33, seed=m), np.zeros(1, "float32")
        tessel.interpret(mod["sum_of_row_sums"], x, t)
        np.testing.assert_allclose(t, [x.sum()], rtol=1e-5)
    ex = tessel.build(mod, target=T)
    functions = {f["name"]: f for f in json.loads(ex.manifest)["functions"]}
    softmax = functions["softmax_m"]
    assert len(softmax["kernels"]) == 1 and softmax["kernels"][0]["grid"] == ["n", 1, 1]
    assert softmax["workspaces"] == []
    assert [w["elements"] for w in functions["sum_of_row_sums"]["workspaces"]] == ["(n)"]
    if gpu_error() is not None:
        return
    for n, m in ((1, 1), (300, 1000)):
        x, y = rand(n, m, seed=n), np.zeros((n, m), "float32")
        ex["softmax_m"](x, y)
        np.testing.assert_allclose(y, softmax_ref(x), rtol=1e-5, atol=1e-6)
        x, t = rand(n, 33, seed=m), np.zeros(1, "float32")
        ex["sum_of_row_sums"](x, t)
        np.testing.assert_allclose(t, [x.sum()], rtol=1e-4)


def test_a_cpu_target_still_builds_a_cpu_module():
    mod, _ = scheduled("matmul_64x64x64_f32")
    assert isinstance(tessel.build(mod, target="llvm"), tessel.runtime.Module)


@needs_gpu
@pytest.mark.parametrize("name", ["matmul_64x64x64_f32", "matmul_17x31x23_f32", "softmax_16x33",
                                  "layernorm_8x48", "gemv_64x48", "bias_gelu_16x33",
                                  "attention_1x2x16x8"])
def test_on_a_gpu_the_default_schedules_equal_the_cpu(name):
    mod, gpu_mod = scheduled(name)
    cpu = tessel.build(mod, target="llvm")[name]
    gpu = tessel.build(gpu_mod, target=T)[name]
    params = mod[name].params  # Inputs, then the one output.
    args_cpu = [rand(*(int(d) for d in p.shape), seed=i) for i, p in enumerate(params)]
    args_cpu[-1][...] = 0
    args_gpu = [a.copy() for a in args_cpu]
    cpu(*args_cpu)
    gpu(*args_gpu)
    np.testing.assert_allclose(args_gpu[-1], args_cpu[-1], rtol=1e-4, atol=1e-4,
                               err_msg=gpu.signature)
    t = tessel.build(gpu_mod, target=T).time_evaluator(name, repeat=3)(*args_gpu)
    assert len(t.results) == 3 and t.min > 0


@needs_gpu
def test_on_a_gpu_two_kernels_share_the_device_buffers():
    with open(ELEMENTWISE) as f:
        text = f.read()
    a = rand(64, 64)
    want, got = np.zeros((64, 64), "float32"), np.zeros((64, 64), "float32")
    tessel.build(tessel.parse(text), target="llvm")["two_kernels"](a, want)
    tessel.build(tessel.parse(text), target=T)["two_kernels"](a, got)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_an_exported_library_carries_the_ptx_and_loads_back(tmp_path):
    _, mod = scheduled("matmul_64x64x64_f32")
    ex = tessel.build(mod, target=T)
    ex.export_library(str(tmp_path / "gpu_kernels.so"))
    header = (tmp_path / "gpu_kernels.h").read_text()
    assert "gpu_kernels_matmul_64x64x64_f32(TesselCudaProgram* tessel_program_" in header
    lib = tessel.load_library(str(tmp_path / "gpu_kernels.so"))
    assert isinstance(lib, tessel.cuda.CudaModule) and lib.target is None
    assert lib.ptx == ex.ptx and lib.manifest == ex.manifest
    assert lib.kernels("matmul_64x64x64_f32") == ex.kernels("matmul_64x64x64_f32")
    a, c = rand(64, 64), np.zeros((64, 64), "float32")
    with pytest.raises(tessel.ArgumentError, match="expected dtype f32"):
        lib["matmul_64x64x64_f32"](a, a.astype("float64"), c)
    if gpu_error() is None:
        lib["matmul_64x64x64_f32"](a, a, c)
        np.testing.assert_allclose(c, a @ a, rtol=1e-4, atol=1e-4)
    else:
        with pytest.raises(tessel.RuntimeError, match="no CUDA driver|cuInit|no CUDA device"):
            lib["matmul_64x64x64_f32"](a, a, c)
    # A CPU library still loads as a CPU module.
    cpu, _ = scheduled("matmul_64x64x64_f32")
    tessel.build(cpu, target="llvm").export_library(str(tmp_path / "cpu.so"))
    assert isinstance(tessel.load_library(str(tmp_path / "cpu.so")), tessel.runtime.Module)


def test_gpu_check_prepares_functions_of_symbolic_size(tmp_path):
    """tools/scripts/gpu_check.py (the device run's preparation) makes inputs at the
    sizes --var gives and passes them on to tessel-gpu-run; without them it leaves
    the function out, saying which variable is missing."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(tessel.__file__))))
    opt = os.path.join(build, "bin", "tessel-opt")
    if not os.path.exists(opt):
        pytest.skip("no tessel-opt beside the package")
    script = os.path.join(HERE, "..", "..", "tools", "scripts", "gpu_check.py")
    grid = os.path.join(HERE, "..", "lit", "gpu", "symbolic-grid.tsl")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tessel.__file__)))

    def prepare(out, *extra):
        return subprocess.run([sys.executable, script, "--opt", opt, "--out", str(out),
                               f'--pipeline=default-schedule{{target="{T}"}}', *extra, grid],
                              capture_output=True, text=True, env=env, check=True).stdout

    said = prepare(tmp_path / "none")
    assert "symbolic-grid/softmax_m: left out (symbolic size: give --var n=N)" in said
    prepare(tmp_path / "sized", "--var", "n=5", "--var", "m=40")
    run = (tmp_path / "sized" / "run.sh").read_text()
    assert "--function softmax_m --data symbolic-grid/softmax_m --repeat 50 --var m=40 --var n=5" in run
    x = np.fromfile(tmp_path / "sized" / "symbolic-grid" / "softmax_m" / "x.in", "float32")
    y = np.fromfile(tmp_path / "sized" / "symbolic-grid" / "softmax_m" / "y.expected", "float32")
    assert x.size == 5 * 40
    np.testing.assert_allclose(y, softmax_ref(x.reshape(5, 40)).ravel(), rtol=1e-5, atol=1e-6)


def test_enqueue_takes_device_arrays_and_runs_on_a_stream():
    with open(ELEMENTWISE) as f:
        mod = tessel.parse(f.read())
    ex = tessel.build(mod, target=T)
    a, b = rand(64, 64, seed=3), np.zeros((64, 64), "float32")
    with pytest.raises(tessel.ArgumentError, match="enqueued on a stream, a call takes device"):
        ex.enqueue("two_kernels", a, b)  # host arrays would need copies that wait
    with pytest.raises(tessel.ArgumentError, match="stream is a tessel.cuda.Stream or None"):
        ex.enqueue("two_kernels", a, b, stream=3)
    if gpu_error() is not None:
        with pytest.raises(tessel.RuntimeError, match="Stream: "):
            tessel.cuda.Stream()
        return
    want = np.zeros_like(b)
    tessel.interpret(mod["two_kernels"], a, want)
    s = tessel.cuda.Stream()
    da, db = tessel.nd.array(a, device="cuda"), tessel.nd.empty((64, 64), device="cuda")
    ex.enqueue("two_kernels", da, db, stream=s)
    s.synchronize()
    np.testing.assert_allclose(db.numpy(), want, rtol=1e-5, atol=1e-6)
