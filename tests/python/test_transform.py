"""Passes from Python: registered passes as functions, pipelines (objects and
text), PassContext, Python passes and instruments inside textual pipelines,
tessel's own instruments, and every failure path."""

import itertools

import numpy as np
import pytest

import tessel
from tessel import te, transform

NOISY = """\
func @f(A: f32[8], B: f32[8]) {
  for i in range(0, 8) {
    B[i * 1 + 0] = A[i]
  }
  for j in range(0, 0) {
    B[j] = 1.0f32
  }
}
"""

_ids = itertools.count()


def unique(prefix):
    """A pass name no other test registered (the registry lives for the process)."""
    return f"{prefix}-{next(_ids)}"


def noisy():
    return tessel.parse(NOISY)


def test_registered_passes_are_functions():
    names = {p.name for p in transform.list_passes()}
    assert {"simplify", "remove-no-op", "canonicalize-names", "fixed-point", "nested"} <= names
    info = {p.name: p for p in transform.list_passes()}["canonicalize-names"]
    assert info.kind == "pass" and info.opt_level == 2
    assert info.options[0][:3] == ("renumber", "bool", False)
    p = transform.CanonicalizeNames(renumber=True)
    assert isinstance(p, transform.Pass)
    assert str(p) == "canonicalize-names{renumber=true}"
    assert p.name == "canonicalize-names" and not p.is_pipeline
    assert "renumber" in transform.CanonicalizeNames.__doc__
    fp = transform.FixedPoint([transform.Simplify(), transform.RemoveNoOp()], max_iterations=3)
    assert str(fp) == "fixed-point{max-iterations=3}(simplify,remove-no-op)"
    assert fp.is_pipeline and [q.name for q in fp.passes] == ["simplify", "remove-no-op"]


def test_running_passes_and_pipelines():
    mod = noisy()
    out = transform.Sequential([transform.Simplify(), transform.RemoveNoOp()])(mod)
    text = str(out)
    assert "B[i] = A[i]\n" in text and "range(0, 0)" not in text
    same = transform.parse_pipeline("simplify, remove-no-op")
    assert str(same) == "simplify,remove-no-op"
    tessel.assert_structural_equal(same(mod), out)
    assert str(mod) == NOISY  # the input is never modified
    unchanged = transform.Simplify()(out)
    assert unchanged.same_as(out)  # nothing to do: the very same module
    a, b1, b2 = np.arange(8, dtype="float32"), np.zeros(8, "float32"), np.zeros(8, "float32")
    tessel.interpret(mod, a, b1)
    tessel.interpret(out, a, b2)
    np.testing.assert_array_equal(b1, b2)


def test_pipeline_text_errors():
    with pytest.raises(tessel.PassError, match="did you mean 'simplify'") as info:
        transform.parse_pipeline("simplfy")
    assert "pipeline:1:1:" in str(info.value)
    with pytest.raises(tessel.PassError, match="pipeline:1:"):
        transform.parse_pipeline("simplify{")
    with pytest.raises(tessel.PassError, match="unknown pass"):
        transform.create_pass("no-such-pass")


def test_option_errors():
    with pytest.raises(tessel.ArgumentError, match="takes no options"):
        transform.Simplify(factor=3)
    with pytest.raises(tessel.ArgumentError, match="renumber.* is a bool"):
        transform.CanonicalizeNames(renumber="yes")
    with pytest.raises(tessel.ArgumentError, match="wraps nested passes"):
        transform.create_pass("fixed-point")
    with pytest.raises(tessel.ArgumentError, match="not a combinator"):
        transform.create_pipeline("simplify", [])


def test_pass_context_gating_log_and_nesting():
    mod = noisy()
    base = transform.PassContext.current()
    with transform.PassContext(opt_level=0) as ctx:
        assert transform.PassContext.current() is ctx
        out = transform.parse_pipeline("simplify,remove-no-op")(mod)
        assert out.same_as(mod)
        assert "opt level 1 > context opt level 0" in ctx.log
        with transform.PassContext(opt_level=0, required_passes=["simplify"]) as inner:
            assert transform.PassContext.current() is inner
            out = transform.parse_pipeline("simplify,remove-no-op")(mod)
            assert not out.same_as(mod)
            kinds = [(k, p) for k, p, *_ in inner.log_entries]
            assert ("changed", "simplify") in kinds
            assert ("skipped", "remove-no-op") in kinds
        assert transform.PassContext.current() is ctx
    assert transform.PassContext.current() is base
    ctx = transform.PassContext(opt_level=3, disabled_passes=["remove-no-op"])
    out = transform.parse_pipeline("simplify,remove-no-op")(mod, ctx)
    assert "range(0, 0)" in str(out) and "disabled" in ctx.log
    ctx.opt_level = 1
    assert ctx.opt_level == 1 and ctx.disabled_passes == ["remove-no-op"]


def test_pass_context_config():
    keys = {k for k, *_ in transform.PassContext.list_configs()}
    assert "check-semantics.seed" in keys
    ctx = transform.PassContext(config={"check-semantics.seed": 7})
    assert ctx.get_config("check-semantics.seed") == 7
    assert ctx.config == {"check-semantics.seed": 7}
    ctx.set_config("check-semantics.seed", "9")  # text, as in pipeline options
    assert ctx.get_config("check-semantics.seed") == 9
    with pytest.raises(tessel.ArgumentError, match="check-semantics.seed"):
        ctx.set_config("check-semantics.sed", 1)
    with pytest.raises(tessel.ArgumentError, match="is an int"):
        ctx.set_config("check-semantics.seed", True)
    with pytest.raises(tessel.ArgumentError):
        transform.PassContext(config={"nope": 1})


def test_python_module_pass_in_a_textual_pipeline():
    name = unique("tag-all")

    @transform.module_pass(name=name, opt_level=1, options={"value": 1, "label": ("x", "a label")})
    def tag_all(mod, ctx, value, label):
        """Tags every function."""
        assert isinstance(ctx, transform.PassContext)
        return tessel.IRModule({n: f.with_attr("tag", f"{label}{value}") for n, f in mod.items()},
                               mod.attrs)

    assert isinstance(tag_all, transform.Pass) and tag_all.name == name
    info = tag_all.info
    assert info.opt_level == 1 and info.description == "Tags every function."
    assert [o[:3] for o in info.options] == [("value", "int", 1), ("label", "string", "x")]
    mod = noisy()
    out = transform.parse_pipeline(f"simplify,{name}{{value=3,label=v}}")(mod)
    assert out["f"].attrs == {"tag": "v3"}
    assert "B[i] = A[i]" in str(out)  # simplify ran first
    assert tag_all(mod)["f"].attrs == {"tag": "x1"}
    camel = "".join(p.capitalize() for p in name.split("-"))
    assert str(getattr(transform, camel)(value=5)) == f"{name}{{value=5}}"
    with pytest.raises(tessel.ArgumentError, match="value.* is an int"):
        transform.create_pass(name, value="three")


def test_python_function_pass_returns_the_same_object_when_unchanged():
    name = unique("rename-attr")
    seen = []

    @transform.function_pass(name=name)
    def touch(func, fname, ctx):
        seen.append(fname)
        return func.with_attr("seen", True) if fname == "b" else func

    f = noisy()["f"]
    mod = tessel.IRModule({"a": f, "b": f.with_attr("skip_passes", [name]), "c": f})
    out = touch(mod)
    assert seen == ["a", "c"]  # b asked to be skipped
    assert out.same_as(mod)  # nothing changed: the very same module
    mod2 = tessel.IRModule({"a": f, "b": f})
    out2 = touch(mod2)
    assert out2["a"].same_as(f) and out2["b"].attrs == {"seen": True}


def test_python_instrument_sees_every_pass():
    name = unique("noop")

    @transform.module_pass(name=name)
    def noop(mod, ctx):
        return mod

    class Recorder(transform.PassInstrument):
        def __init__(self):
            self.events = []

        def before_pipeline(self, mod, ctx):
            self.events.append("start")

        def before_pass(self, info, mod, ctx):
            self.events.append(f"before {info.name}")

        def after_pass(self, info, before, after, ctx):
            self.events.append(f"after {info.name} {'same' if after.same_as(before) else 'changed'}")

        def after_pipeline(self, mod, ctx):
            self.events.append("end")

    rec = Recorder()
    assert rec.name == "Recorder"
    with transform.PassContext(opt_level=2, instruments=[rec]) as ctx:
        assert ctx.instruments == [rec]
        transform.parse_pipeline(f"simplify,{name},nested(remove-no-op)")(noisy())
    assert rec.events == [
        "start", "before simplify", "after simplify changed", f"before {name}",
        f"after {name} same", "before nested", "before remove-no-op", "after remove-no-op changed",
        "after nested changed", "end",
    ]


def test_failing_python_pass_is_a_pass_error_and_the_module_is_unchanged():
    name = unique("explode")

    @transform.function_pass(name=name)
    def explode(func, fname, ctx):
        raise ValueError("no luck with " + fname)

    failures = []

    class OnFailure(transform.PassInstrument):
        def on_failure(self, failure, ctx):
            failures.append((failure.pass_info.name, failure.output, failure.error))

    mod = noisy()
    before = str(mod)
    with transform.PassContext(instruments=[OnFailure()]):
        with pytest.raises(tessel.PassError) as info:
            transform.parse_pipeline(f"simplify,{name}")(mod)
    msg = str(info.value)
    assert msg.startswith(f"pass '{name}' failed: function 'f': python pass '{name}' raised:")
    assert "Traceback (most recent call last)" in msg
    assert "ValueError: no luck with f" in msg
    assert isinstance(info.value.__cause__, ValueError)
    assert str(mod) == before
    assert failures and failures[0][0] == name and failures[0][1] is None
    assert "no luck" in failures[0][2]
    # The next pipeline is not affected.
    assert "B[i] = A[i]" in str(transform.Simplify()(mod))


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_in_a_python_pass_propagates_as_itself(exc):
    # Ctrl-C during a Python pass is not a failure of the pass: it stops the
    # pipeline as KeyboardInterrupt (not a PassError), and the module is unchanged.
    name = unique("interrupted")

    @transform.function_pass(name=name)
    def interrupted(func, fname, ctx):
        raise exc()

    mod = noisy()
    before = str(mod)
    with pytest.raises(exc):
        transform.parse_pipeline(f"simplify,{name}")(mod)
    assert str(mod) == before
    assert "B[i] = A[i]" in str(transform.Simplify()(mod))


def test_python_pass_returning_the_wrong_type():
    name = unique("bad-return")

    @transform.module_pass(name=name)
    def bad(mod, ctx):
        return mod["f"]

    with pytest.raises(tessel.PassError, match="returned <tessel.PrimFunc.*expected an IRModule"):
        bad(noisy())
    fname = unique("bad-func")

    @transform.function_pass(name=fname)
    def bad_func(func, n, ctx):
        return None

    with pytest.raises(tessel.PassError, match="returned None, expected a PrimFunc"):
        bad_func(noisy())


def test_failing_instrument_stops_the_pipeline():
    class Refuse(transform.PassInstrument):
        name = "refuse"

        def before_pass(self, info, mod, ctx):
            if info.name == "remove-no-op":
                raise KeyError("stop here")

    with pytest.raises(tessel.PassError, match="instrument 'refuse' raised in before_pass") as info:
        with transform.PassContext(instruments=[Refuse()]):
            transform.parse_pipeline("simplify,remove-no-op")(noisy())
    assert isinstance(info.value.__cause__, KeyError)


def test_registration_rules():
    name = unique("twice")

    def first(mod, ctx):
        return mod.with_attr("which", 1)

    def second(mod, ctx):
        return mod.with_attr("which", 2)

    transform.module_pass(first, name=name)
    p = transform.module_pass(second, name=name)  # a re-run cell: replaces the function
    assert p(noisy()).attrs == {"which": 2}
    assert transform.parse_pipeline(name)(noisy()).attrs == {"which": 2}
    with pytest.raises(tessel.ArgumentError, match="already registered"):
        transform.module_pass(second, name=name, opt_level=3)
    with pytest.raises(tessel.ArgumentError, match="taken by a registered pass"):
        transform.module_pass(first, name="simplify")
    with pytest.raises(tessel.ArgumentError, match="cannot be written in pipeline text"):
        transform.module_pass(first, name="has space")
    with pytest.raises(tessel.ArgumentError, match="the default gives the type"):
        transform.module_pass(first, name=unique("opt"), options={"x": 1.5})
    with pytest.raises(TypeError):
        transform.module_pass(42)

    @transform.module_pass
    def bare_decorated_pass(mod, ctx):
        return mod

    assert bare_decorated_pass.name == "bare-decorated-pass"


def test_tessel_instruments():
    mod = noisy()
    timing = transform.timing()
    printer = transform.print_ir(after=["simplify"])
    with transform.PassContext(instruments=[transform.verify_each(), printer, timing]) as ctx:
        transform.parse_pipeline("simplify,remove-no-op")(mod)
        kinds = [type(i).__name__ for i in ctx.instruments]
        assert kinds == ["NativeInstrument", "CapturingInstrument", "CapturingInstrument"]
    assert "tessel pass timing" in timing.output() and "remove-no-op" in timing.output()
    assert "IR after simplify" in printer.output() and "func @f" in printer.output()
    printer.clear()
    assert printer.output() == ""


def test_semantic_check_catches_a_miscompiling_python_pass():
    name = unique("miscompile")

    @transform.module_pass(name=name)
    def miscompile(mod, ctx):
        text = str(mod).replace("= A[i]", "= A[i] + 1.0f32")
        return tessel.parse(text)

    check = transform.semantic_check()
    with pytest.raises(tessel.PassError, match=f"pass '{name}' is the first to change"):
        with transform.PassContext(instruments=[check]):
            transform.parse_pipeline(name)(noisy())


def test_dump_dir(tmp_path):
    with transform.PassContext(instruments=[transform.dump_dir(str(tmp_path))]):
        transform.parse_pipeline("simplify")(noisy())
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["000_input.tsl", "001_simplify.tsl"]
    tessel.load(str(tmp_path / "001_simplify.tsl"))


def test_passes_on_te_functions():
    A = te.placeholder((4,), "float32", name="A")
    B = te.compute((4,), lambda i: A[i] * 1.0 + 0.0, name="B")
    mod = tessel.IRModule({"f": te.create_prim_func([A, B])})
    out = transform.Sequential([transform.Simplify()])(mod)
    tessel.verify(out)
    tessel.check_same_results(mod["f"], out["f"])


def test_pipelines_with_python_passes_run_in_threads():
    # Pipelines run without the GIL; Python passes take it back. Several threads
    # at once must neither deadlock nor mix up their contexts.
    import threading

    name = unique("count-funcs")

    @transform.module_pass(name=name)
    def count_funcs(mod, ctx):
        return mod.with_attr("count", len(mod))

    results, errors = [], []

    def work(opt):
        try:
            with transform.PassContext(opt_level=opt) as ctx:
                for _ in range(20):
                    out = transform.parse_pipeline(f"simplify,{name}")(noisy())
                    assert transform.PassContext.current() is ctx
                results.append((opt, out.attrs["count"], "B[i] = A[i]" in str(out)))
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(opt,)) for opt in (0, 1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(results) == [(0, 1, False), (1, 1, True), (2, 1, True), (3, 1, True)]
