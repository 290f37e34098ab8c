"""Function transforms (jit, vmap, map, partial-wrapped forms), as ast_jit.py recognises them, and their
arguments read.

Three spellings of the same transform are understood everywhere:
  jax.jit                                  bare (decorator, or callee of an application)
  jax.jit(static_argnums=1) / math.jit_compile(auxiliary_args='n')   factory (no function argument)
  functools.partial(jax.jit, static_argnums=1)                       partial
An *application* is the transform called on a function: `jax.jit(f, ...)`, `partial(jax.jit, ...)(f)`,
`math.jit_compile(auxiliary_args='n')(f)`; the wrapped function is its first positional argument.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..lazy_libcst import cst

from .apis import Api, Kind


@dataclass(frozen=True)
class Transform:
    """A transform as written at one place: its API, and the keywords and extra arguments that configure it."""
    api: Api
    expr: Any  # the expression that denotes the configured transform (an `ast` expression)
    keywords: tuple  # keyword arguments configuring it (from the call or the partial): `ast` keywords
    extra_positional: tuple = ()  # positional args after the function (jax.vmap(f, 0)): `ast` expressions

    @property
    def kind(self) -> Kind:
        return self.api.kind

    @property
    def framework(self) -> str:
        return self.api.framework

    def keyword(self, name: str):
        """The value of the keyword `name`, or None."""
        for arg in self.keywords:
            if arg.arg == name:
                return arg.value
        return None


@dataclass(frozen=True)
class Application:
    """`transform(function, ...)`: the call node, the transform, and the wrapped function expression."""

    call: Any  # (`ast` nodes: ast_jit.match_application)
    transform: Transform
    function: Any


def literal(node: cst.BaseExpression):
    """The Python value of a literal int/str/tuple/list/None/bool expression of libcst (a fix's builder
    reads the code it rewrites); raises ValueError otherwise."""
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
