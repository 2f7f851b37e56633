"""Hostile allocations: a kernel whose buffer cannot be allocated (a size past
any memory, a negative extent, an extent product that overflows) returns an
error naming the buffer instead of writing through a null pointer.

    >>> m["f"](a, b, -5)
    tessel.RuntimeError: f: function 'f': cannot allocate buffer 'T' (f32[n]):
        out of memory, or a size that is negative or beyond 2^62 bytes

Calls run in a child process, so that a kernel that does crash fails the test
instead of killing pytest.
"""


import numpy as np

import tessel

from child_process import run_child  # tests/python/child_process.py

# T holds n elements on the heap (it is larger than the stack limit), filled and
# summed into B: the kernel touches all of it.
_DYNAMIC = """
func @f(A: f32[4], B: f32[4], n: i64) {
  allocate T: f32[n] scope "global"
  for i in range(0i64, n) {
    T[i] = A[0]
  }
  for j in range(0, 4) {
    B[j] = A[j] + T[0i64]
  }
}
"""

# 2^48 elements: 1 PiB, more than any machine's memory and swap, so aligned_alloc
# fails (unless the kernel is told to overcommit always: vm.overcommit_memory=1).
_STATIC = """
func @g(A: f32[4], B: f32[4], n: i64) {
  allocate T: f32[281474976710656i64] scope "global"
  for i in range(0i64, n) {
    T[i] = A[0]
  }
  for j in range(0, 4) {
    B[j] = T[n - 1i64]
  }
}
"""


def _overcommits_always():
    try:
        with open("/proc/sys/vm/overcommit_memory") as f:
            return f.read().strip() == "1"
    except OSError:
        return False

_PARALLEL = """
func @p(A: f32[4], B: f32[4], n: i64) {
  for k in parallel(0, 4) {
    allocate T: f32[n] scope "global"
    for i in range(0i64, n) {
      T[i] = A[k]
    }
    B[k] = T[0i64]
  }
}
"""


def test_heap_allocations_are_checked(tmp_path):
    lines = run_child(
        f"""
        import numpy as np
        import tessel
        cases = [("f", {_DYNAMIC!r}, n) for n in (-5, 2**61, 100000)]
        cases += [("g", {_STATIC!r}, 4)]
        cases += [("p", {_PARALLEL!r}, n) for n in (-1, 2**61, 70000)]
        for name, text, n in cases:
            m = tessel.build(tessel.parse(text), target="llvm -num-threads=2")
            a, b = np.arange(4, dtype="float32") + 1, np.zeros(4, "float32")
            args = (a, b) if n is None else (a, b, n)
            try:
                m[name](*args)
                print(name, n, "RAN", " ".join(str(x) for x in b))
            except tessel.TesselError as e:
                print(name, n, "REFUSED", type(e).__name__, e)
        """, tmp_path).strip().splitlines()
    out = {" ".join(line.split(" ", 2)[:2]): line.split(" ", 2)[2] for line in lines}
    message = "cannot allocate buffer 'T' (f32[n]): out of memory, or a size that is negative"
    for key in ("f -5", "f 2305843009213693952"):
        assert out[key].startswith("REFUSED RuntimeError f: function 'f': " + message), out[key]
    assert out["f 100000"] == "RAN 2.0 3.0 4.0 5.0"
    if not _overcommits_always():
        assert out["g 4"].startswith(
            "REFUSED RuntimeError g: function 'g': cannot allocate buffer 'T' "
            "(f32[281474976710656i64])"), out["g 4"]
    for key in ("p -1", "p 2305843009213693952"):
        assert out[key].startswith("REFUSED RuntimeError p: function 'p': " + message), out[key]
    assert out["p 70000"] == "RAN 1.0 2.0 3.0 4.0"


def test_a_module_that_failed_an_allocation_runs_again(tmp_path):
    m = tessel.build(tessel.parse(_DYNAMIC))
    a, b = np.ones(4, "float32"), np.zeros(4, "float32")
    try:
        m["f"](a, b, -1)
    except tessel.RuntimeError as e:
        assert "cannot allocate buffer 'T'" in str(e)
    else:
        raise AssertionError("a negative size was allocated")
    m["f"](a, b, 70000)
    np.testing.assert_array_equal(b, 2 * a)
