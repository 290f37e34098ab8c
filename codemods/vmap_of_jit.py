"""PML301 vmap-of-jit."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.syntax import spelled_application, spelled_transform
from rewriter.analysis.transforms import match_application, match_transform
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.findings import Safety

from ._shared import with_function

VMAP = frozenset({Kind.VMAP})


class VmapOfJit(Codemod):
    """`vmap(jit(f))` compiles the per-example function and then vectorises calls to the compiled
    program; `jit(vmap(f))` compiles the whole vectorised computation as one XLA program, which
    gives the compiler the batch to fuse and schedule, and pays dispatch once per call instead of
    through the vmap wrapper. JAX's own guidance: pull `jax.jit` to the outermost layer.
    The outer jit is the faster call (figures: docs/benchmarks.md, "What the hazards cost").

    Both nested calls (`jax.vmap(jax.jit(f, ...), ...)`) and stacked decorators (`@jax.vmap` over
    `@jax.jit`, also through `functools.partial`) are rewritten, keeping every argument of both
    transforms: `in_axes`/`out_axes` stay with vmap, `static_argnums`/`static_argnames`/`donate_argnums`
    stay with jit (vmap preserves the positional signature, so the indices keep their meaning).
    """

    CODE = "PML301"
    NAME = "vmap-of-jit"
    SUMMARY = "jit should be the outermost transform: `vmap(jit(f))` becomes `jit(vmap(f))`"
    SAFETY = Safety.SAFE
    CHANGES_STRUCTURE = ("vmap", "jit")
    FIX_SAFETY = (
        "The result values are identical: vmap of a function traces it with batched tracers either way. "
        "A nested call inside a function body is only rewritten when the wrapped function is created "
        "there too (a lambda): for a module-level `f`, `jax.jit(f)` hits jax's cache on every call, while "
        "a per-call `jax.jit(jax.vmap(f))` would compile every time; such sites are reported, and PML302 "
        "hoists them. Only jax transforms are rewritten; other frameworks are reported."
    )
    EXAMPLES = (
        Example(
            "batched_loss = jax.vmap(jax.jit(loss, static_argnums=2), in_axes=(0, None, None))\n",
            "batched_loss = jax.jit(jax.vmap(loss, in_axes=(0, None, None)), static_argnums=2)\n",
        ),
        Example(
            dedented("""
                @jax.vmap
                @jax.jit
                def step(x):
                    return jnp.sin(x) * 2
            """),
            dedented("""
                @jax.jit
                @jax.vmap
                def step(x):
                    return jnp.sin(x) * 2
            """),
            note="stacked decorators",
        ),
        Unchanged(dedented("""
            def step(x):
                return jnp.sin(x) * 2

            fast_step = jax.jit(jax.vmap(step))
        """), "jit already outermost"),
        Unchanged(dedented("""
            @jax.jit
            @partial(jax.vmap, in_axes=0)
            def step(x):
                return jnp.sin(x) * 2
        """), "stacked decorators with jit on top"),
        Unchanged(dedented("""
            def step(x):
                return jnp.sin(x) * 2

            grads = jax.vmap(jax.grad(step))
        """), "vmap of another transform than jit"),
    )
    HAZARDS = ("`jax.jit(jax.vmap(...` is better than `jax.vmap(jax.jit(...`",)
    READS_FACTS = True
    TRIGGERS = (("vmap", "jit"), ("vectorized_map", "function"), ("vmap", "torch", "compile"))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """vmap applied over jit: `vmap(jit(f))`, or a vmap decorator above a jit one."""
        facts = syntax.facts
        return facts is not None and facts.vmap_over_jit

    def __init__(self, file) -> None:
        super().__init__(file)
        # judged at leave_Module, when the traversal's facts are complete; each with its check (a function:
        # a bound method of the rule held by the rule is a cycle, redundant_jit.py)
        self._deferred: list = []

    def visit_Call(self, node: cst.Call) -> None:
        names = self.file.analysis.names
        inner_call = spelled_application(names, node, VMAP)
        if isinstance(inner_call, cst.Call) and spelled_application(names, inner_call) is not None:
            syntax = self.file.syntax
            self._deferred.append((VmapOfJit._check_call, node, bool(syntax.functions or syntax.loop_depth)))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._deferred.append((VmapOfJit._check_def, node, None))

    def leave_Module(self, original_node: cst.Module) -> None:
        for check, node, in_function in self._deferred:
            check(self, node, in_function)

    def _check_call(self, node: cst.Call, in_function: bool) -> None:
        names = self.file.analysis.names
        outer = match_application(names, node, (Kind.VMAP,))
        if outer is None or not isinstance(outer.function, cst.Call):
            return
        inner = match_application(names, outer.function, (Kind.JIT,))
        if inner is None:
            return
        vmap_name, jit_name = outer.transform.api.name, inner.transform.api.name
        message = f"`{vmap_name}` of `{jit_name}`: the batch is not compiled as one program"
        if not (outer.transform.framework == inner.transform.framework == "jax"):
            self.report(node, message, hint=f"put the jit outermost: `{jit_name}({vmap_name}(f))`",
                        note="not rewritten: only jax transforms are swapped")
            return
        per_call = in_function and not isinstance(inner.function, cst.Lambda)  # in a function or a loop
        if per_call:
            self.report(node, message, hint="hoist the wrapper to module level first (PML302), then swap to `jit(vmap(f))`",
                        note="not swapped here: a `jit(vmap(f))` would be rebuilt and recompiled every time")
            return
        new_inner = with_function(outer, inner.function)
        replacement = with_function(inner, new_inner)
        self.report(node, message, edits=[Replace(node, replacement)], fix_description="swap to jit(vmap(f))")

    def _check_def(self, node: cst.FunctionDef, _=None) -> None:
        names = self.file.analysis.names
        decorators = list(node.decorators)
        for i in range(len(decorators) - 1):
            if not (spelled_transform(names, decorators[i].decorator, VMAP) and spelled_transform(names, decorators[i + 1].decorator)):
                continue
            vmap = match_transform(names, decorators[i].decorator, (Kind.VMAP,))
            jit = match_transform(names, decorators[i + 1].decorator, (Kind.JIT,))
            if vmap is None or jit is None:
                continue
            message = f"`@{vmap.api.name}` stacked over `@{jit.api.name}`: the batch is not compiled as one program"
            if not (vmap.framework == jit.framework == "jax"):
                self.report(decorators[i], message, hint=f"put `@{jit.api.name}` on top",
                            note="not rewritten: only jax transforms are swapped")
                return
            upper, lower = decorators[i], decorators[i + 1]
            # Each decorator keeps its own trailing comment; blank lines/comments above stay in place.
            edits = [
                Replace(upper, lower.with_changes(leading_lines=upper.leading_lines)),
                Replace(lower, upper.with_changes(leading_lines=lower.leading_lines)),
            ]
            self.report(upper, message, edits=edits, fix_description=f"swap the decorators: `@{jit.api.name}` on top")
            return
