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


def matmul_bias_relu(m, n, k):
    import tessel
    from tessel import ops, te
    a = te.placeholder((m, k), "float32", name="A")
    b = te.placeholder((k, n), "float32", name="B")
    bias = te.placeholder((n,), "float32", name="bias")
    e = ops.relu(ops.add(ops.matmul(a, b, name="C"), bias, name="D"), name="E")
    return te.create_module([a, b, bias, e], name="f")


def tile_and_fuse(mod, parallel_first):
    """The worked example's matmul schedule with parallel applied before the
    tile's write-back moves in, or after it (the usual CPU order)."""
    import tessel
    sch = tessel.Schedule(mod)
    acc = sch.cache_write(block=sch.get_block(name="C"), write_buffer_index=0,
                          storage_scope="local")
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    i0, i1 = sch.split(loop=i, factors=[None, 8])
    j0, j1 = sch.split(loop=j, factors=[None, 16])
    sch.reorder(i0, j0, k, i1, j1)
    if parallel_first:
        sch.parallel(loop=i0)
    sch.reverse_compute_at(block=acc, loop=j0)
    sch.reverse_compute_inline(block=sch.get_block(name="E"))
    sch.reverse_compute_inline(block=sch.get_block(name="D"))
    if not parallel_first:
        sch.parallel(loop=i0)
    return sch


def test_parallel_before_or_after_the_epilogue_moves_in_gives_one_function():
    import tessel
    for m in (64, 63):
        mod = matmul_bias_relu(m, 80, 37)
        first = tile_and_fuse(mod, parallel_first=True)
        last = tile_and_fuse(mod, parallel_first=False)
        tessel.assert_structural_equal(first.mod, last.mod)
        tessel.check_same_results(mod["f"], last.mod["f"])
        assert "for i_0 in parallel(0, 8)" in str(last.mod)
