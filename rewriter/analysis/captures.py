"""What a lambda or nested def needs from its enclosing function, and whether it can leave it.

Lifting a function to module level keeps its meaning only if everything it reads from the enclosing
function can be handed to it explicitly, at the moment it runs, with the same value. This module
answers that: the captured names (locals of enclosing functions, in order of first use), or the
reason the function must stay where it is.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..cst_tree import SCOPES, children
from .bindings import free_names
from .names import NameResolver
from .scopes import ClassScope
from .structure import is_inside


@dataclass(frozen=True)
class Captures:
    names: tuple[str, ...]  # locals of enclosing functions the function reads
    refusal: str | None = None  # why lifting could change behaviour (None: it cannot)
    # Imports made inside the enclosing function that the function reads: a module or class is never
    # passed as an argument (PhiML would try to trace it); the lifted function repeats the import in
    # its own body, which keeps it lazy (a local import often avoids an import cycle).
    imports: tuple[cst.SimpleStatementLine, ...] = ()
    # The places the refusal refers to, as `Codemod.report(related=...)` takes them: (node, what it is there).
    related: tuple[tuple[cst.CSTNode, str], ...] = ()


def _walk_own(node: cst.CSTNode):
    """The nodes of a function body, not descending into nested functions, lambdas or classes."""
    stack = list(children(node))
    while stack:
        current = stack.pop()
        yield current
        if type(current) not in SCOPES:
            stack.extend(children(current))


def captures(resolver: NameResolver, fn: cst.Lambda | cst.FunctionDef, *, rebinding_after: cst.CSTNode | None = None,
             late_binding: bool = True, module_level: tuple[cst.CSTNode, ...] = ()) -> Captures:
    """The locals `fn` reads, or why it cannot become a module-level function.

    `rebinding_after`: a captured name assigned again after this node's start (in the enclosing
    function) is late-bound: a closure would read the new value, an explicit argument the old one.
    Defaults to `fn` itself (a nested def is called later than it is defined).
    `module_level`: further expressions the lift evaluates at module level (a decorator taken from
    the call site, `math.jit_compile_linear` of `math.jit_compile_linear(lambda ...)`).
    """
    if isinstance(fn, cst.FunctionDef):
        if fn.asynchronous is not None:
            return Captures((), "it is an `async def`")
        for node in _walk_own(fn.body):
            if isinstance(node, (cst.Yield, cst.Await)):
                return Captures((), "it is a generator" if isinstance(node, cst.Yield) else "it awaits")
            if isinstance(node, (cst.Nonlocal, cst.Global)):
                kind = "nonlocal" if isinstance(node, cst.Nonlocal) else "global"
                return Captures((), f"it writes `{kind} {', '.join(n.name.value for n in node.names)}`")
    names: list[str] = []
    imports: list[cst.SimpleStatementLine] = []
    own_name = fn.name.value if isinstance(fn, cst.FunctionDef) else None
    late = rebinding_after if rebinding_after is not None else fn
    outer_defaults = _defaults_and_annotations(fn) + list(module_level)
    frees = free_names(resolver, fn) + [f for expr in module_level for f in free_names(resolver, expr)]
    for free in frees:
        name = free.node.value
        if free.where in ("global", "builtin", "star"):
            continue
        if free.where == "unknown":
            return Captures((), f"it reads `{name}`, whose binding cannot be resolved")
        if free.assignments and all(isinstance(a.node, (cst.Import, cst.ImportFrom)) for a in free.assignments):
            local = _local_import(resolver, name, free.assignments)
            if local is None:
                return Captures((), f"it reads `{name}`, imported in more than one way inside the enclosing function")
            if _module_imports_same(resolver, name, free.assignments):
                continue  # the module-level import binds the same thing: the lifted function reads that
            if any(is_inside(resolver, free.node, d) for d in outer_defaults):
                return Captures((), f"its decorator, a default or an annotation reads `{name}`, which is imported only "
                                    "inside the enclosing function (import it at module level first)")
            if not any(i.deep_equals(local) for i in imports):
                imports.append(local)
            continue
        scopes = {type(a.scope) for a in free.assignments}
        if ClassScope in scopes:
            return Captures((), f"it reads `{name}` from a class body")
        nodes = [getattr(a, "node", None) for a in free.assignments]
        if name == own_name or any(n is fn for n in nodes):
            return Captures((), f"it calls itself through the enclosing scope (`{name}`)")
        if any(isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) for n in nodes):
            return Captures((), f"it uses the local {'class' if any(isinstance(n, cst.ClassDef) for n in nodes) else 'function'} `{name}`: lift that first")
        if name in ("self", "cls") or name == "__class__":
            return Captures((), f"it reads `{name}`")
        if any(is_inside(resolver, free.node, d) for d in outer_defaults):
            return Captures((), f"a default value or annotation reads the local `{name}` (evaluated once at module level)")
        rebound = [a for a in free.assignments if late_binding and getattr(a, "node", None) is not None
                   and resolver.starts_after(a.node, late) and not is_inside(resolver, a.node, fn)]
        if rebound:
            return Captures((), f"`{name}` is assigned again after it is captured: a closure reads the new value",
                            related=((rebound[0].node, f"`{name}` is assigned again here"),))
        if name not in names:
            names.append(name)
    if names and isinstance(fn, cst.FunctionDef) and (fn.params.star_arg not in (cst.MaybeSentinel.DEFAULT, None)
                                                      or fn.params.star_kwarg is not None or fn.params.kwonly_params):
        return Captures(tuple(names), "its captured values cannot follow `*args`, `**kwargs` or keyword-only parameters")
    if isinstance(fn, cst.Lambda) and names and (fn.params.star_arg not in (cst.MaybeSentinel.DEFAULT, None)
                                                 or fn.params.star_kwarg is not None or fn.params.kwonly_params):
        return Captures(tuple(names), "its captured values cannot follow `*args`, `**kwargs` or keyword-only parameters")
    for node in _walk_own(fn.body if isinstance(fn, cst.FunctionDef) else fn):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super" and not node.args:
            return Captures((), "it calls `super()` without arguments")
    return Captures(tuple(names), imports=tuple(imports))


def _local_import(resolver: NameResolver, name: str, assignments) -> cst.SimpleStatementLine | None:
    """`from phiml import math` (only the alias binding `name`) for a name bound by one import statement."""
    nodes = {id(a.node): a.node for a in assignments}
    if len(nodes) != 1:
        return None
    return import_line(next(iter(nodes.values())), name)


def import_line(node: cst.Import | cst.ImportFrom, name: str) -> cst.SimpleStatementLine | None:
    """The import statement `node` with only its alias that binds `name` (None: not exactly one does)."""
    if isinstance(node.names, cst.ImportStar):
        return None
    aliases = [a for a in node.names if (a.evaluated_alias or (a.evaluated_name.split(".")[0])) == name]
    if len(aliases) != 1:
        return None
    alias = aliases[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return cst.SimpleStatementLine([node.with_changes(names=[alias], **({"lpar": None, "rpar": None}
                                                                           if isinstance(node, cst.ImportFrom) else {}))])


def _module_imports_same(resolver: NameResolver, name: str, assignments) -> bool:
    """The module binds `name` only by imports of the same thing the local import binds."""
    module = resolver.wrapper.module
    if not module.body:
        return False
    scope = resolver.scope(module.body[0])
    if scope is None or name not in scope:
        return False
    local = {q.name for a in assignments for q in a.get_qualified_names_for(name)}
    bindings = [a for a in scope[name] if a.scope is scope]
    if not bindings or not all(isinstance(getattr(a, "node", None), (cst.Import, cst.ImportFrom)) for a in bindings):
        return False
    return all({q.name for q in a.get_qualified_names_for(name)} == local for a in bindings)


def _defaults_and_annotations(fn: cst.Lambda | cst.FunctionDef) -> list[cst.CSTNode]:
    """Expressions evaluated where the function is created: defaults, annotations, decorators."""
    params = fn.params
    out: list[cst.CSTNode] = []
    for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if p.default is not None:
            out.append(p.default)
        if p.annotation is not None:
            out.append(p.annotation)
    for p in (params.star_arg, params.star_kwarg):
        if isinstance(p, cst.Param) and p.annotation is not None:
            out.append(p.annotation)
    if isinstance(fn, cst.FunctionDef):
        out += [d.decorator for d in fn.decorators]
        if fn.returns is not None:
            out.append(fn.returns)
    return out
