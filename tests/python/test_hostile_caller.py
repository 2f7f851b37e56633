"""A seeded hostile caller of the public Python API, in the style of the parser
fuzz: thousands of calls with wrong types, out-of-range numbers, None,
read-only, aliased, strided and misaligned arrays. No call may crash the
process, and every refusal must be a tessel.TesselError (ArgumentError for
bad arguments), never a bare TypeError, ValueError or pybind11 message.

The calls run in a child process (a crash fails the test, naming the last call);
the seed is fixed, so a failure reproduces exactly.
"""

import textwrap

from child_process import run_child  # tests/python/child_process.py

CHILD = textwrap.dedent(
    r"""
    import random, sys
    import numpy as np
    import tessel
    from tessel import nd, te

    rng = random.Random(0x7e55e1)
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    func = te.create_prim_func([A, B])
    mod = tessel.IRModule({"main": func})
    built = tessel.build(mod)
    kernel = built["main"]

    base = np.zeros(64, "float32")
    read_only = np.ones(8, "float32"); read_only.setflags(write=False)
    arrays = [np.ones(8, "float32"), base[:8], base[1:9], base[::8][:8], read_only,
              np.broadcast_to(np.float32(1), (8,)), np.ones(8, "float64"), np.ones((2, 4), "float32"),
              np.ones(9, "float32"), np.ones(8, "float32")[::-1], nd.array(np.ones(8, "float32"))]
    values = [None, -1, 0, 1, 2**31, 2**63, -2**70, 1.5, float("nan"), float("inf"), True, "",
              "llvm", "x" * 1000, [], [None], {}, (1, 2), object(), b"\x00", mod, func,
              "llvm -mcpu=i386", "llvm -num-threads=-3", "simplify,", "lower"] + arrays

    def sch():
        return tessel.Schedule(mod)

    # name: (how many arguments, the call); arity errors are Python's own business.
    calls = {
        "parse": (1, lambda a: tessel.parse(a)),
        "verify": (1, lambda a: tessel.verify(a)),
        "build": (2, lambda a, b: tessel.build(a, b)),
        "interpret": (2, lambda a, b: tessel.interpret(func, a, b, max_steps=10**5)),
        "check_same_results": (2, lambda a, b: tessel.check_same_results(a, b, max_steps=10**5)),
        "structural_equal": (2, lambda a, b: tessel.structural_equal(a, b)),
        "structural_hash": (1, lambda a: tessel.structural_hash(a)),
        "kernel": (2, lambda a, b: kernel(a, b)),
        "time_evaluator": (3, lambda n, a, b: built.time_evaluator("main", n)(a, b)),
        "getitem": (1, lambda a: built[a]),
        "nd.array": (1, lambda a: nd.array(a)),
        "nd.empty": (2, lambda a, b: nd.empty(a, b)),
        "parse_pipeline": (1, lambda a: tessel.transform.parse_pipeline(a)),
        "Schedule": (1, lambda a: tessel.Schedule(a)),
        "get_block": (1, lambda a: sch().get_block(a)),
        "get_loops": (1, lambda a: sch().get_loops(a)),
        "split": (1, lambda a: (lambda s: s.split(s.get_loops(s.get_block("B"))[0], a))(sch())),
        "parallel": (1, lambda a: sch().parallel(a)),
        "set_jit_cache_limit": (1, lambda a: tessel.runtime.set_jit_cache_limit(a)),
        "export_library": (2, lambda a, b: built.export_library(a, b)),
        "load_library": (1, lambda a: tessel.load_library(a)),
    }
    names = sorted(calls)
    bad = []
    for i in range(3000):
        name = rng.choice(names)
        arity, call = calls[name]
        args = [rng.choice(values) for _ in range(arity)]
        if name == "kernel" and rng.random() < 0.5:
            args = [rng.choice(arrays), rng.choice(arrays)]
        if name in ("export_library", "load_library") and args and isinstance(args[0], str):
            args[0] = "./" + str(abs(hash(args[0])) % 1000) + ".so"
        print(i, name, flush=True)
        try:
            call(*args)
        except tessel.TesselError:
            pass
        except Exception as e:
            bad.append(f"{name}({', '.join(type(a).__name__ for a in args)}): "
                       f"{type(e).__name__}: {str(e)[:160]}")
    tessel.runtime.set_jit_cache_limit(64)
    print("BAD", len(bad))
    for b in sorted(set(bad))[:40]:
        print(b)
    """
)


def test_hostile_calls_never_crash_and_refuse_with_tessel_errors(tmp_path):
    tail = run_child(CHILD, tmp_path, timeout=900).strip().splitlines()[-45:]
    report = "\n".join(tail[tail.index(next(l for l in tail if l.startswith("BAD"))):])
    assert report.startswith("BAD 0"), report
