"""Jit contexts: which functions are traced, by which transform, and which parameters stay static.

A function is traced when it is decorated with a jit transform (`@jax.jit`, `@math.jit_compile(...)`,
`@partial(jax.jit, static_argnums=0)`, stacked with others), when it is wrapped anywhere in the
module (`f_jit = jax.jit(f)`, `math.jit_compile(f)(x)`), or when it is a function of this module
called from a traced body (its parameters then inherit tracedness from the call site: issue-level
analyses refine that; here their static set is unknown).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..lazy_libcst import cst

from ..cst_tree import visit_batched
from .apis import Kind
from .names import NameResolver
from .jit_contexts import JitContext, JitContexts  # noqa: F401  (JitContext: the rules import it from here)
from .transforms import Application, Transform, match_application, match_transform, static_params

if TYPE_CHECKING:
    FunctionNode = cst.FunctionDef | cst.Lambda


@dataclass
class _Collected:
    decorated: list[tuple[cst.FunctionDef, Transform]] = field(default_factory=list)
    applications: list[Application] = field(default_factory=list)
    calls_by_function: dict[int, list[cst.Call]] = field(default_factory=dict)


class _Collector:
    """Read-only visit methods, called by cst_tree.visit_batched (no libcst base class: lazy_libcst)."""

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver
        self.out = _Collected()
        self.function_stack: list[FunctionNode] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for deco in node.decorators:
            transform = match_transform(self.resolver, deco.decorator, (Kind.JIT,))
            if transform is not None:
                self.out.decorated.append((node, transform))
        self.function_stack.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.function_stack.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.function_stack.append(node)

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self.function_stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        app = match_application(self.resolver, node, (Kind.JIT,))
        if app is not None:
            self.out.applications.append(app)
        for fn in self.function_stack:
            self.out.calls_by_function.setdefault(id(fn), []).append(node)


def _collect(resolver: NameResolver) -> _Collected:
    """The jit-decorated defs, jit applications and calls per function: from the shared traversal's
    syntax index when it is complete, else by a walk of the module."""
    syntax = resolver.syntax
    if syntax is None:
        collector = _Collector(resolver)
        visit_batched(resolver.wrapper.module, [collector])
        return collector.out
    out = _Collected(calls_by_function=syntax.calls_by_function)
    for fn in syntax.decorated:
        for deco in fn.decorators:
            transform = match_transform(resolver, deco.decorator, (Kind.JIT,))
            if transform is not None:
                out.decorated.append((fn, transform))
    for call in syntax.calls:
        app = match_application(resolver, call, (Kind.JIT,))
        if app is not None:
            out.applications.append(app)
    return out


class JitAnalysis(JitContexts):
    """The jit contexts of a libcst module (jit_contexts.py)."""

    def _collect(self) -> _Collected:
        return _collect(self.resolver)

    def _static_params(self, transform: Transform, fn) -> frozenset[str] | None:
        return static_params(transform, fn)

    def _module_function(self, name: str) -> cst.FunctionDef | None:
        return module_function(self.resolver.wrapper.module, name)

    def _transform_named(self, api, name: str) -> Transform:
        return Transform(api, cst.Name(name), ())

    def _callee(self, expr) -> bool:
        return isinstance(expr, (cst.Name, cst.Attribute))

    def _function(self, node) -> bool:
        return isinstance(node, (cst.FunctionDef, cst.Lambda))

    def remote_traces(self, fn: cst.CSTNode) -> list:
        """The RemoteTrace facts of `fn` ("called" ones: what traced callers elsewhere pass it)."""
        if not self.project or not isinstance(fn, cst.FunctionDef):
            return []
        name = qualified_def_name(self.resolver, fn)
        return [t for t in self.project.traces if t.function == name and t.how == "called"] if name else []

    # -- queries ---------------------------------------------------------------------------
    def functions_denoted(self, expr: cst.BaseExpression) -> list[FunctionNode]:
        """The lambda itself, or the defs a name denotes where it is read (only when every binding that
        may reach the read is a def: a def that is rebound before the read is another function)."""
        if isinstance(expr, cst.Lambda):
            return [expr]
        if not isinstance(expr, cst.Name):
            return []
        assignments = self.resolver.reaching(expr)
        # (in the order they are written: a set's order differs from run to run, and contexts keep it)
        defs = [a.node for a in sorted(assignments, key=lambda a: a.created)
                if isinstance(getattr(a, "node", None), cst.FunctionDef)]
        return defs if defs and len(defs) == len(assignments) else []

    def method_denoted(self, expr: cst.BaseExpression) -> list[cst.FunctionDef]:
        """`self.step` read in a method: the def `step` of that class's own body (not inherited, not
        rebound there), when `self` is the method's first parameter and never rebound."""
        if not isinstance(expr, cst.Attribute) or not isinstance(expr.value, cst.Name) or expr.value.value != "self":
            return []
        bindings = self.resolver.assignments(expr.value)
        if len(bindings) != 1:
            return []
        param = getattr(next(iter(bindings)), "node", None)
        method = self.resolver.parent(self.resolver.parent(param)) if isinstance(param, cst.Param) else None
        if not isinstance(method, cst.FunctionDef) or not method.params.params or method.params.params[0] is not param \
                or any(_decorator_name(d) in ("staticmethod", "classmethod") for d in method.decorators):
            return []
        block = self.resolver.parent(method)
        cls = self.resolver.parent(block) if isinstance(block, cst.IndentedBlock) else None
        if not isinstance(cls, cst.ClassDef):
            return []
        named = [s for s in block.body if _binds(s, expr.attr.value)]
        return named if len(named) == 1 and isinstance(named[0], cst.FunctionDef) else []

    def jitted_value(self, expr: cst.BaseExpression) -> Transform | None:
        """The jit transform `expr` already carries: a jit application, or a name bound only to jitted things."""
        if isinstance(expr, cst.Call):
            app = match_application(self.resolver, expr, (Kind.JIT,))
            return app.transform if app is not None else None
        if not isinstance(expr, cst.Name):
            return None
        assignments = self.resolver.reaching(expr)
        if not assignments:
            return None
        found: Transform | None = None
        for assignment in assignments:
            node = getattr(assignment, "node", None)
            if isinstance(node, cst.FunctionDef) and id(node) in self._jitted_defs:
                found = self._jitted_defs[id(node)]
                continue
            value = assigned_value(self.resolver, node)
            transform = self.jitted_value(value) if isinstance(value, cst.Call) else None
            if transform is None:
                return None
            found = transform
        return found


def _decorator_name(decorator: cst.Decorator) -> str:
    expr = decorator.decorator
    return expr.value if isinstance(expr, cst.Name) else expr.attr.value if isinstance(expr, cst.Attribute) else ""


def _binds(statement: cst.CSTNode, name: str) -> bool:
    """A class-body statement that binds `name`: a def, or an assignment whose targets spell it."""
    if isinstance(statement, cst.FunctionDef):
        return statement.name.value == name
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
            if any(isinstance(n, cst.Name) and n.value == name for t in targets for n in _names_in(t)):
                return True
    return False


def _names_in(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names_in(e.value)]
    return [target]


def module_function(module: cst.Module, name: str) -> cst.FunctionDef | None:
    """The def a project fact names: `f` at module level (the last one), or `make.f` nested in it."""
    outer, _, inner = name.partition(".")
    found = None
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == outer:
            found = stmt
    if found is None or not inner:
        return found
    nested = [s for s in found.body.body if isinstance(s, cst.FunctionDef) and s.name.value == inner] \
        if isinstance(found.body, cst.IndentedBlock) else []
    return nested[-1] if nested else None


def qualified_def_name(resolver: NameResolver, fn: cst.FunctionDef) -> str | None:
    """`f` for a module-level def, `make.f` for a def directly in one (the names project facts use)."""
    parent = resolver.parent(fn)
    if isinstance(parent, cst.Module):
        return fn.name.value
    block = parent
    outer = resolver.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if isinstance(outer, cst.FunctionDef) and isinstance(resolver.parent(outer), cst.Module):
        return f"{outer.name.value}.{fn.name.value}"
    return None


def bound_value(resolver: NameResolver, name: cst.BaseExpression) -> cst.BaseExpression | None:
    """The value of `name`'s one binding, when it has exactly one and it is `name = value`."""
    if not isinstance(name, cst.Name):
        return None
    assignments = resolver.assignments(name)
    if len(assignments) != 1:
        return None
    return assigned_value(resolver, getattr(next(iter(assignments)), "node", None))


def assigned_value(resolver: NameResolver, target: cst.CSTNode | None) -> cst.BaseExpression | None:
    """For `name = value` (single plain target), the value; else None."""
    if not isinstance(target, cst.Name):
        return None
    parent = resolver.parent(target)
    if isinstance(parent, cst.AssignTarget):
        assign = resolver.parent(parent)
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            return assign.value
    if isinstance(parent, cst.AnnAssign) and parent.value is not None:
        return parent.value
    return None
