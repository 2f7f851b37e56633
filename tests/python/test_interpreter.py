"""tessel.interpret on numpy arrays: every dtype, symbolic shapes, scalars,
strided and read-only arrays, and every way the arguments can be wrong."""

import numpy as np
import pytest

import tessel
from tessel import te

COPY = """\
func @copy(A: {t}[4], B: {t}[4]) {{
  for i in range(0, 4) {{
    B[i] = A[i]
  }}
}}
"""

DTYPES = [("i8", "int8"), ("i16", "int16"), ("i32", "int32"), ("i64", "int64"),
          ("u8", "uint8"), ("u16", "uint16"), ("u32", "uint32"), ("u64", "uint64"),
          ("f16", "float16"), ("f32", "float32"), ("f64", "float64"), ("bool", "bool")]


@pytest.mark.parametrize("tessel_dtype,numpy_dtype", DTYPES)
def test_every_dtype_copies_exactly(tessel_dtype, numpy_dtype):
    f = tessel.parse(COPY.format(t=tessel_dtype))["copy"]
    if numpy_dtype == "bool":
        a = np.array([True, False, True, True])
    elif numpy_dtype.startswith("float"):
        a = np.array([0.1, -2.5, np.inf, 65504.0], numpy_dtype)
    else:
        info = np.iinfo(numpy_dtype)
        a = np.array([info.min, info.max, 0, 1], numpy_dtype)
    b = np.zeros(4, numpy_dtype)
    tessel.interpret(f, a, b)
    np.testing.assert_array_equal(b, a)
    assert b.dtype == np.dtype(numpy_dtype)


def test_f16_arithmetic_rounds_like_numpy():
    x = te.placeholder((5,), "float16", name="x")
    y = te.compute((5,), lambda i: x[i] * 3.0 + 0.1, name="y")
    f = te.create_prim_func([x, y])
    a = np.array([0.1, 1.5, -2.25, 100.0, 1e-3], "float16")
    b = np.zeros(5, "float16")
    tessel.interpret(f, a, b)
    np.testing.assert_array_equal(b, a * np.float16(3.0) + np.float16(0.1))


def test_bf16_is_refused_clearly_without_a_numpy_bfloat16():
    f = tessel.parse(COPY.format(t="bf16"))["copy"]
    try:
        bf16 = np.dtype("bfloat16")
    except TypeError:
        bf16 = None
    if bf16 is None:
        with pytest.raises(tessel.ArgumentError, match="bf16.*ml_dtypes|ml_dtypes"):
            tessel.interpret(f, np.zeros(4, "uint16"), np.zeros(4, "uint16"))
    else:  # ml_dtypes is installed: bf16 arrays work.
        a = np.array([1.5, -2, 0.25, 3], bf16)
        b = np.zeros(4, bf16)
        tessel.interpret(f, a, b)
        np.testing.assert_array_equal(b, a)


def test_module_and_name():
    mod = tessel.parse(COPY.format(t="f32") + "\n" + COPY.format(t="i32").replace("copy", "copy_i"))
    a, b = np.arange(4, dtype="int32"), np.zeros(4, "int32")
    tessel.interpret(mod, a, b, name="copy_i")
    np.testing.assert_array_equal(b, a)
    with pytest.raises(tessel.ArgumentError, match="2 functions .*name="):
        tessel.interpret(mod, a, b)
    with pytest.raises(tessel.ArgumentError, match="no function 'nope'"):
        tessel.interpret(mod, a, b, name="nope")
    single = tessel.parse(COPY.format(t="i32"))
    tessel.interpret(single, a, b)


def test_scalar_params():
    text = """\
func @axpy(A: f32[3], B: f32[3], s: f32, n: i32) {
  for i in range(0, n) {
    B[i] = A[i] * s + B[i]
  }
}
"""
    f = tessel.parse(text)["axpy"]
    a, b = np.ones(3, "float32"), np.zeros(3, "float32")
    tessel.interpret(f, a, b, 2.5, 2)
    np.testing.assert_array_equal(b, [2.5, 2.5, 0])
    tessel.interpret(f, a, b, np.float32(1), np.int64(3))
    np.testing.assert_array_equal(b, [3.5, 3.5, 1])
    with pytest.raises(tessel.ArgumentError, match=r"argument 3 \('n'\): expected a i32 scalar"):
        tessel.interpret(f, a, b, 1.0, 2.5)
    with pytest.raises(tessel.ArgumentError, match=r"argument 2 \('s'\)"):
        tessel.interpret(f, a, b, "x", 2)
    with pytest.raises(tessel.RuntimeError, match="outside shape"):
        tessel.interpret(f, a, b, 1.0, 4)  # n = 4 reads A[3]


def test_strided_and_non_contiguous_arrays():
    x = te.placeholder((3, 4), "int32", name="x")
    y = te.compute((3, 4), lambda i, j: x[i, j] * 10, name="y")
    f = te.create_prim_func([x, y])
    base = np.arange(24, dtype="int32").reshape(6, 4)
    a = base[::2]  # a strided input
    storage = np.full((4, 6), -1, "int32")
    out = storage[:, ::2].T  # a transposed, strided (3, 4) view of `storage`
    tessel.interpret(f, a, out)
    np.testing.assert_array_equal(out, a * 10)
    np.testing.assert_array_equal(storage[:, 1::2], -1)  # untouched between the strides


def test_only_written_arrays_need_to_be_writable():
    f = tessel.parse(COPY.format(t="f32"))["copy"]
    a = np.arange(4, dtype="float32")
    a.flags.writeable = False  # read only, never written: fine
    b = np.zeros(4, "float32")
    tessel.interpret(f, a, b)
    np.testing.assert_array_equal(b, a)
    b.flags.writeable = False
    tessel.interpret(f, a, b)  # the run leaves b as it was: nothing to write back
    c = np.zeros(4, "float32")
    c.flags.writeable = False
    with pytest.raises(tessel.ArgumentError, match=r"argument 1 \('B'\).*read-only"):
        tessel.interpret(f, a, c)


def test_wrong_arguments_raise_never_crash():
    f = tessel.parse(COPY.format(t="f32"))["copy"]
    a = np.zeros(4, "float32")
    cases = [
        ((a,), r"takes 2 arguments \(A, B\), got 1"),
        ((a, a, a), "got 3"),
        ((a, np.zeros(4, "float64")), r"dtype float64 does not match the parameter's f32 "
                                      r"\(pass a numpy float32 array\)"),
        ((a, np.zeros(5, "float32")), r"shape \[5\] does not match the parameter's shape \[4\]"),
        ((a, np.zeros((4, 1), "float32")), "the array has 2 dimensions, the parameter 1"),
        ((a, [0.0] * 4), "expected a numpy array"),
        ((a, None), "expected a numpy array"),
        ((a, np.zeros(4, "complex64")), "complex64 has no tessel counterpart"),
        ((a, np.zeros(4, ">f4")), "byte order"),
    ]
    for args, message in cases:
        with pytest.raises(tessel.ArgumentError, match=message):
            tessel.interpret(f, *args)
    with pytest.raises(tessel.ArgumentError, match="interpret runs a PrimFunc"):
        tessel.interpret("copy", a, a)
    with pytest.raises(tessel.ArgumentError, match="max_steps"):
        tessel.interpret(f, a, a, max_steps=-1)


def test_symbolic_extents_must_agree():
    n = te.size_var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    f = te.create_prim_func([A, B])
    with pytest.raises(tessel.RuntimeError, match=r"argument 1 \('B'\): shape \[3\] does not match"):
        tessel.interpret(f, np.zeros(4, "float32"), np.zeros(3, "float32"))


def test_runtime_failures_and_step_limit():
    text = """\
func @div(A: i32[2], B: i32[2]) {
  for i in range(0, 2) {
    B[i] = 10 / A[i]
  }
}
"""
    f = tessel.parse(text)["div"]
    b = np.zeros(2, "int32")
    with pytest.raises(tessel.RuntimeError, match="division by zero"):
        tessel.interpret(f, np.array([1, 0], "int32"), b)
    tessel.interpret(f, np.array([3, -4], "int32"), b)
    np.testing.assert_array_equal(b, [3, -2])
    big = tessel.parse("""\
func @spin(A: i32[1]) {
  for i in range(0, 100000) {
    A[0] = A[0] + 1
  }
}
""")
    with pytest.raises(tessel.RuntimeError, match="step"):
        tessel.interpret(big, np.zeros(1, "int32"), max_steps=1000)


def test_check_same_results():
    a = tessel.parse(COPY.format(t="f32"))["copy"]
    same = tessel.parse(COPY.format(t="f32").replace("A[i]", "A[i] * 1.0f32"))["copy"]
    different = tessel.parse(COPY.format(t="f32").replace("A[i]", "A[i] + 1.0f32"))["copy"]
    tessel.check_same_results(a, same, seed=3)
    with pytest.raises(tessel.RuntimeError, match="'B'"):
        tessel.check_same_results(a, different)
