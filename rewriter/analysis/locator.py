"""The libcst node of an `ast` node: where a reading on CPython's `ast` decides (issue 45), the node a rule
on libcst reports at or edits, found by position.

Both trees place most nodes alike (lines from 1, columns in characters once `ast`'s UTF-8 bytes are
counted as characters). Where they do not, the place is moved to libcst's: a def starts at `def` on both
but ends on libcst before a last `;`, and a slice with an empty bound ends on libcst after the whitespace
that follows it, so both are found by where they start; a parameter is its name on
libcst and its name with its annotation on `ast`; `ast` places a parenthesized tuple and a generator with
one pair of their parentheses, libcst from its first element to its last comma, so one is found by what it
holds. tests/test_locator.py finds the twin of every node of
the golden cases, the examples and any tree given to it.
"""
from __future__ import annotations

import ast
from typing import Callable

import libcst as cst

from ..findings import Span
from .ast_module import AstModule
from .positions import node_at

# Found by where they start: a def (libcst ends it before a last `;`), a slice (libcst ends one with an empty
# bound after the whitespace that follows it: `x[a:   , b]`).
_BY_START = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Slice)
# The libcst classes of an `ast` class, where they differ by more than the name.
_KINDS: dict[type, tuple[type, ...]] = {
    ast.FunctionDef: (cst.FunctionDef,), ast.AsyncFunctionDef: (cst.FunctionDef,), ast.ClassDef: (cst.ClassDef,),
    ast.Lambda: (cst.Lambda,), ast.arg: (cst.Name,),
    ast.Name: (cst.Name,), ast.Attribute: (cst.Attribute,), ast.Subscript: (cst.Subscript,), ast.Call: (cst.Call,),
    ast.Compare: (cst.Comparison,), ast.BoolOp: (cst.BooleanOperation,), ast.BinOp: (cst.BinaryOperation,),
    ast.UnaryOp: (cst.UnaryOperation,), ast.IfExp: (cst.IfExp,), ast.NamedExpr: (cst.NamedExpr,),
    ast.Await: (cst.Await,), ast.Yield: (cst.Yield,), ast.YieldFrom: (cst.Yield,), ast.Starred: (cst.StarredElement, cst.Arg), ast.Slice: (cst.Slice,),
    ast.Constant: (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Name, cst.Ellipsis),
    ast.JoinedStr: (cst.FormattedString, cst.ConcatenatedString),
    ast.List: (cst.List,), ast.Tuple: (cst.Tuple,), ast.Set: (cst.Set,), ast.Dict: (cst.Dict,),
    ast.ListComp: (cst.ListComp,), ast.SetComp: (cst.SetComp,), ast.DictComp: (cst.DictComp,), ast.GeneratorExp: (cst.GeneratorExp,),
    ast.If: (cst.If,), ast.For: (cst.For,), ast.AsyncFor: (cst.For,), ast.While: (cst.While,), ast.With: (cst.With,),
    ast.AsyncWith: (cst.With,), ast.Try: (cst.Try,), ast.TryStar: (cst.TryStar,), ast.Match: (cst.Match,),
    ast.Assign: (cst.Assign,), ast.AnnAssign: (cst.AnnAssign,), ast.AugAssign: (cst.AugAssign,), ast.Expr: (cst.Expr,),
    ast.Return: (cst.Return,), ast.Global: (cst.Global,), ast.Nonlocal: (cst.Nonlocal,), ast.Raise: (cst.Raise,),
    ast.Assert: (cst.Assert,), ast.Delete: (cst.Del,), ast.Pass: (cst.Pass,), ast.Break: (cst.Break,),
    ast.Continue: (cst.Continue,), ast.Import: (cst.Import,), ast.ImportFrom: (cst.ImportFrom,),
}


class Locator:
    """libcst's node for an `ast` node of the same source (`cst_of`), by where each tree places it."""

    def __init__(self, module: cst.Module, positions, python: AstModule, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> None:
        self.module, self.positions, self.python, self.parent = module, positions, python, parent

    def span(self, node: ast.AST) -> Span:
        """Where libcst places `node`'s twin (where it starts, for a def: see `cst_of`)."""
        python = self.python
        line, column = node.lineno, python._column(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        if isinstance(node, ast.arg):
            return Span(line, column, line, column + len(node.arg))
        end_line, end_column = node.end_lineno, python._column(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined, arg-type]
        return Span(line, column, end_line, end_column)

    def cst_of(self, node: ast.AST) -> cst.CSTNode | None:
        """The libcst node where `node` is; None where there is none of its kind there (`x[a, b]`: libcst has
        two indices, no tuple)."""
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)):
            return self._holder(node)
        kinds = _KINDS.get(type(node), (cst.BaseExpression,) if isinstance(node, ast.expr) else (cst.CSTNode,))
        return node_at(self.module, self.positions, self.span(node), kinds, start_only=isinstance(node, _BY_START))

    def _holder(self, node: ast.Tuple | ast.GeneratorExp) -> cst.CSTNode | None:
        """A tuple or a generator, by what it holds: libcst places one in parentheses inside them, from its
        first element to its last comma; `ast` with them."""
        first = node.elts[0] if isinstance(node, ast.Tuple) and node.elts else node.elt if isinstance(node, ast.GeneratorExp) else None
        kind = cst.Tuple if isinstance(node, ast.Tuple) else cst.GeneratorExp
        if first is None:  # `()`
            span = self.span(node)
            return node_at(self.module, self.positions, Span(span.line, span.column + 1, span.end_line, span.end_column - 1), (kind,))
        twin = self.cst_of(first)
        current = self.parent(twin) if twin is not None else None
        while current is not None and not isinstance(current, kind):
            current = self.parent(current)
        held = getattr(current, "elt", None)
        if isinstance(current, cst.Tuple) and current.elements:
            first_element = current.elements[0]
            held = first_element if isinstance(first_element, cst.StarredElement) else first_element.value
        return current if held is not None and held is twin else None  # (not a tuple around the one `ast` has)
