"""Measuring tuning candidates on a dask.distributed cluster.

The same work as the local runner -- build a candidate into a library, run it
checked against the unscheduled function, time it -- sent as dask jobs, each
running ``tessel-tune-worker`` processes on a dask worker::

    from distributed import LocalCluster
    from tessel import metaschedule
    from tessel.dask_runner import DaskRunner
    cluster = LocalCluster(n_workers=2, threads_per_worker=1)    # or a real scheduler
    runner = DaskRunner(cluster.scheduler_address)               # "tcp://host:8786"
    metaschedule.tune(mod, max_trials=32, db="tuning.db", runner=runner)

Every dask worker needs tessel importable (its ``tessel-tune-worker`` is the one
beside its tessel). The reference (the unscheduled function's outputs on the
seeded inputs) is computed once per task by one job and sent to every worker.
Timings are only as quiet as the workers: give each machine one worker with one
thread (``dask worker --nthreads 1``), as a tuner measuring locally runs one
candidate at a time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from typing import Callable, Dict, List, Union

from . import _core

__all__ = ["DaskRunner"]


def _run_worker(request: dict, directory: str, name: str, timeout: float) -> dict:
    """Runs tessel-tune-worker on one request in a process group of its own."""
    req = os.path.join(directory, f"{name}.json")
    res = os.path.join(directory, f"{name}-result.json")
    with open(req, "w") as f:
        json.dump(request, f)
    stage = "run" if request["kind"] != "build" else "build"
    proc = subprocess.Popen([_core.tune_worker_path(), req, res], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"status": "timeout", "error": f"{stage}: timed out after {timeout:g} s"}
    if proc.returncode != 0:
        how = (f"killed by signal {-proc.returncode} ({signal.Signals(-proc.returncode).name})"
               if proc.returncode < 0 else f"exited with status {proc.returncode}")
        tail = out.decode(errors="replace")[-2000:]
        return {"status": "build_error" if stage == "build" else "run_error",
                "error": f"{stage}: the worker {how}" + (f"; its last output:\n{tail}" if tail else "")}
    with open(res) as f:
        result = json.load(f)
    if result.get("status", "ok") != "ok":
        result["error"] = f"{stage}: {result.get('error', '')}"
    return result


def _reference_job(request: dict, timeout: float) -> Dict[str, object]:
    """On a dask worker: the task's reference, as bytes."""
    directory = tempfile.mkdtemp(prefix="tessel-dask-")
    try:
        request = dict(request, kind="reference", reference=os.path.join(directory, "ref.bin"))
        result = _run_worker(request, directory, "reference", timeout)
        if result.get("status") != "ok":
            return {"error": result.get("error", "the reference failed")}
        with open(request["reference"], "rb") as f:
            return {"bytes": f.read(), "checked_by": result.get("checked_by", "")}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _candidate_job(request: dict, trace: str, reference: bytes, build_timeout: float,
                   run_timeout: float) -> dict:
    """On a dask worker: build one candidate, then run it checked and timed."""
    directory = tempfile.mkdtemp(prefix="tessel-dask-")
    try:
        ref = os.path.join(directory, "ref.bin")
        with open(ref, "wb") as f:
            f.write(reference)
        lib = os.path.join(directory, "candidate.so")
        built = _run_worker(dict(request, kind="build", trace=trace, library=lib), directory,
                            "build", build_timeout)
        if built.get("status") != "ok":
            return built
        return _run_worker(dict(request, kind="run", library=lib, reference=ref), directory,
                           "run", run_timeout)
    except Exception as e:  # noqa: BLE001 -- any failure is this candidate's result
        return {"status": "run_error", "error": f"run: {type(e).__name__}: {e}"}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


class DaskRunner:
    """Measures candidates as dask jobs on the cluster at ``scheduler`` (an address
    such as "tcp://10.0.0.5:8786", or a ``distributed.Client``)."""

    def __init__(self, scheduler: Union[str, object], repeat: int = 3,
                 min_repeat_ms: float = 20.0, number: int = 1, seed: int = 42,
                 build_timeout: float = 120.0, run_timeout: float = 60.0,
                 reference_timeout: float = 600.0):
        from distributed import Client  # Debian: python3-distributed

        self.client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        self.repeat, self.min_repeat_ms, self.number, self.seed = repeat, min_repeat_ms, number, seed
        self.build_timeout, self.run_timeout = build_timeout, run_timeout
        self.reference_timeout = reference_timeout

    def measurer(self, task: "_core.TuningTask") -> Callable[[List[str]], List[dict]]:
        """What tune() calls per task: the reference is made now (an error when it
        fails), then each call measures a batch of traces (JSON) as jobs."""
        request = {"workload": _core.workload_text(task), "function": task.name,
                   "target": task.target, "seed": self.seed, "number": self.number,
                   "repeat": self.repeat, "min_repeat_ms": self.min_repeat_ms}
        ref = self.client.submit(_reference_job, request, self.reference_timeout,
                                 pure=False).result()
        if "error" in ref:
            raise RuntimeError(f"cannot compute the reference to check candidates against: "
                               f"{ref['error']}")
        self.checked_by = ref["checked_by"]
        reference = self.client.scatter(ref["bytes"], broadcast=True)

        def measure(traces: List[str]) -> List[dict]:
            jobs = [self.client.submit(_candidate_job, request, t, reference, self.build_timeout,
                                       self.run_timeout, pure=False) for t in traces]
            out = []
            for job in jobs:
                try:
                    out.append(job.result())
                except Exception as e:  # noqa: BLE001 -- a lost worker fails one candidate
                    out.append({"status": "run_error", "error": f"run: the dask job failed: {e}"})
            return out

        return measure
