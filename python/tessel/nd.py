"""Arrays for compiled tessel functions: :class:`NDArray`.

An NDArray is a CPU tensor in the layout compiled code takes: dense, row-major,
64-byte aligned. Make one from numpy (a copy) or empty (zero-filled), read it
back as numpy (a copy, or a zero-copy view), and exchange it with numpy or any
DLPack library without copying::

    import numpy as np
    import tessel

    x = tessel.nd.array(np.arange(6, dtype="float32").reshape(2, 3))  # copy in
    x.shape, x.dtype                  # (2, 3), 'float32'
    x.numpy()                         # a copy
    v = x.numpy(copy=False)           # a view: v[0, 0] = 7 writes into x
    y = np.from_dlpack(x)             # zero-copy; y keeps x's memory alive
    z = tessel.nd.from_dlpack(np.ones(4))   # zero-copy; z keeps the numpy array alive

Calling compiled functions with NDArrays never copies; calling them with numpy
arrays may (see :mod:`tessel.runtime`).
"""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from . import _core
from ._core import NDArray

__all__ = ["NDArray", "array", "empty", "from_dlpack"]


def empty(shape: Union[int, Sequence[int]], dtype: Any = "float32") -> NDArray:
    """A new zero-filled NDArray of ``shape`` and ``dtype`` (``"float32"``,
    ``"f32"``, ``np.int64``, ...), dense and 64-byte aligned.

    Raises :class:`tessel.ArgumentError` for a negative extent, a size that
    overflows or a dtype tessel has no array type for."""
    return _core.nd_empty(shape, dtype)


def array(data: Any, dtype: Any = None) -> NDArray:
    """A new NDArray holding a copy of ``data`` (a numpy array or anything
    ``np.asarray`` takes), dense and 64-byte aligned whatever the layout of
    ``data``. ``dtype`` converts on the way (default: the data's own dtype).

    Raises :class:`tessel.ArgumentError` for a dtype tessel has no array type
    for (complex, object, strings, ...)."""
    source = np.asarray(data, dtype=dtype)
    out = _core.nd_empty(source.shape, source.dtype)
    out.numpy(copy=False)[...] = source
    return out


def from_dlpack(obj: Any) -> NDArray:
    """An NDArray sharing the memory of ``obj`` without copying: a numpy array
    (numpy >= 1.22), a tensor of any DLPack library, or a ``'dltensor'``
    capsule. The producer's memory stays alive while the NDArray (or anything
    sharing it) lives. Layout is kept as given; a compiled function refuses a
    strided or misaligned array when called.

    Raises :class:`tessel.ArgumentError` for an object that is no DLPack
    producer, a tensor not on the CPU or an unsupported dtype."""
    return _core.nd_from_dlpack(obj)
