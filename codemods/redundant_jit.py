"""PML303 redundant-jit."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.syntax import spelled_application, spelled_transform
from rewriter.analysis.transforms import Transform, match_application, match_transform
from rewriter.codemod import Codemod, Example, Replace
from rewriter.findings import Safety, Severity

from ._shared import replacement_in_place

# jit_compile_linear is more than a jit: it traces a linear function into a matrix for solve_linear.
_NOT_PLAIN_JIT = {"phiml.math.jit_compile_linear"}


def _plain(transform: Transform) -> bool:
    return transform.api.name not in _NOT_PLAIN_JIT


class RedundantJit(Codemod):
    """A jit applied to a function that is already jitted, or a jit built inside a function that is
    itself being traced, adds nothing: the inner program is inlined into the outer trace. It does
    cost: an extra wrapper and cache lookup per call, one more trace cache to fill (PhiML), and on
    torch PhiML ignores nested jit with a warning ("PyTorch does not support nested tracing").

    Fixed when both transforms belong to the same framework: `jax.jit(already_jitted)` becomes
    `already_jitted` (only when the outer jit has no options of its own), a second jit decorator is
    removed, and a jit applied inside a traced body is replaced by the plain function.
    `math.jit_compile_linear` is never treated as a plain jit: it builds a sparse matrix for solves.
    """

    CODE = "PML303"
    NAME = "redundant-jit"
    SUMMARY = "jit of an already-jitted function, or jit inside a jitted body, is removed"
    SAFETY = Safety.SAFE
    SEVERITY = Severity.INFO
    FIX_SAFETY = (
        "Inside a trace, an inner jit is inlined, so calling the plain function computes the same values; "
        "an outer jit without options over a jitted function compiles the same program. Mixed frameworks, "
        "an outer jit with its own options (e.g. different static arguments) and jit_compile_linear are "
        "reported, not fixed."
    )
    EXAMPLES = (
        Example(
            "@jax.jit\ndef step(x):\n    return x * 2\n\nfast_step = jax.jit(step)\n",
            "@jax.jit\ndef step(x):\n    return x * 2\n\nfast_step = step\n",
        ),
        Example(
            "@math.jit_compile\ndef simulate(x):\n    for _ in range(3):\n        x = math.jit_compile(step)(x)\n    return x\n",
            "@math.jit_compile\ndef simulate(x):\n    for _ in range(3):\n        x = step(x)\n    return x\n",
            note="jit inside a jitted body",
        ),
    )
    TRIGGERS = (("jit",), ("tensorflow", "function"), ("torch", "compile"))

    def __init__(self, file) -> None:
        super().__init__(file)
        self._deferred: list = []  # candidates that need the whole file's syntax index

    def visit_Call(self, node: cst.Call) -> None:
        first = spelled_application(self.file.analysis.names, node)
        if first is not None:
            self._deferred.append((self._check_call, node, tuple(self.file.syntax.functions), first))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        names = self.file.analysis.names
        spelled = sum(spelled_transform(names, d.decorator) for d in node.decorators)
        if spelled >= 2 or spelled == 1 and len(self.file.syntax.functions) > 1:
            self._deferred.append((self._check_def, node, tuple(self.file.syntax.functions[:-1]), None))

    def leave_Module(self, original_node: cst.Module) -> None:
        syntax = self.file.syntax
        for check, node, functions, first in self._deferred:
            if check == self._check_call and not (syntax.may_be_jitted(first) or syntax.may_be_traced(functions)):
                continue
            if check == self._check_def and len(node.decorators) and functions and not syntax.may_be_traced(functions) \
                    and sum(spelled_transform(self.file.analysis.names, d.decorator) for d in node.decorators) < 2:
                continue
            check(node)

    def _check_call(self, node: cst.Call) -> None:
        analysis = self.file.analysis
        app = match_application(analysis.names, node, (Kind.JIT,))
        if app is None or not _plain(app.transform):
            return
        outer_name = app.transform.api.name
        inner = analysis.jit.jitted_value(app.function)
        if inner is not None and _plain(inner):
            message = f"`{outer_name}` of a function that is already jitted with `{inner.api.name}`"
            fixable = inner.api.name == outer_name and not app.transform.keywords
            if fixable:
                self.report(node, message, edits=[Replace(node, replacement_in_place(self.parent(node), node, app.function))], fix_description="drop the outer jit")
            else:
                self.report(node, message + " (different options or frameworks: resolve by hand)")
            return
        if inner is not None:
            return
        context = analysis.jit.enclosing_context(node, direct_only=True)
        if context is not None:
            message = f"`{outer_name}` inside `{context.name}`, which is traced by `{context.transform.api.name}`: the inner jit is inlined"
            if context.framework == app.transform.framework:
                self.report(node, message, edits=[Replace(node, replacement_in_place(self.parent(node), node, app.function))], fix_description="call the plain function")
            else:
                self.report(node, message + " (different frameworks: resolve by hand)")

    def _check_def(self, node: cst.FunctionDef) -> None:
        analysis = self.file.analysis
        jits = [
            (deco, t)
            for deco in node.decorators
            if (t := match_transform(analysis.names, deco.decorator, (Kind.JIT,))) is not None and _plain(t)
        ]
        if len(jits) >= 2:
            (outer_deco, outer), (inner_deco, inner) = jits[0], jits[1]
            message = f"`{node.name.value}` is jitted twice (`{outer.api.name}` over `{inner.api.name}`)"
            if outer.api.name == inner.api.name and (not outer.keywords or not inner.keywords):
                drop = outer_deco if not outer.keywords else inner_deco
                self.report(outer_deco, message, edits=[Replace(drop, cst.RemovalSentinel.REMOVE)], fix_description="remove one jit decorator")
            else:
                self.report(outer_deco, message + " (different options or frameworks: resolve by hand)")
            return
        if len(jits) == 1:
            deco, transform = jits[0]
            context = analysis.jit.enclosing_context(node, direct_only=True)
            if context is None:
                return
            message = f"`@{transform.api.name}` on `{node.name.value}` inside `{context.name}`, which is traced by `{context.transform.api.name}`: the inner jit is inlined"
            if context.framework == transform.framework:
                self.report(deco, message, edits=[Replace(deco, cst.RemovalSentinel.REMOVE)], fix_description="remove the inner jit decorator")
            else:
                self.report(deco, message + " (different frameworks: resolve by hand)")
