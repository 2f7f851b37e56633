"""tessel.metaschedule.tune end to end: tune a small matmul in worker processes,
apply the best, build, equal to numpy; the dask runner on a local cluster; bad
arguments; the plots."""
import math
import os
import subprocess

import numpy as np
import pytest

import tessel
from tessel import metaschedule, transform, workloads

QUICK = metaschedule.LocalRunner(workers=2, repeat=1, min_repeat_ms=1)


def test_tune_apply_build_equals_numpy(tmp_path):
    mod = workloads.get("matmul_64x64x64_f32")
    name = next(iter(mod))
    db = str(tmp_path / "tune.db")
    report = metaschedule.tune(mod, target="llvm", max_trials=8, batch=4, db=db,
                               strategy="evolutionary", runner=QUICK, seed=3, progress=False)
    (task,) = report.tasks
    assert task.trials == 8 and task.failed == 0
    assert math.isfinite(task.best_seconds) and len(task.curve) == 8
    assert task.curve == sorted(task.curve, reverse=True)  # best so far never worsens
    assert len(metaschedule.Database(db)) == 8
    assert "matmul_64x64x64_f32" in str(report)

    tuned = transform.ApplyBest(db=db, target="llvm")(mod)
    assert tuned[name].attrs["scheduled"]
    rng = np.random.default_rng(0)
    a, b = rng.random((64, 64), dtype=np.float32), rng.random((64, 64), dtype=np.float32)
    c = np.zeros((64, 64), dtype=np.float32)
    tessel.build(tuned, target="llvm")[name](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)

    # Again on the same database: resumes, measures 4 new ones.
    again = metaschedule.tune(mod, max_trials=4, batch=4, db=db, strategy="random",
                              runner=QUICK, progress=False)
    assert again.tasks[0].resumed == 8 and again.tasks[0].trials == 4
    assert len(metaschedule.Database(db)) == 12


def test_unknown_strategy_and_scheduler_are_argument_errors(tmp_path):
    mod = workloads.get("softmax_16x33")
    with pytest.raises(tessel.ArgumentError, match="no search strategy \"hill\""):
        metaschedule.tune(mod, max_trials=1, db=str(tmp_path / "a.db"), strategy="hill",
                          progress=False)
    with pytest.raises(tessel.ArgumentError, match="no task scheduler"):
        metaschedule.tune(mod, max_trials=1, db=str(tmp_path / "a.db"), scheduler="fifo",
                          runner=QUICK, progress=False)
    assert "evolutionary" in metaschedule.search_strategies()


class _BrokenRunner:
    def measurer(self, task):
        def measure(traces):
            raise ValueError("the cluster is on fire")
        return measure


def test_a_failing_python_runner_fails_candidates_not_the_tuner(tmp_path):
    mod = workloads.get("softmax_16x33")
    db = str(tmp_path / "b.db")
    report = metaschedule.tune(mod, max_trials=3, batch=3, db=db, strategy="random",
                               runner=_BrokenRunner(), progress=False)
    assert report.tasks[0].failed == 3
    records = metaschedule.Database(db).records()
    assert all(r.status == "run_error" and "on fire" in r.error for r in records)


# Debian's tornado warns about its own event-loop API under dask 2022.12.
@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_dask_runner_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    from tessel.dask_runner import DaskRunner

    # In this process, but on TCP: tessel-tune --dask connects from another process.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp://", dashboard_address=None) as cluster:
        runner = DaskRunner(cluster.scheduler_address, repeat=1, min_repeat_ms=1)
        try:
            mod = workloads.get("matmul_17x31x23_f32")
            db = str(tmp_path / "dask.db")
            report = metaschedule.tune(mod, max_trials=4, batch=4, db=db, strategy="random",
                                       runner=runner, progress=False)
            assert report.tasks[0].trials == 4 and report.tasks[0].failed == 0
            assert runner.checked_by == "interpreter"
            assert all(r.status == "ok" and r.seconds for r in metaschedule.Database(db).records())
            # tessel-tune --dask hands the same run to Python's dask client.
            tsl = tmp_path / "mm.tsl"
            tsl.write_text(str(mod))
            tune_exe = os.path.join(os.path.dirname(tessel._core.tune_worker_path()), "tessel-tune")
            out = subprocess.run([tune_exe, str(tsl), f"--db={tmp_path / 'cli.db'}", "--trials=2",
                                  "--batch=2", "--strategy=random", "--repeat=1",
                                  "--min-repeat-ms=1", "--workers=4",
                                  f"--dask={cluster.scheduler_address}"],
                                 capture_output=True, text=True, timeout=300)
            assert out.returncode == 0, out.stderr
            assert "matmul_17x31x23_f32" in out.stdout
            assert len(metaschedule.Database(str(tmp_path / "cli.db"))) == 2
        finally:
            runner.client.close()


def test_plots_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    from tessel import tuning_plots

    conv = tuning_plots.convergence({"random": [3e-3, 2e-3, 2e-3], "genetic": [3e-3, 1e-3, 1e-3]},
                                    str(tmp_path / "conv.png"), flops=2e6, title="mm")
    roof = tuning_plots.roofline([("mm", 2e9, 12e6, 0.01), ("softmax", 1e8, 1e8, 0.02)],
                                 200.0, 30.0, str(tmp_path / "roof.png"))
    for path in (conv, roof):
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


class _Hill(metaschedule.SearchStrategy):
    """Random draws first, then mutations of the fastest so far."""

    def propose(self, history, n):
        ok = [e for e in history if math.isfinite(e[1])]
        if not ok:
            return [self.space.draw(self.seed + k).schedule.trace for k in range(n)]
        best = min(ok, key=lambda e: e[1])[0]
        out = []
        for k in range(4 * n):
            try:
                out.append(metaschedule.mutate(self.space, best, self.seed + len(history) + k)[0])
            except tessel.TesselError:
                continue
        return out


class _Broken(metaschedule.SearchStrategy):
    def propose(self, history, n):
        return ["not a trace"]


def test_a_strategy_written_in_python(tmp_path):
    metaschedule.register_strategy("test-hill", _Hill)
    metaschedule.register_strategy("test-broken", _Broken)
    with pytest.raises(tessel.ArgumentError, match="already registered"):
        metaschedule.register_strategy("test-hill", _Hill)
    assert "test-hill" in metaschedule.search_strategies()
    mod = workloads.get("softmax_16x33")
    db = str(tmp_path / "hill.db")
    report = metaschedule.tune(mod, max_trials=6, batch=3, db=db, strategy="test-hill",
                               runner=QUICK, progress=False)
    assert report.tasks[0].trials == 6 and report.tasks[0].failed == 0
    traces = {r.trace for r in metaschedule.Database(db).records()}
    assert len(traces) == 6  # Nothing measured twice.
    with pytest.raises(tessel.ArgumentError, match="propose returned a str, not a tessel.Trace"):
        metaschedule.tune(mod, max_trials=2, db=str(tmp_path / "b.db"), strategy="test-broken",
                          runner=QUICK, progress=False)
