"""The IR's nodes and the walks over them, for Python passes and dispatch rules.

Every node is read-only; its fields are properties (``loop.extent``,
``store.buffer``, ``block.iter_vars``). Look inside with
:func:`post_order_visit`, rewrite with :func:`transform` or :func:`substitute`,
and put a new body into a function with :meth:`PrimFunc.with_body`::

    from tessel import ir

    def loads(func):
        found = []
        ir.post_order_visit(func, lambda n: found.append(n) if isinstance(n, ir.BufferLoad) else None)
        return found

    # Double every float constant:
    body = ir.transform(func.body, lambda n: te.const(2 * n.value, n.dtype)
                        if isinstance(n, ir.FloatImm) else None)
    func = func.with_body(body)                 # verified
"""

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _core
from ._core import (  # noqa: F401  (re-exported)
    Allocate,
    BinaryOp,
    Block,
    BlockRealize,
    Broadcast,
    Buffer,
    BufferLoad,
    BufferStore,
    Call,
    Cast,
    DeclBuffer,
    Evaluate,
    Expr,
    FloatImm,
    For,
    IfThenElse,
    IntImm,
    IterVar,
    LetStmt,
    Node,
    Not,
    PrimFunc,
    Ramp,
    Select,
    SeqStmt,
    Stmt,
    Var,
)

__all__ = [
    "Node", "Expr", "Stmt", "Var", "IntImm", "FloatImm", "BinaryOp", "Not", "Select", "Cast",
    "BufferLoad", "Ramp", "Broadcast", "Call", "BufferStore", "For", "IfThenElse", "LetStmt",
    "SeqStmt", "Evaluate", "Allocate", "DeclBuffer", "Block", "BlockRealize", "Buffer", "IterVar",
    "PrimFunc", "post_order_visit", "transform", "substitute", "call_packed", "address_of",
]

Walkable = Union[PrimFunc, Stmt, Expr]


def post_order_visit(node: Walkable, fn: Callable[[Node], Any]) -> None:
    """Calls ``fn`` on every expression and statement under ``node`` (a
    function's body for a PrimFunc), children before their parent."""
    _core.post_order_visit(node, fn)


def transform(node: Union[Stmt, Expr], fn: Callable[[Node], Optional[Node]]) -> Union[Stmt, Expr]:
    """Rewrites ``node`` bottom-up: each node, its children already rewritten, is
    passed to ``fn``; a non-None result replaces it (an Expr for an expression, a
    Stmt for a statement, a Block for a block). Unchanged subtrees stay the very
    same objects. Raises :class:`tessel.ArgumentError` on a replacement of the
    wrong category."""
    return _core.ir_transform(node, fn)


def substitute(node: Union[Stmt, Expr], mapping: Dict[Var, Expr]) -> Union[Stmt, Expr]:
    """``node`` with every use of each Var key replaced by its Expr value."""
    return _core.ir_substitute(node, mapping)


def call_packed(name: str, args: Sequence[Any]) -> Expr:
    """``@name(args): packed``, a call of ``int32_t name(const int64_t* args,
    int32_t n)``: each argument an Expr, a Buffer (the address of its first
    element), an int (i64) or a float (f32). Wrap it in :class:`Evaluate` to make
    it a statement."""
    return _core.call_packed(name, list(args))


def address_of(buffer: Buffer, indices: Optional[List[Expr]] = None) -> Expr:
    """``address_of(buffer[indices])`` (the first element by default), an
    argument of a packed call."""
    return _core.address_of(buffer, indices)
