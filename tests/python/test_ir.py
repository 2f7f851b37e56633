"""tessel's IR from Python: parse/print, modules and functions, expressions,
structural equality and hash, the verifier."""

import os
import pickle

import pytest

import tessel
from tessel import te

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

ADD_ONE = """\
func @add_one(A: f32[16], B: f32[16]) {
  for i in range(0, 16) {
    B[i] = A[i] + 1.0f32
  }
}
"""


def test_parse_print_round_trip():
    mod = tessel.parse(ADD_ONE)
    assert isinstance(mod, tessel.IRModule)
    assert mod.keys() == ["add_one"]
    assert str(mod) == ADD_ONE
    assert mod.script() == ADD_ONE
    again = tessel.parse(str(mod))
    assert tessel.structural_equal(mod, again)
    assert not mod.same_as(again)


def test_load_reads_a_file(tmp_path):
    path = tmp_path / "m.tsl"
    path.write_text(ADD_ONE)
    mod = tessel.load(str(path))
    assert str(mod) == ADD_ONE


def test_load_repository_examples():
    examples = os.path.join(REPO, "tools", "examples")
    files = [f for f in os.listdir(examples) if f.endswith(".tsl")]
    assert files, "tools/examples holds .tsl programs"
    for name in files:
        mod = tessel.load(os.path.join(examples, name))
        tessel.verify(mod)
        assert tessel.structural_equal(mod, tessel.parse(str(mod)))


def test_load_missing_file():
    with pytest.raises(FileNotFoundError, match="cannot open"):
        tessel.load("/no/such/file.tsl")


def test_parse_error_has_line_and_column():
    text = "func @f(A: f32[4]) {\n  A[0] = 1.0f32 +\n}\n"
    with pytest.raises(tessel.ParseError) as info:
        tessel.parse(text, "bad.tsl")
    err = info.value
    assert err.filename == "bad.tsl"
    assert err.line == 3
    assert err.column == 1
    assert str(err).startswith("bad.tsl:3:1: ")
    assert isinstance(err, tessel.TesselError) and isinstance(err, ValueError)


def test_parse_type_error_is_a_parse_error():
    with pytest.raises(tessel.ParseError, match=r"<input>:2:\d+: .*"):
        tessel.parse("func @f(A: f32[4]) {\n  A[0] = 1\n}\n")


def test_module_mapping_api():
    mod = tessel.parse(ADD_ONE)
    f = mod["add_one"]
    assert isinstance(f, tessel.PrimFunc)
    assert "add_one" in mod and "other" not in mod
    assert len(mod) == 1
    assert list(mod) == ["add_one"]
    assert mod.items()[0][0] == "add_one" and mod.items()[0][1].same_as(f)
    assert mod.get("other") is None
    with pytest.raises(KeyError, match="no function 'other'"):
        mod["other"]


def test_module_construction_and_copies():
    f = tessel.parse(ADD_ONE)["add_one"]
    m = tessel.IRModule({"a": f, "b": f}, attrs={"target": "llvm"})
    assert m.keys() == ["a", "b"]
    assert m.attrs == {"target": "llvm"}
    pairs = tessel.IRModule([("x", f)])
    assert pairs.keys() == ["x"]
    assert tessel.IRModule.from_func(f, "g").keys() == ["g"]
    m2 = m.without_function("a")
    assert m.keys() == ["a", "b"] and m2.keys() == ["b"]  # the original is unchanged
    m3 = m.with_function("c", f)
    assert m3.keys() == ["a", "b", "c"] and m.keys() == ["a", "b"]
    m4 = m.with_attr("opt", 3)
    assert m4.attrs == {"opt": 3, "target": "llvm"} and m.attrs == {"target": "llvm"}
    assert tessel.IRModule().keys() == []


def test_module_construction_errors():
    f = tessel.parse(ADD_ONE)["add_one"]
    with pytest.raises(tessel.ArgumentError, match="PrimFunc"):
        tessel.IRModule({"a": 3})
    with pytest.raises(tessel.ArgumentError, match="function 'a' is None"):
        tessel.IRModule({"a": None})
    with pytest.raises(tessel.IRError, match="empty|name"):
        tessel.IRModule({"": f})
    with pytest.raises(tessel.ArgumentError, match="attribute"):
        tessel.IRModule({"a": f}, attrs={"k": object()})


def test_function_attrs_and_params():
    f = tessel.parse(ADD_ONE)["add_one"]
    assert [p.name for p in f.params] == ["A", "B"]
    a = f.params[0]
    assert isinstance(a, tessel.Buffer)
    assert (a.dtype, a.shape, a.ndim, a.scope) == ("f32", (16,), 1, "global")
    g = f.with_attr("tile", [8, 32]).with_attr("name", "x").with_attr("fast", True)
    assert g.attrs == {"tile": [8, 32], "name": "x", "fast": True}
    assert f.attrs == {}
    assert g.without_attr("name").attrs == {"tile": [8, 32], "fast": True}
    assert f.without_attr("missing").same_as(f)
    text = g.script("h")
    assert text.startswith("func @h(")
    assert tessel.structural_equal(tessel.parse(text)["h"], g)
    assert isinstance(f.body, tessel.Stmt) and f.body.kind == "For"
    assert "B[i] = A[i] + 1.0f32" in str(f.body)


def test_pickle_round_trips():
    mod = tessel.parse(ADD_ONE)
    back = pickle.loads(pickle.dumps(mod))
    tessel.assert_structural_equal(mod, back)
    f = pickle.loads(pickle.dumps(mod["add_one"]))
    tessel.assert_structural_equal(mod["add_one"], f)


def test_expression_operators():
    i = tessel.Var("i", "i32")
    assert i.name == "i" and i.dtype == "i32" and i.kind == "Var"
    assert str(i * 4 + 1) == "i * 4 + 1"
    assert str(2 - i) == "2 - i"
    assert str(i // 2) == "i // 2"
    assert str(i % 3) == "i %% 3"  # floor modulo
    assert (i < 3).dtype == "bool"
    assert str((i >= 0) & (i < 8)) == "i >= 0 && i < 8"
    assert str(~(i == 1)) == "!(i == 1)"
    assert str(-i) == "0 - i"
    x = tessel.Var("x", "float32")
    assert str(x / 2) == "x / 2.0f32"
    assert str(x ** 2) == "pow(x, 2.0f32)"
    assert str(abs(x)) == "fabs(x)"
    assert str(x.astype("f64")) == "cast<f64>(x)" or "f64" in str(x.astype("f64"))
    c = te.const(3, "i64")
    assert isinstance(c, tessel.IntImm) and c.value == 3 and c.dtype == "i64"
    f = te.const(0.5)
    assert isinstance(f, tessel.FloatImm) and f.value == 0.5 and f.dtype == "f32"


def test_expression_operator_errors():
    i = tessel.Var("i")
    x = tessel.Var("x", "f32")
    with pytest.raises(tessel.IRError, match="operand types differ"):
        i + x
    with pytest.raises(tessel.IRError, match="cannot combine the float 0.5"):
        i * 0.5
    with pytest.raises(tessel.IRError, match="'/' on i32 expressions"):
        i / 2
    with pytest.raises(tessel.IRError, match="does not fit"):
        i + 2**40
    with pytest.raises(TypeError, match="no truth value"):
        if i == 2:
            pass
    with pytest.raises(TypeError):
        i + "a"
    with pytest.raises(tessel.ArgumentError, match="scalar dtype"):
        tessel.Var("v", "f32x4")
    with pytest.raises(tessel.ArgumentError, match="unknown dtype"):
        tessel.Var("v", "int33")


def test_expressions_hash_by_identity():
    i, j = tessel.Var("i"), tessel.Var("i")
    d = {i: 1, j: 2}
    assert d[i] == 1 and d[j] == 2
    assert i.same_as(i) and not i.same_as(j)


def test_structural_equal_is_alpha_equivalence():
    a = tessel.parse(ADD_ONE)
    b = tessel.parse(ADD_ONE.replace("for i", "for k").replace("[i]", "[k]"))
    assert tessel.structural_equal(a, b)
    assert tessel.structural_hash(a) == tessel.structural_hash(b)
    c = tessel.parse(ADD_ONE.replace("1.0f32", "2.0f32"))
    assert not tessel.structural_equal(a, c)
    assert tessel.structural_hash(a) != tessel.structural_hash(c)
    # Functions, statements and expressions compare too; different kinds never do.
    assert tessel.structural_equal(a["add_one"], b["add_one"])
    # A body alone uses the parameters' buffers freely: they match only when mapped.
    assert not tessel.structural_equal(a["add_one"].body, b["add_one"].body)
    assert tessel.structural_equal(a["add_one"].body, b["add_one"].body, map_free_vars=True)
    assert not tessel.structural_equal(a, a["add_one"])


def test_free_variables():
    x, y = tessel.Var("x"), tessel.Var("y")
    assert not tessel.structural_equal(x + 1, y + 1)
    assert tessel.structural_equal(x + 1, y + 1, map_free_vars=True)
    assert tessel.structural_hash(x + 1, map_free_vars=True) == tessel.structural_hash(
        y + 1, map_free_vars=True)


def test_assert_structural_equal_names_the_path_and_both_sides():
    a = tessel.parse(ADD_ONE)
    c = tessel.parse(ADD_ONE.replace("1.0f32", "2.0f32"))
    tessel.assert_structural_equal(a, tessel.parse(ADD_ONE))
    with pytest.raises(tessel.StructuralEqualError) as info:
        tessel.assert_structural_equal(a, c)
    msg = str(info.value)
    assert "func[add_one]" in msg
    assert "1.0f32" in msg and "2.0f32" in msg
    assert isinstance(info.value, AssertionError)
    with pytest.raises(tessel.StructuralEqualError, match="IRModule vs a PrimFunc"):
        tessel.assert_structural_equal(a, a["add_one"])
    with pytest.raises(tessel.ArgumentError):
        tessel.structural_equal(a, 3)


def test_structural_hash_is_stable():
    # The stored hash is process independent: computing it twice gives the same value.
    mod = tessel.parse(ADD_ONE)
    h = tessel.structural_hash(mod)
    assert isinstance(h, int) and 0 <= h < 2**64
    assert h == tessel.structural_hash(tessel.parse(ADD_ONE))


def test_verify():
    tessel.verify(tessel.parse(ADD_ONE))
    bad = """\
func @f(A: f32[4]) {
  A[4] = 0.0f32
}
"""
    with pytest.raises(tessel.IRError, match="verify: function 'f'"):
        tessel.verify(tessel.parse(bad))
    with pytest.raises(tessel.IRError, match="function 'g'"):
        tessel.verify(tessel.parse(bad)["f"], name="g")
    with pytest.raises(tessel.ArgumentError, match="verify takes"):
        tessel.verify("func")
