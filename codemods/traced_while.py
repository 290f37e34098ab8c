"""PML203 traced-while."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.ast_structure import top_level_statement
from rewriter.analysis.trace_values import FunctionFlow
from rewriter.ast_rule import AstRule, PlannedFix, locator_of
from rewriter.codemod import Replace
from rewriter.emit.ast_condition import condition_spellings
from rewriter.emit.ast_loops import (bound_name, carried, carry_agreement, check_body, check_head, counter_condition,
                                     masked_names, names_read_after, reads_name)
from rewriter.emit.branches import Refused
from rewriter.emit.condition import NotConvertible, tensor_condition
from rewriter.emit.frameworks import Emitter
from rewriter.emit.loops import bound_constant, conjuncts, jax_while, keep_comments, masked_loop
from rewriter.emit.spelling import PlannedSpelling
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._control_flow import (CONCRETIZED, Reading, block_statements, import_heads, needs_conversion_on_ast, parts_value_of,
                            planned_spellings, reading_of, traced_condition_gate, traced_message_on_ast,
                            traced_nodes_on_ast, traced_test_inside_on_ast)


class TracedWhile(AstRule):
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

    def check(self) -> None:
        for flow, loop in traced_nodes_on_ast(self.file, (ast.While,)):
            self._check(flow, loop)

    def _check(self, flow: FunctionFlow, loop: ast.While) -> None:
        value = needs_conversion_on_ast(self, flow, loop.test)
        if value is None:
            return
        head, places = traced_message_on_ast(self.file, flow, "`while` on a traced condition", loop.test, value)
        try:
            if value.concretized:
                raise Refused(CONCRETIZED)
            self._plan(flow, loop, head, places)
        except (Refused, NotConvertible) as why:
            self.report(loop.test, head, hint=_HINT.get(flow.framework, _HINT[None]), note=f"not rewritten: {why}",
                        related=places)

    def _plan(self, flow: FunctionFlow, loop: ast.While, head: str, places: list) -> None:
        """Decide the loop primitive or masked loop the loop becomes (or raise Refused/NotConvertible), and report
        it with the fix planned: `_write_while` and `_write_masked` build it on libcst."""
        file = self.file
        if loop.orelse:
            raise Refused("the loop has an `else` clause")
        body = loop.body
        check_body(body, "loop body")
        check_head(loop.test, "loop's condition")
        inner = traced_test_inside_on_ast(flow, body)
        if inner is not None:
            raise Refused(f"the traced condition `{file.code_parenthesized(inner).strip()}` inside the body is converted first (PML201)")
        value_at = partial(file.traced.value_at, loop.test)
        spelled, _ = condition_spellings(loop.test, flow.framework, value_at)
        if flow.framework == "jax":
            names = carried(file, flow, loop, body, loop.test)
            doubt = carry_agreement(file, flow, loop, body, names, [loop.test])
            cond_name = file.fresh_name("loop_condition")
            body_name = file.fresh_name("loop_body")
            texts, imports = planned_spellings(file, [*spelled, ("jax.lax", "while_loop")])
            at = (loop,)
            build = partial(_write_while, decision=_While(tuple(names), cond_name, body_name, texts, reading_of(file), loop.test))
            listed = ", ".join(f"`{n}`" for n in names)
            title = f"loop with `jax.lax.while_loop` carrying {listed}"
            caveat = ("not reverse-differentiable: `jax.grad` through it fails; a bounded `lax.fori_loop`/`lax.scan` is the "
                      "differentiable form")
            if doubt:
                fix = PlannedFix(f"{title} (unsafe: the carry may change type)", at, build, Safety.UNSAFE, imports=imports,
                                 reads=at, spelled=import_heads(texts))
                self.report(loop.test, head, fix=fix, related=places,
                            note=f"unsafe: {doubt}; `while_loop` rejects a carry that changes; {caveat}")
                return
            fix = PlannedFix(title, at, build, imports=imports, reads=at, spelled=import_heads(texts))
            self.report(loop.test, head, fix=fix, related=places, note=caveat)
            return
        if flow.framework != "phiml":
            raise Refused(f"no {flow.framework} loop primitive is written here; bound the loop by hand (`tf.while_loop` "
                          "with autograph off, a fixed count under `torch.jit.trace`)")
        counter = counter_condition(file, flow, loop.test, body)
        if counter is None:
            raise Refused("PhiML has no loop primitive, and a masked loop needs a bound the program gives (a counter "
                          "condition such as `it < 50`): each iteration of the bound is a copy of the body in every trace")
        # The counter becomes the masked loop's index: `for it in range(K)` counts exactly as `it += 1` did
        # while the loop ran, and once the rest of the condition is false every carried value stays put.
        body = [stmt for stmt in body if stmt is not counter.increment]
        if not counter.rest:
            raise Refused("only the counter bounds the loop: it is not traced")
        if names_read_after(flow.context.function, loop, [counter.name]) or reads_name(body, counter.name):
            raise Refused(f"the counter `{counter.name}` is read elsewhere, so it cannot become the masked loop's index")
        rest = counter.rest[0] if len(counter.rest) == 1 else ast.BoolOp(ast.And(), list(counter.rest))
        spelled += condition_spellings(rest, flow.framework, value_at)[0]
        names = carried(file, flow, loop, body, loop.test, exclude=(counter.name,))
        count, source = counter.bound, counter.source
        doubt = carry_agreement(file, flow, loop, body, names, [rest])
        bound = file.fresh_name(bound_name(flow))
        selected = masked_names(file, flow, loop, body)
        active = file.fresh_name("active")
        if selected:
            spelled.append(("phiml.math", "where"))
        texts, imports = planned_spellings(file, spelled)
        anchor = top_level_statement(file.names, file.reading.lines, flow.context.function)  # type: ignore[union-attr]
        if anchor is None:
            raise Refused("the function is not inside the module's own statements")
        decision = _Masked(counter.name, bound, count, active, texts, reading_of(file), loop.test)
        fix = PlannedFix(f"masked loop of `{bound} = {count}` iterations (unsafe: {count} copies of the body per trace)",
                         (loop, anchor), partial(_write_masked, decision=decision), Safety.UNSAFE, imports=imports,
                         reads=(loop,), needs=(counter.conjunct, counter.increment), spelled=import_heads(texts))
        doubt_note = f"; {doubt}" if doubt else ""
        self.report(loop.test, head, fix=fix, related=places,
                    note=f"the bound comes from {source}: every trace holds {count} copies of the body{doubt_note}")


# What to do by hand when the loop is not rewritten.
_HINT = {
    "jax": "loop with `jax.lax.while_loop` by hand (or a bounded `lax.fori_loop`)",
    "phiml": "bound the loop with a counter (`while ... and it < K`), or loop outside the jit-compiled function",
    None: "bound the loop by hand",
}


@dataclass(frozen=True)
class _While:
    """What `_plan` decided for jax, for `_write_while` to build on libcst."""

    names: tuple[str, ...]  # the carried values, in order of first assignment
    cond_name: str
    body_name: str
    texts: dict[tuple[str, str], str]  # how the code spells each function it names (PlannedSpelling)
    reading: Reading
    test: ast.expr


@dataclass(frozen=True)
class _Masked:
    """What `_plan` decided for PhiML, for `_write_masked` to build on libcst."""

    index: str  # the counter, the masked loop's index
    bound: str  # the bound constant's name
    count: int
    active: str
    texts: dict[tuple[str, str], str]
    reading: Reading
    test: ast.expr


def _write_while(context, loop: cst.While, *, decision: _While):
    """`def loop_condition(carry)`, `def loop_body(carry)` and `carry = jax.lax.while_loop(...)`."""
    emit = Emitter("jax", PlannedSpelling(decision.texts))
    value_of = parts_value_of(locator_of(context, decision.reading.lowered), decision.reading, decision.test)
    test = tensor_condition(loop.test, emit, value_of)
    statements = jax_while(emit, list(decision.names), decision.cond_name, decision.body_name, test, block_statements(loop))
    statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
    statements[1] = keep_comments(statements[1], loop)
    return [Replace(loop, cst.FlattenSentinel(statements))]


def _write_masked(context, loop: cst.While, anchor: cst.BaseStatement, conjunct: cst.BaseExpression,
                  increment: cst.BaseSmallStatement, *, decision: _Masked):
    """`BOUND = K` before the function, and `for it in range(BOUND): active = <the rest of the condition>;
    x = math.where(active, ...)`, without the counter's conjunct and its increment."""
    others = [c for c in conjuncts(loop.test) if c is not conjunct]
    line = context.analysis.names.parent(increment)
    body = [stmt for stmt in block_statements(loop) if stmt is not line]
    if not others or len(others) == len(conjuncts(loop.test)) or len(body) == len(block_statements(loop)):
        return None  # (the counter is not where `_plan` read it)
    rest = others[0]
    joined: dict[int, list] = {}  # the levels made here, `a and b` of `a and b and c`: their conjuncts
    for k, other in enumerate(others[1:], start=2):
        rest = cst.BooleanOperation(rest, cst.And(), other)
        joined[id(rest)] = others[:k]
    emit = Emitter("phiml", PlannedSpelling(decision.texts))
    parts = parts_value_of(locator_of(context, decision.reading.lowered), decision.reading, decision.test)

    def value_of(expr):
        """A level made here has no place to be read at: it is static when all its conjuncts (the file's) are."""
        conjuncts_of = joined.get(id(expr))
        if conjuncts_of is None:
            return parts(expr)
        values = [parts(c) for c in conjuncts_of]
        return next((v for v in values if not v.static), values[0])

    test = tensor_condition(rest, emit, value_of)
    statements = masked_loop(emit, body, test, decision.active, decision.index, decision.bound)
    statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
    return [bound_constant(anchor, decision.bound, decision.count), Replace(loop, cst.FlattenSentinel(statements))]
