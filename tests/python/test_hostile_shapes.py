"""Hostile shapes: flat offsets of buffers with symbolic extents never wrap.

    func @g(A: u8[n, m], n: i32, m: i32)   with a 65536 x 32769 array
    A[n - 1, j]  ->  A_1d[i64(m) * i64(n - 1) + i64(j)]    (i32 would wrap negative)

The run touches only the last row of a 2 GiB array that numpy allocates
lazily; it runs in a child process, so a wrapped index that writes outside
the array fails the test instead of killing pytest.
"""

import textwrap

import tessel

from child_process import run_child  # tests/python/child_process.py

LAST_ROW = """
func @g(A: u8[n, m], n: i32, m: i32) {
  for j in range(0, m) {
    A[n - 1, j] = 7u8
  }
}
"""


def test_symbolic_row_length_flattens_in_i64():
    lowered = str(tessel.transform.parse_pipeline("lower")(tessel.parse(LAST_ROW)))
    assert "decl_buffer A_1d: u8[i64(m) * i64(n)] = A" in lowered
    assert "A_1d[i64(m) * i64(n - 1) + i64(j)] = 7u8" in lowered


def test_flat_offset_past_int32_max_lands_in_the_array(tmp_path):
    child = textwrap.dedent(
        f"""
        import numpy as np
        import tessel
        k = tessel.build(tessel.parse({LAST_ROW!r}))
        try:
            a = np.zeros((65536, 32769), np.uint8)  # 2 GiB; pages stay untouched
        except MemoryError:
            print("SKIP")
            raise SystemExit(0)
        k["g"](a, 65536, 32769)  # the last row starts at 65535 * 32769 > INT32_MAX
        print(int(a[-1].sum()), int(a[-1, 0]), int(a[-1, -1]), int(a[:-1, :8].sum()))
        """
    )
    out = run_child(child, tmp_path)
    if out.strip() == "SKIP":
        import pytest
        pytest.skip("no 2 GiB of address space for the array")
    assert out.split() == [str(7 * 32769), "7", "7", "0"], out
