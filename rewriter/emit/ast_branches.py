"""branches.py on CPython's `ast` (issue 45): what a branch (or a loop body) computes, as one expression per
assigned name, decided on `ast` with branches.py's answers and messages for the same code
(tests/test_ast_emit.py compares them).

Values are `ast` expressions: the file's own subtrees where nothing changed, new nodes where a name was
substituted (the file's tree is never written to). A new node has no place (a node with one is the file's,
unchanged, and its text is its code); the value of an augmented assignment and of a bare `return` are new.
Where the trees differ, libcst's shape is read:
  - the statements written on one line (`a = 1; b = 2`) are one libcst statement, and only a new line
    after a `return` is "code after `return`";
  - a statement's kind is named by libcst's class (`Del`, `for` for `async for`, `functiondef` for
    `async def`);
  - substitution replaces every Name but an attribute's or a keyword's (a comprehension's target and an
    assignment expression's too), counts a keyword or a lambda parameter spelled as an assigned name as a
    use, and refuses a lambda whose positional parameter rebinds one (branches.Substitute);
  - `True`, `False` and `None` are Names, `"a" "b"` is no SimpleString (`_trivial`).
"""
from __future__ import annotations

import ast
import copy
from typing import Optional, Protocol, cast

from .ast_safety import NAMED_CONSTANTS, call_arguments, number, written_children
from .branches import Effect, Refused

__all__ = ["Effect", "Refused", "effect", "substitute", "values_of", "written"]



class Source(Protocol):
    """What the effect reads of the file's text, where libcst's nodes differ from `ast`'s (an AstFile)."""

    def string_pieces(self, value: ast.Constant) -> int:
        """How many string literals `value` is written as (`"a" "b"`: two; libcst's SimpleString is one)."""

    def parentheses(self, node: ast.expr) -> int:
        """How many pairs of parentheses are the node's own (libcst's `lpar`)."""

    def tuple_parenthesized(self, node: ast.Tuple) -> bool:
        """The tuple is written in parentheses of its own (`ast` places them inside the node)."""

_AUGMENTED: dict[type, type[ast.operator]] = {
    ast.Add: ast.Add, ast.Sub: ast.Sub, ast.Mult: ast.Mult, ast.Div: ast.Div, ast.FloorDiv: ast.FloorDiv,
    ast.Mod: ast.Mod, ast.Pow: ast.Pow, ast.MatMult: ast.MatMult, ast.BitAnd: ast.BitAnd, ast.BitOr: ast.BitOr,
    ast.BitXor: ast.BitXor,
}  # (no `<<=`, `>>=`: not in branches._augmented, "an unusual augmented assignment")
# The compound statements, by libcst's class name lowered (as the message names them).
_COMPOUND: dict[type, str] = {
    ast.If: "if", ast.For: "for", ast.AsyncFor: "for", ast.While: "while", ast.With: "with", ast.AsyncWith: "with",
    ast.Try: "try", ast.TryStar: "trystar", ast.FunctionDef: "functiondef", ast.AsyncFunctionDef: "functiondef",
    ast.ClassDef: "classdef", ast.Match: "match",
}
_CST_NAMES: dict[type, str] = {ast.Delete: "Del"}  # libcst's class of a small statement, where its name differs


class _Substitute:
    """branches.Substitute on `ast`, in libcst's visiting order (the order of `used`, whose first reused
    intermediate is named). As libcst's transformer does, it rebuilds every node it visits: a node of the
    result is the file's own only where it is a value substituted for a name, which is what asking it for
    its qualified names (a library call is harmless) tells apart. Each rebuilt node remembers the node it
    was rebuilt from and the names substituted below it, so its code can be written as libcst writes it
    (`written`)."""

    def __init__(self, mapping: dict[str, ast.expr], source: Optional[Source]) -> None:
        self.mapping = mapping
        self.source = source
        self.used: dict[str, int] = {}

    def use(self, name: str | None) -> bool:
        if name is None or name not in self.mapping:
            return False
        self.used[name] = self.used.get(name, 0) + 1
        return True

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.Name) and self.use(node.id):
            return _atom(self.mapping[node.id], self.source)
        if isinstance(node, ast.Lambda) and any(p.arg in self.mapping for p in _parameters(node.args)):
            raise Refused("a lambda rebinds a name the branch assigns")
        if isinstance(node, ast.comprehension) and _binds_any(node.target, self.mapping):
            raise Refused("a comprehension rebinds a name the branch assigns")
        if isinstance(node, ast.NamedExpr) and _binds_any(node.target, self.mapping):
            raise Refused("an assignment expression rebinds a name the branch assigns")
        if isinstance(node, (ast.keyword, ast.arg)):
            self.use(node.arg)  # (a Name on libcst: visited and counted, never replaced)
        replaced: dict[int, ast.AST] = {}
        sites: list[tuple[ast.AST, ast.AST]] = []
        for child in written_children(node):
            new = self.visit(child)
            replaced[id(child)] = new
            if getattr(new, "_phiml_source", None) is child:
                sites += new._phiml_sites  # type: ignore[attr-defined]
            else:
                sites.append((child, new))  # a name, and the value written in its place
        return _rebuilt(node, replaced, sites)


def _parameters(arguments: ast.arguments) -> list[ast.arg]:
    stars = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *stars]


def _binds_any(target: ast.expr, names) -> bool:
    """The target of a comprehension or `:=` binds one of `names`: substituting would write a value there."""
    if isinstance(target, ast.Name):
        return target.id in names
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds_any(e, names) for e in target.elts)
    return isinstance(target, ast.Starred) and _binds_any(target.value, names)


def _rebuilt(node: ast.AST, replaced: dict[int, ast.AST], sites: list) -> ast.AST:
    """A copy of `node` with the children in `replaced` (by id) replaced, without a place. A call keeps the
    order its arguments are written in (ast_safety.call_arguments)."""
    fields: dict[str, object] = {}
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            fields[name] = [replaced.get(id(item), item) for item in value]
        elif isinstance(value, ast.AST):
            fields[name] = replaced.get(id(value), value)
        else:
            fields[name] = value
    new = type(node)(**fields)
    if isinstance(node, ast.Call):
        index = {id(item): i for i, item in enumerate([*node.args, *node.keywords])}
        new.written_order = tuple(index[id(item)] for item in call_arguments(node))  # type: ignore[attr-defined]
    new._phiml_source, new._phiml_sites = node, sites  # type: ignore[attr-defined]
    return new


# libcst's expressions that `atom` (frameworks.atom) leaves without parentheses (a tuple only in its own).
_ATOMIC = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.List, ast.Dict, ast.Set)


def _atom(value: ast.expr, source: Optional[Source]) -> ast.expr:
    """frameworks.atom: `value`, or a copy of it in parentheses (its children shared, as `with_changes`
    shares them) unless it has some or binds as tightly as a call."""
    original = getattr(value, "_phiml_source", value)
    placed = source is not None and hasattr(original, "lineno")
    if isinstance(value, _ATOMIC) or number(value, (int, float, bool, type(None))) or _one_string(value, source) \
            or getattr(value, "_phiml_atom_of", None) is not None \
            or placed and (source.parentheses(original)  # type: ignore[union-attr]
                           or isinstance(original, ast.Tuple) and source.tuple_parenthesized(original)):  # type: ignore[union-attr]
        return value
    wrapped = copy.copy(value)
    wrapped._phiml_atom_of = value  # type: ignore[attr-defined]
    return wrapped


def _one_string(value: ast.expr, source: Optional[Source]) -> bool:
    """A SimpleString on libcst: one string literal, not an implicit concatenation (`"a" "b"`)."""
    if not number(value, (str, bytes)):
        return False
    original = getattr(value, "_phiml_source", value)
    return source is None or not hasattr(original, "lineno") or source.string_pieces(cast(ast.Constant, original)) == 1


def written(file, value: ast.AST) -> str:
    """The code of a branch value as libcst writes the value branches.effect makes (its whitespace as written):
    the file's own node with its parentheses (`file`: an ast_rule.AstFile), a rebuilt one with the values
    substituted for its names, an augmented assignment's `a + b`."""
    atom_of = getattr(value, "_phiml_atom_of", None)
    if atom_of is not None:
        return f"({written(file, atom_of)})"
    source = getattr(value, "_phiml_source", None)
    if source is not None and not hasattr(source, "lineno"):
        return written(file, source)  # (a bare `return`'s None, rebuilt)
    if source is not None:
        start, end = file.parenthesized_span(source)
        pieces, at = [], start
        sites = value._phiml_sites  # type: ignore[attr-defined]
        for name, inserted in sorted(sites, key=lambda site: (site[0].lineno, site[0].col_offset)):
            begin, finish = file.parenthesized_span(name)
            pieces += [file.source_between(at, begin), written(file, inserted)]
            at = finish
        return "".join([*pieces, file.source_between(at, end)])
    if getattr(value, "_phiml_augmented", False):
        return f"{written(file, value.left)} {_OPERATORS[type(value.op)]} {written(file, value.right)}"  # type: ignore[attr-defined]
    if not hasattr(value, "lineno"):  # a name the branch leaves as it was, a bare `return`'s None
        return value.id if isinstance(value, ast.Name) else repr(value.value)  # type: ignore[attr-defined]
    return file.code_parenthesized(value)


_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
              ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}


def substitute(expr: ast.expr, mapping: dict[str, ast.expr],
               source: Optional[Source] = None) -> tuple[ast.expr, dict[str, int]]:
    if not mapping:
        return expr, {}
    visitor = _Substitute(mapping, source)
    new = visitor.visit(expr)
    assert isinstance(new, ast.expr)
    return new, visitor.used


def _trivial(expr: ast.expr, source: Optional[Source]) -> bool:
    """branches._trivial: a Name (`True`, `None` included), an Integer or Float, a SimpleString (one literal,
    not an implicit concatenation: `source` counts them; without it, one), an attribute of one."""
    if isinstance(expr, ast.Name) or number(expr) or number(expr, NAMED_CONSTANTS):
        return True
    if isinstance(expr, ast.Constant) and number(expr, (str, bytes)):
        return _one_string(expr, source)
    return isinstance(expr, ast.Attribute) and _trivial(expr.value, source)


def values_of(out: Effect) -> dict[str, ast.expr]:
    """`out.values`, which hold `ast` expressions here (Effect is branches.py's, typed for libcst's)."""
    return cast("dict[str, ast.expr]", out.values)


def effect(statements: list[ast.stmt], allow_return: bool = True, source: Optional[Source] = None) -> Effect:
    """The straight-line effect of `statements`; raises Refused with the reason otherwise.

    `source` (the AstFile) reads what libcst's nodes hold and `ast`'s do not: `"a" "b"` is two literals, and
    which parentheses are a value's own."""
    out = Effect()
    uses: dict[str, int] = {}
    previous: ast.stmt | None = None
    for stmt in statements:
        if _starts_line(previous, stmt):
            if out.returns:
                raise Refused("code after `return` in a branch")
            kind = _COMPOUND.get(type(stmt))
            if kind is not None:
                raise Refused(f"a nested `{kind}` in the branch (nested traced ifs are converted first; "
                              f"static ones stay Python)")
        _small(stmt, out, uses, allow_return, source)
        previous = stmt
    return out


def _starts_line(previous: ast.stmt | None, stmt: ast.stmt) -> bool:
    """`stmt` begins a libcst statement: it is not a simple statement after a `;` on the line of the one
    before (a line continued by a backslash before the `;` is not told)."""
    if previous is None or type(stmt) in _COMPOUND or type(previous) in _COMPOUND:
        return True
    return previous.end_lineno is None or previous.end_lineno < stmt.lineno


def _small(small: ast.stmt, out: Effect, uses: dict[str, int], allow_return: bool,
           source: Optional[Source]) -> None:
    if isinstance(small, ast.Pass):
        return
    values = values_of(out)
    if isinstance(small, ast.Assign):
        value, used = substitute(small.value, values, source)
        _count(uses, used, out, source)
        for target in small.targets:
            _assign(target, value, out)
        return
    if isinstance(small, ast.AnnAssign) and small.value is not None:
        value, used = substitute(small.value, values, source)
        _count(uses, used, out, source)
        _assign(small.target, value, out)
        return
    if isinstance(small, ast.AugAssign) and isinstance(small.target, ast.Name):
        operator = _AUGMENTED.get(type(small.op))
        if operator is None:
            raise Refused("an unusual augmented assignment")
        name = small.target.id
        current = values.get(name, ast.Name(name, ast.Load()))
        right, used = substitute(small.value, values, source)
        _count(uses, used, out, source)
        values.pop(name, None)
        combined = ast.BinOp(_atom(current, source), operator(), _atom(right, source))
        combined._phiml_augmented = True  # type: ignore[attr-defined]  # (how `written` tells it)
        values[name] = combined
        return
    if isinstance(small, ast.Return):
        if not allow_return:
            raise Refused("a `return` inside the loop body")
        value = small.value if small.value is not None else ast.Constant(None)
        returned, used = substitute(value, values, source)
        out.returned = returned  # type: ignore[assignment]  # (an `ast` expression: values_of)
        _count(uses, used, out, source)
        out.returns = True
        return
    if isinstance(small, ast.Expr):
        raise Refused("a statement evaluated for its side effect (a call, print, append...) in the branch")
    if isinstance(small, (ast.Break, ast.Continue)):
        raise Refused(f"`{type(small).__name__.lower()}` in the converted code")
    if isinstance(small, (ast.Global, ast.Nonlocal)):
        raise Refused("a `global`/`nonlocal` declaration in the branch")
    if isinstance(small, ast.Raise):
        raise Refused("a `raise` in the branch (a selection would evaluate it in both cases)")
    if isinstance(small, ast.Assert):
        raise Refused("an `assert` in the branch")
    kind: type = type(small)
    raise Refused(f"a `{_CST_NAMES.get(kind, kind.__name__)}` statement in the branch")


def _assign(target: ast.expr, value: ast.expr, out: Effect) -> None:
    values = values_of(out)
    if isinstance(target, ast.Name):
        values.pop(target.id, None)
        values[target.id] = value
        return
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts) \
            and all(isinstance(_element(e), ast.Name) for e in target.elts) \
            and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
        for t, v in zip(target.elts, value.elts):
            name = _element(t)
            assert isinstance(name, ast.Name)
            values.pop(name.id, None)
            values[name.id] = v
        return
    if isinstance(target, (ast.Attribute, ast.Subscript)):
        raise Refused("an attribute or item assignment in the branch (a side effect a selection cannot express)")
    raise Refused("an unpacking assignment the rewrite cannot split")


def _element(target: ast.expr) -> ast.expr:
    """What libcst's element of a target tuple holds as its value: a starred one's expression (`*b`: `b`)."""
    return target.value if isinstance(target, ast.Starred) else target


def _count(uses: dict[str, int], used: dict[str, int], out: Effect, source: Optional[Source]) -> None:
    for name, n in used.items():
        uses[name] = uses.get(name, 0) + n
        if uses[name] > 1 and not _trivial(values_of(out).get(name, ast.Name(name, ast.Load())), source):
            raise Refused(f"the branch reuses the intermediate `{name}`; a selection would have to compute it twice")
