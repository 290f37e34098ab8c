"""What the hazard rules decided on `ast` share (rewriter/ast_rule.py): the traced functions of a module,
walking a function's own body in the order it is written, and the API a call resolves to. The same
questions as `_hazards.py` asks of libcst, with the same answers."""
from __future__ import annotations

import ast
from typing import Iterator

from rewriter.analysis.apis import STAR_BACKENDS, Api
from rewriter.analysis.ast_jit import spelled_application, spelled_transform
from rewriter.analysis.ast_names import branches
from rewriter.analysis.jit_contexts import JitContext
from rewriter.ast_rule import AstFile
from rewriter.findings import Span

from ._hazards import FRAMEWORK_JIT

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CHAINS = (ast.Name, ast.Attribute)


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function's body in the order written (a block's statements too), not entering nested
    defs, lambdas or classes (they run when called, and are traced contexts of their own if they are)."""
    body = function.body  # type: ignore[attr-defined]
    stack = list(reversed(body)) if isinstance(body, list) else [body]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(branches(node)))


def jit_spelled(file: AstFile) -> bool:
    """The module spells a jit transform where the syntax index looks (analysis/syntax.py): a decorator
    that may be one, or a call that may apply one to a name, a method of `self` or a lambda. Without one,
    the hazard rules read no traced function, not even those other modules trace."""
    found = file.__dict__.get("_jit_spelled")
    if found is None:
        found = file.__dict__["_jit_spelled"] = _jit_spelled(file)
    return found


def _jit_spelled(file: AstFile) -> bool:
    names = file.names
    for node in ast.walk(file.tree):
        if isinstance(node, _DEFS):
            if any(spelled_transform(names, d) for d in node.decorator_list):
                return True
        elif isinstance(node, ast.Call):
            first = spelled_application(names, node)
            if isinstance(first, (ast.Name, ast.Lambda)) or isinstance(first, ast.Attribute) \
                    and isinstance(first.value, ast.Name) and first.value.id == "self":
                return True
    return False


def contexts(file: AstFile, frameworks=("phiml", "jax", "tensorflow", "torch")) -> list[JitContext]:
    """The traced functions of the module (decorated, wrapped, and the helpers they call)."""
    if not jit_spelled(file):
        return []
    return [c for c in file.jit.contexts if c.framework in frameworks]


def call_api(file: AstFile, call: ast.Call, kinds) -> Api | None:
    func = call.func
    return file.names.api(func, kinds) if isinstance(func, _CHAINS) else None


def api_calls(file: AstFile, context: JitContext, kinds) -> Iterator[tuple[ast.Call, Api]]:
    """The calls in a traced function's own body that resolve to an API of `kinds`."""
    for node in own_nodes(context.function):
        if isinstance(node, ast.Call):
            api = call_api(file, node, kinds)
            if api is not None:
                yield node, api


def trace_related(file: AstFile, context: JitContext) -> list[tuple[ast.AST | Span, str]]:
    """Where the trace comes from, as related locations: the jit-compiled function a helper is called
    from (at its name), and the call that jit-compiles a wrapped function (`jax.jit(f)`)."""
    root = context.root
    jit = FRAMEWORK_JIT.get(root.framework, "a jit transform")
    out: list[tuple[ast.AST | Span, str]] = []
    if root is not context and isinstance(root.function, _DEFS):
        out.append((file.python.name_place(root.function), f"`{root.name}` is traced by {jit}"))
    if root.how == "wrapped" and root.application is not None:
        out.append((root.application, f"{jit} traces `{root.name}` here"))
    return out


def selected_backends(file: AstFile) -> frozenset[str] | None:
    """The PhiML backends the module selects for the whole program by a star import of PhiFlow's
    backend module (`from phi.torch.flow import *`: torch); None when it selects none (any may run)."""
    found = frozenset(STAR_BACKENDS[m] for m in file.names.star_modules if m in STAR_BACKENDS)
    return found or None


def may_run_on(file: AstFile, backend: str) -> bool:
    """A hazard of `backend` alone can happen in this module: it selects no backend, or that one."""
    selected = selected_backends(file)
    return selected is None or backend in selected
