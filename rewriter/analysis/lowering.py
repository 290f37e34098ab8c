"""A file of a newer Python's grammar, as this Python's parser can read it, everything at its place.

libcst reads the grammars up to Python 3.14; CPython 3.11 does not read PEP 695 (`type X = ...`,
`def f[T](...)`) or PEP 701 f-strings (`f"{d["k"]}"`). The analysis reads CPython's `ast` (issue 45),
so such a file would have no traced values. Lowered, it has: each newer construct becomes one this
parser reads, of the same lines and columns, so every other node is where libcst places it and the
locator pairs the trees as in any file. Nothing lowered is ever written: it is read, never edited.

- a `type` statement becomes `pass` (it binds an alias, no value a traced function computes with);
- type parameters (`[T]` of `def f[T]` or `class C[T]`) become blanks;
- an f-string this parser rejects becomes the sum of its replacement fields' expressions, each where it
  was (`(  d["k"] )`): what the reading asks of an f-string is the join of those; one with none
  becomes an empty string.
"""
from __future__ import annotations

import ast
import functools
import io
import warnings

from ..lazy_libcst import cst


def lowered(module: cst.Module) -> str | None:
    """`module`'s code with its newer constructs lowered (see the module's docstring), or None when it
    still does not parse (a construct this does not lower)."""
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    finder = _newer()()
    wrapper.visit(finder)
    code = module.code
    if not finder.edits:
        return None
    starts = [0]  # (lines as libcst counts them: a form feed or U+2028 ends none, unlike `str.splitlines`)
    for text_line in io.StringIO(code, newline="").readlines():
        starts.append(starts[-1] + len(text_line))
    text = list(code)
    for (line, column), (end_line, end_column), kind in finder.edits:
        _blank(text, starts[line - 1] + column, starts[end_line - 1] + end_column, kind)
    out = "".join(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(out)
    except SyntaxError:
        return None
    return out


def _blank(text: list[str], begin: int, end: int, kind: str) -> None:
    """Blanks over `text[begin:end]` (its line breaks kept), with what `kind` puts at its ends."""
    for i in range(begin, end):
        if text[i] not in "\r\n":
            text[i] = " "
    if kind == "pass":
        text[begin:begin + 4] = list("pass")
    elif kind in ("open", "whole"):
        text[begin] = "("
        if kind == "whole":
            text[begin + 1:begin + 3] = ['"', '"']
    elif kind == "plus":
        text[begin] = "+"
    if kind in ("close", "whole"):
        text[end - 1] = ")"


@functools.cache
def _newer() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""
    from libcst.metadata import PositionProvider

    class Newer(cst.CSTVisitor):
        """The places to lower, as ((line, column), (end line, end column), kind)."""

        METADATA_DEPENDENCIES = (PositionProvider,)

        def __init__(self) -> None:
            super().__init__()
            self.edits: list[tuple[tuple[int, int], tuple[int, int], str]] = []
            self._covered: set[int] = set()  # f-strings lowered with the concatenation that holds them

        def _place(self, node: cst.CSTNode) -> tuple[tuple[int, int], tuple[int, int]]:
            r = self.get_metadata(PositionProvider, node)
            return (r.start.line, r.start.column), (r.end.line, r.end.column)

        def visit_TypeAlias(self, node: cst.TypeAlias) -> bool:
            start, end = self._place(node)
            self.edits.append((start, end, "pass"))
            return False

        def visit_TypeParameters(self, node: cst.TypeParameters) -> bool:
            start, end = self._place(node)
            self.edits.append((start, end, "blank"))
            return False

        def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
            """`"a" f"{d["k"]}"`: one string, lowered as one (its f-strings' fields summed)."""
            if id(node) in self._covered:
                return True
            if _reads(node):
                return False
            pieces = _pieces(node)
            self._covered.update(id(p) for p in pieces)
            self._covered.update(id(c) for c in _concatenations(node))
            self._lower(node, fields(node))
            return True

        def visit_FormattedString(self, node: cst.FormattedString) -> bool:
            if id(node) in self._covered:
                return True
            if _reads(node):
                return False  # (this parser reads it, and all it holds)
            self._lower(node, fields(node))
            return True  # (an f-string in a field is lowered on its own, if this parser rejects it)

        def _lower(self, node: cst.BaseExpression, expressions: list[cst.BaseExpression]) -> None:
            start, end = self._place(node)
            fields = [self._place(e) for e in expressions]
            if not fields:
                self.edits.append((start, end, "whole"))
                return
            self.edits.append((start, fields[0][0], "open"))
            for (_, before), (after, _) in zip(fields, fields[1:]):
                self.edits.append((before, after, "plus"))
            self.edits.append((fields[-1][1], end, "close"))

    return Newer


def _reads(node: cst.BaseExpression) -> bool:
    """This Python's parser reads the string `node` on its own."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(cst.Module([]).code_for_node(node), mode="eval")
        return True
    except SyntaxError:
        return False


def _concatenations(node: cst.ConcatenatedString) -> list[cst.ConcatenatedString]:
    """`node` and the concatenations nested in it (libcst nests `"a" "b" "c"` from the right)."""
    out = [node]
    for side in (node.left, node.right):
        if isinstance(side, cst.ConcatenatedString):
            out.extend(_concatenations(side))
    return out


def _pieces(node: cst.ConcatenatedString) -> list[cst.BaseExpression]:
    """The strings an implicit concatenation joins, in order."""
    out: list[cst.BaseExpression] = []
    for side in (node.left, node.right):
        out.extend(_pieces(side) if isinstance(side, cst.ConcatenatedString) else [side])
    return out


def fields(node: cst.FormattedString | cst.ConcatenatedString) -> list[cst.BaseExpression]:
    """The expressions a lowered string is the sum of: its replacement fields', those of their format specs
    included, in order (not those of an f-string in a field, which is lowered on its own)."""
    if isinstance(node, cst.FormattedString):
        return _expressions(node.parts)
    return [e for p in _pieces(node) if isinstance(p, cst.FormattedString) for e in _expressions(p.parts)]


def _expressions(parts) -> list[cst.BaseExpression]:
    """The expressions of an f-string's replacement fields, those of their format specs included, in order."""
    out: list[cst.BaseExpression] = []
    for part in parts:
        if isinstance(part, cst.FormattedStringExpression):
            out.append(part.expression)
            out.extend(_expressions(part.format_spec or ()))
    return out
