"""Graph functions on a cuda target: a whole model built over its GPU kernels, its
intermediates in device storage kept from call to call, bound weights uploaded on
the first call. Without a GPU this checks the build (every call_tir a function of
the GPU program, the call's signature), the scheduled model in the interpreter
against numpy, and the one clear error a call raises, with the inputs checked
first; with a GPU, the results against numpy."""

import numpy as np
import pytest

import tessel
from tessel import graph
from tessel.errors import ArgumentError, BuildError, RuntimeError as TesselRuntimeError
from test_graph_executor import ffn_module, numpy_ffn  # The same model as on a CPU.

T = "cuda -arch=sm_90"
GPU_PIPELINE = f'legalize,fuse-ops,fuse-tir,default-schedule{{target="{T}"}},plan-memory'


def rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype("float32")


def ffn_inputs():
    return [rand(16, 8, seed=1), rand(8, 32, seed=2), rand(32, seed=3), rand(32, 8, seed=4),
            rand(8, seed=5)]


def no_gpu():
    """Why GPU code cannot run here (the runtime's message), or None."""
    ex = tessel.build(tessel.transform.parse_pipeline(GPU_PIPELINE)(ffn_module()), target=T)
    try:
        ex["ffn"](*ffn_inputs())
    except TesselRuntimeError as e:
        return str(e)
    return None


NO_GPU = no_gpu()


def test_a_model_builds_over_its_gpu_kernels():
    mod = tessel.transform.parse_pipeline(GPU_PIPELINE)(ffn_module())
    ex = tessel.build(mod, target=T)
    assert ex.function_names[0] == "ffn" and "ffn" in ex
    f = ex["ffn"]
    assert f.signature == ("ffn(x: f32[16, 8], w1: f32[8, 32], b1: f32[32], w2: f32[32, 8], "
                           "b2: f32[8])")
    assert f.result_names == ["z"]
    # Every kernel of the model is a function of the GPU program, bound to threads.
    callees = [line.split("call_tir @")[1].split("(")[0]
               for line in str(mod).splitlines() if "call_tir @" in line]
    assert len(callees) == 2
    for c in callees:
        assert ex.kernels(c), c
    # The model as scheduled for the GPU, in the interpreter (threads, barriers).
    args = ffn_inputs()
    keep = [a.copy() for a in args]
    (y,) = graph.run(mod, "ffn", args)
    np.testing.assert_allclose(y, numpy_ffn(*args), rtol=1e-5, atol=1e-5)
    if NO_GPU is not None:
        with pytest.raises(TesselRuntimeError, match="no CUDA driver"):
            f(*args)
    else:
        np.testing.assert_allclose(f(*args), numpy_ffn(*args), rtol=1e-5, atol=1e-5)
        # Device arrays are taken as they are; a second call reuses the storage.
        on_device = [tessel.nd.array(a, device="cuda") for a in args]
        np.testing.assert_allclose(f(*on_device), numpy_ffn(*args), rtol=1e-5, atol=1e-5)
    for a, k in zip(args, keep):  # inputs are never written
        np.testing.assert_array_equal(a, k)


def test_a_wrong_input_is_refused_before_the_device_is_touched():
    f = tessel.build(tessel.transform.parse_pipeline(GPU_PIPELINE)(ffn_module()), target=T)["ffn"]
    args = ffn_inputs()
    args[1] = rand(8, 31)
    with pytest.raises(ArgumentError, match=r"argument 1 \(w1\)"):
        f(*args)
    with pytest.raises(ArgumentError, match="5"):
        f(*args[:4])


def test_bound_weights_are_part_of_the_model():
    args = ffn_inputs()
    weights = {"w1": args[1], "b1": args[2], "w2": args[3], "b2": args[4]}
    mod = tessel.transform.parse_pipeline(GPU_PIPELINE)(ffn_module())
    f = tessel.build(mod, target=T, params=weights)["ffn"]
    assert f.signature == "ffn(x: f32[16, 8])"
    if NO_GPU is not None:
        with pytest.raises(TesselRuntimeError, match="no CUDA driver"):
            f(args[0])
        return
    for _ in range(2):  # uploaded on the first call, kept for the second
        np.testing.assert_allclose(f(args[0]), numpy_ffn(*args), rtol=1e-5, atol=1e-5)


SYMBOLIC = """
graph @sym[n](x: f32[n, 16], w: f32[16, 8]) {
  a: f32[n, 8] = matmul(x, w)
  b: f32[n, 8] = relu(a)
  c: f32[n] = sum(b) {axes = [1]}
  return c
}
"""


def test_a_model_of_symbolic_size():
    mod = tessel.transform.parse_pipeline(GPU_PIPELINE)(tessel.parse(SYMBOLIC))
    f = tessel.build(mod, target=T)["sym"]
    assert f.signature == "sym(x: f32[n, 16], w: f32[16, 8])"
    w = rand(16, 8, seed=9)
    for n in (1, 37):
        x = rand(n, 16, seed=n)
        (want,) = graph.run(mod, "sym", [x, w])
        np.testing.assert_allclose(want, np.maximum(x @ w, 0).sum(axis=1), rtol=1e-5, atol=1e-5)
        if NO_GPU is None:
            np.testing.assert_allclose(f(x, w), want, rtol=1e-5, atol=1e-5)


def test_exporting_a_models_gpu_program_is_refused_clearly(tmp_path):
    ex = tessel.build(tessel.transform.parse_pipeline(GPU_PIPELINE)(ffn_module()), target=T)
    with pytest.raises(BuildError, match="graph functions of a cuda module are not exported"):
        ex.export_library(str(tmp_path / "ffn.so"))


def test_kernel_level_calls_on_a_graph_name_say_it_is_a_graph():
    ex = tessel.build(tessel.transform.parse_pipeline(GPU_PIPELINE)(ffn_module()), target=T)
    for call in (lambda: ex.kernels("ffn"), lambda: ex.time_evaluator("ffn"),
                 lambda: ex.enqueue("ffn", *ffn_inputs())):
        with pytest.raises(ArgumentError, match="'ffn' is a graph function"):
            call()
