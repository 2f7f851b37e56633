"""The Python tutorial of python/README.md runs as written."""

import os
import re

import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "python", "README.md")


def python_blocks():
    with open(README) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_the_readme_has_a_tutorial():
    assert python_blocks(), "python/README.md has a ```python block"


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_tutorial_block_runs(index, capsys):
    code = python_blocks()[index]
    exec(compile(code, f"python/README.md block {index}", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    assert "func @matmul" in out and "sch.split" in out
