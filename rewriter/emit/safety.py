"""The double-`where` pattern, written on libcst: a guarded branch's risky operands.

`where` computes both branches, so a division or a `sqrt`/`log` the condition guarded gives NaN/inf
gradients in the branch it does not select (ast_safety.py decides which branches risk that, and
whether the pattern removes every risk). The risky operand is replaced by a harmless value wherever
the branch is not selected.
"""
from __future__ import annotations

import functools

from ..lazy_libcst import cst

from ..analysis.names import last_name
from .ast_safety import DOMAIN_CALLS


def _nonzero_literal(expr: cst.BaseExpression) -> bool:
    try:
        return isinstance(expr, (cst.Integer, cst.Float)) and float(expr.evaluated_value) != 0
    except (ValueError, TypeError):
        return False


@functools.cache
def _guard() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""

    class Guard(cst.CSTTransformer):
        """Replaces risky operands `d` by `where(selected, d, 1)`."""

        def __init__(self, wrap) -> None:
            self.wrap = wrap

        def leave_BinaryOperation(self, original, updated):
            if isinstance(updated.operator, (cst.Divide, cst.FloorDivide, cst.Modulo)) and not _nonzero_literal(updated.right):
                return updated.with_changes(right=self.wrap(updated.right))
            return updated

        def leave_Call(self, original, updated):
            if last_name(updated.func) in DOMAIN_CALLS and updated.args:
                first = updated.args[0]
                return updated.with_changes(args=[first.with_changes(value=self.wrap(first.value)), *updated.args[1:]])
            return updated

    return Guard


def guarded(expr: cst.BaseExpression, wrap) -> cst.BaseExpression:
    """`expr` with every denominator and sqrt/log argument `d` replaced by `wrap(d)`."""
    return expr.visit(_guard()(wrap))
