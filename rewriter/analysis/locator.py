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

The other way (`ast_of`), a libcst node a rule asks about is moved to the `ast` node the reading on `ast`
answers for, through the same places; where libcst has a node `ast` has not, `a and b` of `a and b and c`
(libcst nests a chain, `ast` holds every operand in one node), a node outside the tree stands for it.
"""
from __future__ import annotations

import ast
from functools import cached_property
from typing import Callable

import libcst as cst

from ..findings import Span
from .ast_module import AstModule
from ..cst_tree import branches
from .lowering import fields
from .positions import node_at

# Found by where they start: a def (libcst ends it before a last `;`), a slice (libcst ends one with an empty
# bound after the whitespace that follows it: `x[a:   , b]`).
# Nodes placed by where they start: a def's range differs between the trees (decorators), and so does a compound
# statement's end where its last line ends in `;` (`ast` ends it after the `;`).
_BY_START = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Slice, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)
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


# The `ast` classes of a libcst class: `_KINDS` read the other way.
_AST_KINDS: dict[type, tuple[type, ...]] = {}
for _theirs, _ours in _KINDS.items():
    for _kind in _ours:
        _AST_KINDS[_kind] = (*_AST_KINDS.get(_kind, ()), _theirs)


def cst_in_order(root: cst.CSTNode, kinds: tuple[type, ...]) -> dict[type, list]:
    """The nodes of `kinds` in `root` (itself included), by class, in the order written (libcst's pre-order)."""
    found: dict[type, list] = {kind: [] for kind in kinds}
    stack = [root]
    while stack:
        current = stack.pop()
        bucket = found.get(type(current))
        if bucket is not None:
            bucket.append(current)
        stack.extend(reversed(branches(current)))
    return found


def ast_in_order(nodes, classes: dict[type, type]) -> dict[type, list]:
    """Of `nodes`, those of the `ast` classes in `classes`, grouped by the libcst class each maps to, in the
    order written (`cst_in_order`'s): by where they start, the outer of two that start together first."""
    found: dict[type, list] = {kind: [] for kind in set(classes.values())}
    for node in nodes:
        kind = classes.get(type(node))
        if kind is not None:
            found[kind].append(node)
    for group in found.values():
        group.sort(key=_written)
    return found


def _written(node: ast.AST) -> tuple:
    return node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset  # type: ignore[attr-defined, operator]


_FUNCTIONS: dict[type, type] = {ast.FunctionDef: cst.FunctionDef, ast.AsyncFunctionDef: cst.FunctionDef, ast.Lambda: cst.Lambda}


def _arity(fn: cst.Lambda | ast.Lambda) -> tuple[str, ...]:
    """A lambda's parameter names, in order (what pairs it with its twin besides its place in the order)."""
    if isinstance(fn, ast.Lambda):
        a = fn.args
        return tuple(p.arg for p in (*a.posonlyargs, *a.args, *((a.vararg,) if a.vararg else ()), *a.kwonlyargs,
                                     *((a.kwarg,) if a.kwarg else ())))
    p = fn.params
    star = (p.star_arg,) if isinstance(p.star_arg, cst.Param) else ()
    kwarg = (p.star_kwarg,) if p.star_kwarg is not None else ()
    return tuple(q.name.value for q in (*p.posonly_params, *p.params, *star, *p.kwonly_params, *kwarg))


class Locator:
    """libcst's node for an `ast` node of the same source (`cst_of`), by where each tree places it, and
    `ast`'s node for a libcst node (`ast_of`)."""

    def __init__(self, module: cst.Module, positions, python: AstModule, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> None:
        self.module, self.positions, self.python, self.parent = module, positions, python, parent

    def span(self, node: ast.AST) -> Span:
        """Where libcst places `node`'s twin (AstModule.place)."""
        return self.python.place(node)

    def cst_of(self, node: ast.AST) -> cst.CSTNode | None:
        """The libcst node where `node` is; None where there is none of its kind there (`x[a, b]`: libcst has
        two indices, no tuple)."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            paired = self._functions.get(id(node))
            if paired is not None:
                return paired
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)):
            return self._holder(node)
        kinds = _KINDS.get(type(node), (cst.BaseExpression,) if isinstance(node, ast.expr) else (cst.CSTNode,))
        return node_at(self.module, self.positions, self.span(node), kinds, start_only=isinstance(node, _BY_START))

    def ast_of(self, node: cst.CSTNode) -> ast.AST | None:
        """The `ast` node where libcst's `node` is (the reading on `ast` answers for it); None where there is
        none of its kind there."""
        if isinstance(node, (cst.Tuple, cst.GeneratorExp)):
            return self._held(node)
        kinds = _AST_KINDS.get(type(node))
        if kinds is None:
            return None
        r = self.positions[node]
        start_only = isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Slice, cst.If, cst.For, cst.While, cst.With, cst.Try,
                                       cst.TryStar, cst.Match))
        place = (r.start.line, r.start.column) if start_only else (r.start.line, r.start.column, r.end.line, r.end.column)
        found = next((n for n in self._places.get(place, ()) if isinstance(n, kinds)), None)
        if found is None and isinstance(node, cst.BooleanOperation):
            return self._chain(node)
        if found is None and isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
            return self._lowered(node)
        return found

    def _lowered(self, node: cst.FormattedString | cst.ConcatenatedString) -> ast.AST | None:
        """An f-string of a file read lowered (lowering.py): the sum of its fields' expressions, from the
        first one to the last."""
        expressions = fields(node)
        if not expressions:
            return None
        first, last = self.positions[expressions[0]], self.positions[expressions[-1]]
        place = (first.start.line, first.start.column, last.end.line, last.end.column)
        return next((n for n in self._places.get(place, ()) if isinstance(n, ast.expr)), None)

    def _chain(self, node: cst.BooleanOperation) -> ast.BoolOp | None:
        """`a and b` of `a and b and c`: libcst nests a chain from the left, `ast` has one node with every
        operand. A node of those operands, outside the tree, stands for the libcst one (to be read, not placed)."""
        kind = type(node.operator)
        operands: list[cst.BaseExpression] = []
        current: cst.BaseExpression = node
        while isinstance(current, cst.BooleanOperation) and type(current.operator) is kind and (current is node or not current.lpar):
            operands.append(current.right)
            current = current.left
        operands.append(current)
        values = [v for v in map(self.ast_of, reversed(operands)) if isinstance(v, ast.expr)]
        if len(values) != len(operands):
            return None
        chain = ast.BoolOp(ast.And() if kind is cst.And else ast.Or(), values)
        first, last = values[0], values[-1]
        chain.lineno, chain.col_offset = first.lineno, first.col_offset
        chain.end_lineno, chain.end_col_offset = last.end_lineno, last.end_col_offset
        return chain

    def _held(self, node: cst.Tuple | cst.GeneratorExp) -> ast.AST | None:
        """`ast`'s tuple or generator, by what it holds (`_holder` the other way)."""
        first: cst.CSTNode | None
        if isinstance(node, cst.GeneratorExp):
            first = node.elt
        else:
            element = node.elements[0] if node.elements else None
            first = element if isinstance(element, cst.StarredElement) else element.value if element is not None else None
        if first is None:  # `()`: libcst places it between its parentheses, `ast` with them
            r = self.positions[node]
            place = (r.start.line, r.start.column - 1, r.end.line, r.end.column + 1)
            return next((n for n in self._places.get(place, ()) if isinstance(n, ast.Tuple)), None)
        twin = self.ast_of(first)
        kind = ast.Tuple if isinstance(node, cst.Tuple) else ast.GeneratorExp
        current = self.python.names.parent(twin) if twin is not None else None
        while current is not None and not isinstance(current, kind):
            current = self.python.names.parent(current)
        held = current.elts[0] if isinstance(current, ast.Tuple) and current.elts else getattr(current, "elt", None)
        return current if held is not None and held is twin else None

    @cached_property
    def _functions(self) -> dict[int, cst.CSTNode]:
        """Each `ast` def and lambda with its libcst twin, paired in the order both trees hold them (defs by
        where `def` is, lambdas by where they start; libcst's in the order written), with no position
        computed: asked for every analysed function, where finding each by its place would generate the
        code of every statement around it. Empty where the two lists disagree (then each is found by place)."""
        ours = cst_in_order(self.module, (cst.FunctionDef, cst.Lambda))
        theirs = ast_in_order(ast.walk(self.python.tree) if self.python.tree is not None else (), _FUNCTIONS)
        defs, lambdas = ours[cst.FunctionDef], ours[cst.Lambda]
        theirs_defs, theirs_lambdas = theirs[cst.FunctionDef], theirs[cst.Lambda]
        if len(defs) != len(theirs_defs) or len(lambdas) != len(theirs_lambdas) \
                or any(d.name.value != t.name for d, t in zip(defs, theirs_defs)) \
                or any(_arity(d) != _arity(t) for d, t in zip(lambdas, theirs_lambdas)):
            return {}
        out: dict[int, cst.CSTNode] = {id(t): d for t, d in zip(theirs_defs, defs)}
        out.update((id(t), d) for t, d in zip(theirs_lambdas, lambdas))
        return out

    @cached_property
    def _places(self) -> dict[tuple, list[ast.AST]]:
        """Where libcst places each `ast` node's twin (`span`): by its whole range, and a def, class or slice
        by where it starts."""
        out: dict[tuple, list[ast.AST]] = {}
        for node in ast.walk(self.python.tree) if self.python.tree is not None else ():
            if not hasattr(node, "lineno") or getattr(node, "end_lineno", None) is None:
                continue
            span = self.span(node)
            place = (span.line, span.column) if isinstance(node, _BY_START) \
                else (span.line, span.column, span.end_line, span.end_column)
            out.setdefault(place, []).append(node)
        return out

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
