"""Arrays for compiled tessel functions: :class:`NDArray`.

An NDArray is a tensor in the layout compiled code takes: dense, row-major,
64-byte aligned, in CPU memory or, with ``device="cuda"``, on the GPU. Make one from numpy (a copy) or empty (zero-filled), read it
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

A device array stays on the GPU between calls of a ``tessel.build(...,
target="cuda ...")`` module, which then reads and writes it in place::

    a = tessel.nd.array(np.ones((1024, 1024), "float32"), device="cuda")  # copy in
    c = tessel.nd.empty((1024, 1024), device="cuda")
    gpu["matmul"](a, a, c)            # no copies
    c.numpy()                         # a copy back to the host
    c.device                          # 'cuda:0'

Without a CUDA driver or device, making one raises :class:`tessel.RuntimeError`
saying why.
"""

from __future__ import annotations

from typing import Any, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._core import NDArray
from .errors import ArgumentError

# DLPack's device type codes.
_DEVICE_TYPES = {"cpu": 1, "cuda": 2}

__all__ = ["NDArray", "array", "empty", "from_dlpack"]


def _device(device: str) -> Tuple[int, int]:
    """(DLPack device type, id) of ``"cpu"``, ``"cuda"``, ``"cuda:0"``, ..."""
    if not isinstance(device, str):
        raise ArgumentError(f"device is a string ('cpu', 'cuda', 'cuda:0'), got {device!r}")
    kind, _, index = device.partition(":")
    if kind not in _DEVICE_TYPES or (index and not index.isdigit()):
        raise ArgumentError(f"unknown device {device!r}: 'cpu', 'cuda' or 'cuda:N'")
    return _DEVICE_TYPES[kind], int(index or 0)


def empty(shape: Union[int, Sequence[int]], dtype: Any = "float32",
          device: str = "cpu") -> NDArray:
    """A new zero-filled NDArray of ``shape`` and ``dtype`` (``"float32"``,
    ``"f32"``, ``np.int64``, ...), dense and 64-byte aligned, on ``device``:
    ``"cpu"`` or ``"cuda"`` (``"cuda:0"``, the GPU tessel's CUDA runtime drives).

    Raises :class:`tessel.ArgumentError` for a negative extent, a size that
    overflows, a dtype tessel has no array type for or an unknown device, and
    :class:`tessel.RuntimeError` where there is no CUDA driver or device."""
    return _core.nd_empty(shape, dtype, *_device(device))


def array(data: Any, dtype: Any = None, device: str = "cpu") -> NDArray:
    """A new NDArray holding a copy of ``data`` (a numpy array or anything
    ``np.asarray`` takes), dense and 64-byte aligned whatever the layout of
    ``data``, on ``device`` (see :func:`empty`). ``dtype`` converts on the way
    (default: the data's own dtype).

    Raises :class:`tessel.ArgumentError` for a dtype tessel has no array type
    for (complex, object, strings, ...) or an unknown device, and
    :class:`tessel.RuntimeError` where there is no CUDA driver or device."""
    source = np.asarray(data, dtype=dtype)
    device_type, device_id = _device(device)
    out = _core.nd_empty(source.shape, source.dtype, device_type, device_id)
    if device_type == _DEVICE_TYPES["cpu"]:
        out.numpy(copy=False)[...] = source
    else:
        out._copy_from_host(np.ascontiguousarray(source))
    return out


def from_dlpack(obj: Any) -> NDArray:
    """An NDArray sharing the memory of ``obj`` without copying: a numpy array
    (numpy >= 1.22), a tensor of any DLPack library, or a ``'dltensor'``
    capsule. The producer's memory stays alive while the NDArray (or anything
    sharing it) lives. Layout is kept as given; a compiled function refuses a
    strided or misaligned array when called.

    Raises :class:`tessel.ArgumentError` for an object that is no DLPack
    producer, a tensor on neither the CPU nor a CUDA device, or an unsupported
    dtype. A CUDA tensor (``torch.cuda``) stays on its device: a GPU module's
    functions take it in place."""
    return _core.nd_from_dlpack(obj)
