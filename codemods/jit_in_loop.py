"""PML302 jit-in-loop."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_captures import free_names, starts_after, walked
from rewriter.analysis.ast_jit import match_application, spelled_application
from rewriter.analysis.ast_names import arguments as _arguments
from rewriter.analysis.ast_names import branches, walk_outside_lambdas
from rewriter.analysis.ast_structure import (ancestors, block_of, enclosing_function, enclosing_loops, enclosing_statement,
                                             is_elif, is_inside, line_head, top_level_statement)
from rewriter.analysis.scope_model import GlobalScope
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import InsertBefore, Replace
from rewriter.emit.statements import assign
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import own_nodes
from ._ast_lift import is_called

# Transforms that compile eagerly (or need example inputs): building them earlier could raise or
# do work the loop might never have done, so they are reported but never hoisted.
_EAGER = {"torch.jit.script", "torch.jit.trace"}
# Pure wrappers a jit may sit inside: the hoisted unit grows through them (`jax.vmap(jax.jit(f))`).
_WRAPPERS = (Kind.VMAP, Kind.GRAD, Kind.JIT)
_CHAINS = (ast.Name, ast.Attribute)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(frozen=True)
class _Plan:
    """Where a jit built in a loop or per call is hoisted to."""
    anchor: ast.stmt  # the hoisted assignment goes right before this statement
    level: str  # "module level" | "out of the loop"


class JitInLoop(AstRule):
    """A jit wrapper built inside a loop body, or on every call of a function, throws its trace
    cache away each time it is rebuilt. PhiML keeps traces per `JitFunction` object, so
    `math.jit_compile(f)(x)` inside a function re-traces on every call; `jax.jit(lambda ...)` in a
    loop compiles a new program every iteration (a new lambda is a new cache key); even
    `jax.jit(module_level_f)`, which jax caches, pays the wrapper cost per call.

    The wrapper is hoisted to module level under a readable, collision-free name (`step_jit`), or,
    when it reads local variables that the loop does not change, to just before the loop. It is
    only hoisted when it provably means the same thing there and then:
    - the wrapped function is a lambda, a `def`, an import, or `functools.partial` of those with
      constant arguments — not `self.f`, `fns[0]`, a parameter or a call result, which are only
      known at run time (they may be None under a guard, change, or have side effects);
    - the transform's options are constants (no calls such as `out_shardings=P()`);
    - every name it reads is bound unconditionally before the new place, in the same function (no
      `nonlocal`, no `global` rebinding), and is not rebound, augmented, mutated in place, or passed
      to a call inside the loop; globals are bound once at module level and never mutated — also
      those read by a module-level function it wraps, transitively, since a shared trace bakes
      them in. For an imported module only the paths it reads count: `jax.config.update(...)`
      changes `jax.config`, not `jax.jit` or `jax.numpy` (`import jax` and `import jax.numpy`
      bind one module);
    - it does not run under a condition inside the loop.
    Otherwise the finding names what blocks the hoist.

    A wrapper of what a factory returns (`jax.jit(make_step(dt))`) is a new function each time, so it
    compiles every time (jax caches on the function object). It is never hoisted: the factory would
    run once instead of every time, and where it reads the loop's state (`dt`) one wrapper cannot
    serve every iteration. The finding names the loop variable and the fix — one wrapper per distinct
    value, kept in a dict — which is not applied: it needs the value hashable with value equality (a
    jax array is unhashable, an object without `__eq__` is never found again) and the factory free of
    side effects, neither of which the source shows.

    Wrappers built in a function but returned or stored (jit factories) are not per-call work and
    are left alone; so are wrappers inside a traced body (see PML303) and `torch.jit.trace/script`,
    which compile eagerly.
    """

    CODE = "PML302"
    MOVES_CODE = True
    NAME = "jit-in-loop"
    SUMMARY = "a jit wrapper built inside a loop or on every call is hoisted so its traces are reused"
    SAFETY = Safety.SAFE
    CHANGES_STRUCTURE = ("jit", "cache")
    FIX_SAFETY = (
        "Hoisting only moves the construction of the wrapper, which is lazy for every hoisted API "
        "(`jax.jit`, `math.jit_compile`, `tf.function`, `torch.compile`). It is applied only when all "
        "names the wrapper reads are stable where it moves to (see above). What remains: a module-level "
        "function reading a global object whose attributes change through another name, which no static "
        "analysis sees — such a function is already wrong under any cached jit."
    )
    EXAMPLES = (
        Example(dedented("""
            def step(x):
                return x * 2


            def simulate(state, steps):
                for _ in range(steps):
                    state = math.jit_compile(step)(state)
                return state
        """), dedented("""
            def step(x):
                return x * 2


            step_jit = math.jit_compile(step)


            def simulate(state, steps):
                for _ in range(steps):
                    state = step_jit(state)
                return state
        """), note="PhiML re-traced on every iteration"),
        Example(dedented("""
            def train(params, batches, lr):
                for batch in batches:
                    update = jax.jit(lambda p, b: p - lr * b.mean())
                    params = update(params, batch)
                return params
        """), dedented("""
            def train(params, batches, lr):
                train_lambda_jit = jax.jit(lambda p, b: p - lr * b.mean())
                for batch in batches:
                    update = train_lambda_jit
                    params = update(params, batch)
                return params
        """), note="hoisted out of the loop: `lr` is local but loop-invariant"),
        Example(dedented("""
            for k in range(3):
                y = jax.jit(lambda x: x ** k)(y)
        """), None, note="captures the loop variable `k`: reported only"),
        Unchanged(dedented("""
            def make_step(dt):
                return jax.jit(lambda x: x + dt)


            step = make_step(0.1)
        """), "a factory that returns the wrapper it builds"),
        Unchanged(dedented("""
            step_jit = jax.jit(lambda x: x * 2)


            def simulate(x, steps):
                for _ in range(steps):
                    x = step_jit(x)
                return x
        """), "a wrapper built once and called in the loop"),
    )
    PROJECT_FACTS = frozenset({"factories"})
    READS_FACTS = True
    TRIGGERS = (("jit",), ("tensorflow", "function"), ("torch", "compile"))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A jit applied in a function or a loop whose wrapper is used there: called right away, or
        bound to a name the enclosing function only ever calls (`_used_per_call`, by spelling)."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        return facts is not None and any((functions or in_loop) and _used_per_call_on_ast(facts, call, functions)
                                         for call, functions, in_loop in facts.jit_calls)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._hoisted_now: set[str] = set()  # code of wrappers hoisted to module level in this pass
        self._places: dict[int, int] | None = None  # id of each top-level statement -> its place

    def check(self) -> None:
        """The jit applications in a function or a loop that are called or bound (maybe through pure
        wrappers), in the order written: the order the hoisted names are handed out in."""
        file = self.file
        names = file.names
        called, assigned, wrapped_by = set(), set(), {}
        calls = []
        for node in walked(file.tree):
            kind = type(node)
            if kind is ast.Call:
                calls.append(node)
                called.add(id(node.func))
                first = spelled_application(names, node, _WRAPPERS)
                if first is not None:
                    wrapped_by[id(first)] = id(node)
            elif kind is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
                assigned.add(id(node.value))
        for node in calls:
            if spelled_application(names, node) is None or not _used_as_callee_or_bound(node, called, assigned, wrapped_by):
                continue
            if any(type(a) in (*_FUNCTIONS, *_LOOPS) for a in ancestors(names, node)):
                self._check(node)

    def _check(self, node: ast.Call) -> None:
        file = self.file
        names = file.names
        app = match_application(names, node, (Kind.JIT,))
        if app is None or self._wrapped_by_jit(node):
            return
        if file.jit.jitted_value(app.function) is not None:
            return  # jit of an already-jitted function: PML303 removes it
        loops = enclosing_loops(names, node)
        function = enclosing_function(names, node)
        if not loops and function is None:
            return  # built once, at module level
        unit = self._hoist_unit(app)
        if not self._used_per_call(unit):
            return  # returned or stored (a factory, a table of variants): built on purpose
        if file.jit.enclosing_context(node, direct_only=True) is not None:
            return  # inside a traced body: PML303's business
        called, label = self._function_words(function) if function is not None else ("", "loop")
        where = "inside a loop" if loops else f"on every call of {called}"
        base = f"`{app.transform.api.name}` wrapper built {where} {self._cost(app)}"
        if app.transform.api.name in _EAGER:
            self.report(node, base, hint="build it once, by hand",
                        note=f"not hoisted: `{app.transform.api.name}` compiles when it is built")
            return
        factory = self._factory_call(app)
        if factory is not None:
            self._report_factory(node, app, factory, loops, where)
            return
        # jax caches `jax.jit(named_f)` on the function: rebuilding it costs a lookup, not a compile.
        cheap = app.transform.framework == "jax" and type(app.function) is not ast.Lambda
        severity = Severity.INFO if cheap else None
        plan, reason = self._plan(unit, loops)
        if plan is None:
            self.report(node, base, note=f"not hoisted: {reason}", severity=severity)
            return
        code = file.code(unit)
        if plan.level == "at module level" and code in self._hoisted_now:
            # The same wrapper is being hoisted by another fix of this pass, which the engine may
            # still defer: reuse its name only once it exists (next pass), never before.
            self.report(node, base, note="hoisted at module level with an identical wrapper above, on the next pass")
            return
        new_name = self._existing_binding(unit, plan) if plan.level == "at module level" else None
        if new_name is None:
            label = _wrapped_label(app.function) or f"{label}_lambda"
            new_name = file.fresh_name(f"{label}_jit")
            if plan.level == "at module level":
                self._hoisted_now.add(code)
            fix = PlannedFix(f"build the wrapper once, {plan.level}, as `{new_name}`", (plan.anchor, unit),
                             partial(_write_hoist, name=new_name))
        else:
            fix = PlannedFix(f"build the wrapper once, {plan.level}, as `{new_name}`", (unit,),
                             partial(_write_reuse, name=new_name))
        self.report(node, base, fix=fix, severity=severity)

    # -- a factory call as the wrapped function ---------------------------------------------------
    def _factory_call(self, app) -> ast.Call | None:
        """`jax.jit(make_step(dt))`: the wrapped function is what a call returns (not `partial`)."""
        fn = app.function
        if type(fn) is not ast.Call or type(fn.func) not in _CHAINS:
            return None
        if self.file.names.api(fn.func) is not None:
            return None  # `partial(f, ...)`, `jax.grad(f)`: a library transform, judged as before
        name = _last_name(fn.func) or ""
        if name[:1].isupper() or type(self._local_def(fn.func)) is ast.ClassDef:
            return None  # a callable object (`HashablePartial(...)`): may compare by value, judged as before
        return fn

    def _local_def(self, func: ast.expr) -> ast.AST | None:
        if type(func) is not ast.Name:
            return None
        assignments = self.file.names.assignments(func)
        node = getattr(next(iter(assignments)), "node", None) if len(assignments) == 1 else None
        return node if type(node) in (*_DEFS, ast.ClassDef) else None

    def _returns_new_function(self, factory: ast.Call) -> bool:
        """The factory is a def of this file without decorators whose every `return` hands out a def
        or lambda it creates: certainly a new function per call (else: only probably)."""
        node = self._local_def(factory.func)
        if node is None:  # a def of another module, as the project index saw it
            return self.file.imported_factory(factory.func) is not None
        if type(node) not in _DEFS or node.decorator_list:  # type: ignore[attr-defined]
            return False
        nested = {n.name for n in own_nodes(node) if type(n) in _DEFS}  # type: ignore[attr-defined]
        returns = [n for n in own_nodes(node) if type(n) is ast.Return]
        return bool(returns) and all(type(r.value) is ast.Lambda or type(r.value) is ast.Name and r.value.id in nested
                                     for r in returns)

    def _report_factory(self, node: ast.Call, app, factory: ast.Call, loops: list, where: str) -> None:
        """A jit of whatever a factory returns, built per iteration or per call: usually a new function
        each time, so the wrapper's cache (jax's too: keyed on the function object) never serves a second
        call. Hoisting would call the factory once instead of every time, and where it reads the loop's
        state one wrapper cannot serve every iteration: the cure is one wrapper per distinct value, kept in
        a dict. That is reported, never applied: whether the value is hashable and compared by value (a
        float: yes; a jax array: unhashable, a TypeError; an object without `__eq__`: never found again)
        and whether the factory is pure are only known at run time."""
        text = self.file.code
        transform = app.transform.api.name
        spelling = _short(text(factory))
        framework = app.transform.framework
        cost = "traces it again" if framework == "phiml" else "compiles it again"
        certain = framework != "jax" or self._returns_new_function(factory)
        if certain:
            base = f"`{transform}` of `{spelling}`, a new function each time, built {where}: {cost} every time"
        else:
            base = f"`{transform}` of `{spelling}`, which may return a new function each time, built {where}"
        severity = None if certain else Severity.INFO
        not_hoisted = "not hoisted: the factory would then run once instead of every time"
        if not loops:  # once per call of the function: often called once (a test, a driver)
            self.report(node, base, hint="build the wrapper once, outside the function, if the factory has no side effects",
                        note=not_hoisted, severity=Severity.INFO)
            return
        varying, loop = self._loop_state_read(factory, loops)
        if not varying:
            self.report(node, base, hint="build the wrapper once, before the loop, if the factory has no side effects",
                        note=not_hoisted, severity=severity)
            return
        targets = _target_names(loop)
        which = ", ".join(f"`{v}`" for v in varying)
        reads = (f"the loop variable{'s' if len(varying) > 1 else ''} {which}" if set(varying) <= targets
                 else f"{which}, which change{'s' if len(varying) == 1 else ''} in the loop")
        if _few_fixed_values(loop):
            self.report(node, base, hint="if the loop itself runs again, build its few wrappers once, outside it",
                        note=f"not hoisted: the factory reads {reads}, and the loop runs over a few fixed values",
                        severity=Severity.INFO)
            return
        key = varying[0] if len(varying) == 1 else f"({', '.join(varying)})"
        cache = f"{_last_name(factory.func) or 'step'}_jit"
        wrapper = _short(text(self._hoist_unit(app)), 80)
        self.report(node, base, hint=f"one wrapper per distinct value: `{cache} = {{}}` before the loop, "
                                     f"`if {key} not in {cache}: {cache}[{key}] = {wrapper}`, call `{cache}[{key}]`",
                    note=f"not hoisted: the factory reads {reads}; a dict of wrappers needs `{key}` hashable, compared by "
                         "value, and a factory without side effects", severity=severity)

    def _loop_state_read(self, factory: ast.Call, loops: list) -> tuple[list[str], ast.AST | None]:
        """Names the factory call reads that an enclosing loop changes (its target or its body), and
        the innermost such loop."""
        names = self.file.names
        read = [f for f in free_names(names, factory) if f.where in ("local", "global")]
        out: list[str] = []
        first = None
        for loop in loops:
            for f in read:
                if f.node.id in out:
                    continue
                if any(getattr(a, "node", None) is not None and is_inside(names, a.node, loop) for a in f.assignments):
                    out.append(f.node.id)
                    first = first or loop
        return out, first

    def _existing_binding(self, unit: ast.Call, plan: _Plan) -> str | None:
        """A module-level `name = <the same wrapper>` bound once, before the anchor."""
        file = self.file
        code = file.code(unit)
        body = file.tree.body
        for i, stmt in enumerate(body):
            if stmt is plan.anchor:
                break
            alone = (i == 0 or body[i - 1].end_lineno < stmt.lineno) and (i + 1 == len(body) or body[i + 1].lineno > stmt.end_lineno)
            if not alone or line_head(file.names, file.reading.lines, stmt) is None:
                continue
            if type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
                target = stmt.targets[0].id
                if file.code(stmt.value) == code and file.globals.unstable_reason(target) is None:
                    return target
        return None

    # -- what to hoist ---------------------------------------------------------------------------
    def _wrapped_by_jit(self, node: ast.Call) -> bool:
        """`jax.jit(jax.jit(f))`: only the outermost application is considered (PML303 drops the inner)."""
        call = _call_given(self.file.names, node)
        if call is not None:
            outer = match_application(self.file.names, call, (Kind.JIT,))
            return outer is not None and outer.function is node
        return False

    def _hoist_unit(self, app) -> ast.Call:
        """The application, grown outward through pure wrappers whose wrapped function it is."""
        names = self.file.names
        unit = app.call
        while True:
            call = _call_given(names, unit)
            outer = match_application(names, call, _WRAPPERS) if call is not None else None
            if outer is None or outer.function is not unit:
                return unit
            unit = call

    def _used_per_call(self, node: ast.Call) -> bool:
        """Called right away (`jit(f)(x)`), or bound to a local that is only ever called."""
        names = self.file.names
        parent = names.parent(node)
        if type(parent) is ast.Call and parent.func is node:
            return True
        target = parent.targets[0] if type(parent) is ast.Assign and len(parent.targets) == 1 else None
        if type(target) is not ast.Name:
            return False
        scope = names.scope(target)
        if scope is None or isinstance(scope, GlobalScope):
            return False
        accesses = scope.accesses[target.id]
        if not accesses:
            return False
        return all(is_called(names, access.node) for access in accesses)

    def _cost(self, app) -> str:
        framework = app.transform.framework
        if framework == "phiml":
            return "re-traces every time"
        if type(app.function) is ast.Lambda:
            return "compiles every time"
        if framework == "jax":
            return "pays a wrapper and a cache lookup every time"
        return "re-traces every time"

    # -- what may move: the expression ------------------------------------------------------------
    def _runtime_only(self, unit: ast.Call) -> str | None:
        """Why evaluating `unit` earlier could do something else: it calls something (which would
        run once instead of every time), or its wrapped function is only known at run time (an
        attribute, an element, a parameter: it may be None, change, or raise under a guard)."""
        names = self.file.names
        node: ast.expr = unit
        while True:
            app = match_application(names, node, _WRAPPERS) if type(node) is ast.Call else None
            if app is None:
                break
            options = [*(k.value for k in app.transform.keywords), *app.transform.extra_positional]
            if type(node.func) is ast.Call:  # partial(jax.jit, static_argnums=f())(g)
                options += [a.value for a in _arguments(node.func)[1:]]
            for value in options:
                reason = self._not_constant(value)
                if reason:
                    return reason
            node = app.function
        return self._not_stable_function(node)

    def _not_stable_function(self, fn: ast.expr) -> str | None:
        names = self.file.names
        text = self.file.code
        if type(fn) is ast.Lambda:
            return None
        if type(fn) is ast.Call:
            callee = names.api(fn.func, {Kind.PARTIAL}) if type(fn.func) in _CHAINS else None
            arguments = _arguments(fn)
            positional = [a for a in arguments if a.keyword is None and not a.star]
            if callee is None or not positional or any(a.star for a in arguments):
                return f"it calls `{text(fn)}`, which would then run once instead of every time"
            for arg in arguments[1:]:
                reason = self._not_constant(arg.value)
                if reason:
                    return reason
            return self._not_stable_function(positional[0].value)
        if type(fn) is ast.Name:
            assignments = names.assignments(fn)
            if assignments and all(_is_definition(a) for a in assignments):
                return None
        elif type(fn) is ast.Attribute and _import_rooted(names, fn):
            return None
        return f"the wrapped function `{text(fn)}` is only known at run time"

    def _not_constant(self, expr: ast.expr) -> str | None:
        """Options must be literals, names or import attributes (no calls, no run-time lookups)."""
        text = self.file.code
        for inner in walk_outside_lambdas(expr):
            if type(inner) is ast.Call:
                return f"its options call `{text(inner)}`, which would then run once instead of every time"
            if type(inner) in (ast.Attribute, ast.Subscript) and not _import_rooted(self.file.names, inner):
                return f"its option `{text(inner)}` is looked up at run time"
        return None

    # -- where it may go ---------------------------------------------------------------------
    def _plan(self, unit: ast.Call, loops: list) -> tuple[_Plan | None, str]:
        reason = self._runtime_only(unit)
        if reason:
            return None, reason
        free = free_names(self.file.names, unit)
        for f in free:
            if f.where == "unknown":
                return None, f"`{f.node.id}` is not defined in this file"
        reason = self.file.globals.unstable_among(free)
        if reason:
            return None, reason
        local = [f for f in free if f.where == "local"]
        if not local:
            anchor, reason = self._module_level_anchor(unit, free)
            if reason is None:
                return _Plan(anchor, "at module level"), ""
            if not loops:
                return None, reason
        if not loops:
            return None, f"it reads the local `{local[0].node.id}`; move it to module level by hand or pass it as an argument"
        return self._out_of_loop(unit, loops, [f for f in free if f.where in ("local", "global")])

    def _out_of_loop(self, unit: ast.Call, loops: list, bound) -> tuple[_Plan | None, str]:
        """Before the outermost loop that leaves every name it reads unchanged (module-level loops
        bind globals, so globals are checked as well as locals)."""
        file = self.file
        names, lines = file.names, file.reading.lines
        chosen = None
        for loop in loops:  # innermost first
            varying = self._varying_in(bound, loop, unit)
            if varying is not None:
                if chosen is None:
                    return None, f"it depends on `{varying}`, which changes in the loop"
                break
            chosen = loop
        anchor = chosen if type(chosen) in (ast.For, ast.AsyncFor, ast.While) else enclosing_statement(names, lines, chosen)
        while is_elif(names, lines, anchor):  # `elif` tests
            anchor = enclosing_statement(names, lines, names.parent(anchor))
        child: ast.AST = unit
        for a in ancestors(names, unit):
            if a is anchor:
                break
            if type(a) in (ast.If, ast.IfExp, ast.Try, ast.BoolOp, ast.Match) \
                    or type(a) is ast.comprehension and any(child is c for c in a.ifs):
                return None, "it runs only under a condition inside the loop"
            child = a
        home = enclosing_function(names, unit)
        module_block = (id(file.tree), "body")
        anchor_block = block_of(names, anchor)
        for f in bound:
            for a in f.assignments:
                node = getattr(a, "node", None)
                if f.where == "global" and home is not None:  # read by a function: bound at import
                    statement = enclosing_statement(names, lines, node)  # (a compound statement is its own)
                    if statement is None or block_of(names, statement) != module_block:
                        return None, f"`{f.node.id}` is bound conditionally, so it may not exist before the loop"
                    continue
                if type(node) is ast.arg and enclosing_function(names, node) is home:
                    continue
                if node is None or enclosing_function(names, node) is not home:
                    return None, f"`{f.node.id}` is also bound in another function (`nonlocal`/`global`)"
                statement = enclosing_statement(names, lines, node)
                if statement is None or block_of(names, statement) != anchor_block or starts_after(names, node, anchor):
                    return None, f"`{f.node.id}` is not bound unconditionally before the loop"
        return _Plan(anchor, "out of the loop"), ""

    def _varying_in(self, bound, loop, unit) -> str | None:
        names = self.file.names
        for f in bound:
            if all(_is_import(a) for a in f.assignments):
                continue
            for a in f.assignments:
                node = getattr(a, "node", None)
                if node is not None and is_inside(names, node, loop):
                    return f.node.id
            if not all(_is_definition(a) for a in f.assignments) and _possibly_mutated_in(f.node.id, loop, unit):
                return f.node.id
        return None

    def _module_level_anchor(self, unit: ast.Call, free) -> tuple[ast.stmt | None, str | None]:
        """The module-level statement to insert the hoisted wrapper before, or why there is none.

        Normally the top-level statement holding the use. When a name it reads is defined later
        (`def main(): ... jit_compile(step)` above `def step`), right after that definition — but
        only if nothing between runs code that could reach the use (undecorated defs and imports).
        """
        file = self.file
        names, lines = file.names, file.reading.lines
        body = file.tree.body
        if self._places is None:  # once per pass, not a search of the module per binding
            self._places = {id(statement): i for i, statement in enumerate(body)}
        anchor = top_level_statement(names, lines, unit)
        position = self._places[id(anchor)]
        last = position - 1  # index of the last top-level statement that binds a name read
        for f in free:
            if f.where != "global":
                continue
            for a in f.assignments:
                node = getattr(a, "node", None)
                statement = enclosing_statement(names, lines, node) if node is not None else None
                if statement is None or block_of(names, statement) != (id(file.tree), "body"):
                    return None, f"`{f.node.id}` is bound conditionally (inside `if`/`try`/`with`/a loop), so it may not exist at import"
                last = max(last, self._places[id(statement)])
        if last < position:
            return anchor, None
        after = _next_line(body, last)
        if type(anchor) not in _DEFS or anchor.decorator_list or after is None:  # type: ignore[union-attr]
            return None, f"a name it reads is defined after `{_name(anchor) or 'this statement'}`"
        for statement in body[position + 1:after]:
            if not (type(statement) in _DEFS and not statement.decorator_list or type(statement) in (ast.Import, ast.ImportFrom)):
                return None, f"a name it reads is defined after `{_name(anchor)}`, past code that runs at import"
        return body[after], None

    def _function_words(self, function: ast.AST) -> tuple[str, str]:
        """How a message names the function a wrapper is built in (`` `run` ``, ``the lambda `ops[1]` ``,
        ``a lambda in `run` ``), and a label for a name made from it (`run`, `ops_1`)."""
        names = self.file.names
        if type(function) in _DEFS:
            return f"`{function.name}`", function.name  # type: ignore[attr-defined]
        place = self._lambda_place(function)
        outer = enclosing_function(names, function)
        inside = f" in {self._function_words(outer)[0].removeprefix('the lambda ')}" if outer is not None else ""
        if place is not None:
            return f"the lambda `{place[0]}`{inside}", place[1]
        return f"a lambda{inside}", self._function_words(outer)[1] if outer is not None else "lambda"

    def _lambda_place(self, function: ast.AST) -> tuple[str, str] | None:
        """(`handler`, `handler`) for `handler = lambda ...`; (`ops[1]`, `ops_1`) for the second lambda of
        `ops = [..., lambda ...]`; (`ops['a']`, `ops_a`) in a dict: where the lambda is kept, if named."""
        names = self.file.names
        parent = names.parent(function)
        if type(parent) in (ast.List, ast.Tuple):
            index = next(i for i, e in enumerate(parent.elts) if e is function)
            spelled, suffix, parent = f"[{index}]", f"_{index}", names.parent(parent)
        elif type(parent) is ast.Set:
            return None
        elif type(parent) is ast.Dict and any(v is function for v in parent.values):
            key = parent.keys[next(i for i, v in enumerate(parent.values) if v is function)]
            if type(key) is not ast.Constant or type(key.value) is not str or self.file.reading.string_pieces(key) != 1:
                return None
            spelled, suffix = f"[{self.file.code(key)}]", f"_{key.value}" if key.value.isidentifier() else ""
            parent = names.parent(parent)
        else:
            spelled, suffix = "", ""
        if type(parent) is ast.Assign and len(parent.targets) == 1 and type(parent.targets[0]) is ast.Name:
            target = parent.targets[0].id
        elif type(parent) is ast.AnnAssign and type(parent.target) is ast.Name:
            target = parent.target.id
        else:
            return None
        return target + spelled, target + suffix


def _short(code: str, limit: int = 60) -> str:
    """Code for a message: on one line, long calls cut to `name(...)`."""
    code = " ".join(code.split())
    if len(code) <= limit:
        return code
    head = code.split("(", 1)[0]
    return f"{head}(...)" if len(head) < limit else code[:limit - 3] + "..."


def _last_name(node: ast.AST) -> str | None:
    """`c` for `c` or `a.b.c` (the name a call is known by), else None."""
    return node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else None  # type: ignore[attr-defined]


def _wrapped_label(node: ast.AST) -> str | None:
    """What a hoisted wrapper is named after: `f` for `f` or `m.f`, `f_grad` for `jax.grad(f)`, `f` for
    `partial(f, ...)`; None for a lambda or any other expression (named after where it is built)."""
    name = _last_name(node)
    if name is not None or type(node) is not ast.Call or not node.args or type(node.args[0]) is ast.Starred:  # type: ignore[attr-defined]
        return name
    inner, outer = _wrapped_label(node.args[0]), _last_name(node.func)  # type: ignore[attr-defined]
    if inner is None or outer is None:
        return None
    return inner if outer == "partial" else f"{inner}_{outer}"


def _used_as_callee_or_bound(node: ast.Call, called: set, assigned: set, wrapped_by: dict) -> bool:
    """`node(...)` or `name = node`, directly or as the function of jit/vmap/grad wrappers."""
    key = id(node)
    while key is not None:
        if key in called or key in assigned:
            return True
        key = wrapped_by.get(key)
    return False


def _call_given(names, node: ast.AST) -> ast.Call | None:
    """The call `node` is an argument of (positional, keyword or starred), else None."""
    parent = names.parent(node)
    if type(parent) in (ast.keyword, ast.Starred):
        parent = names.parent(parent)
    return parent if type(parent) is ast.Call and parent.func is not node else None


def _target_names(loop: ast.AST | None) -> set[str]:
    target = getattr(loop, "target", None)
    if target is None and type(loop) in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
        target = loop.generators[0].target  # type: ignore[union-attr]
    out: set[str] = set()
    for node in ast.walk(target) if target is not None else ():
        if type(node) is ast.Name:
            out.add(node.id)  # type: ignore[attr-defined]
        elif type(node) is ast.Attribute:
            out.add(node.attr)  # type: ignore[attr-defined]
    return out


def _few_fixed_values(loop: ast.AST | None) -> bool:
    """`for smooth in [True, False]`, `for backend in BACKENDS`: a few configurations, one wrapper each."""
    iterable = loop.iter if type(loop) in (ast.For, ast.AsyncFor) else None  # type: ignore[union-attr]
    if type(iterable) in (ast.Tuple, ast.List, ast.Set):
        return len(iterable.elts) <= 4  # type: ignore[union-attr]
    return type(iterable) is ast.Name and iterable.id.isupper()  # type: ignore[union-attr]


def _next_line(body: list[ast.stmt], last: int) -> int | None:
    """The index of the first statement of `body` on a line after the statements on `last`'s line (libcst's
    next statement: those sharing a line are one)."""
    i = last + 1
    while i < len(body) and body[i].lineno <= body[i - 1].end_lineno:  # type: ignore[operator]
        i += 1
    return i if i < len(body) else None


def _is_import(assignment) -> bool:
    return type(assignment).__name__ == "ImportAssignment"


def _is_definition(assignment) -> bool:
    """Bound by `def`, by an import, or to a lambda: a callable that exists whenever the name does."""
    return _is_import(assignment) or type(getattr(assignment, "node", None)) in _DEFS


def _import_rooted(names, node: ast.AST) -> bool:
    """`jnp.sin`, `nn.functional.relu`: an attribute chain whose root name is only ever an import."""
    while type(node) is ast.Attribute:
        node = node.value  # type: ignore[attr-defined]
    if type(node) is not ast.Name:
        return False
    assignments = names.assignments(node)
    return bool(assignments) and all(_is_import(a) for a in assignments) or (not assignments and bool(names.star_modules))


def _name(node) -> str | None:
    if type(node) in (*_DEFS, ast.ClassDef):
        return node.name
    return None


def _root_name(node: ast.AST) -> str | None:
    while type(node) in (ast.Attribute, ast.Subscript):
        node = node.value  # type: ignore[attr-defined]
    return node.id if type(node) is ast.Name else None  # type: ignore[attr-defined]


def _possibly_mutated_in(name: str, region: ast.AST, skip: ast.AST | None = None) -> bool:
    """`name` may change in place inside `region` (outside `skip`): stored through (`x[k] =`, `x.a =`,
    `del x[k]`), augmented, receiver of a method call, or passed to a call (which could mutate it)."""
    stack = [region]
    while stack:
        node = stack.pop()
        if node is skip:
            continue
        kind = type(node)
        if kind is ast.Assign or kind is ast.AugAssign or kind is ast.AnnAssign or kind is ast.Delete:
            targets = node.targets if kind in (ast.Assign, ast.Delete) else [node.target]  # type: ignore[attr-defined]
            if kind is ast.Delete and len(targets) > 1:
                targets = []  # (`del a[0], b`: one target, a tuple, on libcst: no root)
            if any(_root_name(t) == name and type(t) is not ast.Name for t in targets):
                return True
        elif kind is ast.Call:
            if type(node.func) is ast.Attribute and _root_name(node.func.value) == name:  # type: ignore[attr-defined]
                return True
            if any(_root_name(a.value) == name for a in _arguments(node)):  # type: ignore[arg-type]
                return True
        stack.extend(branches(node))
    return False


def _write_hoist(context, anchor, unit: cst.CSTNode, *, name: str):
    """`name = <the wrapper>` before `anchor`, and `name` where the wrapper was built."""
    if not isinstance(anchor, cst.BaseStatement):
        anchor = context.analysis.names.parent(anchor)  # (a simple statement's line)
    return [InsertBefore(anchor, (assign(name, unit, anchor),)), Replace(unit, cst.Name(name))]


def _write_reuse(context, unit: cst.CSTNode, *, name: str):
    """`name`, bound at module level to the same wrapper already, where the wrapper was built."""
    return [Replace(unit, cst.Name(name))]


def _used_per_call_on_ast(facts, node: ast.AST, functions: tuple = ()) -> bool:
    """`_used_per_call` through the wrappers around `node`, by spelling: called right away, or bound to a
    name the enclosing function only ever calls (a wrapper returned or handed on is a factory's)."""
    key = id(node)
    while key is not None:
        if key in facts.called:
            return True
        if key in facts.assigned:
            return _only_called_on_ast(facts, facts.assigned_names.get(key), functions[-1] if functions else None)
        key = facts.wrapped_by.get(key)
    return False


def _only_called_on_ast(facts, name: str | None, fn: ast.AST | None) -> bool:
    """The reads of `name` the enclosing function's own scope makes (the accesses libcst's scope
    records: not those of nested functions or classes) all call it, and there is one. A read in a
    comprehension may count or not (its own scope, its first iterable the function's): True if
    either way says so. At module level: True."""
    if name is None or fn is None:
        return True
    own, inner = [], []  # whether each read calls the name
    stack = [(child, False) for child in ([fn.body] if isinstance(fn, ast.Lambda) else fn.body)]
    while stack:
        node, in_comprehension = stack.pop()
        if type(node) is ast.Name:
            if node.id == name and type(node.ctx) is ast.Load:
                (inner if in_comprehension else own).append(id(node) in facts.called)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue  # a scope of its own: its reads are not the function's accesses
        nested = in_comprehension or isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        stack.extend((child, nested) for child in branches(node))
    return bool(own) and all(own) or bool(own + inner) and all(own + inner)
