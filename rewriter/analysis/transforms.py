"""Recognise function transforms (jit, vmap, map, partial-wrapped forms) and read their arguments.

Three spellings of the same transform are understood everywhere:
  jax.jit                                  bare (decorator, or callee of an application)
  jax.jit(static_argnums=1) / math.jit_compile(auxiliary_args='n')   factory (no function argument)
  functools.partial(jax.jit, static_argnums=1)                       partial
An *application* is the transform called on a function: `jax.jit(f, ...)`, `partial(jax.jit, ...)(f)`,
`math.jit_compile(auxiliary_args='n')(f)`; the wrapped function is its first positional argument.
"""
from __future__ import annotations

import ast

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..lazy_libcst import cst

from .apis import Api, Kind
from .names import NameResolver


@dataclass(frozen=True)
class Transform:
    api: Api
    expr: Any  # the expression that denotes the configured transform (of either tree)
    keywords: tuple  # keyword arguments configuring it (from the call or the partial): libcst Args, ast keywords
    extra_positional: tuple = ()  # positional args after the function (jax.vmap(f, 0)): libcst Args, ast exprs

    @property
    def kind(self) -> Kind:
        return self.api.kind

    @property
    def framework(self) -> str:
        return self.api.framework

    def keyword(self, name: str):
        """The value of the keyword `name` (a libcst Arg's or an ast keyword's), or None."""
        for arg in self.keywords:
            given = arg.arg if type(arg) is ast.keyword else arg.keyword.value if arg.keyword is not None else None
            if given == name:
                return arg.value
        return None


@dataclass(frozen=True)
class Application:
    """`transform(function, ...)`: the call node, the transform, and the wrapped function expression."""

    call: Any  # (of either tree)
    transform: Transform
    function: Any


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def _keywords(call: cst.Call) -> tuple[cst.Arg, ...]:
    return tuple(a for a in call.args if a.keyword is not None)


def match_transform(resolver: NameResolver, expr: cst.BaseExpression, kinds: Iterable[Kind]) -> Transform | None:
    """`expr` denotes a configured transform of one of `kinds` (bare, factory or partial form)."""
    kinds = set(kinds)
    if isinstance(expr, (cst.Name, cst.Attribute)):
        api = resolver.api(expr, kinds)
        return Transform(api, expr, ()) if api is not None else None
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
        return None
    positional = _positional(expr)
    inner = positional[0].value if positional else None
    # Resolve nothing unless the spelling can work: `partial(<kinds>, ...)` or `<kinds>(...)`.
    maybe_partial = isinstance(inner, (cst.Name, cst.Attribute)) and resolver.could_be_api(inner, kinds)
    callee = resolver.api(expr.func, kinds | {Kind.PARTIAL} if maybe_partial else kinds)
    if callee is None:
        return None
    if callee.kind is Kind.PARTIAL:
        if any(a.star for a in expr.args):
            return None
        api = resolver.api(inner, kinds)
        if api is None:
            return None
        return Transform(api, expr, _keywords(expr), tuple(positional[1:]))
    if callee.kind in kinds and not positional and not any(a.star for a in expr.args):
        return Transform(callee, expr, _keywords(expr))  # factory: math.jit_compile(auxiliary_args='n')
    return None


def match_application(resolver: NameResolver, call: cst.Call, kinds: Iterable[Kind]) -> Application | None:
    """`call` applies a transform of one of `kinds` to a function."""
    kinds = set(kinds)
    if any(a.star for a in call.args):
        return None
    positional = _positional(call)
    if not positional:
        return None
    func = call.func
    if isinstance(func, (cst.Name, cst.Attribute)):
        api = resolver.api(func, kinds)
        if api is None:
            return None
        return Application(call, Transform(api, func, _keywords(call), tuple(positional[1:])), positional[0].value)
    if isinstance(func, cst.Call):
        transform = match_transform(resolver, func, kinds)
        if transform is None or len(positional) != 1 or _keywords(call):
            return None
        return Application(call, transform, positional[0].value)
    return None


def literal(node: cst.BaseExpression):
    """The Python value of a literal int/str/tuple/list/None/bool expression; raises ValueError otherwise."""
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        if isinstance(value, str):
            return value
    if isinstance(node, (cst.Tuple, cst.List)):
        return tuple(literal(el.value) for el in node.elements if not isinstance(el, cst.StarredElement))
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return -literal(node.expression)
    raise ValueError("not a literal")


def positional_params(fn: cst.FunctionDef | cst.Lambda) -> list[str]:
    p = fn.params
    return [param.name.value for param in (*p.posonly_params, *p.params)]


def static_params(transform: Transform, fn: cst.FunctionDef | cst.Lambda) -> frozenset[str] | None:
    """Parameters the transform keeps static (not traced); None when that cannot be read statically."""
    every = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
    return static_parameters(transform.api, transform.keyword, literal, positional_params(fn), every)


def static_parameters(api: Api, keyword: Callable, literal_of: Callable, positional: list[str],
                      every: list[str]) -> frozenset[str] | None:
    """The parameters `api`, configured with the keywords `keyword(name)` gives (a node of either tree,
    or None), keeps static: `positional` and `every` are the function's positional and named parameters,
    `literal_of` reads a node's literal value (ValueError: not a literal). None when they cannot be read."""
    static: set[str] = set()
    for name in api.static_keywords:
        value = keyword(name)
        if value is None:
            continue
        try:
            parsed = literal_of(value)
        except ValueError:
            return None
        if name == "auxiliary_args":
            if not isinstance(parsed, str):
                return None
            named = [s.strip() for s in parsed.split(",") if s.strip()]
            # A misspelt name is read as the parameter the author meant (PML205 corrects the spelling):
            # every rule judges the function as it will be once that fix is in, never half of each.
            static |= {n if n in every else intended_parameter(n, every, named) or n for n in named}
        elif name == "static_argnums":
            for i in parsed if isinstance(parsed, tuple) else (parsed,):
                if not isinstance(i, int) or not -len(positional) <= i < len(positional):
                    return None
                static.add(positional[i])
        elif name == "static_argnames":
            static |= set(parsed if isinstance(parsed, tuple) else (parsed,))
    return frozenset(static)


def intended_parameter(name: str, params: list[str], named: list[str]) -> str | None:
    """The parameter a misspelt `auxiliary_args` entry means: the one close spelling (difflib ratio
    >= 0.6) among the parameters not already named, or None when there is none or several."""
    import difflib

    free = [p for p in params if p not in named and p not in ("self", "cls")]
    close = difflib.get_close_matches(name, free, n=2, cutoff=0.6)
    return close[0] if len(close) == 1 else None
