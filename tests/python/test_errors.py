"""The exception hierarchy: every tessel error is a TesselError and also the
built-in exception Python code expects."""

import pytest

import tessel
from tessel import errors


@pytest.mark.parametrize("cls,builtin", [
    (tessel.IRError, ValueError),
    (tessel.ParseError, ValueError),
    (tessel.StructuralEqualError, AssertionError),
    (tessel.RuntimeError, RuntimeError),
    (tessel.ArgumentError, TypeError),
    (tessel.ArgumentError, ValueError),
    (tessel.ScheduleError, tessel.TesselError),
    (tessel.PassError, tessel.TesselError),
    (tessel.BuildError, tessel.TesselError),
])
def test_hierarchy(cls, builtin):
    assert issubclass(cls, tessel.TesselError)
    assert issubclass(cls, builtin)
    assert getattr(errors, cls.__name__) is cls


def test_message_is_the_cpp_message():
    with pytest.raises(tessel.TesselError) as info:
        tessel.parse("func")
    assert info.value.message == str(info.value)
    assert info.value.message.startswith("<input>:1:")


def test_parse_error_without_a_position():
    e = tessel.ParseError("something odd")
    assert e.line is None and e.column is None and e.filename is None
