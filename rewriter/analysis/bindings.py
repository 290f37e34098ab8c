"""What an expression depends on, and which module globals are not stable.

Hoisting an expression (to module level, or out of a loop) is only behaviour-preserving when every
name it reads means the same thing at the new place and time. These queries answer that from
libcst's scope analysis: free names are classified by where they are bound, and module globals
are "unstable" when they are rebound, declared `global` somewhere, or mutated in place.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from ..cst_tree import children
from .apis import canonical
from .installed import is_module
from .names import NameResolver, dotted
from .scopes import BuiltinScope, GlobalScope

_MUTATING_METHODS = frozenset(
    "append extend insert pop remove clear update setdefault popitem add discard sort reverse "
    "__setitem__ __delitem__ __setattr__".split()
)
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class FreeName:
    node: cst.Name
    where: str  # "global" | "builtin" | "local" | "star" (from a module-level `import *`) | "unknown"
    assignments: frozenset


def _walk(node: cst.CSTNode, skip: cst.CSTNode | None = None):
    stack = [node]
    while stack:
        current = stack.pop()
        if current is skip:
            continue
        yield current
        stack.extend(reversed(children(current)))


def _is_load(resolver: NameResolver, name: cst.Name) -> bool:
    parent = resolver.parent(name)
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        return False
    if isinstance(parent, (cst.Arg,)) and parent.keyword is name:
        return False
    if isinstance(parent, cst.Param):
        return parent.name is not name  # a default value or annotation is read; the name is bound
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName)):
        return False
    return True


def free_names(resolver: NameResolver, expr: cst.CSTNode) -> list[FreeName]:
    """Names read inside `expr` and bound outside it, each classified by where its binding lives."""
    inner_scopes = {id(resolver.scope(n)) for n in _walk(expr) if type(n) is cst.Lambda or type(n) is cst.FunctionDef}
    inner_nodes = {id(n) for n in _walk(expr)}
    out = []
    for node in _walk(expr):
        if type(node) is not cst.Name or not _is_load(resolver, node):  # (exact: cst_tree.concrete)
            continue
        scope = resolver.scope(node)
        if scope is None:
            continue
        assignments = frozenset(scope[node.value]) if node.value in scope else frozenset()
        outside = frozenset(a for a in assignments if id(getattr(a, "node", None)) not in inner_nodes)
        if assignments and not outside:
            continue  # bound inside the expression (lambda parameter, comprehension target)
        if any(id(a.scope) in inner_scopes for a in assignments) and not outside:
            continue
        scopes = {type(a.scope) for a in outside}
        if not outside:
            where = "builtin" if node.value in _BUILTINS else "star" if resolver.star_modules else "unknown"
        elif scopes == {GlobalScope}:
            where = "global"
        elif scopes == {BuiltinScope}:
            where = "builtin"
        else:
            where = "local"
        out.append(FreeName(node, where, outside))
    return out


class ModuleGlobals:
    """Facts about module-level names, computed in one walk of the module.

    A method call or a store through an attribute chain rooted at an imported module
    (`jax.config.update(...)`, `torch.backends.cudnn.benchmark = True`, `mod.registry.append(f)`)
    changes the state at that path; the name still denotes the same module. So it makes the module
    name unstable only for code that reads that path (`jax.config...`, or the bare module, which
    may reach it), never for `jax.jit` or `jax.numpy.sin`. A module is not a container: `np.append(a,
    b)` or `jnp.add(x, y)` calls a function of the module and changes nothing. The same method call
    on any other name (a list, an object bound by `from m import obj`) mutates the value it holds.
    """

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    @cached_property
    def _facts(self) -> tuple[dict[str, int], set[str], set[str], dict[str, set[str]]]:
        module = self.resolver.wrapper.module
        values: dict[str, set] = {}  # what each top-level binding binds: imports of one module are one value
        global_scope = self.resolver.scope(module.body[0]) if module.body else None
        if isinstance(global_scope, GlobalScope):
            for assignment in global_scope.assignments:
                values.setdefault(assignment.name, set()).add(bound_module(assignment) or id(assignment))
        top_level_bindings = {name: len(bound) for name, bound in values.items()}
        declared_global: set[str] = set()
        mutated: set[str] = set()
        changed_paths: dict[str, set[str]] = {}  # module name -> attribute paths changed in place

        def changed(chain: cst.BaseExpression, receiver: bool) -> None:
            root = root_node(chain)
            if root is None:
                return
            assignments = self.resolver.assignments(root)
            if assignments and not any(isinstance(a.scope, GlobalScope) for a in assignments):
                return  # a local of some function (a parameter `jax`): not the global
            modules = {bound_module(a) for a in assignments}
            if not assignments or None in modules:
                mutated.add(root.value)
                return
            path = _path_before_subscript(chain)
            if receiver and path == dotted(chain) and _is_installed_module(path, root.value, modules):
                return  # `np.append(...)`, `jnp.add(...)`: a function of the module, not a container method
            changed_paths.setdefault(root.value, set()).add(path)  # `jax.config.update(...)`

        syntax = self.resolver.syntax  # the shared traversal's tables (syntax.SyntaxIndex), if it ran
        if syntax is not None:
            global_statements, stores, calls = syntax.global_statements, syntax.stores, syntax.calls
        else:
            nodes = list(_walk(module))
            global_statements = [n for n in nodes if isinstance(n, cst.Global)]
            stores = [n for n in nodes if isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del))]
            calls = [n for n in nodes if isinstance(n, cst.Call)]
        for node in global_statements:
            declared_global |= {n.name.value for n in node.names}
        for node in stores:
            target = node.target
            if not isinstance(target, cst.Name):
                changed(target, receiver=False)  # x[k] = ..., x.a = ..., del x[k]
            if isinstance(node, cst.AugAssign) and isinstance(target, cst.Name):
                mutated.add(target.value)
        for node in calls:
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in _MUTATING_METHODS:
                changed(node.func.value, receiver=True)
        return top_level_bindings, declared_global, mutated, changed_paths

    def unstable_reason(self, name: str, read: str | None = None) -> str | None:
        """Why the global `name` may not hold the same value at all times, or None if it does.
        `read`: the attribute path read there (`jax.numpy.sin`); None: it may be anything under `name`."""
        bindings, declared_global, mutated, changed_paths = self._facts
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
            reason = self.unstable_reason(f.node.value, read_path(self.resolver, f.node))
            if reason:
                return reason
            for a in f.assignments:
                node = getattr(a, "node", None)
                if isinstance(node, cst.FunctionDef):
                    for g in function_globals(self.resolver, node):
                        reason = self.unstable_reason(g.node.value, read_path(self.resolver, g.node))
                        if reason:
                            return f"`{node.name.value}` reads the global `{g.node.value}`, and {reason}"
        return None


def read_path(resolver: NameResolver, name: cst.Name) -> str:
    """The attribute path read where `name` is: `jax.numpy.sin` for the `jax` of `jax.numpy.sin(x)`."""
    node: cst.CSTNode = name
    parent = resolver.parent(node)
    while isinstance(parent, cst.Attribute) and parent.value is node:
        node, parent = parent, resolver.parent(parent)
    return dotted(node) or name.value


def bound_module(assignment) -> str | None:
    """The module an import binds to the assignment's name (`import jax.numpy` binds `jax` to jax),
    or None if it is not an import of a module. Of aliases binding the same name in one statement the
    last one counts (`import pkg.a, fast as pkg` binds `pkg` to fast)."""
    node = getattr(assignment, "node", None)
    if isinstance(node, cst.Import):
        for alias in reversed(node.names):
            full = dotted(alias.name)
            if alias.asname is not None and alias.asname.name.value == assignment.name:
                return full
            if alias.asname is None and full.split(".")[0] == assignment.name:
                return assignment.name
        return None
    if isinstance(node, cst.ImportFrom) and not node.relative and node.module is not None \
            and not isinstance(node.names, cst.ImportStar):
        module = dotted(node.module)
        for alias in reversed(node.names):
            local = alias.asname.name.value if alias.asname else dotted(alias.name)
            if local == assignment.name:
                full = canonical(f"{module}.{dotted(alias.name)}")
                return full if is_module(full) else None
    return None


def _is_installed_module(path: str, root: str, modules: set[str]) -> bool:
    """`path` (`np`, `jax.numpy`, with `root` bound to `modules`) is a module itself."""
    rest = path[len(root):]
    return not rest or len(modules) == 1 and is_module(canonical(next(iter(modules)) + rest))


def _root_name(node: cst.CSTNode) -> str | None:
    root = root_node(node)
    return root.value if root is not None else None


def root_node(node: cst.CSTNode) -> cst.Name | None:
    """`a` for `a.b[i].c`."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _path_before_subscript(node: cst.CSTNode) -> str | None:
    """The attribute path whose value changes: `mod.table` for `mod.table[k].x`, `jax.config` for
    `jax.config` (a method called on it)."""
    path_node = node
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Subscript):
            path_node = node.value
        node = node.value
    return dotted(path_node)


def function_globals(resolver: NameResolver, fn: cst.FunctionDef) -> list[FreeName]:
    """Globals read by a module-level function, and by the module functions it reads, transitively
    (what a cached trace of it would bake in)."""
    out, seen, work = [], {id(fn)}, [fn]
    while work:
        current = work.pop()
        for f in free_names(resolver, current):
            if f.where != "global" or f.node.value == current.name.value:
                continue
            out.append(f)
            for a in f.assignments:
                node = getattr(a, "node", None)
                if isinstance(node, cst.FunctionDef) and id(node) not in seen:
                    seen.add(id(node))
                    work.append(node)
    return out


def possibly_mutated_in(resolver: NameResolver, name: str, region: cst.CSTNode, skip: cst.CSTNode | None = None) -> bool:
    """`name` may change in place inside `region` (outside `skip`): stored through (`x[k] =`,
    `x.a =`, `del x[k]`), augmented, receiver of a method call, or passed to a call (which could
    mutate it)."""
    for node in _walk(region, skip):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
            if _root_name(node.target) == name and not isinstance(node.target, cst.Name):
                return True
        elif isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and _root_name(node.func.value) == name:
                return True
            if any(_root_name(arg.value) == name for arg in node.args):
                return True
    return False
