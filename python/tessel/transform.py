"""Passes and pipelines: every transformation of a module is an
``IRModule -> IRModule`` pass, run by the pass manager (docs/passes.md).

Registered passes are functions of this module, named in CamelCase and taking
their options as keywords (``-`` in option names becomes ``_``)::

    from tessel import transform

    seq = transform.Sequential([transform.Simplify(), transform.RemoveNoOp()])
    same = transform.parse_pipeline("simplify,remove-no-op")      # the same pipeline
    out = seq(mod)                                                  # runs it

    with transform.PassContext(opt_level=3, instruments=[transform.verify_each()]):
        out = transform.parse_pipeline("canonicalize-names{renumber=true}")(mod)

A Python function becomes a pass that pipeline text can name::

    @transform.module_pass(name="tag-all", options={"value": 1})
    def tag_all(mod, ctx, value):
        return tessel.IRModule({n: f.with_attr("tag", value) for n, f in mod.items()},
                               mod.attrs)

    transform.parse_pipeline("simplify,tag-all{value=3}")(mod)

A pass returns the very same object for anything it leaves unchanged (the pass
manager compares pointers to see what changed). An exception a Python pass
raises fails the pipeline with :class:`tessel.PassError` (the exception is its
``__cause__``); the input module is untouched.

Instruments watch a pipeline: subclass :class:`PassInstrument` and override
any of its hooks, or use tessel's own (:func:`verify_each`, :func:`timing`,
:func:`print_ir`, :func:`semantic_check`, :func:`dump_dir`).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _core
from ._core import (
    CapturingInstrument,
    NativeInstrument,
    Pass,
    PassContext,
    PassFailure,
    PassInfo,
)

__all__ = [
    "Pass", "PassInfo", "PassContext", "PassFailure", "PassInstrument", "NativeInstrument",
    "CapturingInstrument",
    "Sequential", "parse_pipeline", "create_pass", "create_pipeline", "list_passes",
    "module_pass", "function_pass",
    "verify_each", "timing", "print_ir", "semantic_check", "dump_dir",
]


# ---- Pipelines -----------------------------------------------------------------------


def Sequential(passes: Sequence[Pass]) -> Pass:  # noqa: N802 (named like a class, as in TVM)
    """A pipeline running ``passes`` in order; it prints as ``a,b,c``."""
    return _core.sequential(list(passes))


def parse_pipeline(text: str) -> Pass:
    """Builds a pipeline from text: ``"simplify,my-pass{factor=4,names=[a,b]},
    fixed-point{max-iterations=3}(remove-no-op)"``. ``str()`` of the result gives
    the canonical text back. Errors raise :class:`tessel.PassError` with the
    line, column and a caret (and a did-you-mean for unknown names)."""
    return _core.parse_pipeline(text)


def create_pass(name: str, **options: Any) -> Pass:
    """The registered pass (or alias) ``name`` with ``options`` (keywords with
    ``_`` for ``-``, typed: int, bool, str, list of str)."""
    return _core.create_pass(name, options)


def create_pipeline(name: str, passes: Sequence[Pass], **options: Any) -> Pass:
    """The registered combinator ``name`` (e.g. "fixed-point") around ``passes``."""
    return _core.create_pipeline(name, list(passes), options)


def list_passes() -> List[PassInfo]:
    """Every registered pass, combinator and alias, sorted by name."""
    return _core.list_passes()


# ---- Passes written in Python ---------------------------------------------------------


def _option_specs(options: Optional[Dict[str, Any]]) -> list:
    specs = []
    for key, value in (options or {}).items():
        default, doc = value if isinstance(value, tuple) else (value, "")
        specs.append((key.replace("_", "-"), default, doc))
    return specs


def _register(fn: Callable[..., Any], function_pass: bool, name: Optional[str], opt_level: int,
              description: Optional[str], required: Sequence[str],
              options: Optional[Dict[str, Any]], skips_scheduled: bool) -> Pass:
    if not callable(fn):
        raise TypeError(f"a pass is made from a function, got {fn!r}")
    pass_name = name or fn.__name__.replace("_", "-")
    doc = description
    if doc is None:
        doc = (fn.__doc__ or "").strip().split("\n")[0] or f"Python pass {fn.__qualname__}"
    _core.register_pass(fn, function_pass, pass_name, opt_level, doc, list(required),
                        _option_specs(options), skips_scheduled)
    return _core.create_pass(pass_name, {})


def module_pass(fn: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None,
                opt_level: int = 0, description: Optional[str] = None,
                required: Sequence[str] = (), options: Optional[Dict[str, Any]] = None
                ) -> Any:
    """Registers ``fn(mod, ctx, **options) -> IRModule`` as a module pass and
    returns it as a :class:`Pass` with default options.

    ``name`` (default: the function name with ``-`` for ``_``) is how pipeline
    text names it; ``opt_level`` gates it against the context's; ``required``
    names passes that must run before it; ``options`` maps option names to
    defaults (the default's type is the option's type: int, bool, str or a list
    of str) or to a ``(default, "description")`` tuple. Usable bare (``@module_pass``) or
    with arguments. Registering the same name again (a re-run cell) replaces the
    function if the kind, opt level, requirements and options are the same.
    """
    def wrap(f: Callable[..., Any]) -> Pass:
        return _register(f, False, name, opt_level, description, required, options, False)

    return wrap(fn) if fn is not None else wrap


def function_pass(fn: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None,
                  opt_level: int = 0, description: Optional[str] = None,
                  required: Sequence[str] = (), options: Optional[Dict[str, Any]] = None,
                  skips_scheduled: bool = False) -> Any:
    """Registers ``fn(func, name, ctx, **options) -> PrimFunc``, applied to each
    function of the module in turn, as a pass; returns it as a :class:`Pass`.

    Return ``func`` itself for a function you leave unchanged: the module is
    rebuilt only when a function changed. Functions whose attrs say
    ``skip_passes = [<this pass>]`` (or ``["*"]``) are skipped, and with
    ``skips_scheduled`` also those marked ``scheduled = true``. The other
    arguments are as for :func:`module_pass`.
    """
    def wrap(f: Callable[..., Any]) -> Pass:
        return _register(f, True, name, opt_level, description, required, options,
                         skips_scheduled)

    return wrap(fn) if fn is not None else wrap


# ---- Instruments -------------------------------------------------------------------------


class PassInstrument:
    """Base for instruments written in Python: override any hook.

    Before-hooks run in the order of ``PassContext.instruments``, after-hooks in
    reverse, so the first instrument is outermost. Pass hooks see nested
    pipelines too (``info.is_pipeline``), not the top-level pipeline, which has
    the pipeline hooks. A hook that raises stops the pipeline with PassError.
    """

    @property
    def name(self) -> str:
        """The instrument's name in messages (default: the class name)."""
        return type(self).__name__

    def before_pipeline(self, mod: _core.IRModule, ctx: PassContext) -> None:
        """Called once before the pipeline runs on ``mod``."""

    def after_pipeline(self, mod: _core.IRModule, ctx: PassContext) -> None:
        """Called once after the pipeline produced ``mod``."""

    def before_pass(self, info: PassInfo, mod: _core.IRModule, ctx: PassContext) -> None:
        """Called before each pass (gated-out passes are not run and not seen)."""

    def after_pass(self, info: PassInfo, before: _core.IRModule, after: _core.IRModule,
                   ctx: PassContext) -> None:
        """Called after each pass; ``after.same_as(before)`` when it changed nothing."""

    def on_failure(self, failure: PassFailure, ctx: PassContext) -> None:
        """Called when a pass or a hook failed, before the error is raised."""


def verify_each() -> NativeInstrument:
    """Runs the verifier after every pass; the first invalid output stops the
    pipeline, naming the pass."""
    return _core.instrument_verify_each()


def timing() -> CapturingInstrument:
    """Times every pass; after the pipeline, ``.output()`` holds the timing tree.
    Put it last in the instruments so that it is innermost."""
    return _core.instrument_timing()


def print_ir(before: Sequence[str] = (), after: Sequence[str] = (), before_all: bool = False,
             after_all: bool = False, after_change: bool = False) -> CapturingInstrument:
    """Prints the module before/after the named passes (or all of them) into
    ``.output()``. With ``after_change``, only after passes that changed it."""
    return _core.instrument_print_ir(before_all, list(before), after_all, list(after),
                                     after_change)


def semantic_check() -> CapturingInstrument:
    """Runs every function in the interpreter before the pipeline and again after
    each pass that changed it, on the same random inputs; the first pass that
    changes a result stops the pipeline. Skip notes go to ``.output()``.
    Config: ``check-semantics.seed``, ``check-semantics.work-limit``."""
    return _core.instrument_semantic_check()


def dump_dir(path: str) -> NativeInstrument:
    """Writes the module after every pass into ``path`` as numbered .tsl files."""
    return _core.instrument_dump_dir(str(path))


# ---- One function per registered pass -------------------------------------------------------


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_.]", name) if part)


def _describe(info: PassInfo) -> str:
    lines = [info.description or info.name, "", f"Registered {info.kind} ``{info.name}``"
             f" (opt level {info.opt_level})."]
    if info.options:
        lines += ["", "Options (keywords; ``_`` for ``-``):"]
        lines += [f"    {n.replace('-', '_')}: {t} = {d!r} -- {doc}"
                  for n, t, d, doc in info.options]
    if info.required:
        lines += ["", "Requires: " + ", ".join(info.required)]
    return "\n".join(lines)


def _constructor(info: PassInfo) -> Callable[..., Pass]:
    pass_name = info.name
    if info.kind == "combinator":
        def make(passes: Sequence[Pass], **options: Any) -> Pass:
            return _core.create_pipeline(pass_name, list(passes), options)
    else:
        def make(**options: Any) -> Pass:
            return _core.create_pass(pass_name, options)
    make.__name__ = make.__qualname__ = _camel(pass_name)
    make.__doc__ = _describe(info)
    make.__module__ = __name__
    return make


_GENERATED: Dict[str, str] = {}  # CamelCase name -> registered name


def _generate() -> None:
    for info in _core.list_passes():
        camel = _camel(info.name)
        if camel in globals() and camel not in _GENERATED:
            continue  # Never shadow this module's own names; create_pass still works.
        globals()[camel] = _constructor(info)
        _GENERATED[camel] = info.name


_generate()


def __getattr__(attr: str) -> Callable[..., Pass]:
    # Passes registered after import (Python passes, plugins) by their CamelCase name.
    for info in _core.list_passes():
        if _camel(info.name) == attr:
            return _constructor(info)
    raise AttributeError(f"module 'tessel.transform' has no attribute {attr!r}")
