"""PML206 unrolled-loop."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from rewriter.lazy_libcst import cst

from rewriter.analysis import compilers
from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_names import own_nodes as ast_own_nodes
from rewriter.analysis.callsites import Role
from rewriter.analysis.forms import Agreement, Form, Forms, agreement
from rewriter.analysis.jit import assigned_value
from rewriter.analysis.trace_values import FunctionFlow
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.cst_tree import children, walk
from rewriter.emit.agreement import param_forms
from rewriter.emit.branches import Refused, effect
from rewriter.emit.loops import _pack, _unpack, carried, carry_agreement, check_body, jax_fori, names_read_after
from rewriter.findings import Safety, Severity

from ._control_flow import block_statements, emitter, own_nodes, rewritable, traced_nodes, traced_test_inside

# A literal trip count from which a loop is reported: below it an unroll compiles about as fast as
# `lax.scan` (docs/benchmarks.md, "What the hazards cost"); small unrolls are idiomatic and cheap.
MIN_ITERATIONS = 50
_STACKERS = frozenset({"jax.numpy.stack", "jax.numpy.array", "jax.numpy.asarray"})


@dataclass
class _Stacked:
    """`ys = []` before the loop, `ys.append(v)` in its body, `jnp.stack(ys)` after it: scan's outputs."""

    name: str
    init: cst.SimpleStatementLine
    append: cst.SimpleStatementLine
    value: cst.BaseExpression
    stack: cst.Call


class UnrolledLoop(Codemod):
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

    @classmethod
    def may_report(cls, file) -> bool:
        """A loop `_check` may report, asked of the `ast` reading: a `for` of a traced function (`traced_nodes`,
        `_other_unrolling_loops`) whose trip count is static and that `_count` may count as long. What needs
        more than the loop itself to tell (a default, a configured count, an alias) may be long."""
        if file.reading is None or file.reading.tree is None:
            return False  # no flows: the libcst pass reads none either
        traced = file.traced
        for flow in traced.flows.values():
            if not (rewritable(flow) or compilers.of(flow.context.root.transform).unrolls_loops):
                continue
            for node in ast_own_nodes(flow.context.function):
                if type(node) in (ast.For, ast.AsyncFor):
                    value = flow.tests.get(id(node.iter))
                    if value is not None and value.static and _may_count_long(traced, flow, node.iter):
                        return True
        return False

    def leave_Module(self, original_node: cst.Module) -> None:
        for flow, loop in traced_nodes(self.file, cst.For):
            self._check(flow, loop)
        for flow, loop in _other_unrolling_loops(self.file):  # tf.function (autograph), torch.compile
            self._check(flow, loop)

    # -- what is unrolled ---------------------------------------------------------------------
    def _check(self, flow: FunctionFlow, loop: cst.For) -> None:
        value = flow.value_of(loop.iter)
        if value is None or not value.static:
            return  # a traced or unknown trip count is PML202's
        self._evidence: list = []  # where a configured count's values come from (`_configured_count`)
        count = self._count(flow, loop)
        if count is None or not _has_work(block_statements(loop)):
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
            self._rewrite(flow, loop, head, literal)
        except Refused as why:
            self.report(loop.iter, head, related=self._evidence, note=f"not rewritten: {why}",
                        hint="loop with `jax.lax.scan` by hand, or keep the unroll if the count stays small")

    def _count(self, flow: FunctionFlow, loop: cst.For) -> tuple[str, int | None] | None:
        """How many iterations, in words, and the literal count (None: read from the data)."""
        iterable = loop.iter
        traced = self.file.analysis.traced
        range_args = _range_args(iterable)
        if range_args is not None:
            values = [_int(a) for a in range_args]
            if all(v is not None for v in values):
                n = len(range(*values))
                return (f"{n} iterations", n) if n >= MIN_ITERATIONS else None
            if len(range_args) == 1 and isinstance(range_args[0], cst.Name):
                role = traced.roles(flow.context).get(range_args[0].value)
                param = next((p for p in _params(flow.context.function) if p.name.value == range_args[0].value), None)
                default = _int(param.default) if role is not None and role.role in (Role.DEFAULTED, Role.STATIC) \
                    and param is not None and param.default is not None else None
                if default is not None and default >= MIN_ITERATIONS:  # a static count, long by default
                    return f"`{range_args[0].value}` iterations ({default} by default)", None
            if len(range_args) == 1:
                configured = _configured_count(self.file, flow, range_args[0])
                if configured is not None:
                    counts, evidence = configured
                    if min(counts) < MIN_ITERATIONS:
                        return None
                    self._evidence = evidence
                    shown = " or ".join(str(n) for n in sorted(set(counts)))
                    return f"`{self.file.code(range_args[0]).strip()}` iterations ({shown} as configured)", None
            for arg in range_args:
                source = _length_source(arg, lambda name: self._alias(flow, loop, name))
                if source is not None and traced.value_at(iterable, source).traced:
                    if self._short(flow, source) or self._a_list(flow, source):
                        return None
                    code = _range_length(self.file, range_args)
                    return f"`{code}` iterations, set by the length of `{self.file.code(source).strip()}`", None
            return None
        enumerated = _enumerated(iterable)
        sources = _zip_parts(iterable) or ([enumerated] if enumerated is not None else [iterable])
        if any(self._short(flow, s) for s in sources):
            return None
        if not all(traced.value_at(iterable, s).traced for s in sources):
            return None
        # consecutive pairs of one traced parameter (`zip(ts, ts[1:])`) walk a grid even when nothing
        # else says the parameter is an array: a list of arrays is unrolled alike (the fix is unsafe then)
        shift = _pairs(sources)
        base = self.file.code(_base(sources[0])).strip()
        if shift is not None and (_base(sources[0]).value in _param_names(flow.context.function)
                                  or self._an_array(flow, sources[1])):
            rows = self._literal_rows(flow, _base(sources[0]))
            return f"`len({base}) - {shift}` iterations, one per pair of consecutive rows of `{base}`", \
                rows - shift if rows is not None and rows > shift else None
        if all(self._an_array(flow, s) for s in sources):
            rows = [self._literal_rows(flow, s) for s in sources]  # the calls give the length: at least one row
            known = min(rows) if all(r is not None for r in rows) and not any(isinstance(s, cst.Subscript) for s in sources) else None
            return f"one iteration per row of `{base}`", known
        return None

    def _alias(self, flow: FunctionFlow, loop: cst.For, name: str) -> cst.BaseExpression | None:
        """The value of `name` when the function binds it once, before `loop`, with `name = value`
        (`n = x.shape[0]`), and it is no parameter."""
        fn = flow.context.function
        if name in _param_names(fn):
            return None
        bindings = [n for n in _names(fn.body) if n.value == name and _is_binding(self.file, n)]
        if len(bindings) != 1:
            return None
        target = self.file.analysis.names.parent(bindings[0])
        assign = self.file.analysis.names.parent(target) if isinstance(target, cst.AssignTarget) else None
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
            return None
        positions = self.file.analysis.names.positions
        if positions[assign].end.line >= positions[loop].start.line:
            return None
        return assign.value

    def _short(self, flow: FunctionFlow, sequence: cst.BaseExpression) -> bool:
        """Every call passes (the array under) `sequence` with a literal length below the threshold."""
        rows = self._literal_rows(flow, sequence)
        return rows is not None and rows < MIN_ITERATIONS

    def _literal_rows(self, flow: FunctionFlow, sequence: cst.BaseExpression) -> int | None:
        """The leading length every call gives (the array under) `sequence`, when one literal shape."""
        base = _base(sequence)
        dims = _literal_dims(param_forms(self.file, flow).get(base.value) if isinstance(base, cst.Name) else None)
        return int(dims[0]) if dims and dims[0].isdigit() else None

    def _a_list(self, flow: FunctionFlow, sequence: cst.BaseExpression) -> bool:
        """`sequence` is a parameter that nothing shows to be an array: its length may be a list's (one
        gradient per variable, the layers of a network), small and fixed, as in `for x in sequence`."""
        base = _base(sequence)
        return isinstance(base, cst.Name) and base.value in _param_names(flow.context.function) \
            and not self._an_array(flow, sequence)

    def _an_array(self, flow: FunctionFlow, sequence: cst.BaseExpression) -> bool:
        """`sequence` is (a slice of) a parameter that the calls pass an array, or declared one: a
        traced list of arrays (network layers, a pytree's leaves) has a small static length instead."""
        base = _base(sequence)
        if not isinstance(base, cst.Name):
            return False
        fn = flow.context.function
        param = next((p for p in _params(fn) if p.name.value == base.value), None)
        if param is None:
            return False
        role = self.file.analysis.traced.roles(flow.context).get(base.value)
        if role is not None and role.role is Role.DATA or _array_evidence(self.file, fn, base.value):
            return True
        annotation = self.file.code(param.annotation.annotation) if param.annotation is not None else ""
        return any(word in annotation for word in ("Array", "ndarray", "Tensor"))

    # -- the rewrite --------------------------------------------------------------------------
    def _rewrite(self, flow: FunctionFlow, loop: cst.For, head: str, literal: int | None) -> None:
        if loop.orelse is not None:
            raise Refused("the loop has an `else` clause")
        body = block_statements(loop)
        inner = traced_test_inside(flow, body)
        if inner is not None:
            raise Refused(f"the traced condition `{self.file.code(inner).strip()}` inside the body is converted first")
        fn = flow.context.function
        stacked = [self._stacked(flow, loop, s) for s in body if _append_of(s) is not None]
        stacked_names = {s.name for s in stacked}
        kept = [s for s in body if not any(s is x.append for x in stacked)]
        check_body(kept, "loop body")
        targets, xs, doubts = self._iteration(flow, loop)
        try:
            names = carried(self.file, flow, loop, [*kept], loop.iter, exclude=tuple(targets) + tuple(stacked_names))
        except Refused as why:
            if not stacked or "outlives" not in str(why):
                raise
            names = []
        if names_read_after(self.file, fn, loop, targets):
            raise Refused(f"the loop variable `{targets[0]}` is read after the loop")
        doubt = self._carry_doubt(flow, loop, kept, names) if names else ""
        if doubt:
            doubts.append(doubt)
        proven = not doubts  # every carried value, element and index use keeps its type: so does the body
        for s in stacked:
            if not (isinstance(s.value, cst.Name) and s.value.value in names) \
                    and not (proven and self._array_valued(flow, loop, s.value, names)):
                doubts.append(f"nothing proves `{self.file.code(s.value).strip()}` has one shape and dtype in every "
                              "iteration (`scan` stacks only such)")
            if literal is None:
                doubts.append(f"with no iteration `jnp.stack({s.name})` raises where `scan` returns an empty stack")
        emit, spelling = emitter(self.file, flow)
        # named after its function: fixes in other functions, in any order, never rename it
        body_name = self.file.analysis.fresh_name(f"{fn.name.value.lstrip('_')}_body" if isinstance(fn, cst.FunctionDef) else "loop_body")
        carries = ", ".join(f"`{n}`" for n in names) or "nothing"
        range_args = _range_args(loop.iter)
        if literal is None and not stacked and range_args is not None and len(range_args) <= 2:
            # a count that may be 0: `fori_loop` runs no iteration, a zero-length `scan` raises under `jax.disable_jit()`
            start, stop = (cst.Integer("0"), range_args[0]) if len(range_args) == 1 else range_args
            statements = jax_fori(emit, names, targets[0], body_name, start, stop, kept)
            statements[0] = statements[0].with_changes(leading_lines=loop.leading_lines)
            self._fix(loop, head, f"loop with `jax.lax.fori_loop` carrying {carries}", doubts,
                      [Replace(loop, cst.FlattenSentinel(statements))], spelling)
            return
        if literal is None and not stacked:
            doubts.append("with no iteration, `scan` raises under `jax.disable_jit()` where the loop does nothing")
        items = {s.name: self.file.analysis.fresh_name(f"{s.name}_item") for s in stacked}
        outputs = {s.name: self.file.analysis.fresh_name(f"{s.name}_stacked") for s in stacked}
        new_body = []
        for statement in body:
            match = next((s for s in stacked if s.append is statement), None)
            if match is None:
                new_body.append(statement)
            else:
                new_body.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(items[match.name]))], match.value)]))
        carry_param = cst.Name(names[0] if len(names) == 1 else "carry") if names else cst.Name("_carry")
        element = cst.Name(targets[0]) if len(targets) == 1 else cst.Name("_")
        if len(targets) > 1:
            element = cst.Name(self.file.analysis.fresh_name("elements"))
            new_body.insert(0, cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(
                cst.Tuple([cst.Element(cst.Name(t)) for t in targets], lpar=[], rpar=[]))], element)]))
        returned_carry = _pack(names, parens=True) if names else cst.Name("None")
        returned_ys = (_pack([items[s.name] for s in stacked], parens=True) if stacked else cst.Name("None"))
        function = cst.FunctionDef(
            cst.Name(body_name), cst.Parameters([cst.Param(carry_param), cst.Param(element)]),
            cst.IndentedBlock([*(_unpack(names) if names else []), *new_body, cst.SimpleStatementLine([
                cst.Return(cst.Tuple([cst.Element(returned_carry), cst.Element(returned_ys)], lpar=[], rpar=[]))])]),
            leading_lines=loop.leading_lines)
        scan_args = [cst.Arg(cst.Name(body_name)), cst.Arg(_pack(names, parens=True) if names else cst.Name("None")), cst.Arg(xs)]
        if isinstance(xs, cst.Name) and xs.value == "None":
            scan_args.append(cst.Arg(cst.Integer(str(literal)), keyword=cst.Name("length"),
                                     equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        call = cst.Call(spelling("jax.lax", "scan"), scan_args)
        carry_target = _pack(names, parens=True) if names else cst.Name("_")
        ys_target = _pack([outputs[s.name] for s in stacked], parens=True) if stacked else cst.Name("_")
        assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(
            cst.Tuple([cst.Element(carry_target), cst.Element(ys_target)], lpar=[], rpar=[]))], call)])
        edits = [Replace(loop, cst.FlattenSentinel([function, assign]))]
        for s in stacked:
            edits.append(Replace(s.init, cst.RemovalSentinel.REMOVE))
            edits.append(Replace(s.stack, cst.Name(outputs[s.name])))
        outs = f", stacking {', '.join(f'`{s.name}`' for s in stacked)}" if stacked else ""
        self._fix(loop, head, f"loop with `jax.lax.scan` carrying {carries}{outs}", doubts, edits, spelling)

    def _fix(self, loop: cst.For, message: str, title: str, doubts: list[str], edits, spelling) -> None:
        if doubts:
            self.report(loop.iter, message, related=self._evidence, edits=edits, imports=spelling.imports, safety=Safety.UNSAFE,
                        fix_description=f"{title} (unsafe: see the note)", note=f"unsafe: {'; '.join(doubts)}")
            return
        self.report(loop.iter, message, related=self._evidence, edits=edits, imports=spelling.imports, fix_description=title)

    def _array_valued(self, flow: FunctionFlow, loop: cst.For, expr: cst.BaseExpression, carried_names: list[str],
                      depth: int = 0) -> bool:
        """`expr` is one array (not a tuple or other pytree, which `jnp.stack` and `scan` stack
        differently): a carried value, an element of an array iterated, an item of an array, an
        arithmetic expression whose left operand is one, or what `forms` shows is an array or number."""
        if depth > 8:
            return False
        if isinstance(expr, cst.Name):
            if expr.value in carried_names:
                return True
            targets = [loop.target] if isinstance(loop.target, cst.Name) else \
                [e.value for e in loop.target.elements] if isinstance(loop.target, (cst.Tuple, cst.List)) else []
            enumerated = _enumerated(loop.iter)
            sequences = ([None, enumerated] if enumerated is not None else _zip_parts(loop.iter) or [loop.iter])
            for target, sequence in zip(targets, sequences):
                if isinstance(target, cst.Name) and target.value == expr.value and sequence is not None \
                        and _range_args(sequence) is None:
                    return not self._array_doubt(flow, loop, sequence)
            return self._array_parameter(flow, expr.value)
        if isinstance(expr, cst.Subscript):
            base = expr.value
            if isinstance(base, cst.Attribute) and base.attr.value == "at":
                return False
            return self._array_valued(flow, loop, base, carried_names, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            left = self._array_valued(flow, loop, expr.left, carried_names, depth + 1)
            return left or isinstance(expr.left, (cst.Integer, cst.Float)) \
                and self._array_valued(flow, loop, expr.right, carried_names, depth + 1)
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            return self._array_valued(flow, loop, expr.expression, carried_names, depth + 1)
        fn = flow.context.function
        form = Forms(self.file.analysis.names, fn, loop, param_forms(self.file, flow)).of(expr)
        return form.kind in ("array", "scalar", "reduced")

    def _array_parameter(self, flow: FunctionFlow, name: str) -> bool:
        """`name` is a parameter that every call passes an array, or that is read as one (`x.shape`)."""
        fn = flow.context.function
        if name not in _param_names(fn):
            return False
        role = self.file.analysis.traced.roles(flow.context).get(name)
        return role is not None and role.role is Role.DATA or _array_evidence(self.file, fn, name)

    def _carry_doubt(self, flow: FunctionFlow, loop: cst.For, body, names: list[str]) -> str:
        """Why a carried value may change shape, dtype or structure in one iteration ("" when not).
        By induction: each carried parameter has its entry form (what the calls pass) at the top of
        the body; the body keeps it when every carried value's new expression has that form again."""
        fn = flow.context.function
        params = _param_names(fn)
        inside = {id(n) for n in _names(loop.body)} | {id(n) for n in _names(loop.target)}
        entry_only = all(n in params and all(id(m) in inside for m in _names(fn.body) if m.value == n
                                             and _is_binding(self.file, m)) for n in names)
        if not entry_only:
            return carry_agreement(self.file, flow, loop, body, names)
        try:
            result = effect(body, allow_return=False)
        except Refused:
            return carry_agreement(self.file, flow, loop, body, names)
        given = param_forms(self.file, flow)
        forms = Forms(self.file.analysis.names, fn, loop, given)
        entries = {n: given.get(n, Form("array", n, "same")) for n in names}
        forms._names.update(entries)  # the induction hypothesis
        forms._names.update(_element_forms(loop, given))
        for n in names:
            after = result.values.get(n)
            if after is None:
                continue
            verdict = agreement([entries[n], forms.of(after)])
            if verdict.agreement is Agreement.CLASH:
                raise Refused(verdict.reason)
            if verdict.agreement is Agreement.DOUBT:
                return f"`{n}` and `{self.file.code(after).strip()}`: {verdict.reason}"
        return ""

    def _iteration(self, flow: FunctionFlow, loop: cst.For) -> tuple[list[str], cst.BaseExpression, list[str]]:
        """The loop's target names, what scan iterates (`None` for a counted loop) and the doubts."""
        doubts: list[str] = []
        target = loop.target
        range_args = _range_args(loop.iter)
        if range_args is not None:
            if not isinstance(target, cst.Name):
                raise Refused("the loop variable is not a single name")
            literal = all(_int(a) is not None for a in range_args)
            used = target.value != "_" and _reads(loop, target.value)
            if used:
                usage = _index_use(self.file, flow, loop, target.value)
                if usage:
                    doubts.append(usage)
            if literal and not used:
                return [target.value], cst.Name("None"), doubts
            # the same numbers as the range (shape-derived bounds are Python ints while tracing)
            arange = cst.Call(emitter(self.file, flow)[1]("jax.numpy", "arange"), [cst.Arg(a) for a in range_args])
            return [target.value], arange, doubts
        enumerated = _enumerated(loop.iter)
        if enumerated is not None:
            if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2 \
                    or not all(isinstance(e.value, cst.Name) for e in target.elements):
                raise Refused("the loop unpacks `enumerate` into something else than an index and an element")
            names = [e.value.value for e in target.elements]
            if names[0] != "_" and _reads(loop, names[0]):
                usage = _index_use(self.file, flow, loop, names[0])
                if usage:
                    doubts.append(usage)
            doubts.extend(self._array_doubt(flow, loop, enumerated))
            # the same indices as `enumerate` (the length is a Python int while tracing)
            length = cst.Call(cst.Name("len"), [cst.Arg(enumerated)])
            arange = cst.Call(emitter(self.file, flow)[1]("jax.numpy", "arange"), [cst.Arg(length)])
            return names, cst.Tuple([cst.Element(arange), cst.Element(enumerated)]), doubts
        parts = _zip_parts(loop.iter)
        if parts is not None:
            if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(parts) \
                    or not all(isinstance(e.value, cst.Name) for e in target.elements):
                raise Refused("the loop unpacks `zip` into something else than one name per sequence")
            names = [e.value.value for e in target.elements]
            sequences = _aligned(parts, doubts)
            for part in parts:
                doubts.extend(d for d in self._array_doubt(flow, loop, part) if d not in doubts)
            return names, cst.Tuple([cst.Element(s) for s in sequences]), doubts
        if not isinstance(target, cst.Name):
            raise Refused("the loop variable is not a single name")
        doubts.extend(self._array_doubt(flow, loop, loop.iter))
        return [target.value], loop.iter, doubts

    def _array_doubt(self, flow: FunctionFlow, loop: cst.For, sequence: cst.BaseExpression) -> list[str]:
        """Why `sequence` may not be an array (a list of arrays would be scanned leaf by leaf)."""
        base = _base(sequence)
        if isinstance(base, cst.Name):
            role = self.file.analysis.traced.roles(flow.context).get(base.value)
            fn = flow.context.function
            if base.value in _param_names(fn) and (role is not None and role.role is Role.DATA
                                                   or _array_evidence(self.file, fn, base.value)):
                return []
        shown = self.file.code(base).strip()
        return [f"nothing shows that `{shown}` is an array (a list of arrays would be scanned leaf by leaf)"]

    def _stacked(self, flow: FunctionFlow, loop: cst.For, statement) -> _Stacked:
        call = _append_of(statement)
        name = call.func.value.value
        fn = flow.context.function
        block = _enclosing_block(self.file, loop)
        position = next(i for i, s in enumerate(block) if s is loop)
        init = block[position - 1] if position > 0 else None
        if not (isinstance(init, cst.SimpleStatementLine) and len(init.body) == 1 and isinstance(init.body[0], cst.Assign)
                and len(init.body[0].targets) == 1 and isinstance(init.body[0].targets[0].target, cst.Name)
                and init.body[0].targets[0].target.value == name and isinstance(init.body[0].value, cst.List)
                and not init.body[0].value.elements):
            raise Refused(f"`{name}` is not an empty list made right before the loop")
        uses = [n for n in _names(fn) if n.value == name]
        stack = None
        for use in uses:
            parent = self.file.analysis.names.parent(use)
            if parent is init.body[0].targets[0] or parent is call.func:
                continue
            arg = parent
            outer = self.file.analysis.names.parent(arg) if isinstance(arg, cst.Arg) else None
            if isinstance(outer, cst.Call) and outer.args and outer.args[0] is arg and not arg.keyword \
                    and _stacks_rows(self.file, outer) and stack is None:
                stack = outer
                continue
            raise Refused(f"`{name}` is used otherwise than appended to in the loop and stacked once after it")
        if stack is None:
            raise Refused(f"`{name}` is not stacked after the loop (`jnp.stack({name})`)")
        return _Stacked(name, init, statement, call.args[0].value, stack)


def _element_forms(loop: cst.For, given: dict[str, Form]) -> dict[str, Form]:
    """The loop targets' forms when they are rows of parameters the calls pass with one literal shape:
    a row of a `shape (60, 3)` array has `shape (3,)`; an element of a 1-d array is a 0-d number."""
    parts = _zip_parts(loop.iter) or [loop.iter]
    targets = [e.value for e in loop.target.elements] if isinstance(loop.target, (cst.Tuple, cst.List)) else [loop.target]
    out = {}
    enumerated = _enumerated(loop.iter)
    if enumerated is not None and len(targets) == 2:
        parts = [enumerated]
        targets = targets[1:]
    for target, part in zip(targets, parts):
        base = _base(part)
        form = given.get(base.value) if isinstance(base, cst.Name) and isinstance(target, cst.Name) else None
        dims = _literal_dims(form)
        if not dims:
            continue
        if len(dims) == 1:
            out[target.value] = Form("scalar", dtype=form.dtype if form.dtype in ("float", "int", "bool") else "?")
        elif dims:
            rest = ", ".join(dims[1:])
            out[target.value] = Form("array", f"shape ({rest},)" if len(dims) == 2 else f"shape ({rest})", form.dtype)
    return out


def _literal_dims(form: Form | None) -> list[str] | None:
    """The dimensions of an array form whose root is the literal shape the calls give
    (`shape (60, 3)` -> ["60", "3"]); None for any other form."""
    if form is None or form.kind != "array" or not (form.root or "").startswith("shape ("):
        return None
    return [d.strip() for d in form.root[len("shape ("):-1].split(",") if d.strip()]


def _is_binding(file, name: cst.Name) -> bool:
    """`name` is assigned here (also inside a tuple target: `a, b = ...`)."""
    node: cst.CSTNode = name
    parent = file.analysis.names.parent(node)
    while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        node, parent = parent, file.analysis.names.parent(parent)
    return isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.CompFor)) \
        and getattr(parent, "target", getattr(parent, "name", None)) is node


def _params(fn) -> list[cst.Param]:
    p = fn.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


def _param_names(fn) -> set[str]:
    return {x.name.value for x in _params(fn)}


def _other_unrolling_loops(file):
    """(flow, loop) for every `for` of a traced function whose compiler records each iteration of a Python
    loop but for which control flow on tracers is no hazard, so `traced_nodes` passes it by (tf.function
    with autograph: `range` is a Python loop, only `tf.range` becomes a `tf.while_loop`; torch.compile)."""
    if not file.analysis.jit.contexts:
        return
    for flow in list(file.analysis.traced.flows.values()):
        compiler = compilers.of(flow.context.root.transform)
        if rewritable(flow) or not compiler.unrolls_loops:
            continue
        for node in own_nodes(flow.context.function):
            if type(node) is cst.For:
                yield flow, node


def _may_count_long(traced, flow, iterable: ast.expr) -> bool:
    """`UnrolledLoop._count` may count the loop over `iterable`, in the function of `flow`, as long: a
    `range` of literals from MIN_ITERATIONS steps, of a count that may be long by default or as configured
    (`_may_be_configured`), or of a length (`_may_measure`); an iteration over values that are all traced
    (ast_flow.TracedAnalysis.value_at), pairs of consecutive rows or rows of what may be arrays
    (`_may_be_array`)."""
    fn = flow.context.function
    call = iterable if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and not iterable.keywords \
        and not any(isinstance(a, ast.Starred) for a in iterable.args) else None
    name = call.func.id if call is not None else ""
    if name == "range" and 1 <= len(call.args) <= 3:
        values = [_ast_int(a) for a in call.args]
        if all(v is not None for v in values):
            try:
                return len(range(*values)) >= MIN_ITERATIONS
            except ValueError:
                return True  # (a zero step: the libcst pass says what it makes of it)
        if len(call.args) == 1 and _may_be_configured(fn, call.args[0]):
            return True
        return any(_may_measure(fn, a) for a in call.args)
    if name == "zip" and len(call.args) >= 2:
        sources = call.args
    elif name == "enumerate" and len(call.args) == 1:
        sources = call.args
    else:
        sources = [iterable]
    if not all(traced.value_at(iterable, source).traced for source in sources):
        return False
    return _may_pair(sources) or all(_may_be_array(traced, flow, source) for source in sources)


def _may_pair(parts: list[ast.expr]) -> bool:
    """`_pairs` may find consecutive pairs of one sequence in `zip(*parts)`: `zip(s, s[k:])`, `zip(s[:-k], s[k:])`
    (the same expression, as `ast` reads it, where the libcst pass compares the code; any slice)."""
    if len(parts) != 2 or not isinstance(parts[1], ast.Subscript) or not isinstance(parts[1].value, ast.Name):
        return False
    whole = ast.dump(parts[1].value)
    return ast.dump(parts[0]) == whole or isinstance(parts[0], ast.Subscript) and ast.dump(parts[0].value) == whole


def _may_be_array(traced, flow, sequence: ast.expr) -> bool:
    """`UnrolledLoop._an_array` may hold of `sequence`: (a slice of) a parameter that a call passes an
    array (its role), that the function reads as one (any read of an attribute only arrays have, where the
    libcst pass also asks that the name is never rebound) or that is annotated."""
    base = sequence
    while isinstance(base, ast.Subscript):
        base = base.value
    if not isinstance(base, ast.Name):
        return False
    fn = flow.context.function
    param = next((p for p in _ast_params(fn) if p.arg == base.id), None)
    if param is None:
        return False
    if param.annotation is not None:
        return True
    role = traced.roles(flow.context).get(base.id)
    if role is not None and role.role is Role.DATA:
        return True
    return any(isinstance(node, ast.Attribute) and node.attr in _ARRAY_ATTRIBUTES and isinstance(node.value, ast.Name)
               and node.value.id == base.id for node in ast.walk(fn))


def _may_be_configured(fn: ast.AST, count: ast.expr) -> bool:
    """`_count` may read `range(count)` as long by default or as configured (`_configured_count`): a
    parameter of `fn` with a literal default from MIN_ITERATIONS; `self.<attr>`; a name `fn` does not
    bind itself (a module constant). A parameter, or a local `fn` binds, is neither."""
    if isinstance(count, ast.Attribute):
        return isinstance(count.value, ast.Name)
    if not isinstance(count, ast.Name):
        return False
    name = count.id
    a = fn.args  # type: ignore[attr-defined]
    positional = [*a.posonlyargs, *a.args]
    defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):], a.defaults))
    defaults.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    if any(p.arg == name for p in _ast_params(fn)):
        default = _ast_int(defaults[name]) if name in defaults else None
        return default is not None and default >= MIN_ITERATIONS
    bound = False
    for node in ast_own_nodes(fn):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) \
                or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name \
                or isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name:
            bound = True
    return not bound


def _ast_params(fn) -> list[ast.arg]:
    """`_params` of an `ast` def or lambda: its named parameters, not `*args` or `**kwargs`."""
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def _may_measure(fn: ast.AST, count: ast.expr) -> bool:
    """`_length_source` may find an array's length in `count`: `x.shape[0]` or `len(x)`, in a sum or
    difference, or through a name `fn` assigns (`n = x.shape[0]`; any such assignment, where the libcst
    pass takes one bound once before the loop, and gives up after 20 nodes: this reads every node it could
    reach)."""
    stack, followed = [count], set()
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            if node.id not in followed:
                followed.add(node.id)
                stack += [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
                          and isinstance(n.targets[0], ast.Name) and n.targets[0].id == node.id]
        elif isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                return True
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
                return True
        elif isinstance(node, ast.BinOp):
            stack += [node.left, node.right]
    return False


def _ast_int(expr: ast.expr) -> int | None:
    """`_int` of an `ast` expression: an integer literal, or one negated."""
    negated = isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub)
    literal = expr.operand if negated else expr
    if isinstance(literal, ast.Constant) and type(literal.value) is int:
        return -literal.value if negated else literal.value
    return None


def _configured_count(file, flow: FunctionFlow, count: cst.BaseExpression):
    """The values a count set where the object or the module is configured takes, and where each is set:
    `self.nt` of a method, bound in `__init__` to a literal or to a parameter the class's constructor calls
    in this module pass literally (or leave at its literal default), or a class attribute; `N_STEPS`,
    bound at module level to a literal. None when any value is not such a literal (the count is then
    not known here: a call from another module may set it to anything)."""
    names = file.analysis.names
    if isinstance(count, cst.Name):
        values = []
        for binding in names.assignments(count):
            node = getattr(binding, "node", None)
            value = assigned_value(names, node) if node is not None else None
            if value is None or _int(value) is None or not _module_level(names, node):
                return None
            values.append((_int(value), node))
        return ([v for v, _ in values], [(n, f"`{count.value}` is set to {v} here") for v, n in values]) if values else None
    if not (isinstance(count, cst.Attribute) and isinstance(count.value, cst.Name)):
        return None
    method = flow.context.function
    params = _params(method) if isinstance(method, cst.FunctionDef) else []
    if not params or params[0].name.value != count.value.value:
        return None
    owner = names.parent(method)
    while owner is not None and not isinstance(owner, cst.ClassDef):
        owner = names.parent(owner)
    if owner is None or names.parent(method) is not owner.body:
        return None
    found = _attribute_values(file, owner, count.attr.value)
    if found is None:
        return None
    values, evidence = found
    return values, sorted(evidence, key=lambda e: (names.positions[e[0]].start.line, names.positions[e[0]].start.column))


def _attribute_values(file, cls: cst.ClassDef, attr: str):
    """`_configured_count` of `self.<attr>` in the methods of `cls`."""
    values: list[int] = []
    evidence: list = []
    for stmt in cls.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):  # a class attribute: `nt = 500`
            for small in stmt.body:
                if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == attr for t in small.targets):
                    if _int(small.value) is None:
                        return None
                    values.append(_int(small.value))
                    evidence.append((small, f"`{attr}` is set to {_int(small.value)} here"))
            continue
        if not isinstance(stmt, cst.FunctionDef):
            continue
        params = _params(stmt)
        me = params[0].name.value if params else None
        for node in walk(stmt):
            if not isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                continue
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if not any(isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == me
                       and t.attr.value == attr for t in targets):
                continue
            if stmt.name.value != "__init__" or not isinstance(node, cst.Assign) or node.value is None:
                return None  # set again by another method, or added to: not a configuration
            if _int(node.value) is not None:
                values.append(_int(node.value))
                evidence.append((node, f"`self.{attr}` is set to {_int(node.value)} here"))
                continue
            if not isinstance(node.value, cst.Name):
                return None
            given = _constructor_values(file, cls, stmt, node.value.value)
            if given is None:
                return None
            values += [v for v, _ in given]
            evidence += [(call, f"`{cls.name.value}(...)` sets `{attr}` to {v} here") for v, call in given]
    return (values, evidence) if values else None


def _constructor_values(file, cls: cst.ClassDef, init: cst.FunctionDef, param: str):
    """What every call of `cls` in this module passes for `__init__`'s parameter `param` (its literal default
    where a call leaves it out), with the call; None unless each is an int literal and there is a call."""
    params = _params(init)
    index = next((i for i, p in enumerate(params) if p.name.value == param), None)
    if index is None or index == 0:
        return None
    default = _int(params[index].default) if params[index].default is not None else None
    out = []
    for call in _calls_of_class(file, cls):
        if any(a.star for a in call.args):
            return None
        positional = [a for a in call.args if a.keyword is None]
        given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == param), None)
        if given is None and index - 1 < len(positional):
            given = positional[index - 1].value
        value = _int(given) if given is not None else default
        if value is None:
            return None
        out.append((value, call))
    return out or None


def _module_level(names, node: cst.CSTNode) -> bool:
    """`node` (a binding) is in a statement of the module itself, not of a def or class."""
    current = names.parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)):
        current = names.parent(current)
    return isinstance(current, cst.Module)


def _calls_of_class(file, cls: cst.ClassDef) -> list[cst.Call]:
    names = file.analysis.names
    out = []
    for node in walk(names.wrapper.module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == cls.name.value:
            if any(getattr(a, "node", None) is cls for a in names.assignments(node.func)):
                out.append(node)
    return out


def _short_api(api: str) -> str:
    return {"tensorflow.function": "tf.function"}.get(api, api)


def _range_args(iterable: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range" \
            and 1 <= len(iterable.args) <= 3 and not any(a.keyword or a.star for a in iterable.args):
        return [a.value for a in iterable.args]
    return None


def _range_length(file, args: list[cst.BaseExpression]) -> str:
    """The trip count of `range(*args)`, spelled: `n`, `n - 1` for `range(1, n)`, `len(range(a, b, c))`."""
    code = [file.code(a).strip() for a in args]
    if len(args) == 1:
        return code[0]
    if len(args) == 2:
        start = _int(args[0])
        if start == 0:
            return code[1]
        stop = code[1] if isinstance(args[1], (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) else f"({code[1]})"
        return f"{stop} - {start}" if start is not None and start > 0 else f"{stop} - ({code[0]})"
    return f"len(range({', '.join(code)}))"


def _int(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    return None


def _length_source(expr: cst.BaseExpression, alias=lambda name: None) -> cst.BaseExpression | None:
    """`x` in `x.shape[0] - 1`, `len(x)`, `x.shape[0]`: the array whose leading length counts; through
    a local bound once to such a length (`n = x.shape[0]`, `alias` gives its value)."""
    stack = [expr]
    seen = 0
    while stack and seen < 20:
        node = stack.pop()
        seen += 1
        if isinstance(node, cst.Name):
            value = alias(node.value)
            if value is not None:
                stack.append(value)
            continue
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" \
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
                and isinstance(node.slice[0].slice.value, cst.Integer) and node.slice[0].slice.value.value == "0":
            return node.value.value
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            return node.args[0].value
        if isinstance(node, cst.BinaryOperation):
            stack += [node.left, node.right]
    return None


def _enumerated(iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    """`xs` in `enumerate(xs)` (no start)."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate" \
            and len(iterable.args) == 1 and not iterable.args[0].keyword and not iterable.args[0].star:
        return iterable.args[0].value
    return None


def _base(sequence: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(sequence, cst.Subscript):
        sequence = sequence.value
    return sequence


# Attributes a Python list or tuple does not have: a parameter read with one of them is an array.
_ARRAY_ATTRIBUTES = frozenset("shape ndim dtype at T mT size astype reshape".split())


def _array_evidence(file, fn, name: str) -> bool:
    """`fn` reads `name.shape` (or another attribute only arrays have) and never rebinds `name`."""
    evidence = False
    for node in _names(fn.body):
        if node.value != name:
            continue
        if _is_binding(file, node):
            return False
        parent = file.analysis.names.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in _ARRAY_ATTRIBUTES:
            evidence = True
    return evidence


def _pairs(parts: list[cst.BaseExpression]) -> int | None:
    """k for consecutive pairs of one sequence: `zip(s, s[k:])` or `zip(s[:-k], s[k:])` (k > 0)."""
    if len(parts) != 2 or not isinstance(parts[1], cst.Subscript):
        return None
    code = cst.Module([]).code_for_node
    shift = _slice_start(parts[1])
    if shift is None or shift <= 0 or not isinstance(parts[1].value, cst.Name):
        return None
    if code(parts[0]) == code(parts[1].value):
        return shift
    if isinstance(parts[0], cst.Subscript) and code(parts[0].value) == code(parts[1].value) \
            and _slice_stop(parts[0]) == -shift:
        return shift
    return None


def _stacks_rows(file, call: cst.Call) -> bool:
    """`jnp.stack(ys)`, `jnp.stack(ys, axis=0)`, `jnp.array(ys)`, `jnp.asarray(ys)`: the rows stacked on a new first axis."""
    qualified = file.analysis.names.qualified_names(call.func) & _STACKERS
    if not qualified:
        return False
    rest = call.args[1:]
    if not rest:
        return True
    return qualified == {"jax.numpy.stack"} and len(rest) == 1 and rest[0].keyword is not None \
        and rest[0].keyword.value == "axis" and _int(rest[0].value) == 0


def _zip_parts(iterable: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip" \
            and len(iterable.args) >= 2 and not any(a.keyword or a.star for a in iterable.args):
        return [a.value for a in iterable.args]
    return None


def _aligned(parts: list[cst.BaseExpression], doubts: list[str]) -> list[cst.BaseExpression]:
    """`zip(ts, ts[1:])` stops at the shorter: scan needs `(ts[:-1], ts[1:])`. Other mixes are doubted."""
    code = [cst.Module([]).code_for_node(p) for p in parts]
    if len(parts) == 2 and isinstance(parts[1], cst.Subscript) and cst.Module([]).code_for_node(parts[1].value) == code[0]:
        shift = _slice_start(parts[1])
        if shift is not None and shift > 0:
            trimmed = cst.Subscript(parts[0], [cst.SubscriptElement(cst.Slice(None, cst.UnaryOperation(cst.Minus(), cst.Integer(str(shift)))))])
            return [trimmed, parts[1]]
    if _pairs(parts) is not None:  # `s[:-k]` and `s[k:]`: one length (0 when `s` is shorter than k)
        return parts
    if not all(isinstance(p, cst.Name) for p in parts):
        doubts.append("`zip` stops at the shortest sequence, and nothing shows they have one length")
    else:
        doubts.append("`zip` stops at the shortest sequence, `scan` needs one length: nothing shows "
                      f"{' and '.join(f'`{c}`' for c in code)} have one")
    return parts


def _slice_start(sub: cst.Subscript) -> int | None:
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Slice):
        return None
    s = sub.slice[0].slice
    if s.upper is not None or s.step is not None or not isinstance(s.lower, cst.Integer):
        return None
    return int(s.lower.value, 0)


def _slice_stop(sub: cst.Subscript) -> int | None:
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Slice):
        return None
    s = sub.slice[0].slice
    if s.lower is not None or s.step is not None or s.upper is None:
        return None
    return _int(s.upper)


def _append_of(statement) -> cst.Call | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Expr):
        call = statement.body[0].value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append" \
                and isinstance(call.func.value, cst.Name) and len(call.args) == 1 and not call.args[0].keyword \
                and not call.args[0].star:
            return call
    return None


def _has_work(body) -> bool:
    """The body computes something (a call or arithmetic): an empty or bookkeeping body costs nothing."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.BinaryOperation, cst.AugAssign)):
            return True
        if isinstance(node, cst.Call) and not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "append"):
            return True
        stack.extend(children(node))
    return False


def _reads(loop: cst.For, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _names(loop.body))


def _names(node: cst.CSTNode):
    return (n for n in walk(node) if isinstance(n, cst.Name))


def _index_use(file, flow: FunctionFlow, loop: cst.For, index: str) -> str:
    """Why the loop index, a tracer inside `scan`, may not work where the body reads it ("" when every
    read indexes an array: `x[i]`, `x.at[i]`)."""
    traced = file.analysis.traced
    for name in _names(loop.body):
        if name.value != index:
            continue
        parent = file.analysis.names.parent(name)
        node = parent  # through integer arithmetic (`x[n + 1]`) up to the subscript it indexes
        while isinstance(node, (cst.BinaryOperation, cst.UnaryOperation, cst.Index, cst.SubscriptElement)):
            node = file.analysis.names.parent(node)
        if isinstance(node, cst.Subscript) and node.value is not name:
            base = node.value.value if isinstance(node.value, cst.Attribute) and node.value.attr.value == "at" else node.value
            value = traced.value_at(loop.iter, base)
            if value.traced:
                continue
            if value.static:
                raise Refused(f"the index `{index}` indexes the Python value `{file.code(base).strip()}`: inside `scan` "
                              "it is a tracer")
        return f"the index `{index}` is read as a Python int (`{file.code(parent).strip()}`); inside `scan` it is a tracer"
    return ""


def _enclosing_block(file, loop: cst.For) -> list:
    parent = file.analysis.names.parent(loop)
    return list(parent.body) if isinstance(parent, cst.IndentedBlock) else []


def _unrolls_or_fails(compiler: compilers.Compiler) -> bool:
    """The loops `leave_Module` reads: of a `rewritable` flow, or one whose compiler unrolls loops."""
    return compiler.fails_on_control_flow or compiler.unrolls_loops
