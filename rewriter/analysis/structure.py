"""Where a node sits: its enclosing function, loops and statements.

"Per iteration" is exact: a `for` loop's iterable and `else` run once, its body per iteration;
a `while` loop's test and body per iteration; a comprehension's outermost iterable once, the rest
per element.
"""
from __future__ import annotations

import libcst as cst

from .names import NameResolver

Loop = cst.For | cst.While | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def ancestors(resolver: NameResolver, node: cst.CSTNode):
    current = resolver.parent(node)
    while current is not None:
        yield current
        current = resolver.parent(current)


def enclosing_function(resolver: NameResolver, node: cst.CSTNode) -> cst.FunctionDef | cst.Lambda | None:
    for a in ancestors(resolver, node):
        if isinstance(a, (cst.FunctionDef, cst.Lambda)):
            return a
    return None


def all_params(fn: cst.FunctionDef | cst.Lambda) -> list[cst.Param]:
    """Every parameter of `fn`, in order: positional-only, positional, keyword-only, `*args`, `**kwargs`."""
    p = fn.params
    out = [*p.posonly_params, *p.params, *p.kwonly_params]
    if isinstance(p.star_arg, cst.Param):
        out.append(p.star_arg)
    if p.star_kwarg is not None:
        out.append(p.star_kwarg)
    return out


def _runs_per_iteration(loop: cst.CSTNode, child: cst.CSTNode) -> bool:
    if isinstance(loop, cst.For):
        return child is loop.body
    if isinstance(loop, cst.While):
        return child is loop.body or child is loop.test
    return False


def enclosing_loops(resolver: NameResolver, node: cst.CSTNode) -> list[cst.CSTNode]:
    """Loops (innermost first) in which `node` runs once per iteration, up to the enclosing function."""
    loops = []
    child = node
    for a in ancestors(resolver, node):
        if isinstance(a, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if isinstance(a, (cst.For, cst.While)) and _runs_per_iteration(a, child):
            loops.append(a)
        elif isinstance(a, _COMPREHENSIONS) and not _in_outermost_iterable(a, node, resolver):
            loops.append(a)
        child = a
    return loops


def _in_outermost_iterable(comp: cst.CSTNode, node: cst.CSTNode, resolver: NameResolver) -> bool:
    iterable = comp.for_in.iter
    return any(a is iterable for a in [node, *ancestors(resolver, node)])


def enclosing_statement(resolver: NameResolver, node: cst.CSTNode) -> cst.BaseStatement | None:
    """The innermost statement (simple line or compound) that contains `node`."""
    for a in [node, *ancestors(resolver, node)]:
        if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return a
    return None


def top_level_statement(resolver: NameResolver, node: cst.CSTNode) -> cst.BaseStatement | None:
    module = resolver.wrapper.module
    for a in [node, *ancestors(resolver, node)]:
        if resolver.parent(a) is module:
            return a
    return None


def is_inside(resolver: NameResolver, node: cst.CSTNode, container: cst.CSTNode) -> bool:
    return node is container or any(a is container for a in ancestors(resolver, node))


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
