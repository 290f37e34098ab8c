"""Adding names to a PhiML transform's `auxiliary_args` (PML102 captured values, PML204 Python counts)."""
from __future__ import annotations

import libcst as cst

from ._lift import COMMA, NO_SPACE_EQUAL


def with_auxiliary(node: cst.FunctionDef, transform, captured) -> list[cst.Decorator] | None:
    """The decorators, with the transform `transform.expr` given `captured` as extra `auxiliary_args`
    (None: its arguments cannot be edited faithfully)."""
    out = []
    for decorator in node.decorators:
        if decorator.decorator is not transform.expr and not (isinstance(decorator.decorator, cst.Call) and decorator.decorator is transform.expr):
            out.append(decorator)
            continue
        expr = decorator.decorator
        if isinstance(expr, (cst.Name, cst.Attribute)):
            names = ",".join(captured)
            call = cst.Call(expr, [cst.Arg(cst.SimpleString(repr(names)), keyword=cst.Name("auxiliary_args"), equal=NO_SPACE_EQUAL)])
            out.append(decorator.with_changes(decorator=call))
            continue
        if not isinstance(expr, cst.Call) or any(a.keyword is None for a in expr.args):
            return None
        existing = next((a for a in expr.args if a.keyword.value == "auxiliary_args"), None)
        if existing is None:
            args = list(expr.args)
            args[-1] = args[-1].with_changes(comma=COMMA)
            args.append(cst.Arg(cst.SimpleString(repr(",".join(captured))), keyword=cst.Name("auxiliary_args"), equal=NO_SPACE_EQUAL))
            out.append(decorator.with_changes(decorator=expr.with_changes(args=args)))
            continue
        if not isinstance(existing.value, cst.SimpleString):
            return None
        merged = ",".join([p for p in existing.value.evaluated_value.replace(" ", "").split(",") if p] + list(captured))
        args = [a.with_changes(value=cst.SimpleString(repr(merged))) if a is existing else a for a in expr.args]
        out.append(decorator.with_changes(decorator=expr.with_changes(args=args)))
    return out
