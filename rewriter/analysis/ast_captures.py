"""What a lambda or nested def needs from its enclosing function, and whether it can leave it, read on
CPython's `ast` (issue 45: captures.py answers it on libcst for the rules still read there).

Lifting a function to module level keeps its meaning only if everything it reads from the enclosing
function can be handed to it explicitly, at the moment it runs, with the same value: the captured names
(locals of enclosing functions, in order of first use), or the reason the function must stay where it is.
The names read are the `ast.Name`s of the function, met in the order they are written, as libcst's walk
meets its Names (ast_names.in_source_order); their bindings are the scopes' (ast_scopes.py).
"""
from __future__ import annotations

import ast
from ast import (AsyncFunctionDef, Await, Call, ClassDef, FunctionDef, Global, Import, ImportFrom, Lambda, Name, Nonlocal, Yield,
                 YieldFrom)
import builtins
from dataclasses import dataclass
from typing import Iterator

from .ast_names import branches, in_source_order
from .ast_structure import is_inside
from .scope_model import BuiltinScope, ClassScope, GlobalScope

_BUILTINS = frozenset(dir(builtins))
_DEFS = (FunctionDef, AsyncFunctionDef)
_FUNCTIONS = (FunctionDef, AsyncFunctionDef, Lambda)
_SCOPES = (FunctionDef, AsyncFunctionDef, Lambda, ClassDef)


@dataclass(frozen=True)
class FreeName:
    """A name a function reads but does not bind, and where it comes from: what lifting the function must pass in."""
    node: Name
    where: str  # "global" | "builtin" | "local" | "star" (from a module-level `import *`) | "unknown"
    assignments: frozenset


@dataclass(frozen=True)
class LocalImport:
    """An import made inside the enclosing function that the function reads: the statement, and the name of
    its one alias to repeat (`from phiml import math` of `from phiml import math, jit`)."""

    statement: Import | ImportFrom
    name: str


@dataclass(frozen=True)
class Captures:
    """What lifting a nested function to module level turns into arguments, or why it must not be lifted."""
    names: tuple[str, ...]  # locals of enclosing functions the function reads
    refusal: str | None = None  # why lifting could change behaviour (None: it cannot)
    # Imports made inside the enclosing function that the function reads: a module or class is never
    # passed as an argument (PhiML would try to trace it); the lifted function repeats the import in
    # its own body, which keeps it lazy (a local import often avoids an import cycle).
    imports: tuple[LocalImport, ...] = ()
    # The places the refusal refers to, as `AstRule.report(related=...)` takes them: (node, what it is there).
    related: tuple[tuple[ast.AST, str], ...] = ()


def walked(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node in it, in the order written (libcst's pre-order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(in_source_order(current)))


def free_names(resolver, expr: ast.AST) -> list[FreeName]:
    """Names read inside `expr` and bound outside it, each classified by where its binding lives. Every
    `ast.Name` counts, as every libcst Name that is not an attribute, keyword, parameter, def or import
    name does: a name stored in `expr` is bound there and drops out."""
    nodes = list(walked(expr))
    inner_scopes = {id(resolver.scope(n)) for n in nodes if type(n) in _FUNCTIONS}
    inner_nodes = {id(n) for n in nodes}
    out = []
    for node in nodes:
        if type(node) is not Name:
            continue
        scope = resolver.scope(node)
        if scope is None:
            continue
        name = node.id
        assignments = frozenset(scope[name]) if name in scope else frozenset()
        outside = frozenset(a for a in assignments if id(getattr(a, "node", None)) not in inner_nodes)
        if assignments and not outside:
            continue  # bound inside the expression (lambda parameter, comprehension target)
        if any(id(a.scope) in inner_scopes for a in assignments) and not outside:
            continue
        scopes = {type(a.scope) for a in outside}
        if not outside:
            where = "builtin" if name in _BUILTINS else "star" if resolver.star_modules else "unknown"
        elif scopes == {GlobalScope}:
            where = "global"
        elif scopes == {BuiltinScope}:
            where = "builtin"
        else:
            where = "local"
        out.append(FreeName(node, where, outside))
    return out


def start(node: ast.AST) -> tuple[int, int]:
    """Where `node` starts in libcst's pre-order: a decorated def or class at its first decorator."""
    decorators = getattr(node, "decorator_list", None)
    first = decorators[0] if decorators else node
    return first.lineno, first.col_offset  # type: ignore[attr-defined, union-attr]


def starts_after(resolver, node: ast.AST, other: ast.AST) -> bool:
    """`node` comes after `other` in libcst's pre-order: it starts later, or where `other` starts and inside it."""
    here, there = start(node), start(other)
    return here > there or here == there and node is not other and is_inside(resolver, node, other)


def _own_body(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a def's body (a lambda's parameters and body), not descending into nested functions,
    lambdas or classes."""
    stack = [fn.args, fn.body] if type(fn) is Lambda else list(fn.body)  # type: ignore[attr-defined]
    while stack:
        current = stack.pop()
        yield current
        if type(current) not in _SCOPES:
            stack.extend(branches(current))


def captures(resolver, fn: Lambda | FunctionDef | AsyncFunctionDef, *, rebinding_after: ast.AST | None = None,
             late_binding: bool = True, module_level: tuple[ast.AST, ...] = ()) -> Captures:
    """The locals `fn` reads, or why it cannot become a module-level function (captures.captures).

    `rebinding_after`: a captured name assigned again after this node's start (in the enclosing
    function) is late-bound: a closure would read the new value, an explicit argument the old one.
    Defaults to `fn` itself (a nested def is called later than it is defined).
    `module_level`: further expressions the lift evaluates at module level (a decorator taken from
    the call site, `math.jit_compile_linear` of `math.jit_compile_linear(lambda ...)`).
    """
    if type(fn) is AsyncFunctionDef:
        return Captures((), "it is an `async def`")
    if type(fn) is FunctionDef:
        for node in _own_body(fn):
            if isinstance(node, (Yield, YieldFrom, Await)):
                return Captures((), "it awaits" if type(node) is Await else "it is a generator")
            if isinstance(node, (Nonlocal, Global)):
                kind = "nonlocal" if type(node) is Nonlocal else "global"
                return Captures((), f"it writes `{kind} {', '.join(node.names)}`")
    names: list[str] = []
    imports: list[LocalImport] = []
    own_name = fn.name if isinstance(fn, _DEFS) else None
    late = rebinding_after if rebinding_after is not None else fn
    outer_defaults = _defaults_and_annotations(fn) + list(module_level)
    frees = free_names(resolver, fn) + [f for expr in module_level for f in free_names(resolver, expr)]
    for free in frees:
        name = free.node.id
        if free.where in ("global", "builtin", "star"):
            continue
        if free.where == "unknown":
            return Captures((), f"it reads `{name}`, whose binding cannot be resolved")
        if free.assignments and all(isinstance(a.node, (Import, ImportFrom)) for a in free.assignments):
            local = _local_import(name, free.assignments)
            if local is None:
                return Captures((), f"it reads `{name}`, imported in more than one way inside the enclosing function")
            if _module_imports_same(resolver, name, free.assignments):
                continue  # the module-level import binds the same thing: the lifted function reads that
            if any(is_inside(resolver, free.node, d) for d in outer_defaults):
                return Captures((), f"its decorator, a default or an annotation reads `{name}`, which is imported only "
                                    "inside the enclosing function (import it at module level first)")
            if local not in imports:
                imports.append(local)
            continue
        scopes = {type(a.scope) for a in free.assignments}
        if ClassScope in scopes:
            return Captures((), f"it reads `{name}` from a class body")
        nodes = [getattr(a, "node", None) for a in free.assignments]
        if name == own_name or any(n is fn for n in nodes):
            return Captures((), f"it calls itself through the enclosing scope (`{name}`)")
        if any(isinstance(n, (*_FUNCTIONS, ClassDef)) for n in nodes):
            return Captures((), f"it uses the local {'class' if any(isinstance(n, ClassDef) for n in nodes) else 'function'} `{name}`: lift that first")
        if name in ("self", "cls") or name == "__class__":
            return Captures((), f"it reads `{name}`")
        if any(is_inside(resolver, free.node, d) for d in outer_defaults):
            return Captures((), f"a default value or annotation reads the local `{name}` (evaluated once at module level)")
        rebound = sorted((a for a in free.assignments if late_binding and getattr(a, "node", None) is not None
                          and starts_after(resolver, a.node, late) and not is_inside(resolver, a.node, fn)),
                         key=lambda a: a.created)
        if rebound:
            return Captures((), f"`{name}` is assigned again after it is captured: a closure reads the new value",
                            related=((rebound[0].node, f"`{name}` is assigned again here"),))
        if name not in names:
            names.append(name)
    arguments = fn.args
    if names and (arguments.vararg is not None or arguments.kwarg is not None or arguments.kwonlyargs):
        return Captures(tuple(names), "its captured values cannot follow `*args`, `**kwargs` or keyword-only parameters")
    for node in _own_body(fn):
        if type(node) is Call and type(node.func) is Name and node.func.id == "super" and not (node.args or node.keywords):
            return Captures((), "it calls `super()` without arguments")
    return Captures(tuple(names), imports=tuple(imports))


def _local_import(name: str, assignments) -> LocalImport | None:
    """The one import statement binding `name`, when one alias of it does."""
    nodes = {id(a.node): a.node for a in assignments}
    if len(nodes) != 1:
        return None
    node = next(iter(nodes.values()))
    aliases = [a for a in node.names if a.name != "*" and (a.asname or a.name.split(".")[0]) == name]
    if len(aliases) != 1 or any(a.name == "*" for a in node.names):
        return None
    return LocalImport(node, name)


def _module_imports_same(resolver, name: str, assignments) -> bool:
    """The module binds `name` only by imports of the same thing the local import binds."""
    module = resolver.module_node
    if not module.body:
        return False
    scope = resolver.scope(module.body[0])
    if scope is None or name not in scope:
        return False
    local = {q.name for a in assignments for q in a.get_qualified_names_for(name)}
    bindings = [a for a in scope[name] if a.scope is scope]
    if not bindings or not all(isinstance(getattr(a, "node", None), (Import, ImportFrom)) for a in bindings):
        return False
    return all({q.name for q in a.get_qualified_names_for(name)} == local for a in bindings)


def _defaults_and_annotations(fn: Lambda | FunctionDef | AsyncFunctionDef) -> list[ast.AST]:
    """Expressions evaluated where the function is created: defaults, annotations, decorators."""
    a = fn.args
    out: list[ast.AST] = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
    for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
        if p is not None and p.annotation is not None:
            out.append(p.annotation)
    if isinstance(fn, _DEFS):
        out += fn.decorator_list
        if fn.returns is not None:
            out.append(fn.returns)
    return out
