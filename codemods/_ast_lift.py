"""Lifting a lambda or nested def to module level, decided on `ast` (PML101, PML102): what it is, where
it is, and what runs it.

_lift.py writes the lifted def on libcst; this module reads, on CPython's `ast`, what that writing needs
to be safe: the function created per call at a use site, whether its decorators may run at import, and
the loops and stores that could give a captured name another value than the one passed explicitly
(where a node sits: analysis/ast_structure.py).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_captures import free_names
from rewriter.analysis.ast_jit import match_application, match_transform
from rewriter.analysis.ast_names import branches
from rewriter.analysis.ast_structure import ancestors, is_inside

from ._lift import EAGER_TRANSFORMS, Temporary

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def is_called(resolver, node: ast.AST) -> bool:
    """`node(...)`: the node is the callee of its parent."""
    parent = resolver.parent(node)
    return type(parent) is ast.Call and parent.func is node


def eager_decorator(file, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """Why `fn`'s decorators must keep running where the def is (None: they only wrap lazily)."""
    for decorator in fn.decorator_list:
        transform = match_transform(file.names, decorator, (Kind.JIT,))
        if transform is None:
            return f"its decorator `{file.code(decorator)}` runs when the def runs; at module level it would run at import"
        if transform.api.name in EAGER_TRANSFORMS:
            return f"`{transform.api.name}` compiles when the def runs; at module level it would compile at import"
    return None


@dataclass(frozen=True)
class AstTemporary:
    """A function created on every run of its enclosing function, as found at a use site (_lift.Temporary
    on `ast`; `written_temporary` makes the libcst one from the twins)."""

    function: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef
    label: str  # "a lambda", "the nested def `op`"
    base_name: str  # what the lifted def is called, before collision avoidance
    remove: ast.stmt | None = None  # the statement defining it, which the lift deletes
    # decorators for the lifted def: the call site's transforms (`math.jit_compile_linear` of
    # `math.jit_compile_linear(<it>)`) and the def's own, as expressions
    decorators: tuple[ast.expr, ...] = ()


def temporary_at(file, expr: ast.expr, role: str, enclosing: str, shown: str | None = None) -> AstTemporary | str | None:
    """What `expr` (an argument at a use site) creates per call; a refusal reason; or None (stable).

    Recognised: a lambda; `jit_compile_linear(<lambda or nested def>)`; a name bound once, in an
    enclosing function, to a def or to a lambda, and used only here. `enclosing` names the lifted
    def; `shown` is the enclosing function's own name, for messages (default: `enclosing`).
    """
    resolver = file.names
    shown = shown or enclosing
    if type(expr) is ast.Lambda:
        return AstTemporary(expr, "a lambda", f"_{enclosing}_{role}")
    if type(expr) is ast.Call:
        app = match_application(resolver, expr, (Kind.JIT,))
        if app is None or app.transform.api.name != "phiml.math.jit_compile_linear" or app.transform.keywords:
            return None
        inner = temporary_at(file, app.function, role, enclosing, shown)
        if not isinstance(inner, AstTemporary):
            return inner
        return AstTemporary(inner.function, inner.label, inner.base_name, inner.remove,
                            (app.transform.expr, *inner.decorators))
    if type(expr) is not ast.Name:
        return None
    assignments = resolver.assignments(expr)
    if len(assignments) != 1:
        return None
    assignment = next(iter(assignments))
    node = getattr(assignment, "node", None)
    if at_module_level(resolver, node):
        return None  # created once: already stable
    outside = [r for r in assignment.references if not any(x is node for x in ancestors(resolver, r.node))]
    if len(outside) != len(assignment.references):
        return "it calls itself through the enclosing scope"
    if isinstance(node, _DEFS):
        if len(outside) != 1:
            return f"it is also used elsewhere in `{shown}`"
        eager = eager_decorator(file, node)
        if eager:
            return eager
        return AstTemporary(node, f"the nested def `{node.name}`", f"_{enclosing}_{node.name}", node,
                            tuple(node.decorator_list))
    value = _assigned_alone(file, node)
    if value is None:
        return None
    statement, assigned = value
    if type(assigned) is ast.Call:  # op = math.jit_compile_linear(lambda ...)
        inner = temporary_at(file, assigned, expr.id, enclosing, shown)
        if not isinstance(inner, AstTemporary) or inner.remove is not None:
            return None if inner is None or isinstance(inner, AstTemporary) else inner
        if len(outside) != 1:
            return f"it is also used elsewhere in `{shown}`"
        return AstTemporary(inner.function, f"`{expr.id}`", f"_{enclosing}_{expr.id}", statement, inner.decorators)
    if len(outside) != 1:
        return f"it is also used elsewhere in `{shown}`"
    return AstTemporary(assigned, f"the lambda `{expr.id}`", f"_{enclosing}_{expr.id}", statement)  # type: ignore[arg-type]


def at_module_level(resolver, node: ast.AST | None) -> bool:
    """Bound outside every function (None: a binding without a node, such as a builtin)."""
    if node is None:
        return True
    return not any(type(a) in _FUNCTIONS for a in ancestors(resolver, node))


def _assigned_alone(file, target: ast.AST | None) -> tuple[ast.Assign, ast.expr] | None:
    """`name = lambda ...` / `name = <call>` as the only statement of its line: (statement, value)."""
    if type(target) is not ast.Name:
        return None
    assign = file.names.parent(target)
    if type(assign) is not ast.Assign or len(assign.targets) != 1 or assign.targets[0] is not target \
            or type(assign.value) not in (ast.Lambda, ast.Call) or not file.python.alone_on_its_lines(assign):
        return None
    return assign, assign.value


# -- loops and late binding ---------------------------------------------------------------------
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def loops_repeating(resolver, node: ast.AST, once: ast.AST | None = None) -> list[ast.AST]:
    """The loops of `node`'s function that run `node` again, innermost first; with `once`, only those
    that do not run `once` again too (a function created in the same iteration is new each time)."""
    out = []
    child = node
    for a in ancestors(resolver, node):
        if type(a) in (*_FUNCTIONS, ast.ClassDef):
            break
        if type(a) in (ast.For, ast.AsyncFor):
            repeats = any(child is s for s in a.body)  # type: ignore[attr-defined]
        elif type(a) is ast.While:
            repeats = any(child is s for s in a.body) or child is a.test  # type: ignore[attr-defined]
        elif type(a) in _COMPREHENSIONS:  # everything but its first iterable runs per item
            repeats = not is_inside(resolver, node, a.generators[0].iter)  # type: ignore[attr-defined]
        else:
            repeats = False
        if repeats and (once is None or not any(x is a for x in ancestors(resolver, once))):
            out.append(a)
        child = a
    return out


def bindings_of(resolver, fn: ast.AST, names: tuple[str, ...]) -> dict[str, list[ast.AST]]:
    """Where each of `names` (values `fn` captures) is bound outside `fn`: the binding nodes."""
    out: dict[str, list[ast.AST]] = {n: [] for n in names}
    for free in free_names(resolver, fn):
        if free.node.id in out:
            for a in sorted(free.assignments, key=lambda a: a.created):
                node = getattr(a, "node", None)
                if node is not None and all(node is not x for x in out[free.node.id]):
                    out[free.node.id].append(node)
    return out


def rebound_in_loop(resolver, bindings: dict[str, list[ast.AST]], loops: list[ast.AST]) -> tuple[str, ast.AST, ast.AST] | None:
    """A captured name some loop of `loops` binds (its target or a store in its body): (name, binding, loop)."""
    for loop in loops:
        for name, nodes in bindings.items():
            for node in nodes:
                if is_inside(resolver, node, loop):
                    return name, node, loop
    return None


def written_elsewhere(resolver, fn: ast.AST, bindings: dict[str, list[ast.AST]]) -> tuple[str, ast.AST] | None:
    """A captured name another function in its scope declares `nonlocal` (it may change while the API runs)."""
    for name, nodes in bindings.items():
        owners = {id(o): o for o in (next((a for a in ancestors(resolver, n) if type(a) in _FUNCTIONS), None)
                                     for n in nodes) if o is not None}
        for owner in owners.values():
            stack = list(owner.body) if isinstance(owner.body, list) else [owner.body]  # type: ignore[attr-defined]
            while stack:
                node = stack.pop()
                if node is fn:
                    continue
                if type(node) is ast.Nonlocal and name in node.names:  # type: ignore[attr-defined]
                    return name, node
                stack.extend(branches(node))
    return None


def assigned_within(resolver, node: ast.AST, names: tuple[str, ...], skip: ast.AST) -> tuple[str, ast.AST] | None:
    """`(name := ...)` for a captured name inside `node` (outside `skip`, the function itself)."""
    wanted = set(names)
    stack = [node]
    while stack:
        current = stack.pop()
        if current is skip:
            continue
        if type(current) is ast.NamedExpr and type(current.target) is ast.Name and current.target.id in wanted:  # type: ignore[attr-defined]
            return current.target.id, current  # type: ignore[attr-defined]
        stack.extend(branches(current))
    return None


def written_temporary(context, found: AstTemporary, function, remove, decorators) -> Temporary:
    """The libcst Temporary of `found`, given the twins of its function, of the statement it removes (None)
    and of its decorator expressions: the def's own decorators are its twin's (lifted_def keeps them by
    identity), a call site's transform becomes a new one."""
    if remove is not None and not isinstance(remove, cst.BaseStatement):
        remove = context.analysis.names.parent(remove)  # (an assignment's line)
    own = {id(d.decorator): d for d in getattr(function, "decorators", ())}
    written = tuple(own.get(id(twin)) or cst.Decorator(twin) for twin in decorators)
    return Temporary(function, found.label, found.base_name, remove, written)
