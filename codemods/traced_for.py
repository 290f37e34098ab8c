"""PML202 traced-for."""
from __future__ import annotations

import ast

from rewriter.lazy_libcst import cst

from rewriter.analysis.trace_values import FunctionFlow
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.emit.branches import Refused, effect
from rewriter.emit.loops import (bound_constant, carried, carry_agreement, check_body, jax_fori, masked_bound, masked_loop,
                     names_read_after)
from rewriter.findings import Safety, Severity

from ._control_flow import (CONCRETIZED, block_statements, converts_on_ast, emitter, needs_conversion, traced_message,
                            traced_nodes, traced_condition_gate, traced_test_inside)


class TracedFor(Codemod):
    """`for i in range(n)` with a traced `n` needs the trip count while tracing: `jax.jit` raises
    `TracerIntegerConversionError`, PhiML's jit raises on jax (`int(n)` of a tracer; on tensorflow
    only autograph's loop conversion saves it) and on torch silently runs the first call's count forever (measured: `n=3` after `n=2` still
    doubles twice). `torch.jit.trace` bakes in the example input's count, and `tf.function` with
    autograph off raises `OperatorNotAllowedInGraphError`. The message quotes how the count derives
    from a traced value; the traced parameter and each assignment on the way are related locations.

    jax: the loop becomes `jax.lax.fori_loop(0, n, body, carry)`, with the loop-carried variables
    (assigned in the body and alive before it) as the carry. A traced bound makes `fori_loop`
    forward-only (reverse-mode `jax.grad` through it fails): the fix's note says so, and that a Python
    `n` marked in `static_argnames` keeps the loop differentiable at one compile per value.

    A count that is configuration — a Python int every call passes, or one declared `int` — is not
    this rule's: PML204 declares it static (one trace per value) and the loop stays exact, for jax
    and PhiML alike. PhiML has no loop primitive: for a count that is data, the loop becomes a
    masked loop — `for i in range(BOUND): x = math.where(i < n, <body>, x)` — only when the program
    gives the bound (`range(math.minimum(n, K))`, the largest count the calls pass), as a last
    resort (unsafe: every trace holds BOUND copies of the body, a larger count is cut short); with no
    bound in sight it is reported. Loops over a traced array (`for row in x`) have a static trip
    count and are left alone; so are loops over static counts.
    """

    CODE = "PML202"
    NAME = "traced-for"
    SUMMARY = "a `for` loop over a traced trip count fails or silently keeps one count under jit: use fori_loop / a masked loop"
    SAFETY = Safety.SAFE
    REMOVES_ERRORS = True
    SAFETY_VARIES = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "`lax.fori_loop` (jax) is safe when the body provably keeps each carried value's shape, dtype and "
        "structure (`fori_loop` rejects a carry that changes; otherwise the fix is unsafe): the same body runs the "
        "same number of times with the carried values threaded through; a traced bound gives up reverse-mode "
        "differentiation, which the jitted original could not do either. A count that every call passes as a "
        "Python int is PML204's (declared static), not a loop primitive's. The PhiML masked loop is a last resort "
        "and always unsafe: it runs a fixed number of iterations and masks those past `n`, so a larger `n` is cut "
        "short and every trace holds that many copies of the body; it is written only with a bound the program "
        "gives (`range(math.minimum(n, K))`, the largest count the calls pass), never a made-up one. Bodies with "
        "`break`/`continue`/`return`, side effects, or a carried Python value are reported only."
    )
    EXAMPLES = (
        Example(
            dedented("""
                import jax


                @jax.jit
                def power(x, n):
                    for _ in range(n):
                        x = x * 2
                    return x
            """),
            dedented("""
                import jax


                @jax.jit
                def power(x, n):
                    def loop_body(_, x):
                        x = x * 2
                        return x
                    x = jax.lax.fori_loop(0, n, loop_body, x)
                    return x
            """),
        ),
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile
                def repeat(x, n):
                    for i in range(math.minimum(n, 8)):
                        x = x * 2
                    return x
            """),
            dedented("""
                from phiml import math


                REPEAT_MAX_ITERATIONS = 8


                @math.jit_compile
                def repeat(x, n):
                    for i in range(REPEAT_MAX_ITERATIONS):
                        active = i < math.minimum(n, 8)
                        x = math.where(active, x * 2, x)
                    return x
            """),
            "PhiML, a count that is a tensor, capped in the program: a masked loop of that many iterations (unsafe fix)",
        ),
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile
                def repeat(x, n):
                    for i in range(n.max):
                        x = x * 2
                    return x
            """),
            None,
            "PhiML, a tensor count nothing bounds: reported (a masked loop would have to make up a bound)",
            by_hand=dedented("""
                from phiml import math


                @math.jit_compile(auxiliary_args='n')
                def repeat(x, n: int):
                    for i in range(n):
                        x = x * 2
                    return x
            """),
        ),
        Unchanged(dedented("""
            @jax.jit
            def total(x):
                s = 0.0
                for i in range(x.shape[0]):
                    s = s + x[i]
                return s
        """), "a trip count from a shape"),
        Unchanged(dedented("""
            @partial(jax.jit, static_argnames=("n",))
            def power(x, n):
                for _ in range(n):
                    x = x * 2
                return x
        """), "a count declared static"),
        Unchanged(dedented("""
            @math.jit_compile
            def smooth(x, steps: int):
                for _ in range(steps):
                    x = x * 0.5
                return x
        """), "a count declared `int`: PML204 declares it static"),
    )
    PROJECT_FACTS = frozenset({"traces"})
    READS_FACTS = True
    TRIGGERS = (("jit",), ("function",), ("trace",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        return traced_condition_gate(syntax)

    @classmethod
    def may_report(cls, file) -> bool:
        return converts_on_ast(file, (ast.For, ast.AsyncFor))

    def leave_Module(self, original_node: cst.Module) -> None:
        for flow, loop in traced_nodes(self.file, cst.For):
            self._check(flow, loop)

    def _check(self, flow: FunctionFlow, loop: cst.For) -> None:
        value = needs_conversion(self, flow, loop.iter)
        if value is None:
            return
        head, places = traced_message(self.file, flow, "`for` over a traced trip count", loop.iter, value)
        try:
            if value.concretized and not self._drops_concretization(loop):
                raise Refused(CONCRETIZED)
            self._rewrite(flow, loop, head, places)
        except Refused as why:
            self.report(loop.iter, head, hint=_HINT.get(flow.framework, _HINT[None]), note=f"not rewritten: {why}",
                        related=places)

    def _drops_concretization(self, loop: cst.For) -> bool:
        """`range(int(n))`: the rewrite bounds the loop by `n` itself (`_strip_int`), so the conversion goes
        with it; a count converted before the loop (`k = int(n)`) would stay."""
        call = loop.iter
        if not isinstance(call, cst.Call) or not call.args:
            return False
        traced = self.file.analysis.traced
        values = [traced.value_anywhere(_strip_int(a.value)) for a in call.args]
        return all(v is not None and not v.concretized for v in values)

    def _range(self, loop: cst.For) -> tuple[cst.BaseExpression, cst.BaseExpression]:
        call = loop.iter
        if not isinstance(call, cst.Call) or any(a.keyword or a.star for a in call.args) or not 1 <= len(call.args) <= 2:
            raise Refused("only `range(stop)` and `range(start, stop)` loops are converted")
        if len(call.args) == 1:
            return cst.Integer("0"), _strip_int(call.args[0].value)
        return _strip_int(call.args[0].value), _strip_int(call.args[1].value)

    def _rewrite(self, flow: FunctionFlow, loop: cst.For, head: str, places: list) -> None:
        if loop.orelse is not None:
            raise Refused("the loop has an `else` clause")
        if not isinstance(loop.target, cst.Name):
            raise Refused("the loop variable is not a single name")
        start, stop = self._range(loop)
        body = block_statements(loop)
        check_body(body, "loop body")
        inner = traced_test_inside(flow, body)
        if inner is not None:
            raise Refused(f"the traced condition `{self.file.code(inner).strip()}` inside the body is converted first (PML201)")
        index = loop.target.value
        fn = flow.context.function
        if names_read_after(self.file, fn, loop, [index]):
            raise Refused(f"the loop variable `{index}` is read after the loop")
        emit, spelling = emitter(self.file, flow)
        if flow.framework == "jax":
            names = carried(self.file, flow, loop, body, loop.iter, exclude=(index,))
            doubt = carry_agreement(self.file, flow, loop, body, names)
            body_name = self.file.analysis.fresh_name("loop_body")
            statements = jax_fori(emit, names, index, body_name, start, stop, body)
            statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
            title = f"loop with `jax.lax.fori_loop` carrying {_list(names)}"
            caveat = ("a traced bound is not reverse-differentiable: if the count is a Python int, `static_argnames` keeps "
                      "`jax.grad` working")
            if doubt:
                self.report(loop.iter, head, edits=[Replace(loop, cst.FlattenSentinel(statements))], imports=spelling.imports,
                            safety=Safety.UNSAFE, related=places, fix_description=f"{title} (unsafe: the carry may change type)",
                            note=f"unsafe: {doubt}; `fori_loop` rejects a carry that changes; {caveat}")
                return
            self.report(loop.iter, head, edits=[Replace(loop, cst.FlattenSentinel(statements))], imports=spelling.imports,
                        related=places, fix_description=title, note=caveat)
            return
        if flow.framework != "phiml":
            raise Refused(f"{flow.framework} has no loop primitive usable here; make the count a Python value")
        if not (isinstance(start, cst.Integer) and start.value == "0"):
            raise Refused("a masked loop is only written for `range(stop)`")
        evidence = masked_bound(self.file, flow, loop.iter.args[0].value, None, body)
        if evidence is None:
            raise Refused("PhiML has no loop primitive, and a masked loop needs a bound the program gives (`range(min(n, K))`, "
                          "counts the calls pass): each iteration of the bound is a copy of the body in every trace. "
                          "If the count is a Python int, name it in `auxiliary_args`")
        count, source = evidence
        doubt = carry_agreement(self.file, flow, loop, body, list(effect(body, allow_return=False).values))
        bound, constant = bound_constant(self.file, flow, count)
        if index == "_":  # the index is read now: give it a name
            index = self.file.analysis.fresh_name("i")
        active = cst.Comparison(cst.Name(index), [cst.ComparisonTarget(cst.LessThan(), stop)])
        statements = masked_loop(self.file, flow, emit, loop, body, active, index, bound)
        statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
        doubt_note = f"; {doubt}" if doubt else ""
        self.report(loop.iter, head, edits=[constant, Replace(loop, cst.FlattenSentinel(statements))],
                    safety=Safety.UNSAFE, imports=spelling.imports, related=places,
                    fix_description=f"masked loop of `{bound} = {count}` iterations (unsafe: a larger count is cut short)",
                    note=f"the bound comes from {source}: every trace holds {count} copies of the body, and a larger count "
                         f"is cut short{doubt_note}")


# What to do by hand when the loop is not rewritten.
_HINT = {
    "jax": "loop with `jax.lax.fori_loop` by hand, or name the count in `static_argnames` if it is a Python int",
    "phiml": "name the count in `auxiliary_args` if it is a Python int; else bound the loop by hand",
    None: "make the count a Python value",
}


def _strip_int(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`int(n)` -> `n`: the bound of a loop primitive or mask stays a tensor."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "int" and len(expr.args) == 1:
        return expr.args[0].value
    return expr


def _list(names) -> str:
    return ", ".join(f"`{n}`" for n in names)
