"""Compiled modules from Python without codegen: libraries exported from
hand-written C kernels (tests/c/kernels.c and the kernels below, following the
packed ABI of codegen/runtime/tessel_runtime.h), loaded with
tessel.load_library and called with numpy arrays, NDArrays and numbers."""

import os
import subprocess
import threading
import time

import numpy as np
import pytest

import tessel
from tessel import nd

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
RUNTIME_INCLUDE = os.path.join(ROOT, "codegen", "runtime")

# Signatures of the kernels in EXTRA_C.
EXTRA_TSL = """
func @spin(T: f64[1], seconds: f64) {
  T[0] = seconds
}
func @fail(A: f32[2]) {
  A[0] = A[1]
}
func @scalars(Out: f64[4], a: i8, b: u16, c: f16, d: bool) {
  Out[0] = f64(a)
}
"""

EXTRA_C = r"""
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "tessel_runtime.h"

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Busy-waits `seconds` (holding a core, as a long kernel does); T[0] = time spun. */
int32_t tessel_packed_spin(void* const* args, int32_t num_args) {
  double seconds = *(const double*)args[1];
  double start = Now(), now = start;
  while (now - start < seconds) now = Now();
  ((double*)tessel_arg_data(args[0]))[0] = now - start;
  return 0;
}

int32_t tessel_packed_fail(void* const* args, int32_t num_args) {
  return tessel_set_last_error("fail: the kernel reports a failure");
}

/* Out = (a, b, c as its raw bits, d): what the scalars arrived as. */
int32_t tessel_packed_scalars(void* const* args, int32_t num_args) {
  double* out = (double*)tessel_arg_data(args[0]);
  uint16_t c;
  memcpy(&c, args[3], 2);
  out[0] = (double)*(const int64_t*)args[1];
  out[1] = (double)*(const int64_t*)args[2];
  out[2] = (double)c;
  out[3] = (double)*(const uint8_t*)args[4];
  return 0;
}
"""


def compile_object(source_path, out_dir):
    obj = os.path.join(out_dir, os.path.basename(source_path) + ".o")
    subprocess.run([os.environ.get("CC", "cc"), "-c", "-fPIC", "-O2", "-I", RUNTIME_INCLUDE,
                    source_path, "-o", obj], check=True)
    with open(obj, "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def libdir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("libs"))


@pytest.fixture(scope="module")
def kernels(libdir):
    """vector_add(A: f32[n], B: f32[n], C: f32[n], n: i32) and
    axpy(X: f32[4, 250], Y: f32[4, 250], a: f32) from tests/c."""
    mod = tessel.load(os.path.join(ROOT, "tests", "c", "kernels.tsl"))
    code = compile_object(os.path.join(ROOT, "tests", "c", "kernels.c"), libdir)
    path = os.path.join(libdir, "kernels.so")
    tessel.runtime.export_object(mod, code, path)
    return tessel.load_library(path)


@pytest.fixture(scope="module")
def extra(libdir):
    src = os.path.join(libdir, "extra.c")
    with open(src, "w") as f:
        f.write(EXTRA_C)
    path = os.path.join(libdir, "extra.so")
    tessel.runtime.export_object(tessel.parse(EXTRA_TSL), compile_object(src, libdir), path)
    return tessel.load_library(path)


def aligned(shape, dtype, offset=0):
    """A numpy array whose data starts `offset` bytes past a 64-byte boundary."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.zeros(n * dtype.itemsize + 128, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    return raw[start:start + n * dtype.itemsize].view(dtype).reshape(shape)


# ---- loading and exporting -------------------------------------------------------

def test_export_writes_a_library_and_its_header(kernels, libdir):
    assert kernels.function_names == ["vector_add", "axpy"]
    assert kernels.library_path.endswith("kernels.so") and kernels.target is None
    assert "vector_add" in kernels and "nope" not in kernels
    with open(os.path.join(libdir, "kernels.h")) as f:
        header = f.read()
    assert "kernels_vector_add(TesselModule*" in header
    assert kernels["axpy"].signature == "axpy(X: f32[4, 250], Y: f32[4, 250], a: f32)"


def test_load_library_refuses_missing_and_foreign_files(tmp_path):
    with pytest.raises(tessel.RuntimeError, match="nothing-here.so"):
        tessel.load_library(str(tmp_path / "nothing-here.so"))
    text = tmp_path / "text.so"
    text.write_text("not a library")
    with pytest.raises(tessel.RuntimeError, match="text.so"):
        tessel.load_library(str(text))


def test_export_refuses_bad_object_code(tmp_path):
    mod = tessel.load(os.path.join(ROOT, "tests", "c", "kernels.tsl"))
    with pytest.raises(tessel.BuildError):
        tessel.runtime.export_object(mod, b"not an object", str(tmp_path / "bad.so"))
    assert not (tmp_path / "bad.so").exists()


def test_export_refuses_an_object_without_the_entry_points(tmp_path):
    src = tmp_path / "empty.c"
    src.write_text("int unrelated(void) { return 0; }\n")
    code = compile_object(str(src), str(tmp_path))
    mod = tessel.load(os.path.join(ROOT, "tests", "c", "kernels.tsl"))
    with pytest.raises(tessel.BuildError, match="tessel_packed_vector_add"):
        tessel.runtime.export_object(mod, code, str(tmp_path / "missing.so"))


def test_a_loaded_library_is_not_exported_again(kernels, tmp_path):
    with pytest.raises(tessel.BuildError, match="already a library"):
        kernels.export_library(str(tmp_path / "again.so"))


# ---- calls -------------------------------------------------------------------------

def test_numpy_arrays_are_written_in_place(kernels):
    a = np.arange(1000, dtype="float32")
    b = np.full(1000, 0.5, "float32")
    for c in (aligned(1000, "float32"), aligned(1000, "float32", offset=4),
              np.zeros(1000, "float32")):
        kernels["vector_add"](a, b, c, 1000)
        np.testing.assert_array_equal(c, a + b)


def test_strided_and_read_only_arrays_are_staged(kernels):
    x = np.random.rand(4, 250).astype("float32")
    x.flags.writeable = False              # a read-only input is copied in
    big = np.ones((4, 500), "float32")
    y = big[:, ::2]                        # a strided output is copied in and out
    kernels["axpy"](x, y, 2.0)
    np.testing.assert_allclose(y, 2 * x + 1, rtol=1e-6)
    np.testing.assert_array_equal(big[:, 1::2], 1)  # the gaps are untouched
    yt = np.ones((250, 4), "float32").T    # a transposed output
    kernels["axpy"](x, yt, 3)
    np.testing.assert_allclose(yt, 3 * x + 1, rtol=1e-6)


def test_ndarrays_are_passed_without_copies(kernels):
    a = nd.array(np.arange(64, dtype="float32"))
    b = nd.array(np.ones(64, "float32"))
    c = nd.empty(64, "float32")
    view = c.numpy(copy=False)
    kernels["vector_add"](a, b, c, 64)
    np.testing.assert_array_equal(view, np.arange(64) + 1)


def test_dlpack_producers_are_accepted(kernels):
    class Producer:  # any object with __dlpack__, as other libraries' tensors
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, stream=None):
            return self.arr.__dlpack__()

    a, b, c = (aligned(8, "float32") for _ in range(3))
    a[:] = 1
    b[:] = 2
    kernels["vector_add"](Producer(a), Producer(b), Producer(c), 8)
    np.testing.assert_array_equal(c, 3)


def test_ndarrays_with_a_bad_layout_are_refused(kernels):
    b, c = np.zeros(10, "float32"), np.zeros(10, "float32")
    strided = nd.from_dlpack(np.zeros(20, "float32")[::2])
    with pytest.raises(tessel.ArgumentError, match=r"argument 0 \(A\): expected compact row-major"):
        kernels["vector_add"](strided, b, c, 10)
    misaligned = nd.from_dlpack(aligned(10, "float32", offset=4))
    with pytest.raises(tessel.ArgumentError, match=r"argument 1 \(B\): expected data \+ byte_offset aligned to 64"):
        kernels["vector_add"](b, misaligned, c, 10)


SIG = r"vector_add\(A: f32\[n\], B: f32\[n\], C: f32\[n\], n: i32\): "


@pytest.mark.parametrize("make_args, message", [
    (lambda a, c: (a, a, c), SIG + "expected 4 arguments, given 3"),
    (lambda a, c: (a, a, c, 10, 10), SIG + "expected 4 arguments, given 5"),
    (lambda a, c: (a, a.astype("float64"), c, 10), SIG + r"argument 1 \(B\): expected dtype f32, given f64"),
    (lambda a, c: (a, a, c.astype("complex64"), 10), r"argument 2 \(C\): numpy dtype complex64 has no tessel counterpart"),
    (lambda a, c: (a, a.reshape(2, 5), c, 10), r"argument 1 \(B\): expected 1 dimension"),
    (lambda a, c: (a, a[:9], c, 10), r"argument 1 \(B\): dimension 0 is n = 9"),
    (lambda a, c: (a, a, c, 11), r"dimension 0 is n = 10, but argument 3 \(n\) gave n = 11"),
    (lambda a, c: (a, [1.0] * 10, c, 10), r"argument 1 \(B\): expected a numpy array or tessel.nd.NDArray for B: f32\[n\], given list"),
    (lambda a, c: (None, a, c, 10), r"argument 0 \(A\): expected a numpy array .* given NoneType"),
    (lambda a, c: (a, a, c, 10.0), r"argument 3 \(n\): expected an integer for n: i32, given 10.0"),
    (lambda a, c: (a, a, c, True), r"argument 3 \(n\): expected an integer"),
    (lambda a, c: (a, a, c, 2**31), r"argument 3 \(n\): the integer does not fit in i32"),
    (lambda a, c: (a, a, c, "10"), r"argument 3 \(n\): expected an integer"),
    (lambda a, c: (a, a, c.astype(">f4"), 10), r"argument 2 \(C\): the array's byte order"),
])
def test_bad_arguments_raise_and_change_nothing(kernels, make_args, message):
    a = np.arange(10, dtype="float32")
    c = np.zeros(10, "float32")
    with pytest.raises(tessel.ArgumentError, match=message):
        kernels["vector_add"](*make_args(a, c))
    assert not c.any()


def test_constant_extents_are_checked(kernels):
    with pytest.raises(tessel.ArgumentError, match=r"argument 1 \(Y\): expected shape \[4, 250\], given \[4, 251\]"):
        kernels["axpy"](np.zeros((4, 250), "float32"), np.zeros((4, 251), "float32"), 1.0)


def test_unknown_functions_raise(kernels):
    with pytest.raises(tessel.ArgumentError, match=r"no function 'matmul' .*\(it has: vector_add, axpy\)"):
        kernels["matmul"]
    with pytest.raises(tessel.ArgumentError, match="by name"):
        kernels[0]


def test_scalars_arrive_in_their_parameter_types(extra):
    out = np.zeros(4, "float64")
    extra["scalars"](out, -7, 65535, 1.5, True)
    assert out.tolist() == [-7, 65535, float(np.float16(1.5).view(np.uint16)), 1]
    extra["scalars"](out, np.int8(3), np.uint16(2), np.float32(0.5), np.bool_(False))
    assert out.tolist() == [3, 2, float(np.float16(0.5).view(np.uint16)), 0]


@pytest.mark.parametrize("args, message", [
    ((128, 1, 1.0, True), r"argument 1 \(a\): the integer does not fit in i8"),
    ((1, -1, 1.0, True), r"argument 2 \(b\): the integer does not fit in u16"),
    ((1, 65536, 1.0, True), r"argument 2 \(b\): the integer does not fit in u16"),
    ((1, 1, "x", True), r"argument 3 \(c\): expected a number"),
    ((1, 1, 1.0, 1), r"argument 4 \(d\): expected True or False for d: bool, given 1"),
])
def test_bad_scalars_raise(extra, args, message):
    with pytest.raises(tessel.ArgumentError, match=message):
        extra["scalars"](np.zeros(4, "float64"), *args)


def test_a_failing_kernel_raises_runtime_error(extra):
    a = np.ones(2, "float32")
    with pytest.raises(tessel.RuntimeError, match="fail: the kernel reports a failure"):
        extra["fail"](a)
    assert isinstance(tessel.RuntimeError("x"), RuntimeError)


# ---- the GIL, threads, timing -------------------------------------------------------

def ticks_during(work):
    """Runs work() while another Python thread ticks every millisecond; returns
    how long work took and how many ticks fell inside it. A tick needs the GIL,
    so with the GIL held all along none could fall inside (one might slip in
    before the call proper starts)."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    time.sleep(0.02)
    start = time.perf_counter()
    work()
    end = time.perf_counter()
    stop.set()
    t.join()
    return end - start, len([x for x in ticks if start < x < end])


def test_other_python_threads_run_during_a_call(extra):
    out = np.zeros(1, "float64")
    elapsed, ticks = ticks_during(lambda: extra["spin"](out, 0.3))   # 0.3 s in compiled code
    assert out[0] >= 0.3 and elapsed >= 0.3
    assert ticks >= 5


def test_time_evaluator_reports_every_repeat(kernels):
    a, b, c = (nd.array(np.ones(1000, "float32")) for _ in range(3))
    r = kernels.time_evaluator("vector_add", number=5, repeat=4)(a, b, c, 1000)
    assert isinstance(r, tessel.runtime.BenchmarkResult)
    assert len(r.results) == 4 and all(t > 0 for t in r.results)
    assert r.number == 5 and r.total_calls == 1 + 5 * 4  # one warm-up call
    assert r.min <= r.median <= r.max and r.min <= r.mean <= r.max and r.std >= 0
    np.testing.assert_array_equal(c.numpy(), 2)


def test_time_evaluator_grows_number_and_flushes(extra):
    out = np.zeros(1, "float64")
    # A call that returns at once cannot fill 50 ms: number must grow.
    r = extra.time_evaluator("spin", number=1, repeat=2, min_repeat_ms=50, flush_cache=True,
                             warmup=0)(out, 0.0)
    assert r.number > 1 and len(r.results) == 2
    assert r.total_calls >= r.number * 2
    # Each figure is per call: a kernel spinning 2 ms measures at least that.
    r = extra.time_evaluator("spin", number=2, repeat=2, flush_cache=True)(out, 0.002)
    assert all(t >= 0.002 for t in r.results)


def test_time_evaluator_writes_staged_arrays_back(kernels):
    a = np.arange(10, dtype="float32")
    c = np.zeros(20, "float32")[::2]
    kernels.time_evaluator("vector_add")(a, a, c, 10)
    np.testing.assert_array_equal(c, 2 * a)


@pytest.mark.parametrize("options, message", [
    (dict(number=0), "number"),
    (dict(repeat=0), "repeat"),
    (dict(min_repeat_ms=-1), "min_repeat_ms"),
    (dict(number=1.5), "number is an int"),
    (dict(min_repeat_ms="1"), "min_repeat_ms is a number"),
])
def test_time_evaluator_refuses_bad_options(kernels, options, message):
    a, c = np.ones(10, "float32"), np.zeros(10, "float32")
    with pytest.raises(tessel.ArgumentError, match=message):
        kernels.time_evaluator("vector_add", **options)(a, a, c, 10)


def test_time_evaluator_checks_arguments(kernels):
    a = np.ones(10, "float32")
    with pytest.raises(tessel.ArgumentError, match="expected 4 arguments, given 2"):
        kernels.time_evaluator("vector_add")(a, a)
    with pytest.raises(tessel.ArgumentError, match="no function 'nope'"):
        kernels.time_evaluator("nope")


def test_thread_count(kernels):
    default = tessel.get_num_threads()
    try:
        tessel.set_num_threads(3)
        assert tessel.get_num_threads() == 3
        a = np.arange(100, dtype="float32")
        c = np.zeros(100, "float32")
        kernels["vector_add"](a, a, c, 100)   # parallel loop over 3 threads
        np.testing.assert_array_equal(c, 2 * a)
        with pytest.raises(tessel.ArgumentError, match="at most 1024"):
            tessel.set_num_threads(5000)
    finally:
        tessel.set_num_threads(0)
    assert tessel.get_num_threads() == default


def test_wrong_types_raise_argument_errors():
    with pytest.raises(tessel.ArgumentError, match="set_num_threads takes an int"):
        tessel.set_num_threads("4")
    with pytest.raises(tessel.ArgumentError, match="a path is a str"):
        tessel.load_library(3)
    with pytest.raises(tessel.ArgumentError, match="takes an IRModule"):
        tessel.runtime.export_object("func @f() {}", b"", "f.so")
    with pytest.raises(tessel.ArgumentError, match="object_code is bytes"):
        tessel.runtime.export_object(tessel.parse(EXTRA_TSL), "text", "f.so")
