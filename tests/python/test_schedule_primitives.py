"""Every schedule primitive, one small case each, through its Python method.

The Schedule's methods and keywords are the names a trace prints, so a printed
trace is a Python program. For every primitive (CASES, keyed by instruction
kind) this checks that:

- the set of kinds the extension reports is exactly CASES' keys, and each has
  a method on tessel.Schedule (a new primitive needs a case here);
- the case's trace, as Python, uses only the kind's parameter names as
  keywords, names every required one, and replayed with exec onto a fresh
  Schedule of the same module and seed gives the same module and trace;
- the scheduled function computes what the original does (interpreter).

And that the calling convention refuses a handle of the wrong type, an unknown
keyword, a missing argument and an argument given twice with ArgumentError,
leaving the schedule unchanged.
"""

import ast

import pytest

import tessel
from tessel import te

def instruction_kinds():
    """{name: kind dict} as the extension reports them."""
    return {k["name"]: k for k in tessel._core.instruction_kinds()}


# ---------------------------------------------------------------- workloads


def module(name, *params):
    return tessel.IRModule({name: te.create_prim_func(list(params))})


def matmul(m=16, n=32, k=8):
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis(k, name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return module("mm", A, B, C)


def matmul_relu(m=32, n=8, k=3):
    """T = A @ B (allocated), R = max(T, 0)."""
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis(k, name="k")
    T = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="T")
    R = te.compute((m, n), lambda i, j: te.max(T[i, j], 0.0), name="R")
    return module("mm_relu", A, B, R)


def chain(m=16, n=24):
    """B = A * 2 (allocated), C = B + 1."""
    A = te.placeholder((m, n), "float32", name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((m, n), lambda i, j: B[i, j] + 1.0, name="C")
    return module("chain", A, C)


def elementwise(m=16, n=48):
    A = te.placeholder((m, n), "float32", name="A")
    B = te.compute((m, n), lambda i, j: A[i, j] + 1.0, name="B")
    return module("add", A, B)


def row_sum(m=8, n=64):
    A = te.placeholder((m, n), "float32", name="A")
    r = te.reduce_axis(n, name="k")
    B = te.compute((m,), lambda i: te.sum(A[i, r], axis=r), name="B")
    return module("rowsum", A, B)


class Factory:
    """Makes the case's Schedule and remembers its module and seed, so the
    test can make a fresh one to replay the trace onto."""

    def __call__(self, mod, seed=1):
        self.mod, self.seed = mod, seed
        return tessel.Schedule(mod, seed=seed)

    def fresh(self):
        return tessel.Schedule(self.mod, seed=self.seed)


# ---------------------------------------------------------------- the cases


def case_get_block(make):
    sch = make(matmul())
    sch.parallel(loop=sch.get_loops(block=sch.get_block(name="C"))[0])
    return sch


def case_get_loops(make):
    sch = make(matmul())
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    sch.reorder(j, i)
    return sch


def case_get_child_blocks(make):
    sch = make(chain())
    i, j = sch.get_loops(block=sch.get_block(name="C"))
    (c,) = sch.get_child_blocks(block_or_loop=i)
    sch.reverse_compute_inline(block=c)
    return sch


def case_get_producers(make):
    sch = make(chain())
    (b,) = sch.get_producers(block=sch.get_block(name="C"))
    sch.compute_inline(block=b)
    return sch


def case_get_consumers(make):
    sch = make(chain())
    (c,) = sch.get_consumers(block=sch.get_block(name="B"))
    sch.reverse_compute_inline(block=c)
    return sch


def case_split(make):
    sch = make(elementwise())
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    sch.split(loop=i, factors=[None, 4])
    sch.split(loop=j, factors=[5, None])  # 5 * 10 > 48: a guard
    return sch


def case_fuse(make):
    sch = make(elementwise())
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    sch.fuse(i, j)
    return sch


def case_reorder(make):
    sch = make(matmul())
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    sch.reorder(k, j, i)
    return sch


def case_parallel(make):
    sch = make(matmul())
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    sch.parallel(loop=i)
    return sch


def case_vectorize(make):
    sch = make(elementwise())
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    j0, j1 = sch.split(loop=j, factors=[None, 16])
    sch.vectorize(loop=j1)
    return sch


def case_unroll(make):
    sch = make(elementwise())
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    j0, j1 = sch.split(loop=j, factors=[None, 4])
    sch.unroll(loop=j1)
    return sch


def case_bind(make):
    sch = make(elementwise())
    b = sch.get_block(name="B")
    fused = sch.fuse(*sch.get_loops(block=b))
    bx, tx = sch.split(loop=fused, factors=[None, 64])
    sch.bind(loop=bx, thread_axis="blockIdx.x")
    sch.bind(loop=tx, thread_axis="threadIdx.x")
    return sch


def case_annotate(make):
    sch = make(elementwise())
    b = sch.get_block(name="B")
    i, j = sch.get_loops(block=b)
    sch.annotate(block_or_loop=i, ann_key="pragma_unroll", ann_val=4)
    sch.annotate(block_or_loop=b, ann_key="rule", ann_val="ew")
    v = sch.sample_categorical(candidates=[0, 16, 64], probs=[0.5, 0.25, 0.25])
    sch.annotate(block_or_loop=j, ann_key="unroll_max", ann_val=v)
    return sch


def case_unannotate(make):
    sch = make(elementwise())
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    sch.annotate(block_or_loop=i, ann_key="pragma_unroll", ann_val=4)
    sch.annotate(block_or_loop=i, ann_key="keep", ann_val=True)
    sch.unannotate(block_or_loop=i, ann_key="pragma_unroll")
    return sch


def case_add_unit_loop(make):
    sch = make(elementwise())
    sch.add_unit_loop(block_or_loop=sch.get_block(name="B"))
    return sch


def case_blockize(make):
    sch = make(matmul(8, 32, 3))
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    j0, j1 = sch.split(loop=j, factors=[None, 16])
    sch.blockize(loop=j1)
    return sch


def case_tensorize(make):
    assert "f32_fma_4x16" in tessel.schedule.list_tensor_intrins()
    sch = make(matmul(8, 32, 5))
    i, j, k = sch.get_loops(block=sch.get_block(name="C"))
    i0, i1 = sch.split(loop=i, factors=[None, 4])
    j0, j1 = sch.split(loop=j, factors=[None, 16])
    sch.reorder(i0, j0, k, i1, j1)
    sch.tensorize(block_or_loop=i1, intrin_name="f32_fma_4x16")
    return sch


def case_transform_layout(make):
    sch = make(matmul_relu())
    sch.transform_layout(block=sch.get_block(name="T"), buffer="T",
                         index_map=lambda i, j: (i // 16, j, i % 16))
    return sch


def case_pad_einsum(make):
    sch = make(matmul(7, 19, 5))
    sch.pad_einsum(block=sch.get_block(name="C"), padding=[4, 16, 1])
    return sch


def case_sample_perfect_tile(make):
    sch = make(elementwise(), seed=5)
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    factors = sch.sample_perfect_tile(loop=j, n=3, max_innermost_factor=8)
    sch.split(loop=j, factors=list(factors))
    return sch


def case_sample_categorical(make):
    sch = make(elementwise(), seed=3)
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    v = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.2, 0.3, 0.5])
    sch.annotate(block_or_loop=i, ann_key="unroll", ann_val=v)
    return sch


def case_sample_compute_location(make):
    sch = make(chain(), seed=7)
    c = sch.get_block(name="C")
    i, j = sch.get_loops(block=c)
    sch.split(loop=i, factors=[None, 4])
    b = sch.get_block(name="B")
    loc = sch.sample_compute_location(block=b)
    sch.compute_at(block=b, loop=loc, preserve_unit_loops=False)
    return sch


def case_compute_inline(make):
    sch = make(chain())
    sch.compute_inline(block=sch.get_block(name="B"))
    return sch


def case_reverse_compute_inline(make):
    sch = make(chain())
    sch.reverse_compute_inline(block=sch.get_block(name="C"))
    return sch


def case_compute_at(make):
    sch = make(chain())
    i, j = sch.get_loops(block=sch.get_block(name="C"))
    i0, i1 = sch.split(loop=i, factors=[None, 4])
    sch.compute_at(block=sch.get_block(name="B"), loop=i0, preserve_unit_loops=False)
    return sch


def case_reverse_compute_at(make):
    sch = make(matmul_relu())
    i, j, k = sch.get_loops(block=sch.get_block(name="T"))
    sch.reverse_compute_at(block=sch.get_block(name="R"), loop=j, preserve_unit_loops=True)
    return sch


def case_cache_read(make):
    sch = make(matmul())
    sch.cache_read(block=sch.get_block(name="C"), read_buffer_index=0, storage_scope="shared")
    return sch


def case_cache_write(make):
    sch = make(matmul())
    c = sch.get_block(name="C")
    local = sch.cache_write(block=c, write_buffer_index=0, storage_scope="local")
    i, j, k = sch.get_loops(block=c)
    sch.reverse_compute_at(block=local, loop=i)
    return sch


def case_decompose_reduction(make):
    sch = make(matmul())
    c = sch.get_block(name="C")
    i, j, k = sch.get_loops(block=c)
    sch.decompose_reduction(block=c, loop=k)
    return sch


def case_reindex(make):
    sch = make(matmul())
    sch.reindex(block=sch.get_block(name="C"), buffer_index=1, is_write=False)
    return sch


def case_rfactor(make):
    sch = make(row_sum())
    i, k = sch.get_loops(block=sch.get_block(name="B"))
    k0, k1 = sch.split(loop=k, factors=[None, 4])
    sch.rfactor(loop=k1, factor_axis=0)
    return sch


def case_loop_partition(make):
    sch = make(elementwise(13, 40))
    i, j = sch.get_loops(block=sch.get_block(name="B"))
    main, tail = sch.loop_partition(loop=j, factors=[32, None])
    sch.vectorize(loop=sch.split(loop=main, factors=[None, 16])[1])
    return sch


def case_set_scope(make):
    sch = make(chain(8, 6))
    sch.set_scope(block=sch.get_block(name="B"), buffer_index=0, storage_scope="shared")
    return sch


def case_storage_align(make):
    sch = make(matmul(12, 7, 10))
    copy = sch.cache_read(block=sch.get_block(name="C"), read_buffer_index=1,
                          storage_scope="local")
    sch.storage_align(block=copy, buffer_index=0, axis=0, factor=16, offset=1)
    return sch


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


# ---------------------------------------------------------------- the tests


def test_every_kind_has_a_case_and_a_method():
    names = sorted(instruction_kinds())
    assert sorted(CASES) == names
    missing = [n for n in names if not callable(getattr(tessel.Schedule, n, None))]
    assert not missing, f"kinds without a Schedule method: {missing}"


def calls(text):
    """(method name, keyword names) of each line of a trace printed as Python."""
    out = []
    for line in text.splitlines():
        node = ast.parse(line).body[0].value
        assert isinstance(node, ast.Call) and ast.unparse(node.func.value) == "sch", line
        out.append((node.func.attr, [kw.arg for kw in node.keywords]))
    return out


def check_keywords(text, kinds):
    """Each line calls a kind and, where its parameters are known, passes
    each required one, and no other, once by keyword ('*' ones positionally)."""
    for (name, keywords), line in zip(calls(text), text.splitlines()):
        assert name in kinds, f"unknown kind in: {line}"
        params = kinds[name]["params"]
        assert set(keywords) <= {p["name"] for p in params}, line
        required = {p["name"] for p in params if not p["optional"] and not p["variadic"]}
        assert required <= set(keywords), line
        assert len(keywords) == len(set(keywords)), line


@pytest.mark.parametrize("kind", sorted(CASES))
def test_case_traces_replays_and_computes_the_same(kind):
    make = Factory()
    sch = CASES[kind](make)
    text = sch.trace.as_python()
    assert kind in [name for name, _ in calls(text)], text
    check_keywords(text, instruction_kinds())
    replayed = make.fresh()
    exec(text, {"sch": replayed})
    assert str(replayed.mod) == str(sch.mod)
    assert str(replayed.trace) == str(sch.trace)
    (name,) = [n for n, _ in make.mod.items()]
    tessel.check_same_results(make.mod[name], sch.mod[name])


# ------------------------------------------------- the calling convention

def split_setup():
    sch = tessel.Schedule(elementwise())
    b = sch.get_block(name="B")
    i, j = sch.get_loops(block=b)
    return sch, b, i


@pytest.mark.parametrize("call", [
    pytest.param(lambda sch, b, i: sch.split(loop=b, factors=[None, 4]), id="wrong-handle"),
    pytest.param(lambda sch, b, i: sch.split(loop=i, factor=[None, 4]), id="unknown-keyword"),
    pytest.param(lambda sch, b, i: sch.split(loop=i), id="missing-argument"),
    pytest.param(lambda sch, b, i: sch.split(i, [None, 4], loop=i), id="given-twice"),
    pytest.param(lambda sch, b, i: sch.get_loops(block=i), id="loop-for-block"),
    pytest.param(lambda sch, b, i: sch.cache_read(block=b, read_buffer_index="0",
                                                  storage_scope="local"), id="str-for-int"),
])
def test_bad_arguments_raise_argument_error_and_change_nothing(call):
    sch, b, i = split_setup()
    mod, trace = sch.mod, str(sch.trace)
    with pytest.raises(tessel.ArgumentError) as info:
        call(sch, b, i)
    assert isinstance(info.value, tessel.TesselError)
    assert "sch." in str(info.value)  # names the primitive
    assert sch.mod.same_as(mod) and str(sch.trace) == trace
    sch.split(loop=i, factors=[None, 4])  # the schedule still works
