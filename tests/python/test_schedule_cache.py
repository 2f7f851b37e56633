"""Caching and reduction primitives from Python: cache_read, cache_write,
decompose_reduction (and the rest as they land) under their trace names,
checked by the interpreter, replayed from the printed trace, refused
transactionally."""

import numpy as np
import pytest

import tessel
from tessel import te


def matmul_module(m=24, n=20, k=12):
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis(k, name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return tessel.IRModule({"mm": te.create_prim_func([A, B, C])})


def local_accumulator(sch):
    c = sch.get_block(name="C")
    local = sch.cache_write(block=c, write_buffer_index=0, storage_scope="local")
    shared = sch.cache_read(block=c, read_buffer_index=0, storage_scope="shared")
    i, j, k = sch.get_loops(block=c)
    init = sch.decompose_reduction(block=c, loop=k)
    return local, shared, init


def test_cache_write_read_and_decompose():
    mod = matmul_module()
    sch = tessel.Schedule(mod)
    local, shared, init = local_accumulator(sch)
    assert isinstance(local, tessel.BlockRV)
    text = str(sch.mod)
    assert 'alloc_buffer C_local: f32[24, 20] scope "local"' in text
    assert "block A_shared(" in text and "block C_init(" in text
    tessel.check_same_results(mod["mm"], sch.mod["mm"])
    python = str(sch.trace)
    assert 'sch.cache_write(block=b0, write_buffer_index=0, storage_scope="local")' in python
    replayed = tessel.Schedule(mod)
    exec(python, {"sch": replayed})
    assert tessel.structural_equal(replayed.mod, sch.mod)


def test_refusals_leave_the_schedule_unchanged():
    mod = matmul_module()
    sch = tessel.Schedule(mod)
    c = sch.get_block(name="C")
    with pytest.raises(tessel.ScheduleError, match="write buffer index 3 is out of range"):
        sch.cache_write(block=c, write_buffer_index=3, storage_scope="local")
    with pytest.raises(tessel.ScheduleError, match="unknown storage scope 'texture'"):
        sch.cache_read(block=c, read_buffer_index=0, storage_scope="texture")
    i, j, k = sch.get_loops(block=c)
    sch.decompose_reduction(block=c, loop=k)
    before = sch.mod
    with pytest.raises(tessel.ScheduleError, match="block C has no init"):
        sch.decompose_reduction(block=c, loop=k)
    assert sch.mod.same_as(before)
