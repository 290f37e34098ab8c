"""Where a node of libcst's tree sits, for the rules that still write their fixes from libcst readings:
its top-level statement, its parameters, what is bound before it (ast_structure.py reads the rest)."""
from __future__ import annotations

from ..lazy_libcst import cst

from .names import NameResolver


def ancestors(resolver: NameResolver, node: cst.CSTNode):
    current = resolver.parent(node)
    while current is not None:
        yield current
        current = resolver.parent(current)


def all_params(fn: cst.FunctionDef | cst.Lambda) -> list[cst.Param]:
    """Every parameter of `fn`, in order: positional-only, positional, keyword-only, `*args`, `**kwargs`."""
    p = fn.params
    out = [*p.posonly_params, *p.params, *p.kwonly_params]
    if isinstance(p.star_arg, cst.Param):
        out.append(p.star_arg)
    if p.star_kwarg is not None:
        out.append(p.star_kwarg)
    return out


def top_level_statement(resolver: NameResolver, node: cst.CSTNode) -> cst.BaseStatement | None:
    module = resolver.wrapper.module
    for a in [node, *ancestors(resolver, node)]:
        if resolver.parent(a) is module:
            return a
    return None


def defined_before(names: NameResolver, fn: cst.CSTNode, name: str, node: cst.CSTNode) -> bool:
    """`name` has a value when `node` runs: a parameter of `fn`, or assigned in `fn` earlier in the text."""
    if isinstance(fn, (cst.FunctionDef, cst.Lambda)):
        p = fn.params
        if name in {q.name.value for q in (*p.posonly_params, *p.params, *p.kwonly_params)}:
            return True
    scope = names.scope(node)
    if scope is None or name not in scope:
        return False

    def start(n):
        position = names.positions[n].start
        return position.line, position.column

    begin = start(node)
    for assignment in scope.assignments[name]:
        target = getattr(assignment, "node", None)
        if target is not None and start(target) < begin:
            return True
    return False
