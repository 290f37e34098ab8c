"""PML202 traced-for."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.ast_names import arguments
from rewriter.analysis.ast_structure import top_level_statement
from rewriter.analysis.trace_values import FunctionFlow
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.emit.ast_loops import (body_values, bound_name, carried, carry_agreement, check_body, check_head, masked_bound,
                                     masked_names, names_read_after)
from rewriter.emit.branches import Refused
from rewriter.emit.frameworks import Emitter
from rewriter.emit.loops import bound_constant, jax_fori, keep_comments, masked_loop
from rewriter.emit.spelling import PlannedSpelling
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._control_flow import (CONCRETIZED, block_statements, import_heads, needs_conversion_on_ast,
                            planned_spellings, traced_condition_gate, traced_message_on_ast, traced_nodes_on_ast,
                            traced_test_inside_on_ast)


class TracedFor(AstRule):
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

    def check(self) -> None:
        for flow, loop in traced_nodes_on_ast(self.file, (ast.For, ast.AsyncFor)):
            self._check(flow, loop)

    def _check(self, flow: FunctionFlow, loop: ast.For | ast.AsyncFor) -> None:
        value = needs_conversion_on_ast(self, flow, loop.iter)
        if value is None:
            return
        head, places = traced_message_on_ast(self.file, flow, "`for` over a traced trip count", loop.iter, value)
        try:
            if value.concretized and not self._drops_concretization(loop):
                raise Refused(CONCRETIZED)
            self._plan(flow, loop, head, places)
        except Refused as why:
            self.report(loop.iter, head, hint=_HINT.get(flow.framework, _HINT[None]), note=f"not rewritten: {why}",
                        related=places)

    def _drops_concretization(self, loop: ast.For | ast.AsyncFor) -> bool:
        """`range(int(n))`: the rewrite bounds the loop by `n` itself (`_strip_int`), so the conversion goes
        with it; a count converted before the loop (`k = int(n)`) would stay."""
        call = loop.iter
        if not isinstance(call, ast.Call) or not (call.args or call.keywords):
            return False
        traced = self.file.traced
        values = [traced.value_anywhere(_strip_int(a)) for a in _arguments(call)]
        return all(v is not None and not v.concretized for v in values)

    def _range(self, loop: ast.For | ast.AsyncFor) -> tuple[ast.expr | None, ast.expr]:
        """The loop's `range` start (None: it has none) and stop."""
        call = loop.iter
        if not isinstance(call, ast.Call) or call.keywords or any(isinstance(a, ast.Starred) for a in call.args) \
                or not 1 <= len(call.args) <= 2:
            raise Refused("only `range(stop)` and `range(start, stop)` loops are converted")
        if len(call.args) == 1:
            return None, _strip_int(call.args[0])
        return _strip_int(call.args[0]), _strip_int(call.args[1])

    def _plan(self, flow: FunctionFlow, loop: ast.For | ast.AsyncFor, head: str, places: list) -> None:
        """Decide the loop primitive or masked loop the loop becomes (or raise Refused), and report it with the
        fix planned: `_write_fori` and `_write_masked` build it on libcst."""
        file = self.file
        if loop.orelse:
            raise Refused("the loop has an `else` clause")
        if not isinstance(loop.target, ast.Name):
            raise Refused("the loop variable is not a single name")
        start, stop = self._range(loop)
        body = loop.body
        check_body(body, "loop body")
        check_head(loop.iter, "loop's iterable")
        inner = traced_test_inside_on_ast(flow, body)
        if inner is not None:
            raise Refused(f"the traced condition `{file.code_parenthesized(inner).strip()}` inside the body is converted first (PML201)")
        index = loop.target.id
        fn = flow.context.function
        if names_read_after(fn, loop, [index]):
            raise Refused(f"the loop variable `{index}` is read after the loop")
        if flow.framework == "jax":
            names = carried(file, flow, loop, body, loop.iter, exclude=(index,))
            doubt = carry_agreement(file, flow, loop, body, names)
            body_name = file.fresh_name("loop_body")
            texts, imports = planned_spellings(file, [("jax.lax", "fori_loop")])
            build = partial(_write_fori, decision=_Fori(tuple(names), index, body_name, texts))
            at = (loop,)
            title = f"loop with `jax.lax.fori_loop` carrying {_list(names)}"
            caveat = ("a traced bound is not reverse-differentiable: if the count is a Python int, `static_argnames` keeps "
                      "`jax.grad` working")
            if doubt:
                fix = PlannedFix(f"{title} (unsafe: the carry may change type)", at, build, Safety.UNSAFE, imports=imports,
                                 reads=at, spelled=import_heads(texts))
                self.report(loop.iter, head, fix=fix, related=places,
                            note=f"unsafe: {doubt}; `fori_loop` rejects a carry that changes; {caveat}")
                return
            fix = PlannedFix(title, at, build, imports=imports, reads=at, spelled=import_heads(texts))
            self.report(loop.iter, head, fix=fix, related=places, note=caveat)
            return
        if flow.framework != "phiml":
            raise Refused(f"{flow.framework} has no loop primitive usable here; make the count a Python value")
        if start is not None and not (isinstance(start, ast.Constant) and type(start.value) is int and file.code(start) == "0"):
            raise Refused("a masked loop is only written for `range(stop)`")
        evidence = masked_bound(file, flow, loop.iter.args[0], None, body)  # type: ignore[attr-defined]
        if evidence is None:
            raise Refused("PhiML has no loop primitive, and a masked loop needs a bound the program gives (`range(min(n, K))`, "
                          "counts the calls pass): each iteration of the bound is a copy of the body in every trace. "
                          "If the count is a Python int, name it in `auxiliary_args`")
        count, source = evidence
        doubt = carry_agreement(file, flow, loop, body, body_values(file, body))
        bound = file.fresh_name(bound_name(flow))
        if index == "_":  # the index is read now: give it a name
            index = file.fresh_name("i")
        selected = masked_names(file, flow, loop, body)
        active = file.fresh_name("active")
        texts, imports = planned_spellings(file, [("phiml.math", "where")] if selected else [])
        anchor = top_level_statement(file.names, file.reading.lines, fn)  # type: ignore[union-attr]
        if anchor is None:
            raise Refused("the function is not inside the module's own statements")
        at = (loop, anchor)
        build = partial(_write_masked, decision=_Masked(index, bound, count, active, texts))
        doubt_note = f"; {doubt}" if doubt else ""
        fix = PlannedFix(f"masked loop of `{bound} = {count}` iterations (unsafe: a larger count is cut short)", at, build,
                         Safety.UNSAFE, imports=imports, reads=(loop,), spelled=import_heads(texts))
        self.report(loop.iter, head, fix=fix, related=places,
                    note=f"the bound comes from {source}: every trace holds {count} copies of the body, and a larger count "
                         f"is cut short{doubt_note}")


# What to do by hand when the loop is not rewritten.
_HINT = {
    "jax": "loop with `jax.lax.fori_loop` by hand, or name the count in `static_argnames` if it is a Python int",
    "phiml": "name the count in `auxiliary_args` if it is a Python int; else bound the loop by hand",
    None: "make the count a Python value",
}


def _strip_int(expr: ast.expr) -> ast.expr:
    """`int(n)` -> `n`: the bound of a loop primitive or mask stays a tensor."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "int" \
            and len(expr.args) + len(expr.keywords) == 1:
        return _arguments(expr)[0]
    return expr


def _arguments(call: ast.Call) -> list[ast.expr]:
    """The values of a call's arguments in the order written (libcst's `Arg.value`: a star's operand too)."""
    return [a.value for a in arguments(call)]


@dataclass(frozen=True)
class _Fori:
    """What `_plan` decided for jax, for `_write_fori` to build on libcst."""

    names: tuple[str, ...]  # the carried values, in order of first assignment
    index: str
    body_name: str
    texts: dict[tuple[str, str], str]  # how the code spells each function it names (PlannedSpelling)


@dataclass(frozen=True)
class _Masked:
    """What `_plan` decided for PhiML, for `_write_masked` to build on libcst."""

    index: str
    bound: str  # the bound constant's name
    count: int
    active: str
    texts: dict[tuple[str, str], str]


def _range_cst(loop: cst.For) -> tuple[cst.BaseExpression, cst.BaseExpression]:
    """The start and stop `_plan` read, on libcst (`int()` stripped)."""
    args = loop.iter.args  # type: ignore[attr-defined]
    if len(args) == 1:
        return cst.Integer("0"), _strip_int_cst(args[0].value)
    return _strip_int_cst(args[0].value), _strip_int_cst(args[1].value)


def _strip_int_cst(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "int" and len(expr.args) == 1:
        return expr.args[0].value
    return expr


def _write_fori(context, loop: cst.For, *, decision: _Fori):
    """`def loop_body(i, carry): ...` and `carry = jax.lax.fori_loop(start, stop, loop_body, carry)`."""
    start, stop = _range_cst(loop)
    emit = Emitter("jax", PlannedSpelling(decision.texts))
    statements = jax_fori(emit, list(decision.names), decision.index, decision.body_name, start, stop, block_statements(loop))
    statements[0] = keep_comments(statements[0], loop).with_changes(leading_lines=loop.leading_lines)
    return [Replace(loop, cst.FlattenSentinel(statements))]


def _write_masked(context, loop: cst.For, anchor: cst.BaseStatement, *, decision: _Masked):
    """`BOUND = K` before the function, and `for i in range(BOUND): active = i < n; x = math.where(active, ...)`."""
    _, stop = _range_cst(loop)
    emit = Emitter("phiml", PlannedSpelling(decision.texts))
    active = cst.Comparison(cst.Name(decision.index), [cst.ComparisonTarget(cst.LessThan(), stop)])
    statements = masked_loop(emit, block_statements(loop), active, decision.active, decision.index, decision.bound)
    statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
    return [bound_constant(anchor, decision.bound, decision.count), Replace(loop, cst.FlattenSentinel(statements))]


def _list(names) -> str:
    return ", ".join(f"`{n}`" for n in names)
