"""Cheap, syntax-only facts gathered in the shared traversal, before any metadata is resolved.

Codemods use these as *necessary conditions*: a candidate that cannot pass them is dropped without
resolving scopes or qualified names. Everything that passes is then decided by the scope analysis.
Spellings are judged against the file's imports (`NameResolver.could_be_api`), so `re.compile` or a
local `jit` helper never looks like an API.
"""
from __future__ import annotations

import libcst as cst

from .apis import Kind
from .names import NameResolver

JIT = frozenset({Kind.JIT})


def spelled_transform(resolver: NameResolver, expr: cst.BaseExpression, kinds=JIT) -> bool:
    """`expr` may denote a transform of `kinds`: bare, factory call, or `partial(<transform>, ...)`."""
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return resolver.could_be_api(expr, kinds)
    if isinstance(expr, cst.Call) and isinstance(expr.func, (cst.Name, cst.Attribute)):
        if resolver.could_be_api(expr.func, kinds):
            return True
        first = next((a.value for a in expr.args if a.keyword is None and not a.star), None)
        return isinstance(first, (cst.Name, cst.Attribute)) and resolver.could_be_api(first, kinds)
    return False


def spelled_application(resolver: NameResolver, call: cst.Call, kinds=JIT) -> cst.BaseExpression | None:
    """The wrapped-function argument if `call` may apply a transform of `kinds`, else None."""
    first = next((a.value for a in call.args if a.keyword is None and not a.star), None)
    if first is None:
        return None
    kind = type(call.func)  # (exact classes: cst_tree.concrete)
    if (kind is cst.Name or kind is cst.Attribute) and resolver.could_be_api(call.func, kinds):
        return first
    if kind is cst.Call and spelled_transform(resolver, call.func, kinds):
        return first
    return None


class SyntaxIndex(cst.BatchableCSTVisitor):
    """Runs first in the shared traversal; complete by the time codemods reach `leave_Module`."""

    def __init__(self, resolver: NameResolver) -> None:
        super().__init__()
        self.resolver = resolver
        self.jit_decorated: set[str] = set()  # def names with a jit-looking decorator
        self.jit_wrapped: set[str] = set()  # names passed to a jit-looking application
        self.functions: list[cst.FunctionDef | cst.Lambda] = []  # the enclosing-function stack
        self.jit_lambdas: set[int] = set()  # ids of lambdas passed straight to a jit-looking call
        self.spelled: set[str] = set()  # the value of every Name in the module
        # For the jit analysis (jit.py), which would otherwise walk the tree again for them:
        self.decorated: list[cst.FunctionDef] = []  # defs with decorators, in order
        self.calls: list[cst.Call] = []  # every call, in order
        self.calls_by_function: dict[int, list[cst.Call]] = {}  # id(def or lambda) -> the calls inside it

    def visit_Name(self, node: cst.Name) -> None:
        self.spelled.add(node.value)

    def leave_Module(self, node: cst.Module) -> None:
        # Complete now, before any codemod's leave_Module: the resolver hands it to the analyses.
        self.resolver.spelled = self.spelled
        self.resolver.syntax = self

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.decorators:
            self.decorated.append(node)
            if any(spelled_transform(self.resolver, d.decorator) for d in node.decorators):
                self.jit_decorated.add(node.name.value)
        self.functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.functions.append(node)

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self.functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        for fn in self.functions:
            self.calls_by_function.setdefault(id(fn), []).append(node)
        wrapped = spelled_application(self.resolver, node)
        if type(wrapped) is cst.Name:
            self.jit_wrapped.add(wrapped.value)
        elif type(wrapped) is cst.Attribute and isinstance(wrapped.value, cst.Name) and wrapped.value.value == "self":  # `jax.jit(self.step)`: the method's name (jit.method_denoted)
            self.jit_wrapped.add(wrapped.attr.value)
        elif type(wrapped) is cst.Lambda:
            self.jit_lambdas.add(id(wrapped))
