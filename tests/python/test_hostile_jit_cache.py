"""A bounded JIT cache: building many distinct modules keeps at most the
limit's worth of compiled code alive, modules someone holds are still found
again, and the cache can be cleared and sized from Python.

    >>> tessel.runtime.set_jit_cache_limit(8)
    >>> for k in range(300): tessel.build(scaled(k))    # 300 distinct modules
    >>> tessel.runtime.jit_cache_info()["size"]
    8
"""

import gc

import numpy as np
import pytest

import tessel
from tessel import te
from tessel.runtime import clear_jit_cache, jit_cache_info, set_jit_cache_limit


def _scaled(k, n=16):
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * float(k), name="B")
    return te.create_prim_func([A, B])


@pytest.fixture
def small_cache():
    before = jit_cache_info()["limit"]
    set_jit_cache_limit(4)
    yield
    set_jit_cache_limit(before)


def test_the_cache_keeps_at_most_its_limit(small_cache):
    for k in range(40):
        tessel.build(_scaled(1000 + k))
    gc.collect()
    assert jit_cache_info()["size"] == 4


def test_dropped_modules_beyond_the_limit_are_compiled_again(small_cache):
    tessel.build(_scaled(2000))
    for k in range(10):
        tessel.build(_scaled(2001 + k))  # pushes 2000 out of the cache
    compiles = jit_cache_info()["compiles"]
    tessel.build(_scaled(2000))
    assert jit_cache_info()["compiles"] == compiles + 1


def test_a_held_module_is_found_again_beyond_the_limit(small_cache):
    held = tessel.build(_scaled(3000))
    for k in range(10):
        tessel.build(_scaled(3001 + k))
    compiles = jit_cache_info()["compiles"]
    again = tessel.build(_scaled(3000))
    assert jit_cache_info()["compiles"] == compiles  # no compilation: the held code
    a, b = np.ones(16, "float32"), np.zeros(16, "float32")
    again["main"](a, b)
    held["main"](a, b)
    np.testing.assert_array_equal(b, 3000 * a)


def test_clear_keeps_held_modules_valid():
    m = tessel.build(_scaled(4000))
    clear_jit_cache()
    assert jit_cache_info()["size"] == 0
    a, b = np.ones(16, "float32"), np.zeros(16, "float32")
    m["main"](a, b)
    np.testing.assert_array_equal(b, 4000 * a)


def test_the_limit_is_checked():
    with pytest.raises(tessel.ArgumentError, match="takes an int"):
        set_jit_cache_limit("8")
    with pytest.raises(tessel.ArgumentError, match=">= 0"):
        set_jit_cache_limit(-1)
