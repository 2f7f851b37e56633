"""Hostile outputs: a compiled call refuses an output array it could not write
(read-only) and an output that shares memory with another argument, instead of
dropping the results or computing from half-overwritten inputs.

    >>> add(a, b, np.broadcast_to(np.float32(0), (1003,)))
    tessel.ArgumentError: vector_add(...): argument 2 (C): the function writes this
        buffer but the array is read-only (pass a writeable copy: arr.copy())
    >>> add(a, b, a)
    tessel.ArgumentError: vector_add(...): argument 2 (C) shares memory with
        argument 0 (A); the function writes C, so it may not overlap another argument

Whether a parameter is written comes from the function (its stores), and is
recorded in exported libraries, so a loaded library refuses the same calls.
"""

import numpy as np
import pytest

import tessel
from tessel import nd, te

N = 1003


def _vector_add():
    A = te.placeholder((N,), "float32", name="A")
    B = te.placeholder((N,), "float32", name="B")
    C = te.compute((N,), lambda i: A[i] + B[i], name="C")
    return tessel.IRModule({"vector_add": te.create_prim_func([A, B, C])})


@pytest.fixture(scope="module")
def add():
    return tessel.build(_vector_add())["vector_add"]


def _aligned(n, offset_elems=0):
    """A float32 array of n elements whose data is 64-byte aligned (plus an offset)."""
    raw = np.zeros(n + 32, "float32")
    start = (-raw.ctypes.data % 64) // 4 + offset_elems
    return raw[start:start + n]


def _rand(n=N):
    return np.random.default_rng(0).standard_normal(n).astype("float32")


@pytest.mark.parametrize("make", [
    lambda: np.broadcast_to(np.float32(0), (N,)),
    lambda: np.frombuffer(bytes(4 * N), dtype="float32"),
    lambda: np.zeros(N, "float32").copy(),  # made read-only below
    lambda: _aligned(N),                     # zero-copy path, made read-only below
])
def test_a_read_only_output_is_refused_and_nothing_runs(add, make):
    a, b = _rand(), _rand()
    c = make()
    if c.flags.writeable:
        c.setflags(write=False)
    before = c.copy()
    with pytest.raises(tessel.ArgumentError,
                       match=r"argument 2 \(C\): the function writes this buffer but the array "
                             r"is read-only"):
        add(a, b, c)
    np.testing.assert_array_equal(c, before)


def test_read_only_inputs_are_fine(add):
    a, b = _rand(), _rand()
    a.setflags(write=False)
    b_ro = np.broadcast_to(np.float32(2), (N,))
    c = np.zeros(N, "float32")
    add(a, b_ro, c)
    np.testing.assert_allclose(c, a + 2)
    add(a, b, c)
    np.testing.assert_allclose(c, a + b)


@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "misaligned"])
def test_an_output_aliasing_an_input_is_refused_whatever_the_alignment(add, offset):
    a = _aligned(N, offset)
    a[:] = _rand()
    b = _rand()
    before = a.copy()
    with pytest.raises(tessel.ArgumentError,
                       match=r"argument 2 \(C\) shares memory with argument 0 \(A\); the function "
                             r"writes C"):
        add(a, b, a)
    np.testing.assert_array_equal(a, before)


def test_a_partial_overlap_is_refused(add):
    buf = np.zeros(N + 8, "float32")
    with pytest.raises(tessel.ArgumentError, match=r"argument 2 \(C\) shares memory with "
                                                   r"argument 1 \(B\)"):
        add(_rand(), buf[8:], buf[:N])
    # Reversed strides still span the same bytes.
    rev = np.zeros(N, "float32")
    with pytest.raises(tessel.ArgumentError, match="shares memory"):
        add(rev[::-1], _rand(), rev)


def test_ndarrays_that_alias_are_refused(add):
    a = nd.array(_rand())
    with pytest.raises(tessel.ArgumentError, match=r"argument 2 \(C\) shares memory with "
                                                   r"argument 0 \(A\)"):
        add(a, nd.array(_rand()), a)


def test_inputs_may_share_memory(add):
    a = _rand()
    c = np.zeros(N, "float32")
    add(a, a, c)
    np.testing.assert_allclose(c, 2 * a)


def test_a_loaded_library_knows_which_buffers_are_written(tmp_path, add):
    path = tmp_path / "va.so"
    tessel.build(_vector_add()).export_library(str(path))
    lib = tessel.load_library(str(path))["vector_add"]
    a = _rand()
    a.setflags(write=False)
    c = np.zeros(N, "float32")
    lib(a, a, c)  # A and B only read: read-only is fine
    np.testing.assert_allclose(c, 2 * a)
    c.setflags(write=False)
    with pytest.raises(tessel.ArgumentError, match="read-only"):
        lib(a, a, c)
    b = np.zeros(N, "float32")
    with pytest.raises(tessel.ArgumentError, match="shares memory"):
        lib(b, a, b)
