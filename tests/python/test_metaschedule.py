"""tessel.metaschedule and the DefaultSchedule pass from Python: design-space
draws agree with the interpreter and replay as traces; the pass schedules what
nobody scheduled, compiled code matches numpy, and bad targets are clear errors."""

import numpy as np
import pytest

import tessel
from tessel import metaschedule, workloads

TARGET = "llvm -mattr=+avx,+avx2,+fma,+avx512f -num-cores=2"


def test_draws_agree_with_the_interpreter_and_replay():
    mod = workloads.get("bert_ffn_8x64x32")
    space = metaschedule.generate_design_space(mod, target=TARGET)
    assert "vector-bits=512" in space.machine and "cores=2" in space.machine
    # The machine as a target string reads back to itself, and codegen takes it too.
    assert "-num-cores=2" in space.target and "-l1d-cache=" in space.target
    again = metaschedule.generate_design_space(mod, target=space.target)
    assert again.machine == space.machine
    tessel.build(mod, target=space.target)
    func = mod[space.func]
    traces = set()
    for seed in range(1, 6):
        r = space.draw(seed)
        assert r.applied, r.not_applied
        assert any(a.startswith("multi-level-tiling") for a in r.applied)
        tessel.check_same_results(func, r.schedule.func, seed=seed)
        traces.add(str(r.schedule.trace))
        replay = tessel.Schedule(mod)
        r.schedule.trace.apply_to_schedule(replay)
        tessel.assert_structural_equal(replay.func, r.schedule.func)
    assert len(traces) >= 3


def test_heuristic_is_what_the_pass_applies():
    mod = workloads.get("softmax_16x33")
    h = metaschedule.generate_design_space(mod, target=TARGET).heuristic()
    out = tessel.transform.DefaultSchedule(target=TARGET)(mod)
    f = out[h.schedule.func_name]
    assert f.attrs["scheduled"] is True
    tessel.assert_structural_equal(f.body, h.schedule.func.body)


def test_default_schedule_compiled_matches_numpy():
    mod = workloads.get("matmul_17x31x23_f32")
    scheduled = tessel.transform.DefaultSchedule()(mod)
    ex = tessel.build(scheduled)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((17, 23), dtype=np.float32)
    b = rng.standard_normal((23, 31), dtype=np.float32)
    c = np.zeros((17, 31), np.float32)
    ex["matmul_17x31x23_f32"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_bad_arguments_are_clear_errors():
    mod = workloads.get("softmax_16x33")
    with pytest.raises(tessel.ArgumentError, match="no function 'nope'"):
        metaschedule.generate_design_space(mod, func="nope")
    with pytest.raises(tessel.ArgumentError, match="not 'rocm'"):
        metaschedule.generate_design_space(mod, target="rocm")
    with pytest.raises(tessel.TesselError, match="unknown CPU 'nehalem2'"):
        tessel.transform.DefaultSchedule(target="llvm -mcpu=nehalem2")
