"""PML201 traced-if."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.ast_structure import defined_before, is_elif, line_head
from rewriter.analysis.trace_values import FunctionFlow, Trace
from rewriter.ast_rule import AstRule, PlannedFix, locator_of
from rewriter.codemod import InsertBefore, Replace
from rewriter.emit import ast_branches, ast_safety
from rewriter.emit.ast_agreement import branch_agreement, stacked_by_where
from rewriter.emit.ast_condition import ARRAY_MODULES, condition_spellings
from rewriter.emit.branches import Effect, Refused, effect, reads_any
from rewriter.emit.condition import NotConvertible, tensor_condition
from rewriter.emit.frameworks import MODULES, Emitter, atom
from rewriter.emit.safety import guarded
from rewriter.emit.spelling import PlannedSpelling
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._control_flow import (CONCRETIZED, Reading, block_statements, import_heads, library_call_on_ast,
                            needs_conversion_on_ast, parts_value_of, planned_spellings, reading_of, traced_condition_gate,
                            traced_message_on_ast, traced_nodes_on_ast)

# The module of each framework's one-branch selection (frameworks.Emitter.cond), where it has one.
_CONDS = {framework: modules[1] for framework, modules in MODULES.items() if modules[1] is not None}


@dataclass
class _Branch:
    """One branch of an `if` chain: its condition and its effect."""
    test: "cst.BaseExpression | ast.expr | None"  # None: the final else
    effect: Effect


class TracedIf(AstRule):
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
    jnp.matmul`), whose structures differ, or that give a tuple `where` would stack into one array
    (`lax.cond` / `tf.cond` keep it a tuple).
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
        "function, string, None, module), when the branches' structures differ (a tuple and an array) or a tuple "
        "would go through `where` (which stacks it), when the "
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

    def check(self) -> None:
        file = self.file
        for flow, node in traced_nodes_on_ast(file, (ast.If, ast.IfExp)):
            if isinstance(node, ast.IfExp):
                self._check_ifexp(flow, node)
            elif not self._is_elif(node):
                self._check_if(flow, node)

    def _is_elif(self, node: ast.If) -> bool:
        parent = self.file.names.parent(node)
        return isinstance(parent, ast.If) and self._elif_of(parent) is node

    def _elif_of(self, node: ast.If) -> ast.If | None:
        """The `elif` that continues `node`'s chain (libcst's `If.orelse`), not an `if` inside its `else:`."""
        orelse = node.orelse
        if len(orelse) == 1 and is_elif(self.file.names, self.file.reading.lines, orelse[0]):  # type: ignore[union-attr]
            return orelse[0]  # type: ignore[return-value]
        return None

    # -- if statements -----------------------------------------------------------------------
    def _check_if(self, flow: FunctionFlow, top: ast.If) -> None:
        chain: list[ast.If] = [top]
        while (following := self._elif_of(chain[-1])) is not None:
            chain.append(following)
        values = [flow.value_of(c.test) for c in chain]
        first = next((i for i, v in enumerate(values) if v is not None and not v.static), None)
        if first is None:
            return
        target = chain[first]
        value = needs_conversion_on_ast(self, flow, target.test)
        if value is None:
            return
        head, places = traced_message_on_ast(self.file, flow, "`if` on a traced value", target.test, value)
        unknown = next((v for v in values[first:] if v is not None and v.trace is Trace.UNKNOWN), None)
        if unknown is not None:
            chain_text, more = unknown.derivation()
            self.report(target.test, head, hint=_hint(flow), related=places + more,
                        note=f"not rewritten: a later `elif` condition cannot be decided: {chain_text}")
            return
        try:
            if any(v is not None and v.concretized for v in values[first:]):
                raise Refused(CONCRETIZED)
            self._plan_if(flow, chain, first, head, places)
        except (Refused, NotConvertible) as why:
            self.report(target.test, head, hint=_hint(flow), note=f"not rewritten: {why}", related=places)

    def _plan_if(self, flow: FunctionFlow, chain: list[ast.If], first: int, head: str, places: list) -> None:
        """Decide the selection an `if` chain becomes (or raise Refused/NotConvertible), and report it with
        the fix planned: `_write_if` builds it on libcst, from these decisions."""
        file = self.file
        target, last = chain[first], chain[-1]
        branches = [_Branch(c.test, ast_branches.effect(c.body, source=file)) for c in chain[first:]]
        removed: ast.Return | None = None
        if last.orelse:
            branches.append(_Branch(None, ast_branches.effect(last.orelse, source=file)))
        elif all(b.effect.returns for b in branches):
            following = self._following_return(chain[0]) if first == 0 else None
            if following is None:
                raise Refused("every branch returns but no `return` follows the `if`; add an explicit `else`")
            removed = following
            branches.append(_Branch(None, ast_branches.effect([following], source=file)))
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
                if any(name not in b.effect.values for b in branches) and not defined_before(file.names, function, name, target):
                    raise Refused(f"`{name}` is assigned in only some branches and has no value before the `if`")
        per_branch = [
            [b.effect.returned] if returning else [b.effect.values.get(n, ast.Name(n, ast.Load())) for n in names]
            for b in branches
        ]
        traced_tests = [b.test for b in branches if b.test is not None and not getattr(flow.value_of(b.test), "static", True)]
        doubt = branch_agreement(file, flow, target, per_branch, traced_tests, code=self._code)
        pure = library_call_on_ast(file)
        values_flat = [v for vs in per_branch for v in vs]
        tests = [b.test for b in branches if b.test is not None]
        danger = [r for e in [*values_flat, *tests] for r in ast_safety.risks(e, pure)]
        has_cond = flow.framework in _CONDS
        use_cond = has_cond and (danger or any(map(ast_safety.has_work, values_flat))) \
            and not any(map(ast_safety.literal, values_flat))
        if not use_cond and stacked_by_where(file, flow, target, per_branch):
            raise Refused(_STACKED)
        guard = bool(danger) and not use_cond and all(ast_safety.guardable(v, pure) for v in values_flat)
        spelled: list[tuple[str, str]] = []
        static: list[bool] = []
        temps: list[str | None] = []
        for b in branches[:-1]:
            value = flow.value_of(b.test)
            if value is None or value.static:
                static.append(True)
                temps.append(None)
                continue
            names_spelled, is_name = condition_spellings(b.test, flow.framework, partial(file.traced.value_at, b.test))
            spelled += names_spelled
            uses = 1 if use_cond else len(per_branch[0]) * (3 if guard else 1)
            static.append(False)
            temps.append(file.fresh_name("condition") if uses > 1 and not is_name else None)
        spelled.append((_CONDS[flow.framework], "cond") if use_cond else (ARRAY_MODULES[flow.framework], "where"))
        texts, imports = planned_spellings(self.file, spelled)
        decision = _IfDecision(flow.framework, returning, tuple(names), use_cond, guard, tuple(static), tuple(temps),
                               texts, reading_of(self.file), tuple(c.test for c in chain[first:]))
        at = (target,) if removed is None else (target, removed)
        how = _how(flow.framework, use_cond)
        build = partial(_write_if, decision=decision)
        heads = import_heads(texts)
        if danger and not use_cond:
            unique = ", ".join(dict.fromkeys(danger))
            guarded_note = " (denominators and sqrt/log arguments guarded with a second `where` so gradients stay finite)" if guard else ""
            doubt_note = f"; and {doubt}" if doubt else ""
            fix = PlannedFix(f"select with {how} (unsafe: every branch is evaluated)", at, build, Safety.UNSAFE, imports=imports,
                             reads=at, spelled=heads)
            self.report(target.test, head, fix=fix, related=places, note=f"{how} evaluates every branch: {unique}{guarded_note}{doubt_note}")
            return
        if doubt:
            fix = PlannedFix(f"select with {how} (unsafe: the branches may not agree)", at, build, Safety.UNSAFE, provable=True,
                             imports=imports, reads=at, spelled=heads)
            self.report(target.test, head, fix=fix, related=places, note=f"unsafe: {doubt}")
            return
        self.report(target.test, head, fix=PlannedFix(f"select with {how}", at, build, imports=imports, reads=at, spelled=heads),
                    related=places)

    def _following_return(self, node: ast.If) -> ast.Return | None:
        """The `return` alone on its line right after `node` in its block (None: something else follows)."""
        parent = self.file.names.parent(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list):
                index = next((i for i, s in enumerate(block) if s is node), None)
                if index is not None:
                    following = block[index + 1] if index + 1 < len(block) else None
                    if isinstance(following, ast.Return) and self.file.reading.alone_on_its_lines(following):  # type: ignore[union-attr]
                        return following
                    return None
        return None

    # -- conditional expressions -------------------------------------------------------------
    def _check_ifexp(self, flow: FunctionFlow, node: ast.IfExp) -> None:
        file = self.file
        value = needs_conversion_on_ast(self, flow, node.test)
        if value is None:
            return
        head, places = traced_message_on_ast(file, flow, "conditional expression on a traced value", node.test, value)
        pure = library_call_on_ast(file)
        try:
            if value.concretized:
                raise Refused(CONCRETIZED)
            spelled, is_name = condition_spellings(node.test, flow.framework, partial(file.traced.value_at, node.test))
            doubt = branch_agreement(file, flow, node, [[node.body], [node.orelse]], [node.test], code=self._code)
        except (NotConvertible, Refused) as why:
            self.report(node.test, head, hint=_hint(flow), note=f"not rewritten: {why}", related=places)
            return
        danger = [*ast_safety.risks(node.body, pure), *ast_safety.risks(node.orelse, pure), *ast_safety.risks(node.test, pure)]
        use_cond = flow.framework in _CONDS and (danger or ast_safety.has_work(node.body) or ast_safety.has_work(node.orelse)) \
            and not ast_safety.literal(node.body) and not ast_safety.literal(node.orelse)
        if not use_cond and stacked_by_where(file, flow, node, [[node.body], [node.orelse]]):
            self.report(node.test, head, hint=_hint(flow), note=f"not rewritten: {_STACKED}", related=places)
            return
        guard = bool(danger) and not use_cond and ast_safety.guardable(node.body, pure) and ast_safety.guardable(node.orelse, pure)
        temp = None
        if not use_cond and guard and not is_name:
            parent = file.names.parent(node)
            statement = parent if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return)) and parent.value is node else None
            if statement is not None and line_head(file.names, file.reading.lines, statement) is statement:  # type: ignore[union-attr]
                temp = file.fresh_name("condition")
            else:
                guard = False  # the condition would be written three times, or computed before what it reads
        spelled.append((_CONDS[flow.framework], "cond") if use_cond else (ARRAY_MODULES[flow.framework], "where"))
        texts, imports = planned_spellings(self.file, spelled)
        heads = import_heads(texts)
        decision = _IfExpDecision(flow.framework, use_cond, guard, temp, texts, reading_of(self.file), node.test)
        fix_at = (node,)
        build = partial(_write_ifexp, decision=decision)
        how = _how(flow.framework, use_cond)
        if danger and not use_cond:
            doubt_note = f"; and {doubt}" if doubt else ""
            fix = PlannedFix(f"select with {how} (unsafe: both branches are evaluated)", fix_at, build, Safety.UNSAFE,
                             imports=imports, reads=fix_at, spelled=heads)
            self.report(node.test, head, fix=fix, related=places,
                        note=f"{how} evaluates both branches: {', '.join(dict.fromkeys(danger))}{doubt_note}")
            return
        if doubt:
            fix = PlannedFix(f"select with {how} (unsafe: the branches may not agree)", fix_at, build, Safety.UNSAFE,
                             provable=True, imports=imports, reads=fix_at, spelled=heads)
            self.report(node.test, head, fix=fix, related=places, note=f"unsafe: {doubt}")
            return
        self.report(node.test, head, fix=PlannedFix(f"select with {how}", fix_at, build, imports=imports, reads=fix_at,
                                                    spelled=heads), related=places)

    # -- shared --------------------------------------------------------------------------------
    def _code(self, value: ast.expr) -> str:
        """A branch value's code as libcst writes it (a value the branch rebuilt: as the rewrite writes it)."""
        return ast_branches.written(self.file, value)



@dataclass(frozen=True)
class _IfDecision:
    """What `_plan_if` decided, for `_write_if` to build on libcst."""

    framework: str
    returning: bool
    names: tuple[str, ...]
    use_cond: bool
    guard: bool
    static: tuple[bool, ...]  # per condition: it stays a Python conditional expression
    temps: tuple[str | None, ...]  # per condition: the temporary it is assigned to first, if any
    texts: dict[tuple[str, str], str]  # how the code spells each function it names (PlannedSpelling)
    reading: Reading
    tests: tuple[ast.expr, ...]  # the conditions, in the chain's order


@dataclass(frozen=True)
class _IfExpDecision:
    """What `_check_ifexp` decided, for `_write_ifexp` to build on libcst."""

    framework: str
    use_cond: bool
    guard: bool
    temp: str | None  # the temporary the condition is assigned to first, if any
    texts: dict[tuple[str, str], str]
    reading: Reading
    test: ast.expr


def _write_if(context, target: cst.If, *removed: cst.Return, decision: _IfDecision):
    """The selection `_plan_if` decided, written over the chain from `target` on."""
    chain: list[cst.If] = [target]
    while isinstance(chain[-1].orelse, cst.If):
        chain.append(chain[-1].orelse)
    last = chain[-1]
    branches = [_Branch(c.test, effect(block_statements(c))) for c in chain]
    removed_line = context.analysis.names.parent(removed[0]) if removed else None
    if last.orelse is not None:
        branches.append(_Branch(None, effect(block_statements(last.orelse))))
    elif removed_line is not None:
        branches.append(_Branch(None, effect([removed_line])))
    else:
        branches.append(_Branch(None, Effect()))
    names = decision.names
    per_branch = [
        [b.effect.returned] if decision.returning else [b.effect.values.get(n, cst.Name(n)) for n in names]
        for b in branches
    ]
    if len(branches) - 1 != len(decision.tests):
        raise RuntimeError("the `if` chain on libcst is not the one the rule read on `ast`")
    emit = Emitter(decision.framework, PlannedSpelling(decision.texts))
    locator = locator_of(context, decision.reading.lowered)
    use_cond, guard = decision.use_cond, decision.guard
    pre: list[cst.BaseStatement] = []
    conditions: list[cst.BaseExpression | None] = []
    for b, static, temp, test in zip(branches[:-1], decision.static, decision.temps, decision.tests):
        if static:
            conditions.append(None)  # static: stays a Python conditional expression
            continue
        converted = tensor_condition(b.test, emit, parts_value_of(locator, decision.reading, test))
        if temp is not None:
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
    if decision.returning:
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
    parent = context.analysis.names.parent(target)
    if not (isinstance(parent, cst.If) and parent.orelse is target):  # the chain's `if` itself, not an `elif`
        # The comments above a `return` the selection takes in stay, after the `if`'s own.
        kept = [line for line in removed_line.leading_lines if line.comment is not None] if removed_line is not None else []
        statements[0] = statements[0].with_changes(leading_lines=[*target.leading_lines, *kept])
        edits.append(Replace(target, cst.FlattenSentinel(statements)))
    else:
        edits.append(Replace(target, cst.Else(body=cst.IndentedBlock(statements))))
    if removed_line is not None:
        edits.append(Replace(removed_line, cst.RemovalSentinel.REMOVE))
    return edits


def _write_ifexp(context, node: cst.IfExp, *, decision: _IfExpDecision):
    """The selection `_check_ifexp` decided, written in place of the conditional expression."""
    emit = Emitter(decision.framework, PlannedSpelling(decision.texts))
    locator = locator_of(context, decision.reading.lowered)
    condition = tensor_condition(node.test, emit, parts_value_of(locator, decision.reading, decision.test))
    body, orelse = node.body, node.orelse
    edits = []
    if decision.use_cond:
        new = emit.cond(condition, body, orelse)
    else:
        if decision.temp is not None:
            statement = context.analysis.names.parent(context.analysis.names.parent(node))
            edits.append(InsertBefore(statement, (cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(decision.temp))],
                                                                                      condition)]),)))
            condition = cst.Name(decision.temp)
        if decision.guard:
            body = guarded(body, lambda d: emit.where(condition, d, cst.Integer("1")))
            orelse = guarded(orelse, lambda d: emit.where(condition, cst.Integer("1"), d))
        new = emit.where(condition, body, orelse)
    return [*edits, Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar))]


# Why a tuple is not merged with `where` (`stacked_by_where`).
_STACKED = "a branch gives a tuple or list, which `where` would stack into one array: select each element, or use `cond`"

_WHERE = {"phiml": "`math.where`", "jax": "`jnp.where`", "torch": "`torch.where`", "tensorflow": "`tf.where`"}


def _hint(flow: FunctionFlow) -> str:
    """What to do by hand when the `if` is not rewritten."""
    return f"select with {_WHERE.get(flow.framework, 'a `where`')} by hand, or make the condition a static value"


def _how(framework: str, use_cond: bool) -> str:
    if use_cond:
        return "`jax.lax.cond`" if framework == "jax" else "`tf.cond`"
    return _WHERE[framework]
