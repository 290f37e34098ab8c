"""rewriter.analysis.lowering: a newer grammar's file as CPython 3.11 reads it, every node at its place."""
from __future__ import annotations

import ast

import libcst as cst
import pytest

from rewriter.analysis.lowering import lowered

NEWER = '''import jax
type Alias[T] = list[T]
def f[T](x: T) -> T:
    d = {"k": x}
    s = f"{d["k"]} and {x!r:>{d["w"]}} {x = }"
    t = "a" f"{d["k"]}" 'b' f"{x}"
    u = f"{f"{x["q"]}"}"
    v = f"""
    {d[
        "k"  # a comment
    ]}
    """
    w = f"{'\\n'.join(x)}"
    return s
class C[T: int]:
    pass
'''


def _names(tree) -> list[tuple[str, int, int]]:
    return sorted((n.id, n.lineno, n.col_offset) for n in ast.walk(tree) if isinstance(n, ast.Name))


def test_every_line_keeps_its_length_and_every_name_its_place():
    out = lowered(cst.parse_module(NEWER))
    assert out is not None
    assert [len(line) for line in out.splitlines()] == [len(line) for line in NEWER.splitlines()]
    for name, line, column in _names(ast.parse(out)):
        assert NEWER.splitlines()[line - 1][column:column + len(name)] == name


@pytest.mark.parametrize("code, expected", [
    ('s = f"{d["k"]} {x}"\n', 's = (  d["k"]+  x )\n'),
    ('s = "a" f"{d["k"]}" \'b\'\n', 's = (      d["k"]     )\n'),
    ("type A = int\n", "pass        \n"),
    ("def f[T](x): pass\n", "def f   (x): pass\n"),
    ('s = f"{x}" f"{y}"\n', None),  # (nothing newer: nothing lowered)
    ('x = 1\x0c\ny = 2  # \u2028\ns = f"{d["k"]}"\r\n', 'x = 1\x0c\ny = 2  # \u2028\ns = (  d["k"] )\r\n'),  # (no line ends at \x0c or U+2028)
])
def test_forms(code, expected):
    assert lowered(cst.parse_module(code)) == expected


def test_a_construct_not_lowered_leaves_the_file_unread():
    assert lowered(cst.parse_module('type A = int\ns = t"{x}"\n')) is None
