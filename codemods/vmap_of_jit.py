"""PML301 vmap-of-jit."""
from __future__ import annotations

import ast

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import match_application, match_transform, spelled_application, spelled_transform
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

VMAP = frozenset({Kind.VMAP})


class VmapOfJit(AstRule):
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
        if not (syntax.spells(Kind.VMAP) and syntax.spells(Kind.JIT)):
            return False
        facts = syntax.facts
        return facts is not None and facts.vmap_over_jit

    def check(self) -> None:
        names = self.file.names
        nodes = sorted(self.file.nodes(ast.Call, *_DEFS), key=lambda n: (n.lineno, n.col_offset))
        for node in nodes:
            if isinstance(node, ast.Call):
                inner_call = spelled_application(names, node, VMAP)
                if isinstance(inner_call, ast.Call) and spelled_application(names, inner_call) is not None:
                    self._check_call(node)
            else:
                self._check_def(node)

    def _check_call(self, node: ast.Call) -> None:
        names = self.file.names
        outer = match_application(names, node, (Kind.VMAP,))
        if outer is None or not isinstance(outer.function, ast.Call):
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
        if _per_call(names, node) and not isinstance(inner.function, ast.Lambda):  # in a function or a loop
            self.report(node, message, hint="hoist the wrapper to module level first (PML302), then swap to `jit(vmap(f))`",
                        note="not swapped here: a `jit(vmap(f))` would be rebuilt and recompiled every time")
            return
        self.report(node, message, fix=PlannedFix("swap to jit(vmap(f))", (node, outer.function, inner.function),
                                                  _swap_calls, reads=(node,)))

    def _check_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        names = self.file.names
        decorators = node.decorator_list
        for i in range(len(decorators) - 1):
            if not (spelled_transform(names, decorators[i], VMAP) and spelled_transform(names, decorators[i + 1])):
                continue
            vmap = match_transform(names, decorators[i], (Kind.VMAP,))
            jit = match_transform(names, decorators[i + 1], (Kind.JIT,))
            if vmap is None or jit is None:
                continue
            message = f"`@{vmap.api.name}` stacked over `@{jit.api.name}`: the batch is not compiled as one program"
            place = self.file.python.decorator_place(decorators[i])
            if not (vmap.framework == jit.framework == "jax"):
                self.report(decorators[i], message, hint=f"put `@{jit.api.name}` on top",
                            note="not rewritten: only jax transforms are swapped", place=place)
                return
            self.report(decorators[i], message, place=place,
                        fix=PlannedFix(f"swap the decorators: `@{jit.api.name}` on top", (decorators[i], decorators[i + 1]),
                                       _swap_decorators, reads=(decorators[i], decorators[i + 1])))
            return


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _per_call(names, node: ast.AST) -> bool:
    """`node` runs per call or per iteration: in a def or lambda (its decorators and defaults too), or in a loop
    or comprehension."""
    current = names.parent(node)
    while current is not None:
        if isinstance(current, (*_DEFS, ast.Lambda, *_LOOPS)):
            return True
        current = names.parent(current)
    return False


def _with_first(call: cst.Call, function: cst.BaseExpression) -> cst.Call:
    """The same call with a different first positional argument (the wrapped function)."""
    args = list(call.args)
    for i, arg in enumerate(args):
        if arg.keyword is None and not arg.star:
            args[i] = arg.with_changes(value=function)
            break
    return call.with_changes(args=args)


def _swap_calls(context, outer: cst.CSTNode, inner: cst.CSTNode, function: cst.CSTNode) -> list[Replace] | None:
    """`vmap(jit(f, ...), ...)` -> `jit(vmap(f, ...), ...)`: each transform keeps its own arguments."""
    if not isinstance(outer, cst.Call) or not isinstance(inner, cst.Call) or not isinstance(function, cst.BaseExpression):
        return None
    return [Replace(outer, _with_first(inner, _with_first(outer, function)))]


def _swap_decorators(context, upper: cst.CSTNode, lower: cst.CSTNode) -> list[Replace] | None:
    """The two decorators trade places; each keeps its own trailing comment, and the blank lines and comments
    above each stay where they are."""
    upper, lower = context.analysis.names.parent(upper), context.analysis.names.parent(lower)
    if not isinstance(upper, cst.Decorator) or not isinstance(lower, cst.Decorator):
        return None
    return [Replace(upper, lower.with_changes(leading_lines=upper.leading_lines)),
            Replace(lower, upper.with_changes(leading_lines=lower.leading_lines))]
