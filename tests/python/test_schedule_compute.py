"""Compute-location primitives from Python: compute_inline,
reverse_compute_inline, compute_at, reverse_compute_at and
sample_compute_location, checked against the interpreter, traced and replayed."""

import pytest

import tessel
from tessel import te


def matmul_bias_relu(m=17, n=31, k=23):
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    bias = te.placeholder((n,), "float32", name="bias")
    r = te.reduce_axis(k, name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute((m, n), lambda i, j: C[i, j] + bias[j], name="D")
    E = te.compute((m, n), lambda i, j: te.max(D[i, j], 0.0), name="E")
    return tessel.IRModule({"f": te.create_prim_func([A, B, bias, E])})


def test_compute_at_and_inline_keep_results():
    mod = matmul_bias_relu()
    sch = tessel.Schedule(mod)
    e = sch.get_block(name="E")
    i, j = sch.get_loops(block=e)
    i0, j0, i1, j1 = sch.tile([i, j], [[None, 8], [None, 8]])
    sch.compute_inline(block=sch.get_block(name="D"))
    sch.compute_at(block=sch.get_block(name="C"), loop=j0)
    tessel.check_same_results(mod["f"], sch.mod["f"])
    text = str(sch.trace)
    assert "sch.compute_inline(block=" in text
    assert "sch.compute_at(block=" in text and "preserve_unit_loops=False" in text
    replayed = tessel.Schedule(mod)
    tessel.Trace.from_json(sch.trace.as_json()).apply_to_schedule(replayed)
    assert tessel.structural_equal(replayed.mod, sch.mod)


def test_reverse_primitives_and_sampling():
    mod = matmul_bias_relu()
    sch = tessel.Schedule(mod)
    sch.reverse_compute_inline(block=sch.get_block(name="E"))
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    sch.reverse_compute_at(block=sch.get_block(name="D"), loop=j, preserve_unit_loops=True)
    tessel.check_same_results(mod["f"], sch.mod["f"])

    sch = tessel.Schedule(mod, seed=7)
    loc = sch.sample_compute_location(block=sch.get_block(name="D"))
    sch.compute_at(block=sch.get_block(name="D"), loop=loc)
    tessel.check_same_results(mod["f"], sch.mod["f"])
    assert "sch.sample_compute_location(block=" in str(sch.trace)


def test_illegal_compute_at_raises_and_changes_nothing():
    mod = matmul_bias_relu(4, 5, 6)
    sch = tessel.Schedule(mod)
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    before = sch.mod
    with pytest.raises(tessel.ScheduleError, match="would read partial results"):
        sch.reverse_compute_at(block=sch.get_block(name="D"), loop=k)
    with pytest.raises(tessel.ScheduleError, match="not a legal compute location"):
        sch.sample_compute_location(block=sch.get_block(name="C"), decision=0)
    assert sch.mod.same_as(before)
