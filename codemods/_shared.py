"""Small helpers several codemods use to build or inspect nodes (analysis lives in rewriter/analysis)."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.transforms import Application


def with_function(app: Application, function: cst.BaseExpression) -> cst.Call:
    """The same application with a different wrapped function (first positional argument)."""
    args = list(app.call.args)
    for i, arg in enumerate(args):
        if arg.keyword is None and not arg.star:
            args[i] = arg.with_changes(value=function)
            break
    return app.call.with_changes(args=args)


def assign(name: str, value: cst.BaseExpression, before: cst.BaseStatement | None = None) -> cst.SimpleStatementLine:
    """`name = value`, spaced like the statement it will be inserted before (its blank lines, not its comments)."""
    blank = []
    for line in getattr(before, "leading_lines", ()):
        if line.comment is not None:
            break
        blank.append(line)
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)], leading_lines=blank)


def function_label(expr: cst.BaseExpression) -> str | None:
    """A readable name for the wrapped function: `f` for `f`, `obj.f`; None for lambdas and the rest."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None
