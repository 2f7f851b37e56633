"""Hostile targets: a target string LLVM would end the process on (a 32-bit
CPU, SSE turned off, a mode feature) is a BuildError before codegen starts.

    >>> tessel.build(f, target="llvm -mcpu=i386")
    tessel.BuildError: target: CPU 'i386' cannot run 64-bit code, ...

Each build runs in a child process, so that an abort inside LLVM fails the
test instead of killing pytest.
"""

import sys
import textwrap

import pytest

import tessel

from child_process import run_child  # tests/python/child_process.py

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
    out = run_child(CHILD, tmp_path, target)
    assert out.startswith("REFUSED target: "), out
    assert message in out


# CPUs whose code may use features a given machine lacks; the first one that
# does on this machine is used (none on a machine that has them all: skipped).
_FOREIGN_CPUS = ["sapphirerapids", "graniterapids", "znver5", "znver4", "skylake-avx512",
                 "alderlake", "haswell"]


def test_code_for_features_this_cpu_lacks_builds_but_is_not_called(tmp_path):
    foreign = next((cpu for cpu in _FOREIGN_CPUS
                    if tessel._core.features_missing_on_host(f"llvm -mcpu={cpu}")), None)
    if foreign is None:
        pytest.skip("this CPU has every feature of the CPUs tried")
    missing = tessel._core.features_missing_on_host(f"llvm -mcpu={foreign}")
    child = textwrap.dedent(
        f"""
        import numpy as np
        import tessel
        from tessel import te
        A = te.placeholder((1024,), "float16", name="A")
        B = te.compute((1024,), lambda i: A[i] * A[i] + A[i], name="B")
        m = tessel.build(te.create_prim_func([A, B]), target="llvm -mcpu={foreign}")
        m.export_library("foreign.so")  # building and exporting for another CPU is fine
        a, b = np.ones(1024, "float16"), np.zeros(1024, "float16")
        try:
            m["main"](a, b)
            print("RAN")
        except tessel.TesselError as e:
            print("REFUSED", type(e).__name__, e)
        try:
            m.time_evaluator("main")(a, b)
            print("TIMED")
        except tessel.TesselError as e:
            print("REFUSED", type(e).__name__, e)
        lib = tessel.load_library("foreign.so")  # the library records its CPU features
        try:
            lib["main"](a, b)
            print("RAN")
        except tessel.TesselError as e:
            print("LOADED-REFUSED", type(e).__name__, e)
        """
    )
    out = run_child(child, tmp_path)
    lines = out.strip().splitlines()
    assert len(lines) == 3 and all(l.startswith("REFUSED RuntimeError main: compiled for "
                                                f"'llvm -mcpu={foreign}'") for l in lines[:2]), out
    assert ", ".join(missing) in lines[0] and "cannot run here" in lines[0]
    assert (tmp_path / "foreign.so").exists()
    # Loaded back, the library is refused too: its metadata names the features.
    assert lines[2].startswith("LOADED-REFUSED RuntimeError main: refused: "), lines[2]
    assert "was compiled for CPU features this machine lacks" in lines[2]
    assert any(f in lines[2] for f in missing), (missing, lines[2])
