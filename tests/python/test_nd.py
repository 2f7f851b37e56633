"""tessel.nd: aligned arrays, numpy copies and views, DLPack both ways and the
lifetimes across them."""

import gc
import sys

import numpy as np
import pytest

import tessel
from tessel import nd

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "bool"]


def test_array_copies_into_aligned_memory():
    src = np.arange(12, dtype="float32").reshape(3, 4)
    x = nd.array(src)
    assert isinstance(x, nd.NDArray)
    assert x.shape == (3, 4) and x.dtype == "float32" and x.ndim == 2 and x.size == 12
    assert x.nbytes == 48 and x.is_contiguous and x.is_aligned and x.owns_memory
    assert x.data_ptr % 64 == 0
    np.testing.assert_array_equal(x.numpy(), src)
    src[0, 0] = 100  # A copy: the source is independent.
    assert x.numpy()[0, 0] == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_round_trips_every_dtype(dtype):
    src = (np.arange(10) % 3).astype(dtype)
    x = nd.array(src)
    assert x.dtype == dtype
    out = x.numpy()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, src)


def test_array_of_a_non_contiguous_source_is_dense():
    src = np.arange(40, dtype="float64").reshape(5, 8)[::2, 1::3]
    x = nd.array(src)
    assert x.shape == src.shape and x.is_contiguous and x.is_aligned
    np.testing.assert_array_equal(x.numpy(), src)


def test_array_converts_lists_and_dtypes():
    x = nd.array([[1, 2], [3, 4]], dtype="float32")
    assert x.dtype == "float32"
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [3, 4]])


def test_empty_is_zero_filled_and_takes_tessel_dtype_names():
    x = nd.empty((2, 3), "f64")
    assert x.shape == (2, 3) and x.dtype == "float64" and x.is_aligned
    assert not x.numpy().any()
    assert nd.empty(5).shape == (5,) and nd.empty(5).dtype == "float32"
    assert repr(nd.empty((2, 3), "int8")) == "tessel.nd.NDArray(shape=(2, 3), dtype=int8)"


def test_empty_arrays_with_zero_extents():
    x = nd.empty((0, 3), "float32")
    assert x.size == 0 and x.numpy().shape == (0, 3)
    assert x.numpy(copy=False).shape == (0, 3)


@pytest.mark.parametrize("shape, dtype, message", [
    ((2, -1), "float32", "negative"),
    ((2, 3), "complex64", "complex64"),
    ((2, 3), "f32x4", "vector"),
    ("ab", "float32", "a shape is a tuple of ints"),
    ((2.5,), "float32", "a shape is a tuple of ints"),
    ((2, 3), None, "dtype"),
])
def test_empty_refuses_bad_shapes_and_dtypes(shape, dtype, message):
    with pytest.raises(tessel.ArgumentError, match=message):
        nd.empty(shape, dtype)


def test_array_refuses_a_dtype_without_counterpart():
    with pytest.raises(tessel.ArgumentError, match="complex128"):
        nd.array(np.zeros(3, dtype="complex128"))


def test_numpy_copy_is_independent_and_view_shares():
    x = nd.array(np.zeros((2, 2), "float32"))
    c = x.numpy()
    c[0, 0] = 5
    assert x.numpy()[0, 0] == 0
    v = x.numpy(copy=False)
    v[1, 1] = 7
    assert x.numpy()[1, 1] == 7
    assert v.ctypes.data == x.data_ptr
    assert np.asarray(x).ctypes.data == x.data_ptr  # __array__ is the view too


def test_a_view_keeps_the_array_alive():
    x = nd.array(np.arange(1000, dtype="int64"))
    v = x.numpy(copy=False)
    del x
    gc.collect()
    np.testing.assert_array_equal(v, np.arange(1000))


def test_dlpack_device_is_the_cpu():
    assert nd.empty(3).__dlpack_device__() == (1, 0)


def test_numpy_from_dlpack_is_zero_copy_and_outlives_the_producer():
    x = nd.array(np.arange(6, dtype="float32").reshape(2, 3))
    y = np.from_dlpack(x)
    assert y.ctypes.data == x.data_ptr and y.shape == (2, 3) and y.dtype == np.float32
    # numpy marks DLPack imports read-only (DLPack cannot say writeable); writes
    # through tessel's own view show in numpy's.
    x.numpy(copy=False)[0, 1] = 42
    assert y[0, 1] == 42
    del x
    gc.collect()
    np.testing.assert_array_equal(y, [[0, 42, 2], [3, 4, 5]])


def test_from_dlpack_is_zero_copy_and_keeps_the_producer_alive():
    src = np.arange(8, dtype="float64")
    before = sys.getrefcount(src)
    x = nd.from_dlpack(src)
    assert x.data_ptr == src.ctypes.data and not x.owns_memory
    assert sys.getrefcount(src) > before  # the DLPack deleter holds the producer
    src[3] = -1
    assert x.numpy()[3] == -1
    del x
    gc.collect()
    assert sys.getrefcount(src) == before  # released exactly once


def test_from_dlpack_outlives_a_dropped_producer():
    src = np.arange(5, dtype="int32")
    x = nd.from_dlpack(src)
    del src
    gc.collect()
    np.testing.assert_array_equal(x.numpy(), np.arange(5))


def test_round_trips_keep_the_same_memory():
    # numpy -> tessel -> numpy (numpy will not re-export its read-only DLPack
    # imports, so the other way round ends in numpy).
    src = np.arange(4, dtype="int16")
    back = np.from_dlpack(nd.from_dlpack(src))
    assert back.ctypes.data == src.ctypes.data
    np.testing.assert_array_equal(back, src)
    # tessel -> tessel through a capsule, and tessel -> numpy.
    x = nd.array(np.arange(4, dtype="float32"))
    assert nd.from_dlpack(x).data_ptr == x.data_ptr
    assert np.from_dlpack(x).ctypes.data == x.data_ptr


def test_from_dlpack_keeps_strides():
    src = np.arange(20, dtype="float32")[::2]
    x = nd.from_dlpack(src)
    assert x.shape == (10,) and not x.is_contiguous
    np.testing.assert_array_equal(x.numpy(), src)


def test_from_dlpack_takes_a_capsule_once():
    cap = nd.array(np.ones(3)).__dlpack__()
    x = nd.from_dlpack(cap)
    np.testing.assert_array_equal(x.numpy(), np.ones(3))
    with pytest.raises(tessel.ArgumentError, match="consumed once"):
        nd.from_dlpack(cap)


def test_an_unconsumed_capsule_releases_its_export():
    x = nd.array(np.ones(3))
    cap = x.__dlpack__()
    del cap  # the capsule's destructor runs the deleter; x stays valid
    gc.collect()
    np.testing.assert_array_equal(x.numpy(), np.ones(3))


def test_from_dlpack_refuses_non_producers():
    with pytest.raises(tessel.ArgumentError, match="__dlpack__"):
        nd.from_dlpack([1, 2, 3])
    readonly = np.ones(3)
    readonly.flags.writeable = False
    with pytest.raises(tessel.ArgumentError, match="raised"):
        nd.from_dlpack(readonly)
