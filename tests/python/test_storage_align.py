"""storage_align end to end: the padding it asks for is the layout of the
lowered buffer (remove-blocks gives it strides, flatten-buffer addresses by
them), and the compiled function still computes the matmul."""

import numpy as np

import tessel
from tessel import te, transform


def padded_matmul():
    A = te.placeholder((12, 10), "float32", name="A")
    B = te.placeholder((10, 7), "float32", name="B")
    r = te.reduce_axis(10, name="k")
    C = te.compute((12, 7), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    mod = tessel.IRModule({"mm": te.create_prim_func([A, B, C])})
    sch = tessel.Schedule(mod)
    c = sch.get_block(name="C")
    copy = sch.cache_read(block=c, read_buffer_index=1, storage_scope="local")
    # Row pitch 7 of the B copy rounded up to 17 (17 % 16 == 1).
    sch.storage_align(block=copy, buffer_index=0, axis=0, factor=16, offset=1)
    return mod, sch


def test_lowered_buffer_has_the_padded_row_pitch():
    mod, sch = padded_matmul()
    lowered = transform.parse_pipeline("lower")(sch.mod)
    text = str(lowered)
    # 9 rows of pitch 17 and a last row of 7: 9 * 17 + 7 = 160 elements.
    assert 'allocate B_local: f32[160] scope "local"' in text
    assert "B_local[ax0 * 17 + ax1] = B_1d[ax0 * 7 + ax1]" in text
    assert "A_1d[i * 10 + k] * B_local[k * 17 + j]" in text
    tessel.check_same_results(mod["mm"], lowered["mm"])


def test_built_function_matches_numpy():
    mod, sch = padded_matmul()
    ex = tessel.build(sch)
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (12, 10)).astype("float32")
    b = rng.uniform(-1, 1, (10, 7)).astype("float32")
    c = np.zeros((12, 7), "float32")
    ex["mm"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
