"""Hostile callers of the bindings: None or an object of the wrong type where
an IRModule, a PrimFunc or `self` is expected never crashes the process; it is
refused with tessel.ArgumentError naming the parameter.

    >>> tessel._core.build(None, "llvm")
    tessel.ArgumentError: build: parameter 'mod' must be tessel._core.IRModule, got None

The sweep runs in a child process so that a crash fails the test instead of
killing pytest.
"""

import sys
import textwrap

import pytest

import tessel
from tessel import _core, te

from child_process import run_child  # tests/python/child_process.py

# Calls every function and method of tessel._core with None in each position
# and ordinary values elsewhere; prints each callable before calling it, so a
# crash names the last one.
SWEEP = textwrap.dedent(
    r"""
    import itertools, sys
    import tessel
    from tessel import _core, te

    A = te.placeholder((4, 4), "float32", name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1.0, name="B")
    f = te.create_prim_func([A, B])
    mod = tessel.IRModule({"main": f})
    pool = [mod, f, "llvm", 1]
    SKIP = {"set_num_threads"}  # Process-wide state other calls rely on.
    DUNDER = {"__init__", "__str__", "__repr__", "__getitem__", "__call__", "__len__",
              "__contains__", "__iter__", "__setstate__", "__getstate__"}

    def callables():
        for n in sorted(dir(_core)):
            o = getattr(_core, n)
            if n.startswith("_") or n in SKIP:
                continue
            if isinstance(o, type):
                for m in sorted(vars(o)):
                    if (not m.startswith("__") or m in DUNDER) and callable(getattr(o, m)):
                        yield f"{n}.{m}", getattr(o, m)
            elif callable(o):
                yield n, o

    untranslated = []
    for name, fn in callables():
        print(name, flush=True)
        for k in range(1, 4):
            for pos in range(k):
                for fill in itertools.product(pool, repeat=k - 1):
                    args = list(fill)
                    args.insert(pos, None)
                    try:
                        fn(*args)
                    except tessel.TesselError:
                        pass
                    except TypeError as e:
                        if "incompatible" in str(e):
                            untranslated.append(f"{name}{tuple(args)!r}: {e}")
                    except Exception:
                        pass
    print("UNTRANSLATED", len(untranslated))
    for u in untranslated[:20]:
        print(u)
    sys.exit(1 if untranslated else 0)
    """
)


def test_none_everywhere_in_core_is_refused_not_a_crash(tmp_path):
    run_child(SWEEP, tmp_path, timeout=600)


def _module():
    A = te.placeholder((4, 4), "float32", name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1.0, name="B")
    return tessel.IRModule({"main": te.create_prim_func([A, B])})


def test_build_pipeline_returning_none_names_the_pipeline():
    with pytest.raises(tessel.ArgumentError, match="pipeline returned NoneType"):
        tessel.build(_module(), pipeline=lambda m: None)
    with pytest.raises(tessel.ArgumentError, match="pipeline must be"):
        tessel.build(_module(), pipeline=3)


def test_core_entry_points_name_the_parameter():
    with pytest.raises(tessel.ArgumentError, match="build: parameter 'mod' must be tessel._core.IRModule, got None"):
        _core.build(None, "llvm")
    with pytest.raises(tessel.ArgumentError, match="parameter 'target' must be str, got None"):
        _core.emit_object(_module(), None)
    with pytest.raises(tessel.ArgumentError, match="parameter 'mod' must be tessel._core.IRModule, got tessel._core.PrimFunc"):
        _core.build(_module()["main"], "llvm")
    with pytest.raises(tessel.ArgumentError, match="function 'a' is None"):
        tessel.IRModule([("a", None)])


def test_methods_refuse_a_self_of_another_type():
    with pytest.raises(tessel.ArgumentError, match="IRModule.script: self must be a tessel._core.IRModule, got None"):
        tessel.IRModule.script(None)
    with pytest.raises(tessel.ArgumentError, match="self must be"):
        tessel.Stmt.__repr__(None)
    with pytest.raises(tessel.ArgumentError, match="self must be"):
        _core.RuntimeModule.function_names("not a module")

