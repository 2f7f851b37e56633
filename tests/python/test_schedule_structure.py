"""blockize, tensorize, transform_layout and pad_einsum from Python: the
primitives under their C++ names, index maps as lambdas or text, tensor
intrinsics registered from Python, and results checked by the interpreter."""

import numpy as np
import pytest

import tessel
from tessel import te


def matmul_module(m, n, k):
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis(k, name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return tessel.IRModule({"mm": te.create_prim_func([A, B, C])})


def matmul_relu_module(m, n, k):
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis(k, name="k")
    T = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="T")
    R = te.compute((m, n), lambda i, j: te.max(T[i, j], 0.0), name="R")
    return tessel.IRModule({"mm_relu": te.create_prim_func([A, B, R])})


def test_pad_tile_and_tensorize_an_odd_matmul():
    mod = matmul_module(7, 19, 5)
    sch = tessel.Schedule(mod)
    c = sch.get_block(name="C")
    sch.pad_einsum(block=c, padding=[4, 16, 1])
    i, j, k = sch.get_loops(block=c)
    i0, i1 = sch.split(loop=i, factors=[None, 4])
    j0, j1 = sch.split(loop=j, factors=[None, 16])
    sch.reorder(i0, j0, k, i1, j1)
    assert "f32_fma_4x16" in tessel.schedule.list_tensor_intrins()
    sch.tensorize(block_or_loop=i1, intrin_name="f32_fma_4x16")
    text = str(sch.mod)
    assert 'tensorized = "f32_fma_4x16"' in text and "fma(broadcast(A_pad[" in text
    tessel.check_same_results(mod["mm"], sch.mod["mm"])
    rng = np.random.default_rng(0)
    a = rng.standard_normal((7, 5)).astype("float32")
    b = rng.standard_normal((5, 19)).astype("float32")
    out = np.zeros((7, 19), "float32")
    tessel.interpret(sch.mod, a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-5)
    # The trace prints the primitives under their names and replays as Python.
    lines = str(sch.trace).splitlines()
    assert "sch.pad_einsum(block=b0, padding=[4, 16, 1])" in lines
    assert 'sch.tensorize(block_or_loop=l5, intrin_name="f32_fma_4x16")' in lines
    replayed = tessel.Schedule(mod)
    exec(str(sch.trace), {"sch": replayed})
    tessel.assert_structural_equal(sch.mod, replayed.mod)


def test_blockize_returns_the_outer_block():
    mod = matmul_module(8, 32, 3)
    sch = tessel.Schedule(mod)
    c = sch.get_block(name="C")
    i, j, k = sch.get_loops(block=c)
    j0, j1 = sch.split(loop=j, factors=[None, 16])
    outer = sch.blockize(loop=j1)
    assert isinstance(outer, tessel.BlockRV)
    assert "block C_o(" in str(sch.mod)
    tessel.check_same_results(mod["mm"], sch.mod["mm"])


def test_transform_layout_takes_a_lambda_or_its_text():
    mod = matmul_relu_module(32, 8, 3)
    sch = tessel.Schedule(mod)
    t = sch.get_block(name="T")
    sch.transform_layout(block=t, buffer="T", index_map=lambda i, j: (i // 16, j, i % 16))
    assert "alloc_buffer T: f32[2, 8, 16]" in str(sch.mod)
    tessel.check_same_results(mod["mm_relu"], sch.mod["mm_relu"])
    assert str(sch.trace).splitlines()[-1] == (
        'sch.transform_layout(block=b0, buffer="T", index_map="lambda i, j: (i // 16, j, i % 16)")')
    text = tessel.Schedule(mod)
    text.transform_layout(block=text.get_block(name="T"), buffer=2,
                          index_map="lambda i, j: (i // 16, j, i % 16)")
    with pytest.raises(tessel.ScheduleError, match="is a parameter of function"):
        text.transform_layout(block=text.get_block(name="T"), buffer="A",
                              index_map=lambda i, j: (j, i))
    with pytest.raises(TypeError, match="floor division"):
        sch.transform_layout(block=t, buffer="T", index_map=lambda i, j: (i / 2, j))


def test_register_a_tensor_intrinsic_from_python():
    tessel.schedule.register_tensor_intrin("py_dot4", """
func @desc(A: f32[4], B: f32[4], C: f32[1]) {
  for k in range(0, 4) {
    block update(vk: reduce[0, 4] = k) {
      reads(C[0], A[vk], B[vk])
      writes(C[0])
      C[0] = C[0] + A[vk] * B[vk]
    }
  }
}

func @impl(A: f32[4], B: f32[4], C: f32[1]) {
  C[0] = C[0] + A[0] * B[0] + A[1] * B[1] + A[2] * B[2] + A[3] * B[3]
}
""", replace=True)
    mod = tessel.parse("""
func @dot(A: f32[12], B: f32[12], C: f32[1]) {
  for k in range(0, 12) {
    block C(vk: reduce[0, 12] = k) {
      reads(A[vk], B[vk])
      writes(C[0])
      init {
        C[0] = 0.0f32
      }
      C[0] = C[0] + A[vk] * B[vk]
    }
  }
}
""")
    sch = tessel.Schedule(mod)
    (k,) = sch.get_loops(block=sch.get_block(name="C"))
    k0, k1 = sch.split(loop=k, factors=[None, 4])
    sch.tensorize(block_or_loop=k1, intrin_name="py_dot4")
    tessel.check_same_results(mod["dot"], sch.mod["dot"])
    with pytest.raises(tessel.ScheduleError, match="no tensor intrinsic named 'nope'"):
        sch.tensorize(block_or_loop=k0, intrin_name="nope")
