"""Hostile indices: an access the verifier can prove out of bounds is refused
before machine code is made, so calling the kernel never writes or reads
outside its arrays.

    >>> B = te.compute((4, 4), lambda i, j: A[i * 1000000, j])
    >>> tessel.build(te.create_prim_func([A, B]))
    tessel.IRError: verify: ... load of buffer 'A': index vi * 1000000 reaches 3000000 ...

Building and calling run in a child process, so that a kernel that does run
out of bounds fails the test instead of killing pytest.
"""

import textwrap

import pytest

import tessel
from tessel import te

from child_process import run_child  # tests/python/child_process.py


def _out_of_bounds():
    A = te.placeholder((4, 4), "float32", name="A")
    B = te.compute((4, 4), lambda i, j: A[i * 1000000, j], name="B")
    return te.create_prim_func([A, B])


def test_verify_names_buffer_index_and_function():
    with pytest.raises(tessel.IRError) as e:
        tessel.verify(_out_of_bounds(), "gather")
    msg = str(e.value)
    assert "function 'gather'" in msg
    assert "load of buffer 'A'" in msg
    assert "vi * 1000000 reaches 3000000 in dimension 0, outside [0, 4)" in msg


def test_build_and_call_of_a_provably_out_of_bounds_kernel_is_refused(tmp_path):
    child = textwrap.dedent(
        """
        import numpy as np
        import tessel
        from tessel import te
        A = te.placeholder((4, 4), "float32", name="A")
        B = te.compute((4, 4), lambda i, j: A[i * 1000000, j], name="B")
        f = te.create_prim_func([A, B])
        try:
            m = tessel.build(f)
        except tessel.TesselError as e:
            print("REFUSED", type(e).__name__, e)
            raise SystemExit(0)
        m["main"](np.ones((4, 4), "float32"), np.zeros((4, 4), "float32"))
        print("RAN")
        """
    )
    out = run_child(child, tmp_path)
    assert out.startswith("REFUSED IRError"), out
    assert "load of buffer 'A': index vi * 1000000 reaches 3000000" in out


def test_codegen_verifies_what_it_is_given_lowered():
    # pipeline=None hands the module to codegen as it is: codegen verifies too.
    mod = tessel.transform.parse_pipeline("lower")(tessel.IRModule({"main": _out_of_bounds()}))
    with pytest.raises(tessel.TesselError, match="buffer 'A_1d': index i \\* 4000000 \\+ j reaches"):
        tessel._core.build(mod, "llvm")
