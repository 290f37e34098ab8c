"""What the hazard rules (PML501-PML507, decided on `ast`: rewriter/ast_rule.py) share: the traced functions
of a module, walking a function's own body in the order it is written, the API a call resolves to, and
how a message names a traced function and the jit that traces it."""
from __future__ import annotations

import ast
from typing import Iterator

from rewriter.analysis.apis import STAR_BACKENDS, Api
from rewriter.analysis.ast_jit import SpelledJits
from rewriter.analysis.ast_names import branches
from rewriter.analysis.jit_contexts import JitContext
from rewriter.ast_rule import AstFile
from rewriter.findings import Span

FRAMEWORK_JIT = {"phiml": "`jit_compile`", "jax": "`jax.jit`", "tensorflow": "`tf.function`", "torch": "`torch.jit`"}

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFS_CALLS_ASSIGNS = (*_DEFS, ast.Call, ast.Assign)  # (what SpelledJits reads)
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


def traced(context: JitContext) -> str:
    """In a few words, for a message: the jit-compiled `step`, or `helper` (called from the jit-compiled `step`)."""
    if context.how == "called" and context.caller is not None:
        return f"`{context.name}` (called from the jit-compiled `{context.root.name}`)"
    return f"the jit-compiled `{context.name}`"


def spelled_jits(file: AstFile) -> SpelledJits:
    """What the module's spellings say may be jitted (ast_jit.SpelledJits), read once per file."""
    found = file.__dict__.get("_spelled_jits")
    if found is None:
        found = file.__dict__["_spelled_jits"] = SpelledJits(file.names, file.nodes(*_DEFS_CALLS_ASSIGNS))
    return found


def enclosing_functions(names, node: ast.AST) -> tuple[ast.AST, ...]:
    """The defs and lambdas around `node`, outermost first (a def's decorators and defaults are inside it,
    as libcst's walk met them)."""
    out = []
    current = names.parent(node)
    while current is not None:
        if isinstance(current, (*_DEFS, ast.Lambda)):
            out.append(current)
        current = names.parent(current)
    return tuple(reversed(out))


def contexts(file: AstFile, frameworks=("phiml", "jax", "tensorflow", "torch")) -> list[JitContext]:
    """The traced functions of the module (decorated, wrapped, and the helpers they call)."""
    if not spelled_jits(file).any():  # (as on libcst: without one, not even what other modules trace)
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
