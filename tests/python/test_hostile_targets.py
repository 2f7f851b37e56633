"""Hostile targets: a target string LLVM would end the process on (a 32-bit
CPU, SSE turned off, a mode feature) is a BuildError before codegen starts.

    >>> tessel.build(f, target="llvm -mcpu=i386")
    tessel.BuildError: target: CPU 'i386' cannot run 64-bit code, ...

Each build runs in a child process, so that an abort inside LLVM fails the
test instead of killing pytest.
"""

import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent(
    """
    import sys
    import tessel
    from tessel import te
    A = te.placeholder((64,), "float16", name="A")
    B = te.compute((64,), lambda i: A[i] * A[i], name="B")
    try:
        tessel.build(te.create_prim_func([A, B]), target=sys.argv[1])
        print("BUILT")
    except tessel.BuildError as e:
        print("REFUSED", e)
    """
)


@pytest.mark.parametrize("target,message", [
    ("llvm -mcpu=i386", "CPU 'i386' cannot run 64-bit code"),
    ("llvm -mcpu=i686", "CPU 'i686' cannot run 64-bit code"),
    ("llvm -mattr=-sse,-sse2", "lacks SSE2"),
    ("llvm -mcpu=x86-64 -mattr=-sse", "lacks SSE2"),
    ("llvm -mattr=-64bit-mode", "'-64bit-mode' cannot be set"),
])
def test_targets_llvm_aborts_on_are_refused_before_codegen(tmp_path, target, message):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", CHILD, target], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"the child died ({r.returncode}): {r.stdout}{r.stderr[-2000:]}"
    assert r.stdout.startswith("REFUSED target: "), r.stdout
    assert message in r.stdout
