"""PML201 traced-if."""
from __future__ import annotations

from dataclasses import dataclass

from rewriter.lazy_libcst import cst

from rewriter.analysis.structure import defined_before
from rewriter.analysis.trace_values import FunctionFlow, Trace
from rewriter.codemod import Codemod, Example, InsertBefore, Replace, Unchanged, dedented
from rewriter.emit.agreement import branch_agreement
from rewriter.emit.branches import Effect, Refused, effect, reads_any
from rewriter.emit.condition import NotConvertible, tensor_condition
from rewriter.emit.frameworks import Emitter, atom
from rewriter.emit.safety import guardable, guarded, has_work, risks
from rewriter.findings import Safety, Severity

from ._control_flow import (CONCRETIZED, block_statements, converts_on_ast, emitter, library_call, needs_conversion,
                            traced_message, traced_condition_gate, traced_nodes)


@dataclass
class _Branch:
    test: cst.BaseExpression | None  # None: the final else
    effect: Effect


class TracedIf(Codemod):
    """A Python `if` (or `a if c else b`) whose condition is a traced value cannot be decided while
    tracing: `jax.jit` raises `TracerBoolConversionError`, PhiML's `jit_compile` raises on jax and
    tensorflow and — worst — on torch silently keeps the branch of the first call for every later
    call (measured: `if (x > 0).all: return 2 * x` returns `-2 * x` for positive inputs on the
    second call); with tensorflow as PhiML's backend it works only where autograph can convert it.
    `torch.jit.trace` silently bakes in the branch of the example input, and `tf.function` with
    autograph off raises `OperatorNotAllowedInGraphError` (with autograph on, it converts the `if`,
    and nothing is reported). The message quotes how the condition derives from a traced value
    (`x` -> `y` -> `.any`); the traced parameter and each assignment on the way are its related
    locations.

    A value-selecting `if` (each branch assigns the same names, or returns) becomes a selection in
    the framework the code already uses: `math.where` for PhiML, `jnp.where` (cheap branches) or
    `jax.lax.cond` (branches with real work: only one runs, gradients stay clean) for jax,
    `torch.where` under `torch.jit.trace`, `tf.where` / `tf.cond` for `tf.function(autograph=False)`.
    `elif` chains nest, `if` without `else` keeps the old value, `and`/`or`/`not` become tensor
    logic and PhiML's `t.all`/`t.any` become `math.all(t, dim=math.shape)`/`math.any(t, dim=math.shape)`
    (every dimension, batch ones included, as the properties reduce).

    Conditions on static values — shapes, `static_argnums`/`auxiliary_args`, `is None`,
    `isinstance`, `.available` (and `x.available and ...`, whose right side never runs while
    tracing), `math.always_close`, module constants, configuration read through `self`, the truth
    of a list of tracers built in the function (`if leaves:`, its length) — are never
    touched: see `phiml-rewrite explain-trace FILE:LINE` for why a condition is considered traced
    (it names the lines of the derivation). A condition whose traced-ness cannot be decided (an
    attribute that may be a static field, a type predicate defined elsewhere) is reported as info,
    never rewritten.
    A condition on a configuration parameter — a flag or mode that the calls in the file pass as a
    Python value, or that is annotated `bool`/`int`/`str` — is PML204's: declaring it static keeps
    the `if`, where a selection would merge branches of different shapes. Branches with side
    effects, `break`/`return` in only one branch, or variables defined in only one branch are
    reported without a fix; so are branches that are not arrays (`fn = jax.lax.dot if c else
    jnp.matmul`) or whose structures differ.
    """

    CODE = "PML201"
    NAME = "traced-if"
    SUMMARY = "a Python `if` on a traced value fails or silently bakes in one branch under jit: select with where/cond"
    SAFETY = Safety.SAFE
    REMOVES_ERRORS = True
    SAFETY_VARIES = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe only when the merge is provably faithful: every result has the same shape, dtype and pytree "
        "structure in every branch (both elementwise in the same value, of the same dtype — with dtype evidence "
        "from the calls, e.g. `math.tensor([1., 2.])` passed), and evaluating every branch is harmless (names, "
        "arithmetic without division, library functions) or the selection is `lax.cond` / `tf.cond`, which runs "
        "one branch. Unsafe when that cannot be proven (two values whose shapes may differ, a number next to an "
        "array, an unknown function's result, a division `where` would also evaluate): the fix is applied only "
        "on request, and its note says why. A division or `sqrt`/`log` that `where` evaluates in the branch it "
        "does not select is guarded with a second `where` (denominator or argument 1 there), so values and "
        "gradients stay finite; the fix stays unsafe. Not rewritten at all when a branch is provably not an array (a "
        "function, string, None, module), when the branches' structures differ (a tuple and an array), when the "
        "condition is configuration (a flag the calls pass as a Python value: PML204 declares it static instead), "
        "when a test expects the call to fail, or when the condition cannot be decided (reported as info)."
    )
    EXAMPLES = (
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile
                def relu_or_flip(x):
                    if (x > 0).all:
                        return x * 2
                    return -x
            """),
            dedented("""
                from phiml import math


                @math.jit_compile
                def relu_or_flip(x):
                    return math.where(math.all(x > 0, dim=math.shape), x * 2, -x)
            """),
        ),
        Example(
            dedented("""
                import jax
                import jax.numpy as jnp


                @jax.jit
                def step(x, dt):
                    if jnp.max(x) > 1:
                        y = jnp.linalg.solve(jnp.eye(2) + dt, x)
                    else:
                        y = x
                    return y
            """),
            dedented("""
                import jax
                import jax.numpy as jnp


                @jax.jit
                def step(x, dt):
                    y = jax.lax.cond(jnp.max(x) > 1, lambda: jnp.linalg.solve(jnp.eye(2) + dt, x), lambda: x)
                    return y
            """),
            "a branch with real work becomes `lax.cond`: only the selected branch runs",
        ),
        Unchanged(dedented("""
            @jax.jit
            def pad_short(x):
                if x.shape[0] < 4:
                    return jnp.pad(x, (0, 4 - x.shape[0]))
                return x
        """), "a condition on a shape"),
        Unchanged(dedented("""
            @partial(jax.jit, static_argnames=("flip",))
            def scale(x, flip: bool):
                if flip:
                    return -x
                return x
        """), "a condition on a static argument"),
        Unchanged(dedented("""
            @math.jit_compile
            def shift(x, offset=None):
                if offset is None:
                    return x
                return x + offset
        """), "an `is None` check"),
    )
    HAZARDS = ("`jax.lax.fori_loop`, `jax.lax.while_loop`. `jax.lax.cond`",)
    PROJECT_FACTS = frozenset({"traces"})
    READS_FACTS = True
    TRIGGERS = (("jit",), ("function",), ("trace",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        return traced_condition_gate(syntax)

    @classmethod
    def may_report(cls, file) -> bool:
        return converts_on_ast(file)

    def leave_Module(self, original_node: cst.Module) -> None:
        for flow, node in traced_nodes(self.file, (cst.If, cst.IfExp)):
            if isinstance(node, cst.IfExp):
                self._check_ifexp(flow, node)
            elif not self._is_elif(node):
                self._check_if(flow, node)

    def _is_elif(self, node: cst.If) -> bool:
        parent = self.parent(node)
        return isinstance(parent, cst.If) and parent.orelse is node

    # -- if statements -----------------------------------------------------------------------
    def _check_if(self, flow: FunctionFlow, top: cst.If) -> None:
        chain: list[cst.If] = [top]
        while isinstance(chain[-1].orelse, cst.If):
            chain.append(chain[-1].orelse)
        values = [flow.value_of(c.test) for c in chain]
        first = next((i for i, v in enumerate(values) if v is not None and not v.static), None)
        if first is None:
            return
        target = chain[first]
        value = needs_conversion(self, flow, target.test)
        if value is None:
            return
        head, places = traced_message(self.file, flow, "`if` on a traced value", target.test, value)
        unknown = next((v for v in values[first:] if v is not None and v.trace is Trace.UNKNOWN), None)
        if unknown is not None:
            chain_text, more = unknown.derivation()
            self.report(target.test, head, hint=_hint(flow), related=places + more,
                        note=f"not rewritten: a later `elif` condition cannot be decided: {chain_text}")
            return
        try:
            if any(v is not None and v.concretized for v in values[first:]):
                raise Refused(CONCRETIZED)
            self._rewrite(flow, chain, first, head, places)
        except (Refused, NotConvertible) as why:
            self.report(target.test, head, hint=_hint(flow), note=f"not rewritten: {why}", related=places)

    def _rewrite(self, flow: FunctionFlow, chain: list[cst.If], first: int, head: str, places: list) -> None:
        target = chain[first]
        last = chain[-1]
        branches = [_Branch(c.test, effect(block_statements(c))) for c in chain[first:]]
        removed: cst.BaseStatement | None = None
        if last.orelse is not None:
            branches.append(_Branch(None, effect(block_statements(last.orelse))))
        elif all(b.effect.returns for b in branches):
            following = self._following_return(chain[0]) if first == 0 else None
            if following is None:
                raise Refused("every branch returns but no `return` follows the `if`; add an explicit `else`")
            removed = following
            branches.append(_Branch(None, effect([following])))
        else:
            branches.append(_Branch(None, Effect()))
        returns = {b.effect.returns for b in branches}
        if len(returns) > 1:
            raise Refused("one branch returns and another falls through: the code after the `if` would have to run conditionally")
        returning = returns.pop()
        function = flow.context.function
        names: list[str] = []
        if not returning:
            for b in branches:
                names += [n for n in b.effect.values if n not in names]
            if not names:
                raise Refused("no branch assigns a value")
            for name in names:
                if any(name not in b.effect.values for b in branches) and not defined_before(self.file.analysis.names, function, name, target):
                    raise Refused(f"`{name}` is assigned in only some branches and has no value before the `if`")
        per_branch = [
            [b.effect.returned] if returning else [b.effect.values.get(n, cst.Name(n)) for n in names]
            for b in branches
        ]
        traced_tests = [b.test for b in branches if b.test is not None and not getattr(flow.value_of(b.test), "static", True)]
        doubt = branch_agreement(self.file, flow, target, per_branch, traced_tests)
        emit, spelling = emitter(self.file, flow)
        pure = library_call(self.file)
        values_flat = [v for vs in per_branch for v in vs]
        tests = [b.test for b in branches if b.test is not None]
        danger = [r for e in [*values_flat, *tests] for r in risks(e, pure)]
        use_cond = emit.has_cond and (danger or any(has_work(v) for v in values_flat)) and not any(map(_literal, values_flat))
        guard = bool(danger) and not use_cond and all(guardable(v, pure) for v in values_flat)
        pre: list[cst.BaseStatement] = []
        conditions: list[cst.BaseExpression | None] = []
        for b in branches[:-1]:
            value = flow.value_of(b.test)
            if value is None or value.static:
                conditions.append(None)  # static: stays a Python conditional expression
                continue
            converted = tensor_condition(b.test, emit, lambda e, t=b.test: self.file.analysis.traced.value_at(t, e))
            uses = 1 if use_cond else len(per_branch[0]) * (3 if guard else 1)
            if uses > 1 and not isinstance(converted, cst.Name):
                temp = self.file.analysis.fresh_name("condition")
                pre.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(temp))], converted)]))
                converted = cst.Name(temp)
            conditions.append(converted)

        def select(condition, test, if_true, if_false):
            if condition is None:
                return cst.IfExp(test=atom(test), body=atom(if_true), orelse=atom(if_false))
            if use_cond:
                return emit.cond(condition, if_true, if_false)
            if guard:
                if_true = guarded(if_true, lambda d: emit.where(condition, d, cst.Integer("1")))
                if_false = guarded(if_false, lambda d: emit.where(condition, cst.Integer("1"), d))
            return emit.where(condition, if_true, if_false)

        if use_cond and len(per_branch[0]) > 1:
            packed = [cst.Tuple([cst.Element(v) for v in vs]) for vs in per_branch]
            result = packed[-1]
            for i in range(len(branches) - 2, -1, -1):
                result = select(conditions[i], branches[i].test, packed[i], result)
            results = [result]
        else:
            results = []
            for k in range(len(per_branch[0])):
                result = per_branch[-1][k]
                for i in range(len(branches) - 2, -1, -1):
                    result = select(conditions[i], branches[i].test, per_branch[i][k], result)
                results.append(result)
        if returning:
            statements = [*pre, cst.SimpleStatementLine([cst.Return(results[0])])]
        else:
            if len(names) == 1:
                targets, value = cst.Name(names[0]), results[0]
            elif len(results) == len(names) and not any(reads_any(r, names) for r in results):
                targets = None  # one statement per name reads best when no value reads another's name
            else:
                targets = cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])
                value = results[0] if len(results) == 1 else cst.Tuple([cst.Element(r) for r in results], lpar=[], rpar=[])
            if targets is None:
                statements = [*pre, *(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(n))], r)])
                                      for n, r in zip(names, results))]
            else:
                statements = [*pre, cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(targets)], value)])]
        edits = []
        if first == 0:
            statements[0] = statements[0].with_changes(leading_lines=target.leading_lines)
            edits.append(Replace(target, cst.FlattenSentinel(statements)))
        else:
            edits.append(Replace(target, cst.Else(body=cst.IndentedBlock(statements))))
        if removed is not None:
            edits.append(Replace(removed, cst.RemovalSentinel.REMOVE))
        how = _how(emit, use_cond)
        if danger and not use_cond:
            unique = ", ".join(dict.fromkeys(danger))
            guarded_note = " (denominators and sqrt/log arguments guarded with a second `where` so gradients stay finite)" if guard else ""
            doubt_note = f"; and {doubt}" if doubt else ""
            self.report(target.test, head, edits=edits, safety=Safety.UNSAFE, imports=spelling.imports, related=places,
                        fix_description=f"select with {how} (unsafe: every branch is evaluated)",
                        note=f"{how} evaluates every branch: {unique}{guarded_note}{doubt_note}")
            return
        if doubt:
            self.report(target.test, head, edits=edits, safety=Safety.UNSAFE, imports=spelling.imports, related=places,
                        fix_description=f"select with {how} (unsafe: the branches may not agree)", note=f"unsafe: {doubt}",
                        provable=True)
            return
        self.report(target.test, head, edits=edits, imports=spelling.imports, related=places,
                    fix_description=f"select with {how}")

    def _following_return(self, node: cst.If) -> cst.SimpleStatementLine | None:
        block = self.parent(node)
        body = list(getattr(block, "body", ()))
        index = next((i for i, s in enumerate(body) if s is node), None)
        if index is None or index + 1 >= len(body):
            return None
        nxt = body[index + 1]
        if isinstance(nxt, cst.SimpleStatementLine) and len(nxt.body) == 1 and isinstance(nxt.body[0], cst.Return):
            return nxt
        return None

    # -- conditional expressions -------------------------------------------------------------
    def _check_ifexp(self, flow: FunctionFlow, node: cst.IfExp) -> None:
        value = needs_conversion(self, flow, node.test)
        if value is None:
            return
        head, places = traced_message(self.file, flow, "conditional expression on a traced value", node.test, value)
        emit, spelling = emitter(self.file, flow)
        pure = library_call(self.file)
        try:
            if value.concretized:
                raise Refused(CONCRETIZED)
            condition = tensor_condition(node.test, emit, lambda e: self.file.analysis.traced.value_at(node.test, e))
            doubt = branch_agreement(self.file, flow, node, [[node.body], [node.orelse]], [node.test])
        except (NotConvertible, Refused) as why:
            self.report(node.test, head, hint=_hint(flow), note=f"not rewritten: {why}", related=places)
            return
        danger = [*risks(node.body, pure), *risks(node.orelse, pure), *risks(node.test, pure)]
        use_cond = emit.has_cond and (danger or has_work(node.body) or has_work(node.orelse)) \
            and not _literal(node.body) and not _literal(node.orelse)
        body, orelse = node.body, node.orelse
        guard = bool(danger) and not use_cond and guardable(body, pure) and guardable(orelse, pure)
        edits = []
        if use_cond:
            new = emit.cond(condition, body, orelse)
        else:
            statement = self.parent(self.parent(node)) if isinstance(self.parent(node), (cst.Assign, cst.AnnAssign, cst.Return)) else None
            if guard and not isinstance(condition, cst.Name):
                if isinstance(statement, cst.SimpleStatementLine):
                    temp = self.file.analysis.fresh_name("condition")
                    edits.append(InsertBefore(statement, (cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(temp))], condition)]),)))
                    condition = cst.Name(temp)
                else:
                    guard = False  # the condition would be written three times
            if guard:
                body = guarded(body, lambda d: emit.where(condition, d, cst.Integer("1")))
                orelse = guarded(orelse, lambda d: emit.where(condition, cst.Integer("1"), d))
            new = emit.where(condition, body, orelse)
        new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
        how = _how(emit, use_cond)
        if danger and not use_cond:
            doubt_note = f"; and {doubt}" if doubt else ""
            self.report(node.test, head, edits=[*edits, Replace(node, new)], safety=Safety.UNSAFE, imports=spelling.imports,
                        related=places, fix_description=f"select with {how} (unsafe: both branches are evaluated)",
                        note=f"{how} evaluates both branches: {', '.join(dict.fromkeys(danger))}{doubt_note}")
            return
        if doubt:
            self.report(node.test, head, edits=[*edits, Replace(node, new)], safety=Safety.UNSAFE, imports=spelling.imports,
                        related=places, fix_description=f"select with {how} (unsafe: the branches may not agree)",
                        note=f"unsafe: {doubt}", provable=True)
            return
        self.report(node.test, head, edits=[*edits, Replace(node, new)], imports=spelling.imports, related=places,
                    fix_description=f"select with {how}")



def _literal(value: cst.BaseExpression) -> bool:
    """A number or None: `cond` needs both branches of one shape and dtype, `where` broadcasts it."""
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float)) or isinstance(value, cst.Name) and value.value == "None"


_WHERE = {"phiml": "`math.where`", "jax": "`jnp.where`", "torch": "`torch.where`", "tensorflow": "`tf.where`"}


def _hint(flow: FunctionFlow) -> str:
    """What to do by hand when the `if` is not rewritten."""
    return f"select with {_WHERE.get(flow.framework, 'a `where`')} by hand, or make the condition a static value"


def _how(emit: Emitter, use_cond: bool) -> str:
    if use_cond:
        return "`jax.lax.cond`" if emit.framework == "jax" else "`tf.cond`"
    return _WHERE[emit.framework]
