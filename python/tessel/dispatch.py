"""Library dispatch rules written in Python, beside the C++ ones (oneDNN, BLAS).

A rule is a function ``(func, target) -> PrimFunc | None | str``: the function
rewritten to call a library, or None (or a string saying why) when it does not
apply. Registered by name, it runs from any pipeline, textual ones included::

    from tessel import dispatch, ir

    @dispatch.rule(name="my-copy", priority=30, targets=["llvm"])
    def my_copy(func, target):
        if len(func.params) != 2:
            return "not a copy"
        src, dst = func.params
        return func.with_body(ir.Evaluate(ir.call_packed("my_memcpy", [src, dst, 4 * 1024])))

    mod = tessel.transform.parse_pipeline("dispatch-library{rules=[my-copy]}")(mod)

Registering a name again replaces the rule; :func:`unregister` removes it.
"""

from typing import Any, Callable, List, NamedTuple, Sequence

from . import _core

__all__ = ["rule", "register", "unregister", "list_rules", "RuleInfo"]


class RuleInfo(NamedTuple):
    """A registered rule: its name, priority and the target kinds it serves."""

    name: str
    priority: int
    targets: List[str]


def register(fn: Callable[..., Any], name: str, priority: int = 0,
             targets: Sequence[str] = ("llvm",)) -> Callable[..., Any]:
    """Registers ``fn`` as the dispatch rule ``name``; higher priorities are tried
    first. Returns ``fn``."""
    if not callable(fn):
        raise TypeError(f"a dispatch rule is a function, got {fn!r}")
    _core.register_dispatch_rule(fn, name, int(priority), list(targets))
    return fn


def rule(name: str, priority: int = 0, targets: Sequence[str] = ("llvm",)) -> Callable[..., Any]:
    """Decorator form of :func:`register`."""
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        return register(fn, name, priority, targets)
    return wrap


def unregister(name: str) -> bool:
    """Removes the rule ``name`` (C++ rules too); False when there was none."""
    return _core.unregister_dispatch_rule(name)


def list_rules() -> List[RuleInfo]:
    """Every registered rule, highest priority first."""
    return [RuleInfo(n, p, list(t)) for n, p, t in _core.list_dispatch_rules()]
