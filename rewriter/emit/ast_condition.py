"""condition.py's decision on CPython's `ast` (issue 45): whether a Python condition on traced values has a
tensor equivalent (`NotConvertible` where `tensor_condition` raises, with its message), and whether that
equivalent is a plain name (else a rule that writes it several times first binds it to a temporary).

libcst nests `a and b and c` from the left, `(a and b) and c`, and keeps Python's short circuit where the
left operand of a level is static; `ast` holds every operand in one BoolOp. A level's left operand, `a and b`,
is no node of the tree: a node outside it stands for it when its value is asked (as locator.ast_of makes).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable

from .ast_safety import NAMED_CONSTANTS
from .condition import NotConvertible
from .frameworks import MODULES

if TYPE_CHECKING:
    from ..analysis.trace_values import Value

    ValueOf = Callable[[ast.expr], Value]

__all__ = ["NotConvertible", "check_condition", "condition_spellings"]

# The module of each framework's array functions (frameworks.Emitter._array).
ARRAY_MODULES = {framework: modules[0] for framework, modules in MODULES.items()}


def condition_spellings(expr: ast.expr, framework: str, value_of: ValueOf) -> tuple[list[tuple[str, str]], bool]:
    """`check_condition`, and the functions `tensor_condition` spells to write the condition, (module, name)
    in the order it asks for them: a fix planned on `ast` knows the imports its code needs."""
    spelled: list[tuple[str, str]] = []
    return spelled, check_condition(expr, framework, value_of, spelled)


def check_condition(expr: ast.expr, framework: str, value_of: ValueOf, spelled: list | None = None) -> bool:
    """Raises NotConvertible where condition.tensor_condition does; else whether its result is a plain Name.
    `spelled`: where to list the functions it spells (`condition_spellings`)."""
    if isinstance(expr, ast.BoolOp):
        _level(expr, len(expr.values), framework, value_of, spelled)
        return False
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        if not value_of(expr.operand).static:
            check_condition(expr.operand, framework, value_of, spelled)
            _spell(spelled, framework, "logical_not")
        return False
    if isinstance(expr, ast.Attribute) and expr.attr in ("all", "any") and framework == "phiml" \
            and not value_of(expr.value).static:
        if spelled is not None:
            spelled += [(ARRAY_MODULES[framework], expr.attr), (ARRAY_MODULES[framework], "shape")]
        return False
    if isinstance(expr, ast.Compare) and len(expr.ops) > 1 and not value_of(expr).static:
        raise NotConvertible("a chained comparison on traced values; split it into `a < b and b < c` first")
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "bool" \
            and len(expr.args) + len(expr.keywords) == 1:
        only = expr.args[0] if expr.args else expr.keywords[0]
        argument = only.value if isinstance(only, (ast.Starred, ast.keyword)) else only  # (libcst's Arg.value)
        return check_condition(argument, framework, value_of, spelled)
    return isinstance(expr, ast.Name) or isinstance(expr, ast.Constant) and type(expr.value) in NAMED_CONSTANTS


def _level(chain: ast.BoolOp, count: int, framework: str, value_of: ValueOf, spelled: list | None) -> None:
    """libcst's BooleanOperation of the first `count` operands of `chain`: its left is the level below (the
    first operand, at the bottom), its right the operand `count - 1`; the right is converted first."""
    left = chain.values[0] if count == 2 else _operands(chain, count - 1)
    static = value_of(left).static
    check_condition(chain.values[count - 1], framework, value_of, spelled)
    if static:
        return
    if count == 2:
        check_condition(left, framework, value_of, spelled)
    else:
        _level(chain, count - 1, framework, value_of, spelled)
    _spell(spelled, framework, "logical_and" if isinstance(chain.op, ast.And) else "logical_or")


def _spell(spelled: list | None, framework: str, name: str) -> None:
    """PhiML's logic is the Tensor operators (`&`, `|`, `~`); the others call their array module's function."""
    if spelled is not None and framework != "phiml":
        spelled.append((ARRAY_MODULES[framework], name))


def _operands(chain: ast.BoolOp, count: int) -> ast.BoolOp:
    """The first `count` operands of `chain` as a node of their own, outside the tree, placed from the first
    to the last of them (locator.Locator._chain)."""
    values = chain.values[:count]
    node = ast.BoolOp(type(chain.op)(), values)
    node.lineno, node.col_offset = values[0].lineno, values[0].col_offset
    node.end_lineno, node.end_col_offset = values[-1].end_lineno, values[-1].end_col_offset
    return node
