"""The Python tutorial of python/README.md and the quick start of the top-level
README.md run as written."""

import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
README = os.path.join(ROOT, "python", "README.md")
QUICK_START = os.path.join(ROOT, "README.md")


def python_blocks(path=README):
    with open(path) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_the_readme_has_a_tutorial():
    assert python_blocks(), "python/README.md has a ```python block"


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_tutorial_block_runs(index, capsys):
    code = python_blocks()[index]
    exec(compile(code, f"python/README.md block {index}", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    assert "func @matmul" in out and "sch.split" in out


def test_the_quick_start_runs(capsys):
    blocks = python_blocks(QUICK_START)
    assert len(blocks) == 1, "README.md has one ```python block, the quick start"
    exec(compile(blocks[0], "README.md quick start", "exec"), {"__name__": "readme"})
    assert "GFLOP/s" in capsys.readouterr().out
