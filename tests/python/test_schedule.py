"""tessel.Schedule from Python: primitives, handles, traces (Python, JSON,
replay), transactional failures, registered schedules."""

import numpy as np
import pytest

import tessel
from tessel import te


def matmul_module(m=64, n=64, k=64):
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis(k, name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return tessel.IRModule({"mm": te.create_prim_func([A, B, C])})


def tile(sch):
    b0 = sch.get_block(name="C")
    l1, l2, l3 = sch.get_loops(block=b0)
    l4, l5 = sch.split(loop=l1, factors=[None, 16])
    l6, l7 = sch.split(loop=l2, factors=[None, 16])
    sch.reorder(l4, l6, l3, l5, l7)
    sch.parallel(loop=l4)
    sch.vectorize(loop=l7)
    return l4, l5, l6, l7


def run_matmul(mod, m=64, n=64, k=64):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype("float32")
    b = rng.standard_normal((k, n)).astype("float32")
    c = np.zeros((m, n), "float32")
    tessel.interpret(mod, a, b, c)
    return c, a @ b


def test_tile_a_matmul():
    mod = matmul_module()
    sch = tessel.Schedule(mod)
    assert sch.func_name == "mm" and sch.mod.same_as(mod)
    l4, l5, l6, l7 = tile(sch)
    assert repr(l4) == "l4" and isinstance(l4, tessel.LoopRV)
    text = str(sch.mod)
    assert "for i_0 in parallel(0, 4)" in text and "for j_1 in vectorized(0, 16)" in text
    assert str(mod) != text  # the input module is untouched
    c, ref = run_matmul(sch.mod)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-5)
    tessel.check_same_results(mod["mm"], sch.mod["mm"])
    loop = sch.get(l4)
    assert isinstance(loop, tessel.Stmt) and loop.kind == "For"
    assert sch.get(sch.get_block(name="C")).kind == "Block"


def test_trace_is_a_python_program_and_json():
    mod = matmul_module()
    sch = tessel.Schedule(mod)
    tile(sch)
    trace = sch.trace
    assert str(trace).splitlines() == [
        'b0 = sch.get_block(name="C")',
        "l1, l2, l3 = sch.get_loops(block=b0)",
        "l4, l5 = sch.split(loop=l1, factors=[None, 16])",
        "l6, l7 = sch.split(loop=l2, factors=[None, 16])",
        "sch.reorder(l4, l6, l3, l5, l7)",
        "sch.parallel(loop=l4)",
        "sch.vectorize(loop=l7)",
    ]
    assert len(trace) == 7 and trace.instructions[0] == 'b0 = sch.get_block(name="C")'
    # The printed trace runs as Python against a fresh schedule.
    replayed = tessel.Schedule(mod)
    exec(str(trace), {"sch": replayed})
    tessel.assert_structural_equal(sch.mod, replayed.mod)
    # JSON round trip, and replay onto a structurally equal module.
    back = tessel.Trace.from_json(trace.as_json())
    assert str(back) == str(trace)
    other = tessel.Schedule(matmul_module())
    back.apply_to_schedule(other)
    tessel.assert_structural_equal(sch.mod, other.mod)
    with pytest.raises(tessel.ScheduleError):
        tessel.Trace.from_json('{"format": "nope"}')


def test_replay_failure_leaves_the_target_unchanged():
    sch = tessel.Schedule(matmul_module())
    tile(sch)
    trace = sch.trace
    # Onto other shapes: 20 is not a multiple of 16, so the split gets a guard.
    small = tessel.Schedule(matmul_module(m=20, n=20, k=8))
    trace.apply_to_schedule(small)
    assert "where" in str(small.mod)
    c, ref = run_matmul(small.mod, 20, 20, 8)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-5)
    # Onto a function without block C: an error naming the instruction, nothing changed.
    unrelated = tessel.Schedule(tessel.workloads.get("softmax_16x33"))
    start, start_trace = unrelated.mod, str(unrelated.trace)
    with pytest.raises(tessel.ScheduleError, match="get_block"):
        trace.apply_to_schedule(unrelated)
    assert unrelated.mod.same_as(start) and str(unrelated.trace) == start_trace


def test_failed_primitive_raises_and_changes_nothing():
    sch = tessel.Schedule(matmul_module())
    b0 = sch.get_block(name="C")
    l1, l2, l3 = sch.get_loops(block=b0)
    mod_before, trace_before = sch.mod, str(sch.trace)
    with pytest.raises(tessel.ScheduleError) as info:
        sch.parallel(loop=l3)
    msg = str(info.value)
    assert msg.startswith("sch.parallel(loop=l3): ")
    assert "reduce" in msg and ">>" in msg  # the rule, and the block marked
    with pytest.raises(tessel.ScheduleError, match="product 48 is smaller than the extent 64"):
        sch.split(loop=l1, factors=[3, 16])
    with pytest.raises(tessel.ScheduleError, match="its blocks are C"):
        sch.get_block(name="D")
    assert sch.mod.same_as(mod_before) and str(sch.trace) == trace_before
    l4, l5 = sch.split(loop=l1, factors=[None, 16])
    with pytest.raises(tessel.ScheduleError, match="consumed by split"):
        sch.parallel(loop=l1)
    with pytest.raises(tessel.ArgumentError, match="factor"):
        sch.split(loop=l2, factors=[None, "16"])
    with pytest.raises(TypeError):
        sch.parallel(loop=b0)


def test_fuse_annotate_unit_loop_and_sampling():
    x = te.placeholder((8, 6), "float32", name="x")
    y = te.compute((8, 6), lambda i, j: x[i, j] + 1.0, name="y")
    sch = tessel.Schedule(te.create_prim_func([x, y]))
    assert sch.func_name == "main"
    b = sch.get_block(name="y")
    i, j = sch.get_loops(block=b)
    fused = sch.fuse(i, j)
    assert "i_j_fused in range(0, 48)" in str(sch.mod)
    v = sch.sample_perfect_tile(loop=fused, n=2, max_innermost_factor=8, decision=[6, 8])
    assert [sch.get(t) for t in v] == [6, 8]
    outer, inner = sch.split(loop=fused, factors=list(v))
    sch.annotate(block_or_loop=outer, ann_key="pragma", ann_val=4)
    sch.annotate(block_or_loop=b, ann_key="rule", ann_val="ew")
    sch.unannotate(block_or_loop=outer, ann_key="pragma")
    with pytest.raises(tessel.ScheduleError, match="pragma"):
        sch.unannotate(block_or_loop=outer, ann_key="pragma")
    c = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.2, 0.3, 0.5], decision=2)
    assert sch.get(c) == 4
    sch.annotate(block_or_loop=inner, ann_key="unroll", ann_val=c)
    u = sch.add_unit_loop(block_or_loop=b)
    assert isinstance(u, tessel.LoopRV)
    text = str(sch.mod)
    assert 'rule = "ew"' in text and "unroll = 4" in text
    tessel.check_same_results(sch.mod["main"], te.create_prim_func([x, y]))
    # A trace with a decision replays with another decision.
    t = sch.trace
    index = next(n for n, line in enumerate(t.instructions) if "sample_perfect_tile" in line)
    other = tessel.Schedule(te.create_prim_func([x, y]))
    t.with_decision(index, [12, 4]).apply_to_schedule(other)
    assert "range(0, 12)" in str(other.mod)


def test_copy_work_on_and_registered_schedules():
    mod = tessel.IRModule({"a": matmul_module()["mm"], "b": matmul_module(32, 32, 32)["mm"]})
    sch = tessel.Schedule(mod, func_name="b")
    assert sch.func_name == "b"
    copy = sch.copy()
    tile(copy)
    assert sch.mod.same_as(mod) and not copy.mod.same_as(mod)
    sch.work_on("a")
    assert sch.func_name == "a"
    with pytest.raises(tessel.ScheduleError):
        sch.work_on("zzz")
    names = dict(tessel.schedule.list_schedules())
    assert "matmul-cpu-tile" in names
    assert tessel.schedule.apply_schedule(sch, "matmul-cpu-tile") is True
    tessel.check_same_results(mod["a"], sch.mod["a"])
    softmax = tessel.Schedule(tessel.workloads.get("softmax_16x33"))
    assert tessel.schedule.apply_schedule(softmax, "matmul-cpu-tile") is False
    with pytest.raises(tessel.ArgumentError, match="no registered schedule"):
        tessel.schedule.apply_schedule(sch, "nope")
    with pytest.raises(tessel.ArgumentError, match="IRModule or a PrimFunc"):
        tessel.Schedule("mod")
