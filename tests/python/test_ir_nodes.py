"""The IR's node fields from Python (read-only), post_order_visit, transform,
substitute, call_packed / address_of and PrimFunc.with_body, and their errors."""

import pytest

import tessel
from tessel import ir, te

TEXT = """\
func @f(A: f32[8, 4], B: f32[8]) {
  for i in range(0, 8) {
    for k in range(0, 4) {
      block B(vi: spatial[0, 8] = i, vk: reduce[0, 4] = k) {
        reads(A[vi, vk])
        writes(B[vi])
        init {
          B[vi] = 0.0f32
        }
        B[vi] = B[vi] + A[vi, vk] * 2.0f32
      }
    }
  }
}
"""


def func():
    return tessel.parse(TEXT)["f"]


def test_fields_of_every_statement_and_expression():
    f = func()
    loop = f.body
    assert isinstance(loop, ir.For) and loop.loop_var.name == "i" and loop.extent.value == 8
    assert loop.for_kind == "serial" and loop.annotations == {}
    realize = loop.body.body
    assert isinstance(realize, ir.BlockRealize) and [str(v) for v in realize.iter_values] == ["i", "k"]
    block = realize.block
    assert block.name == "B" and [iv.kind for iv in block.iter_vars] == ["spatial", "reduce"]
    (buf, ranges), = block.reads
    assert buf.name == "A" and [(str(a), str(b)) for a, b in ranges] == [("vi", "1"), ("vk", "1")]
    assert isinstance(block.init, ir.BufferStore) and block.init.value.value == 0.0
    store = block.body
    add = store.value
    assert isinstance(add, ir.BinaryOp) and add.op == "Add"
    assert isinstance(add.a, ir.BufferLoad) and add.a.buffer.name == "B"
    mul = add.b
    assert mul.op == "Mul" and isinstance(mul.b, ir.FloatImm) and mul.b.value == 2.0
    with pytest.raises(AttributeError):
        loop.extent = 4  # read-only


def test_post_order_visit_sees_children_first():
    seen = []
    ir.post_order_visit(func(), lambda n: seen.append(type(n).__name__))
    last_store = len(seen) - 1 - seen[::-1].index("BufferStore")  # the update, after the init
    assert seen.index("BufferLoad") < seen.index("BinaryOp") < last_store
    assert seen[-3:] == ["BlockRealize", "For", "For"]
    assert seen.count("BufferStore") == 2


def test_transform_rewrites_and_keeps_unchanged_subtrees():
    f = func()
    body = ir.transform(f.body, lambda n: te.const(3.0, "float32")
                        if isinstance(n, ir.FloatImm) and n.value == 2.0 else None)
    assert "A[vi, vk] * 3.0f32" in str(body)
    g = f.with_body(body)
    assert "* 3.0f32" in str(g) and "* 2.0f32" in str(f)  # f itself is unchanged
    same = ir.transform(f.body, lambda n: None)
    assert same.same_as(f.body)


def test_transform_refuses_the_wrong_category():
    f = func()
    with pytest.raises(tessel.ArgumentError, match="an expression is replaced by an Expr"):
        ir.transform(f.body, lambda n: ir.Evaluate(te.const(0, "int32"))
                     if isinstance(n, ir.FloatImm) else None)
    with pytest.raises(tessel.ArgumentError, match="a Block is replaced by a Block"):
        ir.transform(f.body, lambda n: n.body if isinstance(n, ir.Block) else None)


def test_with_body_verifies():
    f = func()
    i = f.body.loop_var
    with pytest.raises(tessel.IRError):
        f.with_body(ir.Evaluate(ir.call_packed("g", [i])))  # `i` is not bound there


def test_substitute():
    f = func()
    loop = f.body
    out = ir.substitute(loop.body, {loop.loop_var: te.const(5, "int32")})
    assert "= 5, vk" in str(out) or "= 5," in str(out)


def test_call_packed_and_address_of():
    f = func()
    a, b = f.params
    call = ir.call_packed("tessel_blas_gemv", [32, 8, 4, a, 4, 1, ir.address_of(b, [te.const(2)]), 1.5])
    assert str(call) == ("@tessel_blas_gemv(32i64, 8i64, 4i64, address_of(A[0, 0]), 4i64, 1i64, "
                         "address_of(B[2]), 1.5f32): packed")
    assert isinstance(call, ir.Call) and call.callee == "packed" and call.args[3].callee == "address_of"
    with pytest.raises(tessel.ArgumentError, match="an argument is an Expr, a Buffer"):
        ir.call_packed("g", ["x"])
    with pytest.raises(tessel.ArgumentError, match="a bool argument"):
        ir.call_packed("g", [True])
