"""Hostile hangs: long native calls stop. interpret() and check_same_results()
have a default work budget that says how to raise it, and Ctrl-C stops
interpret, check_same_results and time_evaluator with KeyboardInterrupt even
though they run without the GIL.

    >>> tessel.interpret(matmul_1024, a, b, c)
    tessel.RuntimeError: interpreter: function 'main': exceeded max_steps =
        100000000 executed statements ... (the work budget: pass max_steps=N to
        raise it, or max_steps=0 for no limit)
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tessel
from tessel import te

_LOOP = """
func @spin(A: f32[1], n: i64) {
  for i in range(0i64, n) {
    A[0] = A[0] + 1.0f32
  }
}
"""


def test_interpret_has_a_default_budget():
    assert tessel.DEFAULT_MAX_STEPS == 100_000_000
    a = np.zeros(1, "float32")
    start = time.monotonic()
    with pytest.raises(tessel.RuntimeError,
                       match=r"exceeded max_steps = 100000000 executed statements.*pass "
                             r"max_steps=N to raise it, or max_steps=0 for no limit"):
        tessel.interpret(tessel.parse(_LOOP), a, 10**12)
    assert time.monotonic() - start < 120
    # A budget that fits runs to the end; a small one stops early.
    tessel.interpret(tessel.parse(_LOOP), a, 1000, max_steps=2000)
    assert a[0] == 1000
    with pytest.raises(tessel.RuntimeError, match="exceeded max_steps = 10 "):
        tessel.interpret(tessel.parse(_LOOP), a, 1000, max_steps=10)
    with pytest.raises(tessel.ArgumentError, match="max_steps must be >= 0"):
        tessel.interpret(tessel.parse(_LOOP), a, 1000, max_steps=-1)


def test_check_same_results_has_the_same_budget():
    f = tessel.parse(_LOOP.replace("range(0i64, n)", "range(0i64, 1000000000i64)"))["spin"]
    with pytest.raises(tessel.RuntimeError, match="exceeded max_steps = 100000000"):
        tessel.check_same_results(f, f, max_steps=tessel.DEFAULT_MAX_STEPS)
    with pytest.raises(tessel.ArgumentError, match="max_steps must be >= 0"):
        tessel.check_same_results(f, f, max_steps=-5)


_CHILD = """
import sys
import numpy as np
import tessel
from tessel import te
what = sys.argv[1]
try:
    if what == "interpret":
        a = np.zeros(1, "float32")
        print("READY", flush=True)
        tessel.interpret(tessel.parse({loop!r}), a, 10**15, max_steps=0)
    elif what == "check_same_results":
        f = tessel.parse({long_loop!r})
        print("READY", flush=True)
        tessel.check_same_results(f["spin"], f["spin"], max_steps=0)
    else:
        A = te.placeholder((4096,), "float32", name="A")
        B = te.compute((4096,), lambda i: A[i] * 2.0, name="B")
        m = tessel.build(te.create_prim_func([A, B]))
        a, b = np.ones(4096, "float32"), np.zeros(4096, "float32")
        print("READY", flush=True)
        m.time_evaluator("main", number=1000, repeat=10**9)(a, b)
    print("FINISHED")
except KeyboardInterrupt:
    print("INTERRUPTED")
"""


@pytest.mark.parametrize("what", ["interpret", "check_same_results", "time_evaluator"])
def test_ctrl_c_stops_a_long_native_call(what, tmp_path):
    script = tmp_path / "child.py"
    long_loop = _LOOP.replace("range(0i64, n)", "range(0i64, 1000000000000000i64)")
    script.write_text(textwrap.dedent(_CHILD.format(loop=_LOOP, long_loop=long_loop)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, str(script), what], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "READY"
        time.sleep(1.0)  # well inside the call
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err[-2000:]
    assert out.strip() == "INTERRUPTED", out + err[-2000:]
