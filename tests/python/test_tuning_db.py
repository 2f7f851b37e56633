"""tessel.metaschedule.Database: the tuning database from Python -- records of a
real trace, best per target, merge, JSON lines, and refused files."""
import json

import pytest

import tessel
from tessel import metaschedule, workloads


def matmul():
    mod = workloads.get("matmul_64x64x64_f32")
    return mod, mod[next(iter(mod))]


def test_records_and_best_of_a_real_trace(tmp_path):
    mod, func = matmul()
    space = metaschedule.generate_design_space(mod, target="llvm")
    trace = space.draw(3).schedule.trace
    db = metaschedule.Database(str(tmp_path / "t.db"))
    w = db.commit_workload(func)
    assert db.commit_workload(func) == w
    db.commit_record(w, "llvm", trace.as_json(), [2e-3, 2.2e-3])
    db.commit_record(w, "llvm", trace.as_json(), [1e-3])
    db.commit_record(w, "llvm", trace.as_json(), [], status="wrong_result", error="C[0, 1] differs")
    db.commit_record(w, "llvm -mcpu=znver4", trace.as_json(), [0.5e-3])
    assert len(db) == 4
    best = db.best(func, "llvm", k=5)
    assert [r.mean_seconds for r in best] == [1e-3, pytest.approx(2.1e-3)]
    assert best[0].status == "ok" and best[0].target == "llvm"
    assert json.loads(best[0].trace)["format"] == "tessel-trace"
    assert [r.status for r in db.records()][2] == "wrong_result"
    assert db.best(func, "llvm -mcpu=skylake") == []
    with pytest.raises(tessel.ArgumentError, match="unknown run status 'fine'"):
        db.commit_record(w, "llvm", trace.as_json(), [1e-3], status="fine")
    assert len(db) == 4


def test_merge_and_json_lines(tmp_path):
    _, func = matmul()
    a = metaschedule.Database(str(tmp_path / "a.db"))
    b = metaschedule.Database(str(tmp_path / "b.db"))
    a.commit_record(a.commit_workload(func), "llvm", "{}", [1e-3])
    b.commit_record(b.commit_workload(func), "llvm", "{}", [2e-3])
    assert a.merge(str(tmp_path / "b.db")) == {"records": 1, "skipped": 0, "workloads": 0}
    assert a.merge(str(tmp_path / "b.db"))["skipped"] == 1
    assert a.export_json_lines(str(tmp_path / "a.jsonl")) == 2
    c = metaschedule.Database(str(tmp_path / "c.db"))
    assert c.import_json_lines(str(tmp_path / "a.jsonl"))["records"] == 2
    assert len(c) == 2 and len(c.workloads()) == 1


def test_a_file_that_is_not_a_tuning_database_is_refused(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"\x00" * 100 + b"not sqlite" * 500)
    with pytest.raises(tessel.TesselError, match="bad.db.*file is not a database"):
        metaschedule.Database(str(bad))


def test_measure_draws_then_apply_best_then_build(tmp_path):
    # The loop a tuner runs, by hand: draw schedules from the design space, time
    # each compiled, commit the times; apply-best then replays the fastest.
    import numpy as np
    from tessel import nd, transform

    mod, func = matmul()
    name = next(iter(mod))
    space = metaschedule.generate_design_space(mod, target="llvm")
    db = metaschedule.Database(str(tmp_path / "tune.db"))
    w = db.commit_workload(func)
    a, b = np.random.rand(64, 64).astype("float32"), np.random.rand(64, 64).astype("float32")
    for seed in range(4):
        sch = space.draw(seed).schedule
        ex = tessel.build(sch.mod)
        args = [nd.array(a), nd.array(b), nd.array(np.zeros((64, 64), "float32"))]
        r = ex.time_evaluator(name, number=3, repeat=2)(*args)
        db.commit_record(w, "llvm", sch.trace.as_json(), list(r.results))
    assert len(db) == 4
    best = db.best(func, "llvm")[0]
    tuned = transform.ApplyBest(db=str(tmp_path / "tune.db"), target="llvm")(mod)
    assert tuned[name].attrs["tuned_record"] == best.id
    c = np.zeros((64, 64), "float32")
    tessel.build(tuned)[name](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_extract_tasks_groups_equal_functions():
    mm = workloads.get("matmul_17x31x23_f32")
    sm = workloads.get("softmax_16x33")
    f = mm[next(iter(mm))]
    # "b" is "a" with an attribute: the same workload.
    mod = tessel.IRModule({"a": f, "b": f.with_attr("global_symbol", "b"), "s": sm[next(iter(sm))]})
    tasks = metaschedule.extract_tasks(mod, target="llvm")
    assert [(t.name, t.weight, t.functions) for t in tasks] == [("a", 2, ["a", "b"]), ("s", 1, ["s"])]
    assert len(tasks[0].hash) == 16 and tasks[0].target == "llvm"
    scheduled = tessel.transform.DefaultSchedule(target="llvm")(mod)
    assert metaschedule.extract_tasks(scheduled) == []
