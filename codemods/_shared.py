"""Small helpers several codemods use to build or inspect nodes (analysis lives in rewriter/analysis)."""
from __future__ import annotations

from rewriter.lazy_libcst import cst

from rewriter.analysis.names import last_name
from rewriter.analysis.transforms import Application


def with_function(app: Application, function: cst.BaseExpression) -> cst.Call:
    """The same application with a different wrapped function (first positional argument)."""
    args = list(app.call.args)
    for i, arg in enumerate(args):
        if arg.keyword is None and not arg.star:
            args[i] = arg.with_changes(value=function)
            break
    return app.call.with_changes(args=args)


def function_label(expr: cst.BaseExpression) -> str | None:
    """A readable name for the wrapped function: `f` for `f`, `obj.f`; None for lambdas and the rest."""
    return last_name(expr)


def as_atom(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr`, parenthesised unless it already binds tighter than a call (`(lambda x: x)(y)`)."""
    atoms = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.Integer, cst.Float, cst.List,
             cst.Tuple, cst.Dict, cst.Set)
    if isinstance(expr, atoms) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def replacement_in_place(parent: cst.CSTNode | None, node: cst.CSTNode, new: cst.BaseExpression) -> cst.BaseExpression:
    """`new`, parenthesised when it takes the place of `node` as a callee, attribute base or subscript base."""
    if isinstance(parent, cst.Call) and parent.func is node or isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is node:
        return as_atom(new)
    return new
