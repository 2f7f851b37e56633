"""Every public name of the package has a docstring, and so does every public
method and property of its classes (pybind11's bare signature line does not
count). Later bindings are held to the same rule."""

import inspect

import tessel
from tessel import dispatch, errors, graph, ir, metaschedule, nd, ops, runtime, schedule, te, transform, workloads

MODULES = [tessel, te, ops, transform, workloads, schedule, metaschedule, errors, nd, runtime, ir,
           dispatch, graph]


def documented(obj, name):
    doc = (getattr(obj, "__doc__", None) or "").strip()
    # pybind11 gives undocumented functions a doc that is just "name(args) -> type".
    return bool(doc) and not (doc.startswith(name + "(") and "\n" not in doc)


def public_names():
    for mod in MODULES:
        assert mod.__doc__, f"{mod.__name__} has a module docstring"
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.ismodule(obj):
                continue
            yield f"{mod.__name__}.{name}", name, obj
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if not attr.startswith("_"):
                        yield f"{mod.__name__}.{name}.{attr}", attr, value


def test_every_public_name_is_documented():
    missing = sorted({full for full, name, obj in public_names() if not documented(obj, name)})
    assert not missing, "undocumented: " + ", ".join(missing)


def test_every_name_in_all_exists():
    for mod in MODULES:
        for name in mod.__all__:
            assert hasattr(mod, name), f"{mod.__name__}.__all__ names {name}"
