"""What the hazard rules (PML501-PML507) share: the traced functions of a module, walking a function's
own body, and the API a call resolves to."""
from __future__ import annotations

from typing import Iterator

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import STAR_BACKENDS, Api, Kind
from rewriter.analysis.jit import JitContext
from rewriter.cst_tree import branches, scope_kinds

FRAMEWORK_JIT = {"phiml": "`jit_compile`", "jax": "`jax.jit`", "tensorflow": "`tf.function`", "torch": "`torch.jit`"}


def own_nodes(function: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node of a function's body, not entering nested defs, lambdas or classes (they run when
    called, and are traced contexts of their own if they are)."""
    body = function.body
    stack = [body] if isinstance(body, cst.CSTNode) else []
    scopes = scope_kinds()
    while stack:
        node = stack.pop()
        yield node
        if type(node) in scopes:
            continue
        stack.extend(reversed(branches(node)))  # (no caller looks for a token)


def contexts(file, frameworks=("phiml", "jax", "tensorflow", "torch")) -> list[JitContext]:
    """The traced functions of the module (decorated, wrapped, and the helpers they call)."""
    if not file.syntax.jit_decorated and not file.syntax.jit_wrapped and not file.syntax.jit_lambdas:
        return []
    return [c for c in file.analysis.jit.contexts if c.framework in frameworks]


def call_api(file, call: cst.Call, kinds) -> Api | None:
    func = call.func
    return file.analysis.names.api(func, kinds) if isinstance(func, (cst.Name, cst.Attribute)) else None


def traced(context: JitContext) -> str:
    """In a few words, for a message: the jit-compiled `step`, or `helper` (called from the jit-compiled `step`)."""
    if context.how == "called" and context.caller is not None:
        return f"`{context.name}` (called from the jit-compiled `{context.root.name}`)"
    return f"the jit-compiled `{context.name}`"


def trace_related(file, context: JitContext) -> list[tuple[cst.CSTNode, str]]:
    """Where the trace comes from, as related locations: the jit-compiled function a helper is called
    from, and the call that jit-compiles a wrapped function (`jax.jit(f)`), when they are in this file."""
    root = context.root
    jit = FRAMEWORK_JIT.get(root.framework, "a jit transform")
    positions = file.analysis.names.positions
    out: list[tuple[cst.CSTNode, str]] = []
    if root is not context and isinstance(root.function, cst.FunctionDef) and root.function.name in positions:
        out.append((root.function.name, f"`{root.name}` is traced by {jit}"))
    if root.how == "wrapped" and root.application is not None and root.application in positions:
        out.append((root.application, f"{jit} traces `{root.name}` here"))
    return out


def is_phiml_jit(context: JitContext) -> bool:
    return context.framework == "phiml" and context.transform.api.kind is Kind.JIT


def api_calls(file, context: JitContext, kinds) -> Iterator[tuple[cst.Call, Api]]:
    """The calls in a traced function's own body that resolve to an API of `kinds`."""
    for node in own_nodes(context.function):
        if isinstance(node, cst.Call):
            api = call_api(file, node, kinds)
            if api is not None:
                yield node, api


def selected_backends(file) -> frozenset[str] | None:
    """The PhiML backends the module selects for the whole program by a star import of PhiFlow's
    backend module (`from phi.torch.flow import *`: torch); None when it selects none (any may run)."""
    found = frozenset(STAR_BACKENDS[m] for m in file.analysis.names.star_modules if m in STAR_BACKENDS)
    return found or None


def may_run_on(file, backend: str) -> bool:
    """A hazard of `backend` alone can happen in this module: it selects no backend, or that one."""
    selected = selected_backends(file)
    return selected is None or backend in selected
