"""PML203 traced-while."""
from __future__ import annotations

import ast

from rewriter.lazy_libcst import cst

from rewriter.analysis.trace_values import FunctionFlow
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.cst_tree import children
from rewriter.emit.branches import Refused
from rewriter.emit.condition import NotConvertible, tensor_condition
from rewriter.emit.loops import (bound_constant, carried, carry_agreement, check_body, counter_condition, jax_while, masked_loop,
                     names_read_after)
from rewriter.findings import Safety, Severity

from ._control_flow import (CONCRETIZED, block_statements, converts_on_ast, emitter, needs_conversion, traced_message,
                            traced_nodes, traced_condition_gate, traced_test_inside)


class TracedWhile(Codemod):
    """A `while` whose condition is a traced value loops a data-dependent number of times, which a
    trace cannot know: `jax.jit` raises `TracerBoolConversionError`, PhiML's jit raises on jax and
    tensorflow and on torch silently repeats the first call's iteration count (measured: halving
    `[64, 2]` stops after the 3 iterations `[4, 8]` needed). `torch.jit.trace` bakes in the example
    input's iteration count, and `tf.function` with autograph off raises
    `OperatorNotAllowedInGraphError`. The message quotes how the condition derives from a traced
    value; the traced parameter and each assignment on the way are related locations.

    jax: the loop becomes `jax.lax.while_loop(loop_condition, loop_body, carry)` over the
    loop-carried variables — exact, but not reverse-differentiable (the fix's note says so; a
    bounded `fori_loop` or `lax.scan` is the differentiable alternative).

    PhiML has no public while loop: when the program bounds the loop itself (a counter condition
    `it < K`), the loop becomes a masked loop, `for it in range(BOUND): active = math.any(...);
    x = math.where(active, <body>, x)`, with the bound a visible module constant — unsafe (every
    trace holds BOUND copies of the body), differentiable. A loop nothing bounds is reported, never
    given a made-up bound. torch and tensorflow-without-autograph loops are reported only.
    """

    CODE = "PML203"
    NAME = "traced-while"
    SUMMARY = "a `while` on a traced condition fails or silently repeats one count under jit: use while_loop / a masked loop"
    SAFETY = Safety.SAFE
    REMOVES_ERRORS = True
    SAFETY_VARIES = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "`lax.while_loop` (jax) is safe when the body provably keeps each carried value's shape, dtype and "
        "structure (otherwise unsafe: `while_loop` rejects a carry that changes): the same body runs while the "
        "same condition holds; it is not reverse-differentiable, which the jitted original was not either. The "
        "PhiML masked loop is a last resort and always unsafe: it is written only when the program bounds the "
        "loop itself (`while ... and it < K` with `it = 0` before and `it += 1` in the body, the counter becoming "
        "the loop index); it runs K iterations in every trace (K copies of the body), masking those after the "
        "condition turned false. Without such a bound the loop is reported only. Bodies with `break`/`return`, "
        "side effects or names first assigned inside the loop are reported only."
    )
    EXAMPLES = (
        Example(
            dedented("""
                import jax
                import jax.numpy as jnp


                @jax.jit
                def halve(x):
                    while jnp.any(x > 1):
                        x = x / 2
                    return x
            """),
            dedented("""
                import jax
                import jax.numpy as jnp


                @jax.jit
                def halve(x):
                    def loop_condition(x):
                        return jnp.any(x > 1)
                    def loop_body(x):
                        x = x / 2
                        return x
                    x = jax.lax.while_loop(loop_condition, loop_body, x)
                    return x
            """),
        ),
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile
                def halve(x):
                    it = 0
                    while (x > 1).any and it < 20:
                        x = x / 2
                        it += 1
                    return x
            """),
            dedented("""
                from phiml import math


                HALVE_MAX_ITERATIONS = 20


                @math.jit_compile
                def halve(x):
                    it = 0
                    for it in range(HALVE_MAX_ITERATIONS):
                        active = math.any(x > 1, dim=math.shape)
                        x = math.where(active, x / 2, x)
                    return x
            """),
            "PhiML: a masked loop bounded by the program's own counter (unsafe fix)",
        ),
        Unchanged(dedented("""
            @jax.jit
            def halve(x):
                i = 0
                while i < 3:
                    x = x / 2
                    i += 1
                return x
        """), "a `while` on a Python counter"),
        Unchanged(dedented("""
            @partial(jax.jit, static_argnames=("tolerance",))
            def refine(x, tolerance):
                while tolerance < 1.0:
                    x = x * 0.5
                    tolerance = tolerance * 2
                return x
        """), "a `while` on a static argument"),
    )
    PROJECT_FACTS = frozenset({"traces"})
    READS_FACTS = True
    TRIGGERS = (("jit",), ("function",), ("trace",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        return traced_condition_gate(syntax)

    @classmethod
    def may_report(cls, file) -> bool:
        return converts_on_ast(file, (ast.While,))

    def leave_Module(self, original_node: cst.Module) -> None:
        for flow, loop in traced_nodes(self.file, cst.While):
            self._check(flow, loop)

    def _check(self, flow: FunctionFlow, loop: cst.While) -> None:
        value = needs_conversion(self, flow, loop.test)
        if value is None:
            return
        head, places = traced_message(self.file, flow, "`while` on a traced condition", loop.test, value)
        try:
            if value.concretized:
                raise Refused(CONCRETIZED)
            self._rewrite(flow, loop, head, places)
        except (Refused, NotConvertible) as why:
            self.report(loop.test, head, hint=_HINT.get(flow.framework, _HINT[None]), note=f"not rewritten: {why}",
                        related=places)

    def _rewrite(self, flow: FunctionFlow, loop: cst.While, head: str, places: list) -> None:
        if loop.orelse is not None:
            raise Refused("the loop has an `else` clause")
        body = block_statements(loop)
        check_body(body, "loop body")
        inner = traced_test_inside(flow, body)
        if inner is not None:
            raise Refused(f"the traced condition `{self.file.code(inner).strip()}` inside the body is converted first (PML201)")
        emit, spelling = emitter(self.file, flow)
        test = tensor_condition(loop.test, emit, lambda e: self.file.analysis.traced.value_at(loop.test, e))
        if flow.framework == "jax":
            names = carried(self.file, flow, loop, body, loop.test)
            doubt = carry_agreement(self.file, flow, loop, body, names, [loop.test])
            cond_name = self.file.analysis.fresh_name("loop_condition")
            body_name = self.file.analysis.fresh_name("loop_body")
            statements = jax_while(emit, names, cond_name, body_name, test, body)
            statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
            listed = ", ".join(f"`{n}`" for n in names)
            title = f"loop with `jax.lax.while_loop` carrying {listed}"
            caveat = ("not reverse-differentiable: `jax.grad` through it fails; a bounded `lax.fori_loop`/`lax.scan` is the "
                      "differentiable form")
            if doubt:
                self.report(loop.test, head, edits=[Replace(loop, cst.FlattenSentinel(statements))], imports=spelling.imports,
                            safety=Safety.UNSAFE, related=places, fix_description=f"{title} (unsafe: the carry may change type)",
                            note=f"unsafe: {doubt}; `while_loop` rejects a carry that changes; {caveat}")
                return
            self.report(loop.test, head, edits=[Replace(loop, cst.FlattenSentinel(statements))], imports=spelling.imports,
                        related=places, fix_description=title, note=caveat)
            return
        if flow.framework != "phiml":
            raise Refused(f"no {flow.framework} loop primitive is written here; bound the loop by hand (`tf.while_loop` "
                          "with autograph off, a fixed count under `torch.jit.trace`)")
        counter = counter_condition(self.file, flow, loop.test, body)
        if counter is None:
            raise Refused("PhiML has no loop primitive, and a masked loop needs a bound the program gives (a counter "
                          "condition such as `it < 50`): each iteration of the bound is a copy of the body in every trace")
        # The counter becomes the masked loop's index: `for it in range(K)` counts exactly as `it += 1` did
        # while the loop ran, and once the rest of the condition is false every carried value stays put.
        body = [stmt for stmt in body if stmt is not counter.increment]
        if counter.rest is None:
            raise Refused("only the counter bounds the loop: it is not traced")
        if names_read_after(self.file, flow.context.function, loop, [counter.name]) or _reads_in(body, counter.name):
            raise Refused(f"the counter `{counter.name}` is read elsewhere, so it cannot become the masked loop's index")
        test = tensor_condition(counter.rest, emit, lambda e: self.file.analysis.traced.value_at(loop.test, e))
        names = carried(self.file, flow, loop, body, loop.test, exclude=(counter.name,))
        count, source = counter.bound, counter.source
        doubt = carry_agreement(self.file, flow, loop, body, names, [counter.rest])
        bound, constant = bound_constant(self.file, flow, count)
        index = counter.name
        statements = masked_loop(self.file, flow, emit, loop, body, test, index, bound)
        statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
        doubt_note = f"; {doubt}" if doubt else ""
        self.report(loop.test, head, edits=[constant, Replace(loop, cst.FlattenSentinel(statements))],
                    safety=Safety.UNSAFE, imports=spelling.imports, related=places,
                    fix_description=f"masked loop of `{bound} = {count}` iterations (unsafe: {count} copies of the body per trace)",
                    note=f"the bound comes from {source}: every trace holds {count} copies of the body{doubt_note}")


# What to do by hand when the loop is not rewritten.
_HINT = {
    "jax": "loop with `jax.lax.while_loop` by hand (or a bounded `lax.fori_loop`)",
    "phiml": "bound the loop with a counter (`while ... and it < K`), or loop outside the jit-compiled function",
    None: "bound the loop by hand",
}


def _reads_in(statements, name: str) -> bool:
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            return True
        stack.extend(children(node))
    return False
