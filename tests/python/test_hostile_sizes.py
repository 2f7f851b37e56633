"""Hostile sizes: inputs far larger than any real program are handled in time
linear in their size, and shapes too large to exist are refused.

    >>> tessel.parse("func @f(" + ", ".join(f"a{i}: f32" ...)  # 200k parameters
    parses in time proportional to the text, not to its square
"""

import time

import pytest

import tessel


def _many_params(n):
    params = ", ".join(f"p{i}: f32[4]" for i in range(n))
    return f"func @f({params}) {{\n  p0[0] = p{n - 1}[0]\n}}\n"


def _parse_seconds(n):
    text = _many_params(n)
    start = time.perf_counter()
    tessel.parse(text)
    return time.perf_counter() - start


def test_parsing_is_linear_in_the_number_of_names():
    # Name lookups walked every enclosing binding: 100k parameters took 15 s and
    # grew with the square. Compare a 4x larger input: linear is 4x, quadratic 16x;
    # the bound leaves room for a noisy machine.
    _parse_seconds(2000)  # warm up
    small = min(_parse_seconds(25_000) for _ in range(2))
    large = min(_parse_seconds(100_000) for _ in range(2))
    assert large < 10 * small + 0.5, f"25k: {small:.3f} s, 100k: {large:.3f} s"
    assert large < 30, f"100k parameters took {large:.1f} s"


@pytest.mark.parametrize("shape", ["f32[4611686018427387904i64]", "u8[4294967296i64, 4294967296i64]",
                                   "f64[3037000500i64, 3037000500i64, 2]"])
def test_a_buffer_larger_than_i64_can_count_is_refused(shape):
    text = f"func @f(A: {shape}) {{\n  A[0i64{', 0i64' * (shape.count(',') )}] = A[1i64{', 0i64' * shape.count(',')}]\n}}\n"
    with pytest.raises(tessel.IRError, match=r"holds more bytes than an i64 can count"):
        tessel.verify(tessel.parse(text))
    alloc = f"func @g(B: f32[4]) {{\n  allocate T: {shape} scope \"global\"\n  B[0] = 1.0f32\n}}\n"
    with pytest.raises(tessel.IRError, match=r"buffer 'T' \(.*\) holds more bytes than an i64"):
        tessel.verify(tessel.parse(alloc))


def test_the_largest_countable_buffer_is_still_accepted():
    tessel.verify(tessel.parse("func @f(A: u8[9223372036854775807i64]) {\n  A[0i64] = A[1i64]\n}\n"))


def test_the_interpreters_allocation_limit_counts_elements_and_bytes_apart():
    f = tessel.parse('func @f(B: f32[4]) {\n  allocate T: f32[1099511627776i64] scope "global"\n'
                     '  T[0i64] = 1.0f32\n  B[0] = T[0i64]\n}\n')
    with pytest.raises(tessel.RuntimeError,
                       match=r"allocation of 'T' needs 1099511627776 elements of 4 bytes, more than "
                             r"the interpreter's limit of \d+ such elements \(\d+ bytes\)"):
        tessel.interpret(f, __import__("numpy").zeros(4, "float32"))


def _nested(depth):
    v = 1
    for _ in range(depth):
        v = [v]
    return v


def test_attribute_nesting_is_bounded_so_that_printed_text_parses_back():
    f = tessel.parse("func @f(A: f32[1]) {\n  A[0] = 1.0f32\n}\n")["f"]
    deepest = f.with_attr("deep", _nested(32))
    text = str(tessel.IRModule({"f": deepest}))
    assert tessel.structural_equal(tessel.parse(text)["f"], deepest)
    with pytest.raises(tessel.ArgumentError, match="attribute lists nest at most 32 deep"):
        f.with_attr("deep", _nested(33))
    itself = []
    itself.append(itself)  # a list holding itself: refused, not a stack overflow
    with pytest.raises(tessel.ArgumentError, match="nest at most 32 deep"):
        f.with_attr("loop", itself)
    with pytest.raises(tessel.ParseError, match="attribute lists nest at most 32 deep"):
        tessel.parse(text.replace("deep = ", "deep = [").replace("]}", "]]}", 1))
