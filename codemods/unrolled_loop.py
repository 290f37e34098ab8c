"""PML206 unrolled-loop."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial
from typing import Iterator, Sequence

from rewriter.lazy_libcst import cst

from rewriter.analysis import compilers
from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import assigned_value
from rewriter.analysis.ast_names import in_source_order, own_nodes_in_order
from rewriter.analysis.callsites import Role
from rewriter.analysis.forms import Agreement, Form, agreement
from rewriter.analysis.trace_values import FunctionFlow
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.emit.ast_agreement import forms_in, param_forms
from rewriter.emit.ast_branches import effect, values_of, written
from rewriter.emit.ast_loops import (carried, carry_agreement, check_body, check_head, identifiers, names_read_after,
                                     reads_name)
from rewriter.emit.branches import Refused
from rewriter.emit.frameworks import Emitter
from rewriter.emit.loops import _pack, _unpack, jax_fori, keep_comments
from rewriter.emit.spelling import PlannedSpelling
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._control_flow import (block_statements, import_heads, planned_spellings, rewritable, traced_nodes_on_ast,
                            traced_test_inside_on_ast)

# A literal trip count from which a loop is reported: below it an unroll compiles about as fast as
# `lax.scan` (docs/benchmarks.md, "What the hazards cost"); small unrolls are idiomatic and cheap.
MIN_ITERATIONS = 50
_STACKERS = frozenset({"jax.numpy.stack", "jax.numpy.array", "jax.numpy.asarray"})
_FORS = (ast.For, ast.AsyncFor)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
Loop = ast.For | ast.AsyncFor


@dataclass(frozen=True)
class _Stacked:
    """`ys = []` before the loop, `ys.append(v)` in its body, `jnp.stack(ys)` after it: scan's outputs."""

    name: str
    init: ast.Assign
    append: ast.Expr
    value: ast.expr
    stack: ast.Call


class UnrolledLoop(AstRule):
    """Inside a jit-compiled function a Python `for` loop whose trip count is static still runs in
    Python while tracing: every iteration is copied into the trace. Compile time and memory grow
    with the count, while `lax.scan` compiles the body once and also runs faster (figures:
    docs/benchmarks.md, "What the hazards cost"). A count taken from the data
    (`range(x.shape[0] - 1)`, also through a local `n = x.shape[0]`; `for a, b in zip(ts, ts[1:])`;
    `for row in xs`; `enumerate(xs)`) grows with the input, and each new length is a new trace of that
    size.

    Reported: literal counts of 50 or more (below that an unroll is cheap and often what the author
    wants: `range(3)`; at 50 the unroll costs about 4x the compile of the loop primitive and grows
    linearly), and every count read from a traced array's length. Rows of a traced parameter (`for x in p`,
    `range(len(p))`) count only when it is shown to be an array (a call passes one, it is annotated one, or the function
    reads `x.shape`/`.ndim`/`.dtype`/`.at`): a traced list of layers or a pytree's leaves has a small
    static length. Consecutive pairs of a traced parameter (`zip(ts, ts[1:])`) are reported even
    without that evidence (a time grid; a list would be unrolled alike). Not reported: static Python
    lists, dicts, `range(x.ndim)`, tree leaves, shapes the calls give below 50 rows, bodies with no
    arithmetic. The message says how many iterations get unrolled.

    jax (`jax.jit`, `equinox.filter_jit`): the loop becomes `jax.lax.scan`. Loop-carried variables
    (assigned in the body and alive before it) are the carry; the iterated arrays are scanned over
    (`zip(ts, ts[1:])` is `(ts[:-1], ts[1:])`, what `zip` stops at); a list filled by
    `ys.append(v)` and stacked after the loop with `jnp.stack(ys)` (or `axis=0`, `jnp.array(ys)`)
    becomes scan's stacked output. A `range` count that may be 0 (read from the data or a parameter)
    becomes `jax.lax.fori_loop(start, stop, ...)` instead: its bounds are Python ints while tracing, so
    it lowers to a scan (differentiable), and with no iteration it runs none, where a zero-length
    `scan` raises under `jax.disable_jit()` (measured on jax 0.10.2). The fix is safe only when provable: the body keeps every carried value's shape, dtype and
    structure (`scan` rejects a change), what is iterated is an array (a call passes one), and the
    loop index is unused or only indexes arrays (inside `scan` it is a tracer), a stacked value is one
    array of one type in every iteration, and a scan over rows runs at least once (the calls give the
    length). Otherwise it is unsafe with the reason, or only reported.

    Counts set where the object or the module is configured are read where they are set: `range(self.nt)`
    in a jitted method, where `__init__` binds `self.nt` to a literal or to a parameter that every call of
    the class in the module passes literally (or leaves at its literal default), and `range(N_STEPS)` over a
    module constant. The report names the values and, as related places, where each is set; a count
    another method changes, or that a call sets from a variable, is not known here and not reported.

    Every tracing compiler unrolls such a loop, not only `jax.jit` (docs/compilers.md): under `tf.function`
    a Python `range` loop runs in Python while tracing (autograph makes a `tf.while_loop` only of a loop
    over `tf.range`), and `torch.compile` and `torch.jit.trace` record every iteration; `torch.jit.script`
    compiles the loop as a loop. Those are reported with the compiler's way out, never rewritten.

    PhiML has no loop primitive: `math.iterate` and `math.map` are Python loops too, and the
    backends' `while_loop` is internal (stops gradients). A `jit_compile` over
    hundreds of iterations of a step compiles for seconds, then runs fast; a jit-compiled step
    called as often compiles once and pays a little dispatch per step (figures:
    docs/benchmarks.md, "What the hazards cost"). The report says so: jit the step and loop outside when the function
    runs a few times; keep the unroll when it runs often enough to repay the compile.
    """

    CODE = "PML206"
    NAME = "unrolled-loop"
    SUMMARY = "a long or data-length Python loop inside jit unrolls into the trace: jax.lax.scan"
    SAFETY = Safety.SAFE
    REMOVES_ERRORS = True
    SAFETY_VARIES = True
    SEVERITY = Severity.WARNING
    FIX_SAFETY = (
        "`jax.lax.scan` (`fori_loop` for a `range` count that may be 0) runs the same body in the same order on "
        "the same values: safe when the body provably keeps each carried value's shape, dtype and structure, what "
        "it iterates over is an array, the loop index only indexes arrays, stacked values are arrays and a scan "
        "over rows runs at least once (a zero-length scan raises under `jax.disable_jit()`); unsafe (with the "
        "reason) when one of these cannot be proven. "
        "PhiML loops are only reported."
    )
    EXAMPLES = (
        Example(
            dedented("""
                import jax
                import jax.numpy as jnp


                @jax.jit
                def simulate(x):
                    states = []
                    for _ in range(1000):
                        x = x + 0.01 * jnp.sin(x)
                        states.append(x)
                    return jnp.stack(states)
            """),
            dedented("""
                import jax
                import jax.numpy as jnp


                @jax.jit
                def simulate(x):
                    def simulate_body(x, _):
                        x = x + 0.01 * jnp.sin(x)
                        states_item = x
                        return x, states_item
                    x, states_stacked = jax.lax.scan(simulate_body, x, None, length=1000)
                    return states_stacked
            """),
        ),
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile
                def simulate(x):
                    for _ in range(300):
                        x = x + 0.01 * math.sin(x)
                    return x
            """),
            None,
            "PhiML has no loop primitive: reported, with the measured trade-off",
            by_hand=dedented("""
                from phiml import math


                @math.jit_compile
                def step(x):
                    return x + 0.01 * math.sin(x)


                def simulate(x):
                    for _ in range(300):
                        x = step(x)
                    return x
            """),
        ),
        Unchanged(dedented("""
            @jax.jit
            def smooth(x):
                for _ in range(3):
                    x = 0.5 * (x + jnp.roll(x, 1))
                return x
        """), "a short literal count: an unroll is cheap"),
        Unchanged(dedented("""
            @jax.jit
            def mlp(x, weights):
                for w in weights:
                    x = jnp.tanh(w @ x)
                return x
        """), "a loop over a list of layers"),
        Unchanged(dedented("""
            @jax.jit
            def sum_axes(x):
                for axis in range(x.ndim):
                    x = jnp.cumsum(x, axis=axis)
                return x
        """), "a count from `x.ndim`"),
    )
    READS_FACTS = True
    TRIGGERS = (("for", "jit"), ("for", "function"), ("for", "compile"))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A `for` loop over a long literal count or a length that may be traced, in a function a compiler
        that records each iteration (or fails on control flow) may trace, or in a helper it reaches."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        if facts is None or not facts.traced_flows:
            return False
        keys = facts.traced_under(_unrolls_or_fails)
        return any(facts.inside(f.node, keys) and f.long_loop() for f in facts.traced_flows)

    def check(self) -> None:
        for flow, loop in traced_nodes_on_ast(self.file, _FORS):
            self._check(flow, loop)
        for flow, loop in _other_unrolling_loops(self.file):  # tf.function (autograph), torch.compile
            self._check(flow, loop)

    # -- what is unrolled ---------------------------------------------------------------------
    def _check(self, flow: FunctionFlow, loop: Loop) -> None:
        value = flow.value_of(loop.iter)
        if value is None or not value.static:
            return  # a traced or unknown trip count is PML202's
        self._evidence: list = []  # where a configured count's values come from (`_configured_count`)
        count = self._count(flow, loop)
        if count is None or not _has_work(loop.body):
            return
        how_many, literal = count
        head = f"loop unrolled into the trace of `{flow.context.name}`: {how_many}, each a copy of its body"
        if flow.framework == "phiml":
            self.report(loop.iter, head, related=self._evidence, hint="jit the loop's step and loop outside, unless the function runs often enough "
                                              "to repay the compile",
                        note="not rewritten: PhiML has no loop primitive; compile time grows with the count (measured: "
                             "1.6 s for 300 steps)")
            return
        if flow.framework != "jax":
            compiler = compilers.of(flow.context.root.transform)
            api = flow.context.root.transform.api.name
            self.report(loop.iter, head, related=self._evidence, hint=compiler.loop_hint or "loop with the framework's loop primitive by hand",
                        note=f"not rewritten: `{_short_api(api)}` records every iteration of a Python loop; its graph "
                             f"grows with the count")
            return
        try:
            self._plan(flow, loop, head, literal)
        except Refused as why:
            self.report(loop.iter, head, related=self._evidence, note=f"not rewritten: {why}",
                        hint="loop with `jax.lax.scan` by hand, or keep the unroll if the count stays small")

    def _count(self, flow: FunctionFlow, loop: Loop) -> tuple[str, int | None] | None:
        """How many iterations, in words, and the literal count (None: read from the data)."""
        file = self.file
        iterable = loop.iter
        traced = file.traced
        range_args = _range_args(iterable)
        if range_args is not None:
            values = [_int(a) for a in range_args]
            if all(v is not None for v in values):
                n = len(range(*values))  # type: ignore[arg-type]
                return (f"{n} iterations", n) if n >= MIN_ITERATIONS else None
            if len(range_args) == 1 and isinstance(range_args[0], ast.Name):
                name = range_args[0].id
                role = traced.roles(flow.context).get(name)
                defaults = _defaults(flow.context.function)
                default = _int(defaults[name]) if role is not None and role.role in (Role.DEFAULTED, Role.STATIC) \
                    and name in defaults else None
                if default is not None and default >= MIN_ITERATIONS:  # a static count, long by default
                    return f"`{name}` iterations ({default} by default)", None
            if len(range_args) == 1:
                configured = _configured_count(file, flow, range_args[0])
                if configured is not None:
                    counts, evidence = configured
                    if min(counts) < MIN_ITERATIONS:
                        return None
                    self._evidence = evidence
                    shown = " or ".join(str(n) for n in sorted(set(counts)))
                    return f"`{file.code_parenthesized(range_args[0]).strip()}` iterations ({shown} as configured)", None
            for arg in range_args:
                source = _length_source(arg, lambda name: self._alias(flow, loop, name))
                if source is not None and traced.value_at(iterable, source).traced:
                    if self._short(flow, source) or self._a_list(flow, source):
                        return None
                    code = _range_length(file, range_args)
                    return f"`{code}` iterations, set by the length of `{file.code_parenthesized(source).strip()}`", None
            return None
        enumerated = _enumerated(iterable)
        sources = _zip_parts(iterable) or ([enumerated] if enumerated is not None else [iterable])
        if any(self._short(flow, s) for s in sources):
            return None
        if not all(traced.value_at(iterable, s).traced for s in sources):
            return None
        # consecutive pairs of one traced parameter (`zip(ts, ts[1:])`) walk a grid even when nothing
        # else says the parameter is an array: a list of arrays is unrolled alike (the fix is unsafe then)
        shift = _pairs(file, sources)
        first = _base(sources[0])
        base = file.code_parenthesized(first).strip()
        if shift is not None and (isinstance(first, ast.Name) and first.id in _param_names(flow.context.function)
                                  or self._an_array(flow, sources[1])):
            rows = self._literal_rows(flow, first)
            return f"`len({base}) - {shift}` iterations, one per pair of consecutive rows of `{base}`", \
                rows - shift if rows is not None and rows > shift else None
        if all(self._an_array(flow, s) for s in sources):
            rows = [self._literal_rows(flow, s) for s in sources]  # the calls give the length: at least one row
            known = min(r for r in rows if r is not None) if all(r is not None for r in rows) \
                and not any(isinstance(s, ast.Subscript) for s in sources) else None
            return f"one iteration per row of `{base}`", known
        return None

    def _alias(self, flow: FunctionFlow, loop: Loop, name: str) -> ast.expr | None:
        """The value of `name` when the function binds it once, before `loop`, with `name = value`
        (`n = x.shape[0]`), and it is no parameter."""
        fn = flow.context.function
        if name in _param_names(fn):
            return None
        bindings = _bindings(_body_of(fn), name)
        if len(bindings) != 1:
            return None
        assign = self.file.names.parent(bindings[0])
        if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and assign.targets[0] is bindings[0]):
            return None
        if (assign.end_lineno or assign.lineno) >= loop.lineno:
            return None
        return assign.value

    def _short(self, flow: FunctionFlow, sequence: ast.expr) -> bool:
        """Every call passes (the array under) `sequence` with a literal length below the threshold."""
        rows = self._literal_rows(flow, sequence)
        return rows is not None and rows < MIN_ITERATIONS

    def _literal_rows(self, flow: FunctionFlow, sequence: ast.expr) -> int | None:
        """The leading length every call gives (the array under) `sequence`, when one literal shape."""
        base = _base(sequence)
        dims = _literal_dims(param_forms(self.file, flow).get(base.id) if isinstance(base, ast.Name) else None)
        return int(dims[0]) if dims and dims[0].isdigit() else None

    def _a_list(self, flow: FunctionFlow, sequence: ast.expr) -> bool:
        """`sequence` is a parameter that nothing shows to be an array: its length may be a list's (one
        gradient per variable, the layers of a network), small and fixed, as in `for x in sequence`."""
        base = _base(sequence)
        return isinstance(base, ast.Name) and base.id in _param_names(flow.context.function) \
            and not self._an_array(flow, sequence)

    def _an_array(self, flow: FunctionFlow, sequence: ast.expr) -> bool:
        """`sequence` is (a slice of) a parameter that the calls pass an array, or declared one: a
        traced list of arrays (network layers, a pytree's leaves) has a small static length instead."""
        base = _base(sequence)
        if not isinstance(base, ast.Name):
            return False
        fn = flow.context.function
        param = next((p for p in _params(fn) if p.arg == base.id), None)
        if param is None:
            return False
        role = self.file.traced.roles(flow.context).get(base.id)
        if role is not None and role.role is Role.DATA or _array_evidence(fn, base.id):
            return True
        annotation = self.file.code(param.annotation) if param.annotation is not None else ""
        return any(word in annotation for word in ("Array", "ndarray", "Tensor"))

    # -- the rewrite --------------------------------------------------------------------------
    def _plan(self, flow: FunctionFlow, loop: Loop, head: str, literal: int | None) -> None:
        """Decide the `scan` or `fori_loop` the loop becomes (or raise Refused), and report it with the fix
        planned: `_write_scan` and `_write_fori` build it on libcst."""
        file = self.file
        if loop.orelse:
            raise Refused("the loop has an `else` clause")
        body = loop.body
        inner = traced_test_inside_on_ast(flow, body)
        if inner is not None:
            raise Refused(f"the traced condition `{file.code_parenthesized(inner).strip()}` inside the body is converted first")
        fn = flow.context.function
        stacked = [self._stacked(flow, loop, s) for s in body if _append_of(file, s) is not None]
        stacked_names = {s.name for s in stacked}
        kept = [s for s in body if not any(s is x.append for x in stacked)]
        check_body(kept, "loop body")
        check_head(loop.iter, "loop's iterable")
        targets, xs, doubts = self._iteration(flow, loop)
        try:
            names = carried(file, flow, loop, kept, loop.iter, exclude=tuple(targets) + tuple(stacked_names))
        except Refused as why:
            if not stacked or "outlives" not in str(why):
                raise
            names = []
        if names_read_after(fn, loop, targets):
            raise Refused(f"the loop variable `{targets[0]}` is read after the loop")
        doubt = self._carry_doubt(flow, loop, kept, names) if names else ""
        if doubt:
            doubts.append(doubt)
        proven = not doubts  # every carried value, element and index use keeps its type: so does the body
        for s in stacked:
            if not (isinstance(s.value, ast.Name) and s.value.id in names) \
                    and not (proven and self._array_valued(flow, loop, s.value, names)):
                doubts.append(f"nothing proves `{file.code_parenthesized(s.value).strip()}` has one shape and dtype in every "
                              "iteration (`scan` stacks only such)")
            if literal is None:
                doubts.append(f"with no iteration `jnp.stack({s.name})` raises where `scan` returns an empty stack")
        # named after its function: fixes in other functions, in any order, never rename it
        body_name = file.fresh_name(f"{fn.name.lstrip('_')}_body" if isinstance(fn, _DEFS) else "loop_body")
        carries = ", ".join(f"`{n}`" for n in names) or "nothing"
        range_args = _range_args(loop.iter)
        arange = [("jax.numpy", "arange")] if xs[0] in ("arange", "enumerate") else []
        if literal is None and not stacked and range_args is not None and len(range_args) <= 2:
            # a count that may be 0: `fori_loop` runs no iteration, a zero-length `scan` raises under `jax.disable_jit()`
            texts, imports = planned_spellings(file, [("jax.lax", "fori_loop")])
            build = partial(_write_fori, decision=_Fori(tuple(names), targets[0], body_name, texts))
            self._fix(loop, (loop,), (), head, f"loop with `jax.lax.fori_loop` carrying {carries}", doubts, build, texts, imports)
            return
        if literal is None and not stacked:
            doubts.append("with no iteration, `scan` raises under `jax.disable_jit()` where the loop does nothing")
        items = tuple(file.fresh_name(f"{s.name}_item") for s in stacked)
        outputs = tuple(file.fresh_name(f"{s.name}_stacked") for s in stacked)
        element = file.fresh_name("elements") if len(targets) > 1 else None
        texts, imports = planned_spellings(file, [*arange, ("jax.lax", "scan")])
        decision = _Scan(tuple(names), tuple(targets), element, body_name, xs, literal, tuple(s.name for s in stacked), items,
                         outputs, texts)
        at = (loop, *(node for s in stacked for node in (s.init, s.stack)))
        outs = f", stacking {', '.join(f'`{s.name}`' for s in stacked)}" if stacked else ""
        self._fix(loop, at, tuple(s.append for s in stacked), head, f"loop with `jax.lax.scan` carrying {carries}{outs}", doubts,
                  partial(_write_scan, decision=decision), texts, imports)

    def _fix(self, loop: Loop, at: tuple, needs: tuple, message: str, title: str, doubts: list[str], build, texts,
             imports) -> None:
        heads = import_heads(texts)
        if doubts:
            fix = PlannedFix(f"{title} (unsafe: see the note)", at, build, Safety.UNSAFE, imports=imports, reads=at,
                             needs=needs, spelled=heads)
            self.report(loop.iter, message, fix=fix, related=self._evidence, note=f"unsafe: {'; '.join(doubts)}")
            return
        fix = PlannedFix(title, at, build, imports=imports, reads=at, needs=needs, spelled=heads)
        self.report(loop.iter, message, fix=fix, related=self._evidence)

    def _array_valued(self, flow: FunctionFlow, loop: Loop, expr: ast.expr, carried_names: list[str],
                      depth: int = 0) -> bool:
        """`expr` is one array (not a tuple or other pytree, which `jnp.stack` and `scan` stack
        differently): a carried value, an element of an array iterated, an item of an array, an
        arithmetic expression whose left operand is one, or what `forms` shows is an array or number."""
        if depth > 8:
            return False
        if isinstance(expr, ast.Name):
            if expr.id in carried_names:
                return True
            targets = [loop.target] if isinstance(loop.target, ast.Name) else \
                list(loop.target.elts) if isinstance(loop.target, (ast.Tuple, ast.List)) else []
            enumerated = _enumerated(loop.iter)
            sequences = ([None, enumerated] if enumerated is not None else _zip_parts(loop.iter) or [loop.iter])
            for target, sequence in zip(targets, sequences):
                if isinstance(target, ast.Name) and target.id == expr.id and sequence is not None \
                        and _range_args(sequence) is None:
                    return not self._array_doubt(flow, loop, sequence)
            return self._array_parameter(flow, expr.id)
        if isinstance(expr, ast.Subscript):
            base = expr.value
            if isinstance(base, ast.Attribute) and base.attr == "at":
                return False
            return self._array_valued(flow, loop, base, carried_names, depth + 1)
        if isinstance(expr, ast.BinOp):
            left = self._array_valued(flow, loop, expr.left, carried_names, depth + 1)
            return left or _number(expr.left) and self._array_valued(flow, loop, expr.right, carried_names, depth + 1)
        if isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
            return self._array_valued(flow, loop, expr.operand, carried_names, depth + 1)
        fn = flow.context.function
        form = forms_in(self.file, fn, loop, param_forms(self.file, flow)).of(expr)
        return form.kind in ("array", "scalar", "reduced")

    def _array_parameter(self, flow: FunctionFlow, name: str) -> bool:
        """`name` is a parameter that every call passes an array, or that is read as one (`x.shape`)."""
        fn = flow.context.function
        if name not in _param_names(fn):
            return False
        role = self.file.traced.roles(flow.context).get(name)
        return role is not None and role.role is Role.DATA or _array_evidence(fn, name)

    def _carry_doubt(self, flow: FunctionFlow, loop: Loop, body: list[ast.stmt], names: list[str]) -> str:
        """Why a carried value may change shape, dtype or structure in one iteration ("" when not).
        By induction: each carried parameter has its entry form (what the calls pass) at the top of
        the body; the body keeps it when every carried value's new expression has that form again."""
        file = self.file
        fn = flow.context.function
        params = _param_names(fn)
        inside = {id(n) for part in (*loop.body, loop.target) for n in ast.walk(part)}
        entry_only = all(n in params and all(id(b) in inside for b in _bindings(_body_of(fn), n)) for n in names)
        if not entry_only:
            return carry_agreement(file, flow, loop, body, names)
        try:
            values = values_of(effect(body, allow_return=False, source=file))
        except Refused:
            return carry_agreement(file, flow, loop, body, names)
        given = param_forms(file, flow)
        forms = forms_in(file, fn, loop, given)
        entries = {n: given.get(n, Form("array", n, "same")) for n in names}
        forms._names.update(entries)  # the induction hypothesis
        forms._names.update(_element_forms(loop, given))
        for n in names:
            after = values.get(n)
            if after is None:
                continue
            verdict = agreement([entries[n], forms.of(after)])
            if verdict.agreement is Agreement.CLASH:
                raise Refused(verdict.reason)
            if verdict.agreement is Agreement.DOUBT:
                return f"`{n}` and `{written(file, after).strip()}`: {verdict.reason}"
        return ""

    def _iteration(self, flow: FunctionFlow, loop: Loop) -> tuple[list[str], tuple, list[str]]:
        """The loop's target names, what scan iterates (`_Scan.xs`) and the doubts."""
        file = self.file
        doubts: list[str] = []
        target = loop.target
        range_args = _range_args(loop.iter)
        if range_args is not None:
            if not isinstance(target, ast.Name):
                raise Refused("the loop variable is not a single name")
            literal = all(_int(a) is not None for a in range_args)
            used = target.id != "_" and reads_name(loop.body, target.id)
            if used:
                usage = _index_use(file, flow, loop, target.id)
                if usage:
                    doubts.append(usage)
            if literal and not used:
                return [target.id], ("none",), doubts
            # the same numbers as the range (shape-derived bounds are Python ints while tracing)
            return [target.id], ("arange",), doubts
        enumerated = _enumerated(loop.iter)
        if enumerated is not None:
            if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != 2 \
                    or not all(isinstance(e, ast.Name) for e in target.elts):
                raise Refused("the loop unpacks `enumerate` into something else than an index and an element")
            names = [e.id for e in target.elts]  # type: ignore[attr-defined]
            if names[0] != "_" and reads_name(loop.body, names[0]):
                usage = _index_use(file, flow, loop, names[0])
                if usage:
                    doubts.append(usage)
            doubts.extend(self._array_doubt(flow, loop, enumerated))
            # the same indices as `enumerate` (the length is a Python int while tracing)
            return names, ("enumerate",), doubts
        parts = _zip_parts(loop.iter)
        if parts is not None:
            if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != len(parts) \
                    or not all(isinstance(e, ast.Name) for e in target.elts):
                raise Refused("the loop unpacks `zip` into something else than one name per sequence")
            names = [e.id for e in target.elts]  # type: ignore[attr-defined]
            shift = _aligned(file, parts, doubts)
            for part in parts:
                doubts.extend(d for d in self._array_doubt(flow, loop, part) if d not in doubts)
            return names, ("zip", shift), doubts
        if not isinstance(target, ast.Name):
            raise Refused("the loop variable is not a single name")
        doubts.extend(self._array_doubt(flow, loop, loop.iter))
        return [target.id], ("iter",), doubts

    def _array_doubt(self, flow: FunctionFlow, loop: Loop, sequence: ast.expr) -> list[str]:
        """Why `sequence` may not be an array (a list of arrays would be scanned leaf by leaf)."""
        base = _base(sequence)
        if isinstance(base, ast.Name):
            role = self.file.traced.roles(flow.context).get(base.id)
            fn = flow.context.function
            if base.id in _param_names(fn) and (role is not None and role.role is Role.DATA
                                                or _array_evidence(fn, base.id)):
                return []
        shown = self.file.code_parenthesized(base).strip()
        return [f"nothing shows that `{shown}` is an array (a list of arrays would be scanned leaf by leaf)"]

    def _stacked(self, flow: FunctionFlow, loop: Loop, statement: ast.stmt) -> _Stacked:
        file = self.file
        call = _append_of(file, statement)
        assert call is not None and isinstance(statement, ast.Expr)
        name = call.func.value.id  # type: ignore[attr-defined]
        fn = flow.context.function
        block = _enclosing_block(file, loop)
        position = next((i for i, s in enumerate(block) if s is loop), 0)
        init = block[position - 1] if position > 0 else None
        if not (isinstance(init, ast.Assign) and file.reading.alone_on_its_lines(init) and len(init.targets) == 1
                and isinstance(init.targets[0], ast.Name) and init.targets[0].id == name
                and isinstance(init.value, ast.List) and not init.value.elts):
            raise Refused(f"`{name}` is not an empty list made right before the loop")
        names = file.names
        stack = None
        for use in _identifier_nodes(fn, name):
            parent = names.parent(use)
            if use is init.targets[0] or parent is call.func:
                continue
            outer = names.parent(use)  # (`jnp.stack(*ys)` is no stack of the rows: the original fails)
            after = isinstance(outer, ast.Call) and (outer.lineno, outer.col_offset) > (loop.end_lineno, loop.end_col_offset)
            if isinstance(use, ast.Name) and isinstance(outer, ast.Call) and outer.args and outer.args[0] is use \
                    and after and _stacks_rows(file, outer) and stack is None:
                stack = outer
                continue
            raise Refused(f"`{name}` is used otherwise than appended to in the loop and stacked once after it")
        if stack is None:
            raise Refused(f"`{name}` is not stacked after the loop (`jnp.stack({name})`)")
        return _Stacked(name, init, statement, call.args[0], stack)


@dataclass(frozen=True)
class _Fori:
    """What `_plan` decided for a `range` count that may be 0, for `_write_fori` to build on libcst."""

    names: tuple[str, ...]  # the carried values
    index: str
    body_name: str
    texts: dict[tuple[str, str], str]  # how the code spells each function it names (PlannedSpelling)


@dataclass(frozen=True)
class _Scan:
    """What `_plan` decided for `lax.scan`, for `_write_scan` to build on libcst."""

    names: tuple[str, ...]  # the carried values
    targets: tuple[str, ...]  # the loop's target names
    element: str | None  # the scanned element's name when the loop unpacks it
    body_name: str
    xs: tuple  # what is scanned: ("none",) ("arange",) ("enumerate",) ("zip", shift or None) ("iter",)
    length: int | None  # the literal count, for ("none",)
    stacked: tuple[str, ...]  # the lists stacked after the loop, in the body's order
    items: tuple[str, ...]
    outputs: tuple[str, ...]
    texts: dict[tuple[str, str], str]


def _call_args(call: cst.BaseExpression) -> list[cst.BaseExpression]:
    return [a.value for a in call.args]  # type: ignore[attr-defined]


def _write_fori(context, loop: cst.For, *, decision: _Fori):
    """`def f_body(i, carry): ...` and `carry = jax.lax.fori_loop(start, stop, f_body, carry)`."""
    args = _call_args(loop.iter)
    start, stop = (cst.Integer("0"), args[0]) if len(args) == 1 else args
    emit = Emitter("jax", PlannedSpelling(decision.texts))
    statements = jax_fori(emit, list(decision.names), decision.index, decision.body_name, start, stop, block_statements(loop))
    statements[0] = keep_comments(statements[0], loop).with_changes(leading_lines=loop.leading_lines)
    return [Replace(loop, cst.FlattenSentinel(statements))]


def _write_scan(context, loop: cst.For, *rest, decision: _Scan):
    """`def f_body(carry, x): ...; return carry, item` and `carry, stacked = jax.lax.scan(f_body, carry, xs)`; each
    stacked list's `ys = []` removed and its `jnp.stack(ys)` replaced by the stacked output."""
    count = len(decision.stacked)
    pairs, appends = rest[:2 * count], rest[2 * count:]
    parent = context.analysis.names.parent
    spell = PlannedSpelling(decision.texts)
    names = list(decision.names)
    new_body = []
    for statement in block_statements(loop):  # (a one-line body's line is made anew: found by what it holds)
        held = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
        k = next((i for i, node in enumerate(appends) if len(held) == 1 and held[0] is node), None)
        if k is None:
            new_body.append(statement)
        else:
            value = appends[k].value.args[0].value
            new_body.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(decision.items[k]))], value)]))
    carry_param = cst.Name(names[0] if len(names) == 1 else "carry") if names else cst.Name("_carry")
    element = cst.Name(decision.targets[0]) if len(decision.targets) == 1 else cst.Name("_")
    if decision.element is not None:
        element = cst.Name(decision.element)
        new_body.insert(0, cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(
            cst.Tuple([cst.Element(cst.Name(t)) for t in decision.targets], lpar=[], rpar=[]))], element)]))
    returned_carry = _pack(names, parens=True) if names else cst.Name("None")
    returned_ys = _pack(list(decision.items), parens=True) if count else cst.Name("None")
    function = cst.FunctionDef(
        cst.Name(decision.body_name), cst.Parameters([cst.Param(carry_param), cst.Param(element)]),
        cst.IndentedBlock([*(_unpack(names) if names else []), *new_body, cst.SimpleStatementLine([
            cst.Return(cst.Tuple([cst.Element(returned_carry), cst.Element(returned_ys)], lpar=[], rpar=[]))])]),
        leading_lines=loop.leading_lines)
    function = keep_comments(function, loop)
    scan_args = [cst.Arg(cst.Name(decision.body_name)), cst.Arg(_pack(names, parens=True) if names else cst.Name("None")),
                 cst.Arg(_scanned(loop, decision, spell))]
    if decision.xs[0] == "none":
        scan_args.append(cst.Arg(cst.Integer(str(decision.length)), keyword=cst.Name("length"),
                                 equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    call = cst.Call(spell("jax.lax", "scan"), scan_args)
    carry_target = _pack(names, parens=True) if names else cst.Name("_")
    ys_target = _pack(list(decision.outputs), parens=True) if count else cst.Name("_")
    assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(
        cst.Tuple([cst.Element(carry_target), cst.Element(ys_target)], lpar=[], rpar=[]))], call)])
    edits = [Replace(loop, cst.FlattenSentinel([function, assign]))]
    for k in range(count):
        init, stack = pairs[2 * k], pairs[2 * k + 1]
        edits.append(Replace(parent(init), cst.RemovalSentinel.REMOVE))
        edits.append(Replace(stack, cst.Name(decision.outputs[k])))
    return edits


def _scanned(loop: cst.For, decision: _Scan, spell: PlannedSpelling) -> cst.BaseExpression:
    """What `scan` iterates, as `_iteration` decided it."""
    kind = decision.xs[0]
    iterable = loop.iter
    if kind == "none":
        return cst.Name("None")
    if kind == "arange":  # the same numbers as the range
        return cst.Call(spell("jax.numpy", "arange"), [cst.Arg(a) for a in _call_args(iterable)])
    if kind == "enumerate":  # the same indices as `enumerate`
        enumerated = _call_args(iterable)[0]
        length = cst.Call(cst.Name("len"), [cst.Arg(enumerated)])
        return cst.Tuple([cst.Element(cst.Call(spell("jax.numpy", "arange"), [cst.Arg(length)])), cst.Element(enumerated)])
    if kind == "zip":
        parts = _call_args(iterable)
        shift = decision.xs[1]
        if shift is not None:  # `zip(ts, ts[1:])` stops at the shorter: scan needs `(ts[:-1], ts[1:])`
            trimmed = cst.Subscript(parts[0], [cst.SubscriptElement(cst.Slice(None, cst.UnaryOperation(
                cst.Minus(), cst.Integer(str(shift)))))])
            parts = [trimmed, parts[1]]
        return cst.Tuple([cst.Element(s) for s in parts])
    return iterable


def _element_forms(loop: Loop, given: dict[str, Form]) -> dict[str, Form]:
    """The loop targets' forms when they are rows of parameters the calls pass with one literal shape:
    a row of a `shape (60, 3)` array has `shape (3,)`; an element of a 1-d array is a 0-d number."""
    parts = _zip_parts(loop.iter) or [loop.iter]
    targets = list(loop.target.elts) if isinstance(loop.target, (ast.Tuple, ast.List)) else [loop.target]
    out = {}
    enumerated = _enumerated(loop.iter)
    if enumerated is not None and len(targets) == 2:
        parts = [enumerated]
        targets = targets[1:]
    for target, part in zip(targets, parts):
        base = _base(part)
        form = given.get(base.id) if isinstance(base, ast.Name) and isinstance(target, ast.Name) else None
        dims = _literal_dims(form)
        if not dims or form is None:
            continue
        name = target.id  # type: ignore[attr-defined]
        if len(dims) == 1:
            out[name] = Form("scalar", dtype=form.dtype if form.dtype in ("float", "int", "bool") else "?")
        else:
            rest = ", ".join(dims[1:])
            out[name] = Form("array", f"shape ({rest},)" if len(dims) == 2 else f"shape ({rest})", form.dtype)
    return out


def _literal_dims(form: Form | None) -> list[str] | None:
    """The dimensions of an array form whose root is the literal shape the calls give
    (`shape (60, 3)` -> ["60", "3"]); None for any other form."""
    if form is None or form.kind != "array" or not (form.root or "").startswith("shape ("):
        return None
    return [d.strip() for d in form.root[len("shape ("):-1].split(",") if d.strip()]


def _bindings(statements: Sequence[ast.AST], name: str) -> list[ast.AST]:
    """Where `statements` bind `name`, as libcst's reading of a Name as a binding has it (nested functions too):
    an assignment's, a loop's, a comprehension's target (also inside a tuple), `as` of an import, `with` or
    `except`; not `:=`. The node is the Name, or the alias or handler that holds it."""
    out: list[ast.AST] = []
    walrus: set[int] = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.NamedExpr):
                walrus.add(id(node.target))
            elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
                out.append(node)
            elif isinstance(node, ast.alias) and node.asname == name or isinstance(node, ast.ExceptHandler) and node.name == name:
                out.append(node)
    return [n for n in out if id(n) not in walrus]


def _body_of(fn: ast.AST) -> list[ast.AST]:
    return [fn.body] if isinstance(fn, ast.Lambda) else list(fn.body)  # type: ignore[attr-defined]


def _params(fn) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def _param_names(fn) -> set[str]:
    return {p.arg for p in _params(fn)}


def _defaults(fn) -> dict[str, ast.expr]:
    """Each named parameter's default, where it has one."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    out = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):], a.defaults))
    out.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    return out


def _other_unrolling_loops(file) -> Iterator[tuple[FunctionFlow, Loop]]:
    """(flow, loop) for every `for` of a traced function whose compiler records each iteration of a Python
    loop but for which control flow on tracers is no hazard, so `traced_nodes` passes it by (tf.function
    with autograph: `range` is a Python loop, only `tf.range` becomes a `tf.while_loop`; torch.compile)."""
    if not file.jit.contexts:
        return
    for flow in list(file.traced.flows.values()):
        compiler = compilers.of(flow.context.root.transform)
        if rewritable(flow) or not compiler.unrolls_loops:
            continue
        for node in own_nodes_in_order(flow.context.function):
            if isinstance(node, _FORS):
                yield flow, node


def _configured_count(file, flow: FunctionFlow, count: ast.expr):
    """The values a count set where the object or the module is configured takes, and where each is set:
    `self.nt` of a method, bound in `__init__` to a literal or to a parameter the class's constructor calls
    in this module pass literally (or leave at its literal default), or a class attribute; `N_STEPS`,
    bound at module level to a literal. None when any value is not such a literal (the count is then
    not known here: a call from another module may set it to anything)."""
    names = file.names
    if isinstance(count, ast.Name):
        values = []
        for binding in names.assignments(count):
            node = getattr(binding, "node", None)
            value = assigned_value(names, node) if node is not None else None
            if value is None or _int(value) is None or not _module_level(names, node):
                return None
            values.append((_int(value), node))
        values.sort(key=lambda v: (v[1].lineno, v[1].col_offset))  # (libcst's set of bindings had no order)
        return ([v for v, _ in values], [(n, f"`{count.id}` is set to {v} here") for v, n in values]) if values else None
    if not (isinstance(count, ast.Attribute) and isinstance(count.value, ast.Name)):
        return None
    method = flow.context.function
    params = _params(method) if isinstance(method, _DEFS) else []
    if not params or params[0].arg != count.value.id:
        return None
    owner = names.parent(method)
    if not isinstance(owner, ast.ClassDef) or not any(s is method for s in owner.body):
        return None
    found = _attribute_values(file, owner, count.attr)
    if found is None:
        return None
    values, evidence = found
    return values, sorted(evidence, key=lambda e: (e[0].lineno, e[0].col_offset))


def _attribute_values(file, cls: ast.ClassDef, attr: str):
    """`_configured_count` of `self.<attr>` in the methods of `cls`."""
    values: list[int] = []
    evidence: list = []
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign):  # a class attribute: `nt = 500`
            if any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                number = _int(stmt.value)
                if number is None:
                    return None
                values.append(number)
                evidence.append((stmt, f"`{attr}` is set to {number} here"))
            continue
        if not isinstance(stmt, _DEFS):
            continue
        params = _params(stmt)
        me = params[0].arg if params else None
        for node in ast.walk(stmt):
            if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me
                       and t.attr == attr for t in targets):
                continue
            if stmt.name != "__init__" or not isinstance(node, ast.Assign):
                return None  # set again by another method, or added to: not a configuration
            number = _int(node.value)
            if number is not None:
                values.append(number)
                evidence.append((node, f"`self.{attr}` is set to {number} here"))
                continue
            if not isinstance(node.value, ast.Name):
                return None
            given = _constructor_values(file, cls, stmt, node.value.id)
            if given is None:
                return None
            values += [v for v, _ in given]
            evidence += [(call, f"`{cls.name}(...)` sets `{attr}` to {v} here") for v, call in given]
    return (values, evidence) if values else None


def _constructor_values(file, cls: ast.ClassDef, init, param: str):
    """What every call of `cls` in this module passes for `__init__`'s parameter `param` (its literal default
    where a call leaves it out), with the call; None unless each is an int literal and there is a call."""
    params = _params(init)
    index = next((i for i, p in enumerate(params) if p.arg == param), None)
    if index is None or index == 0:
        return None
    defaults = _defaults(init)
    default = _int(defaults[param]) if param in defaults else None
    out = []
    for call in _calls_of_class(file, cls):
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        given = next((k.value for k in call.keywords if k.arg == param), None)
        if given is None and index - 1 < len(call.args):
            given = call.args[index - 1]
        value = _int(given) if given is not None else default
        if value is None:
            return None
        out.append((value, call))
    return out or None


def _module_level(names, node: ast.AST) -> bool:
    """`node` (a binding) is in a statement of the module itself, not of a def or class."""
    current = names.parent(node)
    while current is not None and not isinstance(current, (*_DEFS, ast.ClassDef, ast.Lambda, ast.Module)):
        current = names.parent(current)
    return isinstance(current, ast.Module)


def _calls_of_class(file, cls: ast.ClassDef) -> list[ast.Call]:
    names = file.names
    out = []
    for node in ast.walk(file.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == cls.name:
            if any(getattr(a, "node", None) is cls for a in names.assignments(node.func)):
                out.append(node)
    out.sort(key=lambda c: (c.lineno, c.col_offset))
    return out


def _short_api(api: str) -> str:
    return {"tensorflow.function": "tf.function"}.get(api, api)


def _range_args(iterable: ast.expr | None) -> list[ast.expr] | None:
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range" \
            and 1 <= len(iterable.args) <= 3 and not iterable.keywords \
            and not any(isinstance(a, ast.Starred) for a in iterable.args):
        return list(iterable.args)
    return None


def _range_length(file, args: list[ast.expr]) -> str:
    """The trip count of `range(*args)`, spelled: `n`, `n - 1` for `range(1, n)`, `len(range(a, b, c))`."""
    code = [file.code_parenthesized(a).strip() for a in args]
    if len(args) == 1:
        return code[0]
    if len(args) == 2:
        start = _int(args[0])
        if start == 0:
            return code[1]
        stop = code[1] if isinstance(args[1], (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) else f"({code[1]})"
        return f"{stop} - {start}" if start is not None and start > 0 else f"{stop} - ({code[0]})"
    return f"len(range({', '.join(code)}))"


def _int(expr: ast.expr | None) -> int | None:
    """An integer literal, or one negated (libcst's Integer: not a bool)."""
    negated = isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub)
    literal = expr.operand if negated else expr  # type: ignore[union-attr]
    if isinstance(literal, ast.Constant) and type(literal.value) is int:
        return -literal.value if negated else literal.value
    return None


def _number(expr: ast.expr) -> bool:
    """libcst's Integer or Float: an int or float literal."""
    return isinstance(expr, ast.Constant) and type(expr.value) in (int, float)


def _length_source(expr: ast.expr, alias=lambda name: None) -> ast.expr | None:
    """`x` in `x.shape[0] - 1`, `len(x)`, `x.shape[0]`: the array whose leading length counts; through
    a local bound once to such a length (`n = x.shape[0]`, `alias` gives its value)."""
    stack = [expr]
    seen = 0
    while stack and seen < 20:
        node = stack.pop()
        seen += 1
        if isinstance(node, ast.Name):
            value = alias(node.id)
            if value is not None:
                stack.append(value)
            continue
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int and node.slice.value == 0 \
                and node.slice.end_col_offset == node.slice.col_offset + 1:  # (written `0`: libcst compares the text)
            return node.value.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) + len(node.keywords) == 1:
            only = node.args[0] if node.args else node.keywords[0]
            return only.value if isinstance(only, (ast.Starred, ast.keyword)) else only
        if isinstance(node, ast.BinOp):
            stack += [node.left, node.right]
    return None


def _enumerated(iterable: ast.expr) -> ast.expr | None:
    """`xs` in `enumerate(xs)` (no start)."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
            and len(iterable.args) == 1 and not iterable.keywords and not isinstance(iterable.args[0], ast.Starred):
        return iterable.args[0]
    return None


def _base(sequence: ast.expr) -> ast.expr:
    while isinstance(sequence, ast.Subscript):
        sequence = sequence.value
    return sequence


# Attributes a Python list or tuple does not have: a parameter read with one of them is an array.
_ARRAY_ATTRIBUTES = frozenset("shape ndim dtype at T mT size astype reshape".split())


def _array_evidence(fn, name: str) -> bool:
    """`fn` reads `name.shape` (or another attribute only arrays have) and never rebinds `name`."""
    body = _body_of(fn)
    if _bindings(body, name):
        return False
    return any(isinstance(node, ast.Attribute) and node.attr in _ARRAY_ATTRIBUTES and isinstance(node.value, ast.Name)
               and node.value.id == name for statement in body for node in ast.walk(statement))


def _pairs(file, parts: list[ast.expr]) -> int | None:
    """k for consecutive pairs of one sequence: `zip(s, s[k:])` or `zip(s[:-k], s[k:])` (k > 0)."""
    if len(parts) != 2 or not isinstance(parts[1], ast.Subscript):
        return None
    code = file.code_parenthesized
    shift = _slice_start(parts[1])
    if shift is None or shift <= 0 or not isinstance(parts[1].value, ast.Name):
        return None
    if code(parts[0]) == code(parts[1].value):
        return shift
    if isinstance(parts[0], ast.Subscript) and code(parts[0].value) == code(parts[1].value) \
            and _slice_stop(parts[0]) == -shift:
        return shift
    return None


def _stacks_rows(file, call: ast.Call) -> bool:
    """`jnp.stack(ys)`, `jnp.stack(ys, axis=0)`, `jnp.array(ys)`, `jnp.asarray(ys)`: the rows stacked on a new first axis."""
    qualified = file.names.qualified_names(call.func) & _STACKERS
    if not qualified:
        return False
    rest: list = sorted([*call.args[1:], *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    if not rest:
        return True
    return qualified == {"jax.numpy.stack"} and len(rest) == 1 and isinstance(rest[0], ast.keyword) \
        and rest[0].arg == "axis" and _int(rest[0].value) == 0


def _zip_parts(iterable: ast.expr) -> list[ast.expr] | None:
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip" \
            and len(iterable.args) >= 2 and not iterable.keywords and not any(isinstance(a, ast.Starred) for a in iterable.args):
        return list(iterable.args)
    return None


def _aligned(file, parts: list[ast.expr], doubts: list[str]) -> int | None:
    """`zip(ts, ts[1:])` stops at the shorter: scan needs `(ts[:-1], ts[1:])`, the first trimmed by the shift this
    returns (None: scanned as they are). Other mixes are doubted."""
    code = [file.code_parenthesized(p) for p in parts]
    if len(parts) == 2 and isinstance(parts[1], ast.Subscript) and file.code_parenthesized(parts[1].value) == code[0]:
        shift = _slice_start(parts[1])
        if shift is not None and shift > 0:
            return shift
    if _pairs(file, parts) is not None:  # `s[:-k]` and `s[k:]`: one length (0 when `s` is shorter than k)
        return None
    if not all(isinstance(p, ast.Name) for p in parts):
        doubts.append("`zip` stops at the shortest sequence, and nothing shows they have one length")
    else:
        doubts.append("`zip` stops at the shortest sequence, `scan` needs one length: nothing shows "
                      f"{' and '.join(f'`{c}`' for c in code)} have one")
    return None


def _slice_of(sub: ast.Subscript) -> ast.expr:
    """The subscript's index, a lone one written with a comma (`ts[1:,]`) as libcst holds it: one element."""
    s = sub.slice
    if isinstance(s, ast.Tuple) and len(s.elts) == 1 and isinstance(s.elts[0], ast.Slice):
        return s.elts[0]
    return s


def _slice_start(sub: ast.Subscript) -> int | None:
    s = _slice_of(sub)
    if not isinstance(s, ast.Slice) or s.upper is not None or s.step is not None:
        return None
    return s.lower.value if isinstance(s.lower, ast.Constant) and type(s.lower.value) is int else None


def _slice_stop(sub: ast.Subscript) -> int | None:
    s = _slice_of(sub)
    if not isinstance(s, ast.Slice) or s.lower is not None or s.step is not None or s.upper is None:
        return None
    return _int(s.upper)


def _append_of(file, statement: ast.stmt) -> ast.Call | None:
    """`ys.append(v)` alone on its line, or alone after the loop's `:`: the call."""
    if isinstance(statement, ast.Expr) and _alone(file, statement):
        call = statement.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords \
                and not isinstance(call.args[0], ast.Starred):
            return call
    return None


def _alone(file, statement: ast.stmt) -> bool:
    """No other statement shares the statement's line: libcst's statement line, or a block's one-line body."""
    if file.reading.alone_on_its_lines(statement):
        return True
    parent = file.names.parent(statement)
    if not (isinstance(parent, _FORS) and parent.body == [statement] and statement.lineno == statement.end_lineno):
        return False
    (number, start), (_, end) = file.reading.start(statement), file.reading.end(statement)
    line = file.reading.lines[number - 1]
    head, rest = line[:start], line[end:].strip()
    rest = rest[1:].strip() if rest.startswith(";") else rest
    return head.rstrip().endswith(":") and (not rest or rest.startswith("#"))


def _has_work(body: list[ast.stmt]) -> bool:
    """The body computes something (a call or arithmetic): an empty or bookkeeping body costs nothing."""
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, (ast.BinOp, ast.AugAssign)):
                return True
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Attribute) and node.func.attr == "append"):
                return True
    return False


def _identifier_nodes(root: ast.AST, name: str) -> list[ast.AST]:
    """The nodes of `root` (itself included, nested functions too) that spell `name` as an identifier of their own."""
    return [node for node in ast.walk(root) if name in identifiers(node)]


def _index_use(file, flow: FunctionFlow, loop: Loop, index: str) -> str:
    """Why the loop index, a tracer inside `scan`, may not work where the body reads it ("" when every
    read indexes an array: `x[i]`, `x.at[i]`)."""
    traced = file.traced
    names = file.names
    for use in _uses_in_order(loop.body, index):
        parent = names.parent(use)
        node, child = parent, use  # through integer arithmetic (`x[n + 1]`) up to the subscript it indexes
        while isinstance(node, (ast.BinOp, ast.UnaryOp)) or _index_tuple(names, node):
            child, node = node, names.parent(node)
        if isinstance(use, ast.Name) and isinstance(node, ast.Subscript) and node.value is not child:
            base = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "at" else node.value
            value = traced.value_at(loop.iter, base)
            if value.traced:
                continue
            if value.static:
                raise Refused(f"the index `{index}` indexes the Python value `{file.code_parenthesized(base).strip()}`: "
                              "inside `scan` it is a tracer")
        return f"the index `{index}` is read as a Python int (`{_holder_code(file, use, parent)}`); inside `scan` it is a tracer"
    return ""


def _index_tuple(names, node) -> bool:
    """`node` is the unparenthesized tuple of a subscript's indices, `x[i, j]` (libcst has no node for it)."""
    if not isinstance(node, ast.Tuple):
        return False
    holder = names.parent(node)
    return isinstance(holder, ast.Subscript) and holder.slice is node


def _uses_in_order(statements: list[ast.stmt], name: str) -> Iterator[ast.AST]:
    """The nodes spelling `name` in `statements`, in libcst's walk order (pre-order, as written)."""
    stack: list[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        if name in identifiers(node):
            yield node
        stack.extend(reversed(in_source_order(node)))


def _holder_code(file, use: ast.AST, parent: ast.AST | None) -> str:
    """The code of what holds the use of the index, as libcst's parent of the Name is written: an argument or an
    element with its comma, a subscript's index, the expression or statement around it."""
    if not isinstance(use, ast.Name):
        return file.code(use).strip()  # (an attribute, a keyword, a parameter: what holds the name in libcst)
    if parent is None:
        return file.code_parenthesized(use).strip()
    if isinstance(parent, ast.Subscript) and parent.slice is use or _index_tuple(file.names, parent):
        return file.code_parenthesized(use).strip()  # (libcst's Index, without the element's comma)
    if isinstance(parent, (ast.Call, ast.Tuple, ast.List, ast.Set)):
        return file.with_comma(use).strip()  # (libcst's Arg or Element, with its comma)
    if isinstance(parent, (ast.Starred, ast.keyword)):
        return file.with_comma(parent).strip()
    if isinstance(parent, ast.FormattedValue):  # (libcst's field of an f-string; `ast` places it as the whole string)
        return f"{{{file.code_parenthesized(use).strip()}}}"
    return file.code_parenthesized(parent).strip() if isinstance(parent, ast.expr) else file.code(parent).strip()


def _enclosing_block(file, loop: Loop) -> list[ast.stmt]:
    """The statements of the block the loop is written in, when that is an indented block (libcst's)."""
    parent = file.names.parent(loop)
    if isinstance(parent, ast.Module):
        return []
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is loop for s in block):
            return block
    return []


def _unrolls_or_fails(compiler: compilers.Compiler) -> bool:
    """The loops `check` reads: of a `rewritable` flow, or one whose compiler unrolls loops."""
    return compiler.fails_on_control_flow or compiler.unrolls_loops
