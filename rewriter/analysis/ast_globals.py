"""Which module globals are not stable, read on CPython's `ast` (bindings.ModuleGlobals answers it on
libcst for the rules still read there; tests/test_ast_globals.py holds the two readings together).

Hoisting an expression, or lifting a function to module level, bakes in the globals it reads: a global
is stable when it is bound once at module level, never declared `global` elsewhere, and never changed in
place. A method call or a store through an attribute chain rooted at an imported module
(`jax.config.update(...)`, `torch.backends.cudnn.benchmark = True`) changes the state at that path only:
the name still denotes the same module, so it is unstable only for code that reads that path (or the bare
module), never for `jax.jit` or `jax.numpy.sin`. A module is not a container: `np.append(a, b)` calls a
function of the module and changes nothing. The same method call on any other name mutates its value.
"""
from __future__ import annotations

import ast
from ast import (AnnAssign, Assign, AsyncFunctionDef, Attribute, AugAssign, Call, Delete, FunctionDef, Global, Import, ImportFrom,
                 Name, Subscript)
from functools import cached_property

from .apis import canonical
from .ast_captures import FreeName, free_names
from .ast_names import dotted
from .installed import is_module
from .scope_model import GlobalScope

_MUTATING_METHODS = frozenset(
    "append extend insert pop remove clear update setdefault popitem add discard sort reverse "
    "__setitem__ __delitem__ __setattr__".split()
)
_DEFS = (FunctionDef, AsyncFunctionDef)


class ModuleGlobals:
    """Facts about a module's globals (bindings.ModuleGlobals), computed in one walk of its `ast`."""

    def __init__(self, resolver) -> None:
        self.resolver = resolver

    @cached_property
    def facts(self) -> tuple[dict[str, int], set[str], set[str], dict[str, set[str]]]:
        """(how many values each name is bound to at module level, the names declared `global`, the names
        mutated in place, the attribute paths changed in place under each module name)."""
        module = self.resolver.module_node
        values: dict[str, set] = {}  # what each top-level binding binds: imports of one module are one value
        global_scope = self.resolver.scope(module.body[0]) if module.body else None
        if isinstance(global_scope, GlobalScope):
            for assignment in global_scope.assignments:
                values.setdefault(assignment.name, set()).add(bound_module(assignment) or id(assignment))
        top_level_bindings = {name: len(bound) for name, bound in values.items()}
        declared_global: set[str] = set()
        mutated: set[str] = set()
        changed_paths: dict[str, set[str]] = {}  # module name -> attribute paths changed in place

        def changed(chain: ast.expr, receiver: bool) -> None:
            root = root_node(chain)
            if root is None:
                return
            assignments = self.resolver.assignments(root)
            if assignments and not any(isinstance(a.scope, GlobalScope) for a in assignments):
                return  # a local of some function (a parameter `jax`): not the global
            modules = {bound_module(a) for a in assignments}
            if not assignments or None in modules:
                mutated.add(root.id)
                return
            path = _path_before_subscript(chain) or root.id  # (a chain from its root Name: spelled)
            if receiver and path == dotted(chain) and _is_installed_module(path, root.id, modules):
                return  # `np.append(...)`, `jnp.add(...)`: a function of the module, not a container method
            changed_paths.setdefault(root.id, set()).add(path)  # `jax.config.update(...)`

        for node in self.resolver.nodes:  # (ast.walk's nodes, less singletons none of these are)
            kind = type(node)
            if kind is Global:
                declared_global.update(node.names)  # type: ignore[attr-defined]
            elif kind is Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    if type(target) is not Name:
                        changed(target, receiver=False)  # x[k] = ..., x.a = ...
            elif kind is AugAssign or kind is AnnAssign:
                target = node.target  # type: ignore[attr-defined]
                if type(target) is not Name:
                    changed(target, receiver=False)
                elif kind is AugAssign:
                    mutated.add(target.id)
            elif kind is Delete:
                targets = node.targets  # type: ignore[attr-defined]
                if len(targets) == 1 and type(targets[0]) is not Name:  # (`del a[0], b`: a tuple, no root)
                    changed(targets[0], receiver=False)
            elif kind is Call:
                func = node.func  # type: ignore[attr-defined]
                if type(func) is Attribute and func.attr in _MUTATING_METHODS:
                    changed(func.value, receiver=True)
        return top_level_bindings, declared_global, mutated, changed_paths

    def unstable_reason(self, name: str, read: str | None = None) -> str | None:
        """Why the global `name` may not hold the same value at all times, or None if it does.
        `read`: the attribute path read there (`jax.numpy.sin`); None: it may be anything under `name`."""
        bindings, declared_global, mutated, changed_paths = self.facts
        if name in declared_global:
            return f"`{name}` is reassigned through a `global` statement"
        if bindings.get(name, 0) > 1:
            return f"`{name}` is bound more than once at module level"
        if name in mutated:
            return f"`{name}` is mutated in place"
        for path in sorted(changed_paths.get(name, ())):
            if read is None or read == path or read.startswith(path + ".") or path.startswith(read + "."):
                return f"`{path}` is changed in place"
        return None

    def unstable_among(self, free: list[FreeName]) -> str | None:
        """Why one of the globals among `free` (read directly, or by a module function it reads,
        transitively) may not hold the same value at every call, or None: what a shared trace or a
        hoisted jit would bake in stale."""
        for f in free:
            if f.where != "global":
                continue
            reason = self.unstable_reason(f.node.id, read_path(self.resolver, f.node))
            if reason:
                return reason
            for a in f.assignments:
                node = getattr(a, "node", None)
                if isinstance(node, _DEFS):
                    for g in function_globals(self.resolver, node):
                        reason = self.unstable_reason(g.node.id, read_path(self.resolver, g.node))
                        if reason:
                            return f"`{node.name}` reads the global `{g.node.id}`, and {reason}"
        return None


def read_path(resolver, name: Name) -> str:
    """The attribute path read where `name` is: `jax.numpy.sin` for the `jax` of `jax.numpy.sin(x)`."""
    node: ast.AST = name
    parent = resolver.parent(node)
    while type(parent) is Attribute and parent.value is node:
        node, parent = parent, resolver.parent(parent)
    return dotted(node) or name.id


def bound_module(assignment) -> str | None:
    """The module an import binds to the assignment's name (`import jax.numpy` binds `jax` to jax),
    or None if it is not an import of a module. Of aliases binding the same name in one statement the
    last one counts (`import pkg.a, fast as pkg` binds `pkg` to fast)."""
    node = getattr(assignment, "node", None)
    if type(node) is Import:
        for alias in reversed(node.names):
            if alias.asname is not None and alias.asname == assignment.name:
                return alias.name
            if alias.asname is None and alias.name.split(".")[0] == assignment.name:
                return assignment.name
        return None
    if type(node) is ImportFrom and not node.level and node.module is not None \
            and not any(alias.name == "*" for alias in node.names):
        for alias in reversed(node.names):
            if (alias.asname or alias.name) == assignment.name:
                full = canonical(f"{node.module}.{alias.name}")
                return full if is_module(full) else None
    return None


def _is_installed_module(path: str, root: str, modules: set) -> bool:
    """`path` (`np`, `jax.numpy`, with `root` bound to `modules`) is a module itself."""
    rest = path[len(root):]
    return not rest or len(modules) == 1 and is_module(canonical(next(iter(modules)) + rest))


def root_node(node: ast.AST) -> Name | None:
    """`a` for `a.b[i].c`."""
    while type(node) in (Attribute, Subscript):
        node = node.value  # type: ignore[attr-defined]
    return node if type(node) is Name else None  # type: ignore[return-value]


def _path_before_subscript(node: ast.AST) -> str | None:
    """The attribute path whose value changes: `mod.table` for `mod.table[k].x`, `jax.config` for
    `jax.config` (a method called on it)."""
    path_node = node
    while type(node) in (Attribute, Subscript):
        if type(node) is Subscript:
            path_node = node.value  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
    return dotted(path_node)


def function_globals(resolver, fn: FunctionDef | AsyncFunctionDef) -> list[FreeName]:
    """Globals read by a module-level function, and by the module functions it reads, transitively
    (what a cached trace of it would bake in)."""
    out, seen, work = [], {id(fn)}, [fn]
    while work:
        current = work.pop()
        for f in free_names(resolver, current):
            if f.where != "global" or f.node.id == current.name:
                continue
            out.append(f)
            for a in f.assignments:
                node = getattr(a, "node", None)
                if isinstance(node, _DEFS) and id(node) not in seen:
                    seen.add(id(node))
                    work.append(node)
    return out
