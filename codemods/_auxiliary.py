"""Adding names to a PhiML transform's `auxiliary_args` (PML102 captured values, PML204 Python counts)."""
from __future__ import annotations

import ast
from typing import Callable

from rewriter.lazy_libcst import cst

from rewriter.analysis.transforms import literal

from ._lift import comma, no_space_equal


def with_auxiliary(node: cst.FunctionDef, expr: cst.BaseExpression, captured) -> list[cst.Decorator] | None:
    """The decorators, with the transform `expr` (one of them) given `captured` as extra `auxiliary_args`
    (None: its arguments cannot be edited faithfully: `auxiliary_editable` on `ast` says when)."""
    out = []
    for decorator in node.decorators:
        if decorator.decorator is not expr:
            out.append(decorator)
            continue
        if isinstance(expr, (cst.Name, cst.Attribute)):
            names = ",".join(captured)
            call = cst.Call(expr, [cst.Arg(cst.SimpleString(repr(names)), keyword=cst.Name("auxiliary_args"), equal=no_space_equal())])
            out.append(decorator.with_changes(decorator=call))
            continue
        if not isinstance(expr, cst.Call) or any(a.keyword is None for a in expr.args):
            return None
        existing = next((a for a in expr.args if a.keyword.value == "auxiliary_args"), None)
        if existing is None:
            args = list(expr.args)
            if args:
                args[-1] = args[-1].with_changes(comma=comma())
            args.append(cst.Arg(cst.SimpleString(repr(",".join(captured))), keyword=cst.Name("auxiliary_args"), equal=no_space_equal()))
            out.append(decorator.with_changes(decorator=expr.with_changes(args=args)))
            continue
        if not isinstance(existing.value, cst.SimpleString) or not isinstance(existing.value.evaluated_value, str):
            return None
        merged = ",".join([p for p in existing.value.evaluated_value.replace(" ", "").split(",") if p] + list(captured))
        args = [a.with_changes(value=cst.SimpleString(repr(merged))) if a is existing else a for a in expr.args]
        out.append(decorator.with_changes(decorator=expr.with_changes(args=args)))
    return out


def auxiliary_editable(python, expr: ast.expr) -> bool:
    """`with_auxiliary` can add names to the transform `expr` (a decorator of the module `python`, an AstModule):
    a bare transform, or a factory call given keywords only whose `auxiliary_args`, if any, is one string."""
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return True
    if not isinstance(expr, ast.Call) or expr.args or any(k.arg is None for k in expr.keywords):
        return False
    existing = next((k.value for k in expr.keywords if k.arg == "auxiliary_args"), None)
    return existing is None or isinstance(existing, ast.Constant) and isinstance(existing.value, str) \
        and python.string_pieces(existing) == 1


def keyword_arg(keyword: str, value) -> cst.Arg:
    """`auxiliary_args='a,b'` for a string, `static_argnames=('a', 'b')` for a tuple of names."""
    if isinstance(value, str):
        node: cst.BaseExpression = cst.SimpleString(repr(value))
    else:
        elements = [cst.Element(cst.SimpleString(repr(v))) for v in value]
        node = cst.Tuple(elements if len(elements) > 1 else [elements[0].with_changes(comma=cst.Comma())])
    return cst.Arg(node, keyword=cst.Name(keyword), equal=no_space_equal())


def with_static_argnames(node: cst.FunctionDef, transform_expr: cst.BaseExpression, names,
                         spelled_partial: Callable[[], cst.BaseExpression]) -> list[cst.Decorator] | None:
    """The decorators, with the jax transform `transform_expr` given `names` as extra `static_argnames`:
    `@jax.jit` becomes `@functools.partial(jax.jit, static_argnames=(...))` (every jax version reads it),
    an existing `static_argnames` literal is extended (None: its arguments cannot be edited faithfully)."""
    out = []
    for decorator in node.decorators:
        expr = decorator.decorator
        if expr is not transform_expr:
            out.append(decorator)
            continue
        if isinstance(expr, (cst.Name, cst.Attribute)):
            partial = spelled_partial()  # (`functools.partial`, as the module spells it)
            call = cst.Call(partial, [cst.Arg(expr, comma=comma()), keyword_arg("static_argnames", tuple(names))])
            out.append(decorator.with_changes(decorator=call))
            continue
        if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
            return None
        existing = next((a for a in expr.args if a.keyword is not None and a.keyword.value == "static_argnames"), None)
        if existing is None:
            args = list(expr.args)
            args[-1] = args[-1].with_changes(comma=comma())
            out.append(decorator.with_changes(decorator=expr.with_changes(args=[*args, keyword_arg("static_argnames", tuple(names))])))
            continue
        try:
            present = literal(existing.value)
        except ValueError:
            return None
        present = present if isinstance(present, tuple) else (present,)
        merged = keyword_arg("static_argnames", (*present, *[n for n in names if n not in present]))
        args = [merged.with_changes(comma=a.comma) if a is existing else a for a in expr.args]
        out.append(decorator.with_changes(decorator=expr.with_changes(args=args)))
    return out
