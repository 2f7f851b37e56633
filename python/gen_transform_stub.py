"""Writes tessel/transform.pyi: the hand-written stub (transform.pyi.in) plus one
typed constructor per pass registered in the freshly built extension, so that
editors complete ``tessel.transform.Simplify(...)`` and its options.

    python3 gen_transform_stub.py transform.pyi.in build/python/tessel/transform.pyi

Run by the build (python/CMakeLists.txt) with PYTHONPATH at the built package.
"""

import os
import sys

# This file sits beside the source package python/tessel, which has no built
# extension: import the built one from PYTHONPATH instead.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

from tessel import transform  # noqa: E402

_TYPES = {"int": "int", "bool": "bool", "string": "str", "list": "Sequence[str]"}


def _stub(info) -> str:
    camel = transform._camel(info.name)
    params = []
    if info.kind == "combinator":
        params.append("passes: Sequence[Pass]")
    if info.options:
        params.append("*")
        params += [f"{n.replace('-', '_')}: {_TYPES.get(t, 'Any')} = ..."
                   for n, t, _d, _doc in info.options]
    doc = transform._describe(info).replace('"""', "'''")
    body = "\n".join(("    " + line).rstrip() for line in doc.split("\n"))
    return f'def {camel}({", ".join(params)}) -> Pass:\n    """\n{body}\n    """\n    ...\n'


def main() -> None:
    template, out = sys.argv[1], sys.argv[2]
    with open(template) as f:
        text = f.read()
    stubs = [_stub(info) for info in transform.list_passes()
             if transform._GENERATED.get(transform._camel(info.name)) == info.name]
    text += "\n# ---- Generated from the pass registry ----\n\n" + "\n\n".join(stubs)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
