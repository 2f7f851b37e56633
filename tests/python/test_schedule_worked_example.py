"""The worked example of docs/schedule.md ("Worked example") runs as written:
its ```python blocks, in order, in one namespace (each checks its schedule
against the unscheduled function in the interpreter), and every line of the
loop nests the section shows is in what they print."""

import os
import re

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "schedule.md")


def section():
    with open(DOC) as f:
        text = f.read()
    start = text.index("\n## Worked example")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def fenced_blocks(text):
    """(language, body) of each fenced block, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)


def test_the_worked_example_runs_and_prints_what_it_shows(capsys):
    blocks = fenced_blocks(section())
    code = [body for lang, body in blocks if lang == "python"]
    shown = [body for lang, body in blocks if lang == ""]
    assert len(code) >= 2 and len(shown) >= 2
    assert all("tessel.check_same_results" in block for block in code[:1] + code[-1:])
    namespace = {"__name__": "worked_example"}
    for index, block in enumerate(code):
        exec(compile(block, f"docs/schedule.md worked example block {index}", "exec"), namespace)
    printed = capsys.readouterr().out
    lines = [line.strip() for block in shown for line in block.splitlines()]
    missing = [line for line in lines if line and line != "..." and line not in printed]
    assert not missing, "shown in docs/schedule.md but not printed: " + "\n".join(missing)
