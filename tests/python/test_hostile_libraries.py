"""Hostile libraries: loading a damaged file is an error, never a crash in the
loader; a load always runs what the file holds now; an export never writes one
of its outputs over another.

    >>> open("k.so", "r+b").truncate(5000); tessel.load_library("k.so")
    tessel.RuntimeError: cannot load k.so: segment 3 (LOAD) ends at byte 12345,
        past the end of the file (5000 bytes): the file is truncated

Loads run in a child process, so that a loader that does crash fails the test
instead of killing pytest.
"""


import numpy as np
import pytest

import tessel
from tessel import te

from child_process import run_child  # tests/python/child_process.py


def _module(scale, n=64, name="k"):
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * float(scale), name="B")
    return tessel.IRModule({name: te.create_prim_func([A, B])})


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    path = tmp_path_factory.mktemp("lib") / "k.so"
    tessel.build(_module(2.0)).export_library(str(path))
    return path


def test_truncated_and_damaged_libraries_are_refused(library, tmp_path):
    data = library.read_bytes()
    cases = {
        "truncated_half.so": data[: len(data) // 2],
        "truncated_header.so": data[:40],
        "empty.so": b"",
        "not_elf.so": b"#!/bin/sh\necho hello\n" * 20,
        "zeroed_tail.so": data[: len(data) // 2] + bytes(len(data) - len(data) // 2),
        "bad_phoff.so": data[:32] + (2**62).to_bytes(8, "little") + data[40:],
    }
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
    out = run_child(
        f"""
        import tessel
        for name in {sorted(cases)!r}:
            try:
                tessel.load_library(name)
                print(name, "LOADED")
            except tessel.TesselError as e:
                print(name, "REFUSED", type(e).__name__, str(e).replace(chr(10), " "))
        """, tmp_path)
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    assert set(lines) == set(cases), out
    for name, verdict in lines.items():
        assert verdict.startswith("REFUSED RuntimeError cannot load " + name), verdict
    assert "the file is truncated" in lines["truncated_half.so"]
    assert "cut short" in lines["truncated_header.so"]
    assert "not an ELF file" in lines["empty.so"] and "not an ELF file" in lines["not_elf.so"]
    assert "program header table lies outside the file" in lines["bad_phoff.so"]


def test_a_directory_or_a_missing_file_is_refused(tmp_path):
    with pytest.raises(tessel.RuntimeError, match="not a regular file"):
        tessel.load_library(str(tmp_path))
    with pytest.raises(tessel.RuntimeError, match="cannot open"):
        tessel.load_library(str(tmp_path / "missing.so"))


def test_a_load_after_re_export_runs_the_new_code(tmp_path):
    path = str(tmp_path / "k.so")
    a = np.arange(64, dtype="float32")
    b = np.zeros(64, "float32")
    tessel.build(_module(2.0)).export_library(path)
    old = tessel.load_library(path)  # kept alive: dlopen would hand this one back
    old["k"](a, b)
    np.testing.assert_allclose(b, 2 * a)

    tessel.build(_module(3.0, n=32, name="k")).export_library(path)
    new = tessel.load_library(path)
    assert new["k"].signature == "k(A: f32[32], B: f32[32])"
    a32, b32 = a[:32].copy(), np.zeros(32, "float32")
    new["k"](a32, b32)
    np.testing.assert_allclose(b32, 3 * a32)
    old["k"](a, b)  # the old module still runs its own code
    np.testing.assert_allclose(b, 2 * a)


def test_export_refuses_a_header_path_that_is_the_library(tmp_path, library):
    path = tmp_path / "k.so"
    path.write_bytes(library.read_bytes())
    before = path.read_bytes()
    mod = tessel.build(_module(5.0))
    with pytest.raises(tessel.BuildError, match="the header path .* is the library path"):
        mod.export_library(str(path), header_path=str(path))
    with pytest.raises(tessel.BuildError, match="is the library path"):
        mod.export_library(str(tmp_path / "k.h"))  # its default header is itself
    link = tmp_path / "k_link.h"
    link.symlink_to(path)
    with pytest.raises(tessel.BuildError, match="is the library path"):
        mod.export_library(str(path), header_path=str(link))
    assert path.read_bytes() == before, "nothing was written"
    tessel.load_library(str(path))
