"""A Python condition on traced values, as a traced boolean the framework can select with.

`a and b` / `a or b` / `not a` call `bool()` on a tracer: they become the framework's logical
operations. A static left operand keeps Python's short circuit (`x is not None and (x > 0).all`
must not evaluate the right side when `x` is None). PhiML's `t.all` / `t.any` give a native bool
(a tracer under jit): they become `math.all(t, dim=math.shape)` / `math.any(t, dim=math.shape)`, which
stay PhiML Tensors and, like the properties, reduce the batch dimensions too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ..lazy_libcst import cst

from ..analysis.trace_values import Value
from .frameworks import Emitter, atom

if TYPE_CHECKING:
    ValueOf = Callable[[cst.BaseExpression], Value]


class NotConvertible(Exception):
    """The condition has a form with no faithful tensor equivalent; the message says which."""


def tensor_condition(expr: cst.BaseExpression, emitter: Emitter, value_of: ValueOf) -> cst.BaseExpression:
    if isinstance(expr, cst.BooleanOperation):
        left_value = value_of(expr.left)
        op = "and" if isinstance(expr.operator, cst.And) else "or"
        right = tensor_condition(expr.right, emitter, value_of)
        if left_value.static:
            return expr.with_changes(right=atom(right) if isinstance(right, cst.BooleanOperation) else right)
        left = tensor_condition(expr.left, emitter, value_of)
        return emitter.logical(op, left, right)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        if value_of(expr.expression).static:
            return expr
        return emitter.logical("not", tensor_condition(expr.expression, emitter, value_of))
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("all", "any") and emitter.framework == "phiml" \
            and not value_of(expr.value).static:
        reduce = emitter.all if expr.attr.value == "all" else emitter.any
        return reduce(expr.value).with_changes(lpar=expr.lpar, rpar=expr.rpar) if expr.lpar else reduce(expr.value)
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) > 1 and not value_of(expr).static:
        raise NotConvertible("a chained comparison on traced values; split it into `a < b and b < c` first")
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "bool" and len(expr.args) == 1:
        return tensor_condition(expr.args[0].value, emitter, value_of)
    return expr
