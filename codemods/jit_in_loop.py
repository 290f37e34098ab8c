"""PML302 jit-in-loop."""
from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_names import branches
from rewriter.analysis.bindings import free_names, possibly_mutated_in
from rewriter.analysis.names import last_name
from rewriter.analysis.scopes import GlobalScope
from rewriter.analysis.structure import (
    ancestors,
    enclosing_function,
    enclosing_loops,
    enclosing_statement,
    is_inside,
    top_level_statement,
)
from rewriter.analysis.syntax import spelled_application
from rewriter.analysis.transforms import Application, match_application
from rewriter.codemod import Codemod, Example, InsertBefore, Replace, Unchanged, dedented
from rewriter.cst_tree import children
from rewriter.emit.statements import assign
from rewriter.findings import Safety, Severity

from ._hazards import own_nodes
from ._shared import function_label

# Transforms that compile eagerly (or need example inputs): building them earlier could raise or
# do work the loop might never have done, so they are reported but never hoisted.
_EAGER = {"torch.jit.script", "torch.jit.trace"}
# Pure wrappers a jit may sit inside: the hoisted unit grows through them (`jax.vmap(jax.jit(f))`).
_WRAPPERS = (Kind.VMAP, Kind.GRAD, Kind.JIT)


@dataclass(frozen=True)
class _Plan:
    anchor: cst.BaseStatement  # the hoisted assignment goes right before this statement
    level: str  # "module level" | "out of the loop"


class JitInLoop(Codemod):
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
        facts = syntax.facts
        return facts is not None and any((functions or in_loop) and _used_per_call_on_ast(facts, call, functions)
                                         for call, functions, in_loop in facts.jit_calls)

    def visit_Call(self, node: cst.Call) -> None:
        syntax = self.file.syntax
        if (syntax.functions or syntax.loop_depth) and self._spelled_per_call_candidate(node):
            self._deferred.append(node)  # cheap gate passed; judged when the traversal is complete

    def leave_Module(self, original_node: cst.Module) -> None:
        for node in self._deferred:
            self._check(node)

    def _check(self, node: cst.Call) -> None:
        names = self.file.analysis.names
        app = match_application(names, node, (Kind.JIT,))
        if app is None or self._wrapped_by_jit(node):
            return
        if self.file.analysis.jit.jitted_value(app.function) is not None:
            return  # jit of an already-jitted function: PML303 removes it
        loops = enclosing_loops(names, node)
        function = enclosing_function(names, node)
        if not loops and function is None:
            return  # built once, at module level
        unit = self._hoist_unit(app)
        if not self._used_per_call(unit):
            return  # returned or stored (a factory, a table of variants): built on purpose
        if self.file.analysis.jit.enclosing_context(node, direct_only=True) is not None:
            return  # inside a traced body: PML303's business
        called, label = _function_words(names, function) if function is not None else ("", "loop")
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
        cheap = app.transform.framework == "jax" and not isinstance(app.function, cst.Lambda)
        severity = Severity.INFO if cheap else None
        plan, reason = self._plan(unit, loops)
        if plan is None:
            self.report(node, base, note=f"not hoisted: {reason}", severity=severity)
            return
        code = self.file.code(unit)
        if plan.level == "at module level" and code in self._hoisted_now:
            # The same wrapper is being hoisted by another fix of this pass, which the engine may
            # still defer: reuse its name only once it exists (next pass), never before.
            self.report(node, base, note="hoisted at module level with an identical wrapper above, on the next pass")
            return
        new_name = self._existing_binding(unit, plan) if plan.level == "at module level" else None
        edits = []
        if new_name is None:
            label = function_label(app.function) or f"{label}_lambda"
            new_name = self.file.analysis.fresh_name(f"{label}_jit")
            edits.append(InsertBefore(plan.anchor, (assign(new_name, unit, plan.anchor),)))
            if plan.level == "at module level":
                self._hoisted_now.add(code)
        edits.append(Replace(unit, cst.Name(new_name)))
        self.report(node, base, edits=edits, fix_description=f"build the wrapper once, {plan.level}, as `{new_name}`",
                    severity=severity)

    # -- a factory call as the wrapped function ---------------------------------------------------
    def _factory_call(self, app: Application) -> cst.Call | None:
        """`jax.jit(make_step(dt))`: the wrapped function is what a call returns (not `partial`)."""
        fn = app.function
        if not isinstance(fn, cst.Call) or not isinstance(fn.func, (cst.Name, cst.Attribute)):
            return None
        if self.file.analysis.names.api(fn.func) is not None:
            return None  # `partial(f, ...)`, `jax.grad(f)`: a library transform, judged as before
        name = last_name(fn.func) or ""
        if name[:1].isupper() or isinstance(self._local_def(fn.func), cst.ClassDef):
            return None  # a callable object (`HashablePartial(...)`): may compare by value, judged as before
        return fn

    def _local_def(self, func: cst.BaseExpression) -> cst.CSTNode | None:
        if not isinstance(func, cst.Name):
            return None
        assignments = self.file.analysis.names.assignments(func)
        node = getattr(next(iter(assignments)), "node", None) if len(assignments) == 1 else None
        return node if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else None

    def _returns_new_function(self, factory: cst.Call) -> bool:
        """The factory is a def of this file without decorators whose every `return` hands out a def
        or lambda it creates: certainly a new function per call (else: only probably)."""
        node = self._local_def(factory.func)
        if node is None:  # a def of another module, as the project index saw it
            return self.file.analysis.imported_factory(factory.func) is not None
        if not isinstance(node, cst.FunctionDef) or node.decorators:
            return False
        nested = {n.name.value for n in own_nodes(node) if isinstance(n, cst.FunctionDef)}
        returns = [n for n in own_nodes(node) if isinstance(n, cst.Return)]
        return bool(returns) and all(isinstance(r.value, cst.Lambda) or isinstance(r.value, cst.Name) and r.value.value in nested
                                     for r in returns)

    def _report_factory(self, node: cst.Call, app: Application, factory: cst.Call, loops: list, where: str) -> None:
        """A jit of whatever a factory returns, built per iteration or per call: usually a new function
        each time, so the wrapper's cache (jax's too: keyed on the function object) never serves a second
        call. Hoisting would call the factory once instead of every time, and where it reads the loop's
        state one wrapper cannot serve every iteration: the cure is one wrapper per distinct value, kept in
        a dict. That is reported, never applied: whether the value is hashable and compared by value (a
        float: yes; a jax array: unhashable, a TypeError; an object without `__eq__`: never found again)
        and whether the factory is pure are only known at run time."""
        transform = app.transform.api.name
        spelling = _short(self.file.code(factory))
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
        cache = f"{last_name(factory.func) or 'step'}_jit"
        wrapper = _short(self.file.code(self._hoist_unit(app)), 80)
        self.report(node, base, hint=f"one wrapper per distinct value: `{cache} = {{}}` before the loop, "
                                     f"`if {key} not in {cache}: {cache}[{key}] = {wrapper}`, call `{cache}[{key}]`",
                    note=f"not hoisted: the factory reads {reads}; a dict of wrappers needs `{key}` hashable, compared by "
                         "value, and a factory without side effects", severity=severity)

    def _loop_state_read(self, factory: cst.Call, loops: list) -> tuple[list[str], cst.CSTNode | None]:
        """Names the factory call reads that an enclosing loop changes (its target or its body), and
        the innermost such loop."""
        names = self.file.analysis.names
        read = [f for f in free_names(names, factory) if f.where in ("local", "global")]
        out: list[str] = []
        first = None
        for loop in loops:
            for f in read:
                if f.node.value in out:
                    continue
                if any(getattr(a, "node", None) is not None and is_inside(names, a.node, loop) for a in f.assignments):
                    out.append(f.node.value)
                    first = first or loop
        return out, first

    def _existing_binding(self, unit: cst.Call, plan: _Plan) -> str | None:
        """A module-level `name = <the same wrapper>` bound once, before the anchor."""
        code = self.file.code(unit)
        for stmt in self.file.module.body:
            if stmt is plan.anchor:
                break
            if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
                continue
            small = stmt.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                target = small.targets[0].target.value
                if self.file.code(small.value) == code and self.file.analysis.globals.unstable_reason(target) is None:
                    return target
        return None

    def _spelled_per_call_candidate(self, node: cst.Call) -> bool:
        """Spelled like a jit application and used as `<it>(...)` or `name = <it>`, maybe via wrappers."""
        names = self.file.analysis.names
        return spelled_application(names, node) is not None and self.file.syntax.used_as_callee_or_bound(node)

    # -- what to hoist ---------------------------------------------------------------------------
    def __init__(self, file) -> None:
        super().__init__(file)
        self._hoisted_now: set[str] = set()  # code of wrappers hoisted to module level in this pass
        self._deferred: list[cst.Call] = []
        self._places: dict[int, int] | None = None  # id of each top-level statement -> its place

    def _wrapped_by_jit(self, node: cst.Call) -> bool:
        """`jax.jit(jax.jit(f))`: only the outermost application is considered (PML303 drops the inner)."""
        parent = self.parent(node)
        if isinstance(parent, cst.Arg):
            call = self.parent(parent)
            if isinstance(call, cst.Call):
                outer = match_application(self.file.analysis.names, call, (Kind.JIT,))
                return outer is not None and outer.function is node
        return False

    def _hoist_unit(self, app: Application) -> cst.Call:
        """The application, grown outward through pure wrappers whose wrapped function it is."""
        unit = app.call
        while True:
            parent = self.parent(unit)
            call = self.parent(parent) if isinstance(parent, cst.Arg) else None
            outer = match_application(self.file.analysis.names, call, _WRAPPERS) if isinstance(call, cst.Call) else None
            if outer is None or outer.function is not unit:
                return unit
            unit = call

    def _used_per_call(self, node: cst.Call) -> bool:
        """Called right away (`jit(f)(x)`), or bound to a local that is only ever called."""
        parent = self.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            return True
        target = None
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        scope = self.file.analysis.names.scope(target)
        if scope is None or isinstance(scope, GlobalScope):
            return False
        accesses = scope.accesses[target.value]
        if not accesses:
            return False
        for access in accesses:
            user = self.parent(access.node)
            if not (isinstance(user, cst.Call) and user.func is access.node):
                return False
        return True

    def _cost(self, app: Application) -> str:
        framework = app.transform.framework
        if framework == "phiml":
            return "re-traces every time"
        if isinstance(app.function, cst.Lambda):
            return "compiles every time"
        if framework == "jax":
            return "pays a wrapper and a cache lookup every time"
        return "re-traces every time"

    # -- where it may go ---------------------------------------------------------------------
    # -- what may move: the expression ------------------------------------------------------------
    def _runtime_only(self, unit: cst.Call) -> str | None:
        """Why evaluating `unit` earlier could do something else: it calls something (which would
        run once instead of every time), or its wrapped function is only known at run time (an
        attribute, an element, a parameter: it may be None, change, or raise under a guard)."""
        names = self.file.analysis.names
        node: cst.BaseExpression = unit
        while True:
            app = match_application(names, node, _WRAPPERS) if isinstance(node, cst.Call) else None
            if app is None:
                break
            options = [*app.transform.keywords, *app.transform.extra_positional]
            if isinstance(node.func, cst.Call):  # partial(jax.jit, static_argnums=f())(g)
                options += list(node.func.args[1:])
            for arg in options:
                reason = self._not_constant(arg.value)
                if reason:
                    return reason
            node = app.function
        return self._not_stable_function(node)

    def _not_stable_function(self, fn: cst.BaseExpression) -> str | None:
        names = self.file.analysis.names
        if isinstance(fn, cst.Lambda):
            return None
        if isinstance(fn, cst.Call):
            callee = names.api(fn.func, {Kind.PARTIAL}) if isinstance(fn.func, (cst.Name, cst.Attribute)) else None
            positional = [a for a in fn.args if a.keyword is None and not a.star]
            if callee is None or not positional or any(a.star for a in fn.args):
                return f"it calls `{self.file.code(fn)}`, which would then run once instead of every time"
            for arg in fn.args[1:]:
                reason = self._not_constant(arg.value)
                if reason:
                    return reason
            return self._not_stable_function(positional[0].value)
        if isinstance(fn, cst.Name):
            assignments = names.assignments(fn)
            if assignments and all(_is_definition(a) for a in assignments):
                return None
        elif isinstance(fn, cst.Attribute) and _import_rooted(names, fn):
            return None
        return f"the wrapped function `{self.file.code(fn)}` is only known at run time"

    def _not_constant(self, expr: cst.BaseExpression) -> str | None:
        """Options must be literals, names or import attributes (no calls, no run-time lookups)."""
        for inner in _walk_outside_lambdas(expr):
            if isinstance(inner, cst.Call):
                return f"its options call `{self.file.code(inner)}`, which would then run once instead of every time"
            if isinstance(inner, (cst.Attribute, cst.Subscript)) and not _import_rooted(self.file.analysis.names, inner):
                return f"its option `{self.file.code(inner)}` is looked up at run time"
        return None

    # -- where it may go ---------------------------------------------------------------------
    def _plan(self, unit: cst.Call, loops: list) -> tuple[_Plan | None, str]:
        names = self.file.analysis.names
        reason = self._runtime_only(unit)
        if reason:
            return None, reason
        free = free_names(names, unit)
        for f in free:
            if f.where == "unknown":
                return None, f"`{f.node.value}` is not defined in this file"
        reason = self.file.analysis.globals.unstable_among(free)
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
            return None, f"it reads the local `{local[0].node.value}`; move it to module level by hand or pass it as an argument"
        return self._out_of_loop(unit, loops, [f for f in free if f.where in ("local", "global")])

    def _out_of_loop(self, unit: cst.Call, loops: list, bound) -> tuple[_Plan | None, str]:
        """Before the outermost loop that leaves every name it reads unchanged (module-level loops
        bind globals, so globals are checked as well as locals)."""
        names = self.file.analysis.names
        chosen = None
        for loop in loops:  # innermost first
            varying = self._varying_in(bound, loop, unit)
            if varying is not None:
                if chosen is None:
                    return None, f"it depends on `{varying}`, which changes in the loop"
                break
            chosen = loop
        anchor = chosen if isinstance(chosen, (cst.For, cst.While)) else enclosing_statement(names, chosen)
        while not isinstance(names.parent(anchor), (cst.IndentedBlock, cst.Module)):  # `elif` tests
            anchor = enclosing_statement(names, names.parent(anchor))
        for a in ancestors(names, unit):
            if a is anchor:
                break
            if isinstance(a, (cst.If, cst.IfExp, cst.Try, cst.BooleanOperation, cst.CompIf, cst.Match)):
                return None, "it runs only under a condition inside the loop"
        home = enclosing_function(names, unit)
        module = self.file.module
        for f in bound:
            for a in f.assignments:
                node = getattr(a, "node", None)
                if f.where == "global" and home is not None:  # read by a function: bound at import
                    statement = node if isinstance(node, cst.BaseCompoundStatement) else enclosing_statement(names, node)
                    if names.parent(statement) is not module:
                        return None, f"`{f.node.value}` is bound conditionally, so it may not exist before the loop"
                    continue
                if isinstance(node, cst.Param) and enclosing_function(names, node) is home:
                    continue
                if node is None or enclosing_function(names, node) is not home:
                    return None, f"`{f.node.value}` is also bound in another function (`nonlocal`/`global`)"
                statement = enclosing_statement(names, node)
                if names.parent(statement) is not names.parent(anchor) or names.starts_after(node, anchor):
                    return None, f"`{f.node.value}` is not bound unconditionally before the loop"
        return _Plan(anchor, "out of the loop"), ""

    def _varying_in(self, bound, loop, unit) -> str | None:
        names = self.file.analysis.names
        for f in bound:
            if all(_is_import(a) for a in f.assignments):
                continue
            for a in f.assignments:
                node = getattr(a, "node", None)
                if node is not None and is_inside(names, node, loop):
                    return f.node.value
            if not all(_is_definition(a) for a in f.assignments) and possibly_mutated_in(names, f.node.value, loop, unit):
                return f.node.value
        return None

    def _module_level_anchor(self, unit: cst.Call, free) -> tuple[cst.BaseStatement | None, str | None]:
        """The module-level statement to insert the hoisted wrapper before, or why there is none.

        Normally the top-level statement holding the use. When a name it reads is defined later
        (`def main(): ... jit_compile(step)` above `def step`), right after that definition — but
        only if nothing between runs code that could reach the use (undecorated defs and imports).
        """
        names = self.file.analysis.names
        module = self.file.module
        body = list(module.body)
        if self._places is None:  # once per pass, not a search of the module per binding
            self._places = {id(statement): i for i, statement in enumerate(body)}
        anchor = top_level_statement(names, unit)
        position = self._places[id(anchor)]
        last = position - 1  # index of the last top-level statement that binds a name read
        for f in free:
            if f.where != "global":
                continue
            for a in f.assignments:
                node = getattr(a, "node", None)
                statement = node if isinstance(node, cst.BaseCompoundStatement) else enclosing_statement(names, node)
                if node is None or names.parent(statement) is not module:
                    return None, f"`{f.node.value}` is bound conditionally (inside `if`/`try`/`with`/a loop), so it may not exist at import"
                last = max(last, self._places[id(statement)])
        if last < position:
            return anchor, None
        if not isinstance(anchor, cst.FunctionDef) or anchor.decorators or last + 1 >= len(body):
            return None, f"a name it reads is defined after `{_name(anchor) or 'this statement'}`"
        for statement in body[position + 1:last + 1]:
            if not (isinstance(statement, cst.FunctionDef) and not statement.decorators or _is_import_line(statement)):
                return None, f"a name it reads is defined after `{_name(anchor)}`, past code that runs at import"
        return body[last + 1], None


def _short(code: str, limit: int = 60) -> str:
    """Code for a message: on one line, long calls cut to `name(...)`."""
    code = " ".join(code.split())
    if len(code) <= limit:
        return code
    head = code.split("(", 1)[0]
    return f"{head}(...)" if len(head) < limit else code[:limit - 3] + "..."


def _target_names(loop: cst.CSTNode | None) -> set[str]:
    target = getattr(loop, "target", None)
    if target is None and isinstance(getattr(loop, "for_in", None), cst.CompFor):
        target = loop.for_in.target
    out: set[str] = set()
    stack = [target] if target is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        else:
            stack.extend(children(node))
    return out


def _few_fixed_values(loop: cst.CSTNode | None) -> bool:
    """`for smooth in [True, False]`, `for backend in BACKENDS`: a few configurations, one wrapper each."""
    iterable = getattr(loop, "iter", None) if isinstance(loop, cst.For) else None
    if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)):
        return len(iterable.elements) <= 4
    return isinstance(iterable, cst.Name) and iterable.value.isupper()


def _is_import_line(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def _is_import(assignment) -> bool:
    return type(assignment).__name__ == "ImportAssignment"


def _is_definition(assignment) -> bool:
    """Bound by `def`, by an import, or to a lambda: a callable that exists whenever the name does."""
    node = getattr(assignment, "node", None)
    return _is_import(assignment) or isinstance(node, cst.FunctionDef)


def _import_rooted(names, node: cst.CSTNode) -> bool:
    """`jnp.sin`, `nn.functional.relu`: an attribute chain whose root name is only ever an import."""
    while isinstance(node, cst.Attribute):
        node = node.value
    if not isinstance(node, cst.Name):
        return False
    assignments = names.assignments(node)
    return bool(assignments) and all(_is_import(a) for a in assignments) or (not assignments and bool(names.star_modules))


def _walk_outside_lambdas(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if not isinstance(current, cst.Lambda):
            stack.extend(children(current))


def _name(node) -> str | None:
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value
    return None


def _function_words(names, function: cst.FunctionDef | cst.Lambda) -> tuple[str, str]:
    """How a message names the function a wrapper is built in (`` `run` ``, ``the lambda `ops[1]` ``,
    ``a lambda in `run` ``), and a label for a name made from it (`run`, `ops_1`)."""
    if isinstance(function, cst.FunctionDef):
        return f"`{function.name.value}`", function.name.value
    place = _lambda_place(names, function)
    outer = enclosing_function(names, function)
    inside = f" in {_function_words(names, outer)[0].removeprefix('the lambda ')}" if outer is not None else ""
    if place is not None:
        return f"the lambda `{place[0]}`{inside}", place[1]
    return f"a lambda{inside}", _function_words(names, outer)[1] if outer is not None else "lambda"


def _lambda_place(names, function: cst.Lambda) -> tuple[str, str] | None:
    """(`handler`, `handler`) for `handler = lambda ...`; (`ops[1]`, `ops_1`) for the second lambda of
    `ops = [..., lambda ...]`; (`ops['a']`, `ops_a`) in a dict: where the lambda is kept, if named."""
    parent, index = names.parent(function), None
    if isinstance(parent, cst.Element):
        container = names.parent(parent)
        if not isinstance(container, (cst.List, cst.Tuple)):
            return None
        index = next(i for i, e in enumerate(container.elements) if e is parent)
        spelled, suffix, parent = f"[{index}]", f"_{index}", names.parent(container)
    elif isinstance(parent, cst.DictElement) and parent.value is function and isinstance(parent.key, cst.SimpleString):
        key = parent.key.evaluated_value
        if not isinstance(key, str):
            return None
        spelled, suffix = f"[{parent.key.value}]", f"_{key}" if key.isidentifier() else ""
        parent = names.parent(names.parent(parent))
    else:
        spelled, suffix = "", ""
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        target = parent.targets[0].target.value
    elif isinstance(parent, cst.AnnAssign) and isinstance(parent.target, cst.Name):
        target = parent.target.value
    else:
        return None
    return target + spelled, target + suffix


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
