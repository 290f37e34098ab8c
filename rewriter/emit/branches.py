"""What a branch (or a loop body) computes, as one expression per assigned name.

A branch can become a selection only when it is straight-line code that assigns names (and perhaps
returns): `a = f(x); b = a + 1` computes `b = f(x) + 1`. Reads of names the branch assigned earlier
are substituted, so every final value is one expression in the names as they were before the
branch. Anything else (calls for their effect, loops, nested control flow, `break`, attribute or
item assignment) cannot be selected by `where` and is refused with the reason.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..lazy_libcst import cst

from ..cst_tree import children
from .frameworks import atom


class Refused(Exception):
    """The block cannot be expressed as a selection; the message says why (shown to the user)."""


@dataclass
class Effect:
    """What a branch leaves in the names it assigns and what it returns: the parts a selection merges."""
    values: dict[str, cst.BaseExpression] = field(default_factory=dict)  # name -> final value, in order
    returned: cst.BaseExpression | None = None
    returns: bool = False


@functools.cache
def _augmented() -> dict[type, type]:
    """An augmented assignment's operator -> the binary operator it applies."""
    return {
        cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
        cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
        cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply, cst.BitAndAssign: cst.BitAnd,
        cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    }


@functools.cache
def _substitute() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""

    class Substitute(cst.CSTTransformer):
        """Replaces reads of names by expressions (never attribute names or keywords); refuses where a lambda,
        a comprehension or `:=` binds one of the names (the value would be written where a name is bound)."""

        def __init__(self, mapping: dict[str, cst.BaseExpression]) -> None:
            self.mapping = mapping
            self.used: dict[str, int] = {}
            self._shadow = 0

        def visit_Lambda(self, node) -> bool:
            p = node.params
            stars = [s for s in (p.star_arg, p.star_kwarg) if isinstance(s, cst.Param)]
            if any(q.name.value in self.mapping for q in (*p.posonly_params, *p.params, *p.kwonly_params, *stars)):
                raise Refused("a lambda rebinds a name the branch assigns")
            return True

        def visit_CompFor(self, node) -> bool:
            if _binds_any(node.target, self.mapping):
                raise Refused("a comprehension rebinds a name the branch assigns")
            return True

        def visit_NamedExpr(self, node) -> bool:
            if _binds_any(node.target, self.mapping):
                raise Refused("an assignment expression rebinds a name the branch assigns")
            return True

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            return False  # only the object is a read: substituted in leave_Attribute

        def leave_Attribute(self, original, updated):
            return updated.with_changes(value=original.value.visit(self))

        def visit_Arg(self, node: cst.Arg) -> bool:
            return True

        def leave_Arg(self, original, updated):
            return updated.with_changes(keyword=original.keyword)

        def leave_Name(self, original, updated):
            if original.value in self.mapping:
                self.used[original.value] = self.used.get(original.value, 0) + 1
                return atom(self.mapping[original.value])
            return updated

    return Substitute


def _binds_any(target: cst.BaseExpression, names) -> bool:
    """The target of a comprehension or `:=` binds one of `names`: substituting would write a value there."""
    if isinstance(target, cst.Name):
        return target.value in names
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds_any(e.value, names) for e in target.elements)
    return isinstance(target, cst.StarredElement) and _binds_any(target.value, names)


def substitute(expr: cst.BaseExpression, mapping: dict[str, cst.BaseExpression]) -> tuple[cst.BaseExpression, dict[str, int]]:
    if not mapping:
        return expr, {}
    visitor = _substitute()(mapping)
    return expr.visit(visitor), visitor.used


def _trivial(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)) or \
        isinstance(expr, cst.Attribute) and _trivial(expr.value)


def effect(statements, allow_return: bool = True) -> Effect:
    """The straight-line effect of `statements`; raises Refused with the reason otherwise."""
    out = Effect()
    uses: dict[str, int] = {}
    for stmt in statements:
        if out.returns:
            raise Refused("code after `return` in a branch")
        if not isinstance(stmt, cst.SimpleStatementLine):
            kind = type(stmt).__name__.lower()
            raise Refused(f"a nested `{kind}` in the branch (nested traced ifs are converted first; static ones stay Python)")
        for small in stmt.body:
            _small(small, out, uses, allow_return)
    return out


def _small(small: cst.BaseSmallStatement, out: Effect, uses: dict[str, int], allow_return: bool) -> None:
    if isinstance(small, cst.Pass):
        return
    if isinstance(small, cst.Assign):
        value, used = substitute(small.value, out.values)
        _count(uses, used, out)
        for target in small.targets:
            _assign(target.target, value, small.value, out)
        return
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        value, used = substitute(small.value, out.values)
        _count(uses, used, out)
        _assign(small.target, value, small.value, out)
        return
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        operator = _augmented().get(type(small.operator))
        if operator is None:
            raise Refused("an unusual augmented assignment")
        name = small.target.value
        current = out.values.get(name, cst.Name(name))
        right, used = substitute(small.value, out.values)
        _count(uses, used, out)
        out.values.pop(name, None)
        out.values[name] = cst.BinaryOperation(atom(current), operator(), atom(right))
        return
    if isinstance(small, cst.Return):
        if not allow_return:
            raise Refused("a `return` inside the loop body")
        value = small.value if small.value is not None else cst.Name("None")
        out.returned, used = substitute(value, out.values)
        _count(uses, used, out)
        out.returns = True
        return
    if isinstance(small, cst.Expr):
        raise Refused("a statement evaluated for its side effect (a call, print, append...) in the branch")
    if isinstance(small, (cst.Break, cst.Continue)):
        raise Refused(f"`{type(small).__name__.lower()}` in the converted code")
    if isinstance(small, (cst.Global, cst.Nonlocal)):
        raise Refused("a `global`/`nonlocal` declaration in the branch")
    if isinstance(small, cst.Raise):
        raise Refused("a `raise` in the branch (a selection would evaluate it in both cases)")
    if isinstance(small, cst.Assert):
        raise Refused("an `assert` in the branch")
    raise Refused(f"a `{type(small).__name__}` statement in the branch")


def _assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression, source: cst.BaseExpression, out: Effect) -> None:
    if isinstance(target, cst.Name):
        out.values.pop(target.value, None)
        out.values[target.value] = value
        return
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) \
            and len(target.elements) == len(value.elements) \
            and all(isinstance(e.value, cst.Name) for e in target.elements) \
            and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements)):
        for t, v in zip(target.elements, value.elements):
            out.values.pop(t.value.value, None)
            out.values[t.value.value] = v.value
        return
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        raise Refused("an attribute or item assignment in the branch (a side effect a selection cannot express)")
    raise Refused("an unpacking assignment the rewrite cannot split")


def _count(uses: dict[str, int], used: dict[str, int], out: Effect) -> None:
    for name, n in used.items():
        uses[name] = uses.get(name, 0) + n
        if uses[name] > 1 and not _trivial(out.values.get(name, cst.Name(name))):
            raise Refused(f"the branch reuses the intermediate `{name}`; a selection would have to compute it twice")


def reads_any(expr: cst.CSTNode, names) -> bool:
    """`expr` reads one of `names` (any Name node spelled so: conservative)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value in names:
            return True
        stack.extend(children(node))
    return False
