"""tessel.workloads: names, descriptions and counts, and building them."""

import numpy as np
import pytest

import tessel
from tessel import workloads


def test_list_and_info():
    names = workloads.list()
    small = workloads.list(small_only=True)
    assert "matmul_1024x1024x1024_f32" in names and "matmul_64x64x64_f32" in small
    assert set(small) < set(names)
    w = workloads.info("matmul_1024x1024x1024_f32")
    assert w.name == "matmul_1024x1024x1024_f32" and not w.small
    assert w.flops == 2 * 1024**3
    assert w.bytes == 3 * 4 * 1024**2
    assert w.description


def test_every_small_workload_builds_verifies_and_round_trips():
    for name in workloads.list(small_only=True):
        mod = workloads.get(name)
        assert mod.keys() == [name]
        tessel.verify(mod)
        tessel.assert_structural_equal(mod, tessel.parse(str(mod)))


def test_small_matmul_runs_against_numpy():
    mod = workloads.get("matmul_17x31x23_f32")
    f = mod["matmul_17x31x23_f32"]
    shapes = [p.shape for p in f.params]
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(s).astype("float32") for s in shapes[:2])
    c = np.zeros(shapes[2], "float32")
    tessel.interpret(mod, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-5)


def test_unknown_workload_lists_the_names():
    with pytest.raises(tessel.ArgumentError, match="no workload named 'matmul_2x2'.*known: matmul_"):
        workloads.get("matmul_2x2")
    with pytest.raises(tessel.ArgumentError, match="known:"):
        workloads.info("nope")
