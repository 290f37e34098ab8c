"""PML401 retracing."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from functools import cached_property

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_captures import walked
from rewriter.analysis.ast_flow import last_name
from rewriter.analysis.ast_jit import assigned_value, bound_value, match_application, match_transform, positional_params, \
    static_params
from rewriter.analysis.ast_names import arguments, with_enclosing
from rewriter.analysis.ast_structure import ancestors, enclosing_function, enclosing_loops, is_inside, line_head
from rewriter.analysis.transforms import Transform
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Related, Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import own_nodes, spelled_jits
from ._ast_lift import is_called
from ._lift import comma, forget_traces
from ._loop_keys import COMPREHENSIONS, NEW_EACH_TIME, STABLE, VARIES, Loop, bound_names, bound_names_in, loop_body, read_names
from ._python_numbers import is_python_number

FORGETTING = frozenset({"phiml.math.jit_compile", "phiml.math.jit_compile_linear"})  # take forget_traces=
# Keep every argument that is not an array static: a Python number is a compile key.
KEEPS_NUMBERS_STATIC = frozenset({"equinox.filter_jit"})
# Reading these means the program relies on what the trace cache remembers.
CACHE_ATTRIBUTES = frozenset({"traces", "recorded_mappings", "forget_traces", "matrices_and_biases"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_STATEMENT_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_LOOP_KINDS = frozenset({*_STATEMENT_LOOPS, *COMPREHENSIONS})
_CALLS_AND_DEFS = frozenset({ast.Call, *_DEFS})  # (what `check` reads in loops)


@dataclass(frozen=True)
class Jitted:
    """A function a call reaches through a jit transform, and the expression that configures it."""

    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    transform: Transform
    holder: ast.expr  # the decorator expression or the application call that gets `forget_traces=True`
    called_as: str = ""  # the name the loop calls it by (`advance = jit_compile(_advance)`)
    factory: str = ""  # `step = make_step(...)`: the function of this file that built it
    bound: int = 0  # leading parameters the call does not pass: `self` of a method called as `self.step(...)`

    @property
    def name(self) -> str:
        if self.called_as:
            return self.called_as
        return self.function.name if isinstance(self.function, _DEFS) else "<lambda>"

    @property
    def phiml(self) -> bool:
        return self.transform.framework == "phiml"

    def static(self) -> frozenset[str] | None:
        static = static_params(self.transform, self.function)
        if static is not None and self.transform.api.name == "phiml.math.jit_compile_linear" \
                and self.transform.keyword("auxiliary_args") is None:
            static = frozenset(positional_params(self.function)[1:])  # every parameter after the first
        return static


@dataclass(frozen=True)
class Cause:
    """Why a jit function traces again: the argument whose key changes from call to call, and how."""
    parameter: str
    what: str  # auxiliary | static | value | shape | function | number
    repeats: bool  # the key may come back (the cache then helps): reported at info level, never fixed
    spelling: str
    detail: str = ""  # "instance": the class; "reallocated": the argument as written
    place: ast.AST | None = field(default=None, compare=False)  # where the key changes: an assignment in the loop
    sometimes: bool = False  # never repeats, but changes only on some iterations (`if plateau: n += 1`)
    outer: bool = False  # stable in the innermost loop, changes with an outer one


class Retracing(AstRule):
    """A jit-compiled function is traced again whenever what its cache is keyed on changes. PhiML
    keys on auxiliary argument values, non-tensor arguments (strings, objects, functions by
    identity) and tensor shapes; jax on static arguments and shapes; `tf.function` on Python values
    and shapes. Called in a loop with a key that changes every iteration — an auxiliary `0.5 + i`,
    a tensor that grows, a lambda created per iteration — it traces on every call: each call pays a
    whole trace, and memory grows on jax (figures: docs/benchmarks.md, "What the hazards cost"). PhiML keeps every trace, so
    memory grows with the loop; it warns only after ten traces, at run time.

    The fix adds `forget_traces=True` to the PhiML `jit_compile` / `jit_compile_linear` decorator
    where the key never comes back (a loop counter, a growing shape, a new function): PhiML then keeps
    only the latest trace, which bounds memory on jax (torch's TorchScript keeps its traces regardless). It also silences PhiML's ten-trace warning, so
    `phiml-rewrite profile` is how to see the re-tracing that remains. It does not save the tracing time: the message
    names the stable key that would (pass the value as a tensor instead of an auxiliary argument, pad
    the shape, define the function once). Keys that may come back (`schedule[i]`, `i % 2`) are
    reported at info level and left alone: there the cache serves the repeats. A counter raised only
    under a condition (`if plateau: level += 1`) never comes back either: it re-traces each time it
    changes, and gets the same fix. A key stable in the innermost loop is judged by the loops around it
    (a level raised per epoch, passed in the batch loop); a name reset at the top of the body before
    the call (`level = START`) is the reset value there. A Python number that is neither auxiliary (PhiML makes it a tensor)
    nor static (jax traces it as a weak-typed scalar) is no key; `equinox.filter_jit` keeps every
    argument that is not an array static, and `tf.function` traces once per Python value, so there a
    number that changes is reported — only where it is certainly a Python number (a counter of the
    builtin `range` or `enumerate`, `int(...)`, arithmetic on those, names bound only to them):
    `t += dt` with a `dt` of unknown type may be an array after the first step, and the index of
    `dataset.enumerate()` or `tf.range` is a tensor. A method called as
    `self.step(...)` is judged by the class's own jit-decorated `step` (jax and tensorflow: PhiML's
    `jit_compile` does not bind `self`). Batches cut with a
    fixed width (`x[i:i + size]`) are not reported: only the last, partial one has another shape.
    A function called with changing keys at several places of a loop gets its fix with the first of
    those findings; the others point to it.

    Reported without a fix, with the stable key:
    - a new jit function every iteration: a jit-decorated def inside the loop body (PML102 leaves defs
      in loops alone), or a call of a factory of this file that creates one (`op = make_op(dt)`, a
      nested `@jit_compile_linear` def it returns) — one per distinct value in a dict, or the value
      as an argument of one module-level jit function; loops over a few fixed configurations
      (`for backend in BACKENDS`, `for mode in ("a", "b")`) are left alone;
    - a non-tensor argument (PhiML) or static argument (jax) that is a new object of a class of
      this file without value equality (no `__eq__`): compared by identity, so it never repeats
      (PhiML's `forget_traces=True` fix applies);
    - a list of constructed objects rebuilt per iteration (geometries per sample): PhiML keys on its
      structure and the objects' non-tensor values (info: keys may repeat);
    - a buffer reallocated when it overflows (jax-md's `neighbor_fn.allocate` under
      `if nbrs.did_buffer_overflow:`): one trace per capacity (info: expected when rare; allocate
      with headroom). Nothing is changed
    where the module reads the cache (`.traces`, `trace_check`, `forget_traces`). jax and tensorflow
    have no such switch: their findings say what to make stable. `phiml-rewrite profile` finds the
    re-tracing that only running the program shows, and its `--fix` feeds it to this rule.
    """

    CODE = "PML401"
    NAME = "retracing"
    SUMMARY = "a jit function called in a loop with a key that changes every iteration: re-traced every call"
    SAFETY = Safety.SAFE
    FIX_SAFETY = (
        "Safe: `forget_traces=True` changes which traces PhiML keeps, never what the function computes. It is "
        "added only where the key never repeats in the loop, so no trace that would have been reused is "
        "dropped; a function also called elsewhere with keys that come back would trace those again (slower, "
        "same results). Not added where the module inspects the cache (`.traces`, `trace_check`)."
    )
    EXAMPLES = (
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile(auxiliary_args='k')
                def step(x, k):
                    return math.sin(x) * k


                def run(x, n):
                    for i in range(n):
                        x = step(x, 0.5 + i)
                    return x
            """),
            dedented("""
                from phiml import math


                @math.jit_compile(auxiliary_args='k', forget_traces=True)
                def step(x, k):
                    return math.sin(x) * k


                def run(x, n):
                    for i in range(n):
                        x = step(x, 0.5 + i)
                    return x
            """),
        ),
        Example(
            dedented("""
                import jax


                @jax.jit
                def total(x):
                    return (x ** 2).sum()


                def run(x, n):
                    return [total(x[:i]) for i in range(1, n)]
            """),
            None,
            "jax compiles once per shape: reported with the stable key to use",
        ),
        Example(
            dedented("""
                import equinox as eqx


                @eqx.filter_jit
                def relax(x, level):
                    return x * level / (level + 1)


                def train(x, epochs):
                    for epoch in range(epochs):
                        x = relax(x, epoch + 1)
                    return x
            """),
            None,
            "`equinox.filter_jit` keeps Python numbers static: reported with the stable key",
        ),
        Unchanged(dedented("""
            @jax.jit
            def decay(x, lr):
                return x * (1 - lr)


            def train(x, epochs, lr0):
                for epoch in range(epochs):
                    x = decay(x, lr0 * 0.9 ** epoch)  # not static: traced as a weak-typed scalar
                return x
        """), "jax traces a Python number that is not static: one compile"),
        Unchanged(dedented("""
            @math.jit_compile(auxiliary_args='mode')
            def step(x, k, mode: str):
                return x * k if mode == 'scale' else x + k


            def run(x, n):
                for i in range(n):
                    x = step(x, math.tensor(0.5 + i), 'scale')  # a tensor: traced, not keyed on
                return x
        """), "a new tensor each iteration: traced, not a key"),
        Unchanged(dedented("""
            @jax.jit
            def total(x):
                return (x ** 2).sum()


            def run(x, size):
                return [total(x[i:i + size]) for i in range(0, x.shape[0], size)]
        """), "fixed-width batches: only the last one is partial"),
        Unchanged(dedented("""
            @math.jit_compile(auxiliary_args='mode')
            def step(x, mode: str):
                return x * 2 if mode == 'double' else x + 1


            def run(x):
                for mode in ('double', 'shift'):
                    x = step(x, mode)
                return x
        """), "a loop over a few fixed values, one trace each"),
        Unchanged(dedented("""
            @math.jit_compile(auxiliary_args='k', forget_traces=True)
            def step(x, k):
                return math.sin(x) * k


            def run(x, n):
                for i in range(n):
                    x = step(x, 0.5 + i)
                return x
        """), "`forget_traces=True` set already: the author chose"),
    )
    HAZARDS = ("Avoid repeated tracing", "Memory Leaks")
    PROJECT_FACTS = frozenset({"factories"})
    READS_FACTS = True
    TRIGGERS = (("jit",), ("function",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A jit-decorated def inside a loop; a jit-decorated method called on a name in a loop
        (`self.step(...)`: `_method`); or a jit function, or the result of a factory of them (here or,
        by name, in another module), called in a loop."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        if facts is None:
            return False
        if facts.jit_defs_in_loops or not facts.jitted_method_names.isdisjoint(facts.methods_called_in_loops):
            return True
        factories = facts.jit_factories | facts.remote_factories  # (names Syntax.factory_sensitive lists)
        return not facts.called_in_loops.isdisjoint(facts.jit_decorated | facts.jit_bindings.keys() | factories) or any(
            facts.assigned_calls.get(name, set()) & factories for name in facts.called_in_loops)

    def check(self) -> None:
        """The decorated defs and the calls of a name or of `self.<name>` in a loop (what libcst's visit saw
        with a loop around, in the order written); then what a profile run saw."""
        fixed: dict[int, ast.Call] = {}  # function -> the call whose finding carries its fix
        calls: list[ast.Call] = []
        defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        for node, loop in with_enclosing(self.file.tree, _CALLS_AND_DEFS, _LOOP_KINDS):
            if loop is None:
                continue
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name) or _on_self(node.func):
                    calls.append(node)
            elif isinstance(node, _DEFS) and node.decorator_list:
                defs.append(node)
        for node in defs:
            self._check_def_in_loop(node)
        spelled = spelled_jits(self.file)
        for call in calls:
            if isinstance(call.func, ast.Attribute):
                if self._method(call) is not None:
                    self._check_call(call, fixed)
            elif self._factory(call.func) is not None or self._remote_factory(call.func) is not None:
                self._check_factory_call(call)
            elif spelled.may_be_jitted(call.func) or self._built_by_factory(call.func):
                self._check_call(call, fixed)
        self._check_evidence(fixed)

    # -- static: a new jit function on every iteration ---------------------------------------------
    def _check_def_in_loop(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """`for dt in dts: @jit_compile def step(x): ...`: the def runs, and makes a new jit function with
        an empty cache, every iteration. PML102 leaves defs in loops alone, PML101 those passed on."""
        file = self.file
        names = file.names
        jitted = self._decorated(node)
        if jitted is None or file.jit.enclosing_context(node) is not None:
            return
        loops = enclosing_loops(names, node)
        if not loops or not isinstance(loops[0], _STATEMENT_LOOPS) or _few_values(loops[0]):
            return
        scope = names.scope(node)
        bindings = scope.assignments[node.name] if scope is not None else ()
        binding = next((a for a in bindings if getattr(a, "node", None) is node), None)
        if binding is None or len(bindings) != 1:
            return
        references = [r.node for r in binding.references]
        if not references or not all(is_called(names, r) and is_inside(names, r, loops[0]) for r in references):
            return  # passed on (PML101's business), or used after the loop
        loop = self._loop(loops[0])
        varying = sorted(read_names(node.body) & (loop.counters | loop.changed) - {node.name})
        name = node.name
        how = _retraces(jitted.transform.framework)
        cure = (f"define it once, before the loop or at module level, taking {_listed(varying)} as "
                f"{'an argument' if len(varying) == 1 else 'arguments'} ({_argument_advice(jitted)})"
                if varying else "define it once, before the loop or at module level")
        reads = f"it reads {_listed(varying)}, which change{'s' if len(varying) == 1 else ''} in the loop; " if varying else ""
        self.report(node, f"`{name}` is jit-compiled inside the loop: {how} a new jit function every iteration",
                    hint=cure, note=f"{reads}each new jit function (`{jitted.transform.api.name}`) starts with an empty trace cache",
                    place=file.python.name_place(node))

    def _check_factory_call(self, call: ast.Call) -> None:
        """`op = make_op(dt)` in a loop, where `make_op` returns a jit function it creates: a new one,
        with an empty cache, every iteration."""
        file = self.file
        names = file.names
        local = self._factory(call.func)
        if local is not None:
            factory_name, api, framework = local[0].name, local[1].transform.api.name, local[1].transform.framework
            related: list = [(file.python.name_place(local[0]), f"`{factory_name}` is defined here")]
        else:
            remote = self._remote_factory(call.func)
            factory_name, api, framework = remote.function, remote.jit_api, remote.framework
            related = [Related.line_of(remote.path, remote.line, f"`{factory_name}` is defined here")]
        if file.jit.enclosing_context(call) is not None:
            return  # inside a traced body: inlined into the outer trace
        loops = enclosing_loops(names, call)
        if not loops or not isinstance(loops[0], _STATEMENT_LOOPS) or _few_values(loops[0]):
            return
        outer = _argument_of(names, call)
        if outer is not None and match_application(names, outer, (Kind.JIT,)) is not None:
            return  # `jit(make_op(dt))`: PML302 / PML303
        loop = self._loop(loops[0])
        varying = sorted(read_names(call) & (loop.counters | loop.changed) - {factory_name})
        spelling = file.code(call).strip()
        how = _retraces(framework)
        advice = _framework_advice(framework)
        note = f"each new jit function (`{api}` in `{factory_name}`) starts with an empty trace cache"
        if varying and len(varying) == 1:
            key = varying[0]
            cure = (f"build it once per distinct `{key}` and reuse it: `{factory_name}_by_{key} = {{}}` before the loop, then "
                    f"`if {key} not in {factory_name}_by_{key}: {factory_name}_by_{key}[{key}] = {spelling}`, or make `{key}` an "
                    f"argument of one module-level jit function ({advice})")
            note = f"it depends on `{key}`, which changes in the loop; a dict of functions needs `{key}` hashable and compared by value"
        elif varying:
            cure = (f"build it once per distinct ({', '.join(varying)}) and keep the functions in a dict keyed on them, "
                    f"or make them arguments of one module-level jit function ({advice})")
            note = f"it depends on {_listed(varying)}, which change in the loop"
        else:
            cure = "build it once, before the loop"
        self.report(call, f"`{factory_name}(...)` builds a new jit function every iteration: {how} each one anew",
                    hint=cure, note=note, related=related)

    def _factory(self, func: ast.expr) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, Jitted] | None:
        """`make_op`: a function of this file whose every `return` hands out a jit function it creates."""
        if not isinstance(func, ast.Name):
            return None
        assignments = self.file.names.assignments(func)
        if len(assignments) != 1:
            return None
        node = getattr(next(iter(assignments)), "node", None)
        if not isinstance(node, _DEFS) or node.decorator_list:
            return None  # a decorator (`functools.cache`) may hand out the same function again
        found = None
        returns = [n for n in own_nodes(node) if isinstance(n, ast.Return)]
        for ret in returns:
            jitted = self._created_jit(ret.value, node) if ret.value is not None else None
            if jitted is None:
                return None
            found = found or jitted
        return (node, found) if found is not None else None

    def _remote_factory(self, func: ast.expr):
        """`make_op` imported from another module of the project, which returns a jit function it
        creates on every call (rewriter/project/index.py); None otherwise."""
        found = self.file.imported_factory(func)
        return found if found is not None and found.jit_api else None

    def _created_jit(self, value: ast.expr, factory: ast.FunctionDef | ast.AsyncFunctionDef) -> Jitted | None:
        names = self.file.names
        if isinstance(value, ast.Name):
            defs = [n for n in own_nodes(factory) if isinstance(n, _DEFS) and n.name == value.id]
            if len(defs) == 1:
                return self._decorated(defs[0])
            binding = [n for n in own_nodes(factory) if isinstance(n, ast.Assign) and len(n.targets) == 1
                       and isinstance(n.targets[0], ast.Name) and n.targets[0].id == value.id]
            value = binding[0].value if len(binding) == 1 else value
        if isinstance(value, ast.Call):
            app = match_application(names, value, (Kind.JIT,))
            if app is not None:
                functions = self.file.jit.functions_denoted(app.function)
                return Jitted(functions[0], app.transform, app.call) if len(functions) == 1 else None
        return None

    def _built_by_factory(self, func: ast.expr) -> bool:
        value = bound_value(self.file.names, func)
        return isinstance(value, ast.Call) and self._factory(value.func) is not None

    # -- static: calls in loops -----------------------------------------------------------------
    def _check_call(self, call: ast.Call, fixed: dict[int, ast.Call]) -> None:
        names = self.file.names
        if self.file.jit.enclosing_context(call) is not None:
            return  # inside a traced body the call is inlined into the outer trace
        loops = enclosing_loops(names, call)
        if not loops:
            return
        jitted = self._method(call) if isinstance(call.func, ast.Attribute) else self._jitted(call.func)
        if jitted is None or _forgets(jitted):
            return  # with `forget_traces=True` memory is bounded already: the author chose
        if jitted.factory and any(is_inside(names, a.node, loops[0]) for a in names.assignments(call.func)
                                  if getattr(a, "node", None) is not None):
            return  # built anew in the loop: reported at the factory call
        if isinstance(jitted.function, _DEFS) and is_inside(names, jitted.function, loops[0]):
            return  # defined anew in the loop: reported at the def
        loop = self._loop(loops[0])
        cause = self._cause(call, jitted, loop)
        inner = bound_names(loops[0])
        for outer in loops[1:]:
            if cause is not None:
                break
            # stable within the inner loop, the key may change between its runs: then it traces once per
            # change (the names the inner loops assign are judged there, not here)
            loop = self._loop(outer).without(inner)
            inner |= bound_names(outer)
            cause = self._cause(call, jitted, loop)
            if cause is not None and not cause.repeats:
                cause = replace(cause, sometimes=True, outer=True)
        if cause is None:
            return
        message, cure, why = self._message(jitted, cause, loop)
        grows = cause.what == "shape" and cause.spelling in loop.growing
        if cause.place is None:
            related: list = []
        elif cause.what == "reallocated":
            related = [(cause.place, f"`{cause.detail}` is reallocated here, after its buffer overflowed")]
        else:
            related = [(cause.place, f"`{cause.parameter}` {'grows' if grows else 'is assigned'} here")]
        if cause.repeats:
            if cause.what in ("auxiliary", "static", "value"):
                why = "; ".join(filter(None, (why, "if the values repeat, the trace cache serves them")))
            self.report(call, message, hint=cure, note=why, related=related, severity=Severity.INFO)
            return
        fix, refusal = self._forget(jitted)
        if fix is None:
            self.report(call, message, hint=cure, note="; ".join(filter(None, (refusal, why))), related=related)
            return
        if id(jitted.function) in fixed:
            self.report(call, message, hint=cure, note="; ".join(filter(None, (why, "`forget_traces=True` is proposed with another finding"))),
                        related=[*related, (fixed[id(jitted.function)], "`forget_traces=True` is proposed with this finding")])
            return
        finding = self.report(call, message, fix=fix, related=related,
                              note="; ".join(filter(None, (why, f"each {'change' if cause.sometimes else 'call'} still traces; "
                                                                f"stable key: {cure}"))))
        if finding is not None:
            fixed[id(jitted.function)] = call

    def _loop(self, node: ast.AST) -> Loop:
        return Loop.of(node, self.file.reading)

    def _jitted(self, func: ast.expr) -> Jitted | None:
        """The jit-compiled function a name denotes: a decorated def, or `name = jit(f)` at module level."""
        names = self.file.names
        if not isinstance(func, ast.Name):
            return None
        assignments = names.assignments(func)
        if len(assignments) != 1:
            assignments = names.reaching(func)  # redefined (a notebook's later cell): the def the call sees
        if len(assignments) != 1:
            return None
        node = getattr(next(iter(assignments)), "node", None)
        if isinstance(node, _DEFS):
            return self._decorated(node)
        value = assigned_value(names, node)
        if not isinstance(value, ast.Call):
            return None
        built = self._factory(value.func)
        if built is not None:
            factory, jitted = built
            return Jitted(jitted.function, jitted.transform, jitted.holder, func.id, factory.name)
        app = match_application(names, value, (Kind.JIT,))
        if app is None:
            return None
        functions = self.file.jit.functions_denoted(app.function)
        return Jitted(functions[0], app.transform, app.call, func.id) if len(functions) == 1 else None

    def _method(self, call: ast.Call) -> Jitted | None:
        """`self.step(...)` in a method of a class whose own `step` is jit-decorated (jax, tensorflow,
        equinox: PhiML's `jit_compile` does not bind `self`). Judged by the class's own def: a subclass
        that overrides it is not seen."""
        names = self.file.names
        function = enclosing_function(names, call)
        func = call.func
        if not isinstance(function, _DEFS) or not _on_self(func):
            return None
        first = positional_params(function)[:1]
        owner = names.parent(function)
        if first != [func.value.id] or not isinstance(owner, ast.ClassDef) or _not_plain_method(function):  # type: ignore[attr-defined]
            return None
        defs = [n for n in owner.body if isinstance(n, _DEFS) and n.name == func.attr]  # type: ignore[attr-defined]
        if len(defs) != 1 or _not_plain_method(defs[0]) or not positional_params(defs[0]):
            return None
        jitted = self._decorated(defs[0])
        if jitted is None or jitted.phiml:
            return None
        return Jitted(defs[0], jitted.transform, jitted.holder, f"{func.value.id}.{func.attr}", bound=1)  # type: ignore[attr-defined]

    def _decorated(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Jitted | None:
        for decorator in node.decorator_list:
            transform = match_transform(self.file.names, decorator, (Kind.JIT,))
            if transform is not None:
                return Jitted(node, transform, decorator)
        return None

    def _cause(self, call: ast.Call, jitted: Jitted, loop: Loop) -> Cause | None:
        """The first argument whose trace key changes across iterations (the costliest kind first)."""
        static = jitted.static()
        if static is None:
            return None
        framework = jitted.transform.framework
        if framework not in ("phiml", "jax", "tensorflow"):
            return None
        code = self.file.code
        found: list[Cause] = []
        given: dict[str, ast.expr] = {}
        for parameter, value in _bound_arguments(call, jitted.function, jitted.bound):
            given[parameter] = value
            named = value.id if isinstance(value, ast.Name) else None
            if named is not None and self._reset_before(loop, named, call):
                continue
            spelling = code(value).strip()
            place = None
            single = loop.value_of(named) if named is not None else None
            if named is not None and single is not None:
                spelling = f"{spelling} = {code(single).strip()}"
                place = _assignment(loop, named)
            elif named is not None and named in loop.growing:
                place = _assignment(loop, named)
            key = loop.key(value)
            instance = self._new_instance(value, loop) if framework in ("phiml", "jax") else None
            # PhiML: a plain object as a non-tensor argument is a key compared by `==` (an auxiliary one
            # must be a tree PhiML can `stop_gradient`, which a plain object is not: it fails, not re-traces).
            if instance is not None and (parameter in static) == (framework == "jax"):
                found.append(Cause(parameter, "instance", False, spelling, instance, place))
                continue
            if parameter in static:
                if key != STABLE and not loop.new_function(value):
                    found.append(Cause(parameter, "auxiliary" if framework == "phiml" else "static", key == VARIES, spelling,
                                       place=place))
                continue
            reallocated = _reallocation(loop, value)
            if reallocated is not None:
                found.append(Cause(parameter, "reallocated", True, code(reallocated).strip(), code(value).strip(), reallocated))
            elif key != STABLE and framework == "phiml" and (objects := _objects(loop, value)) is not None:
                found.append(Cause(parameter, "objects", True, code(objects).strip(), place=place))
            elif loop.new_function(value) and framework == "phiml":
                found.append(Cause(parameter, "function", False, spelling, place=place))
            elif loop.grows(value) is not None:
                found.append(Cause(parameter, "shape", False, spelling, place=place))
            elif key != STABLE and _is_text(value) and framework == "phiml":
                found.append(Cause(parameter, "value", key == VARIES, spelling, place=place))
            elif key == NEW_EACH_TIME and framework == "tensorflow" and is_python_number(self.file.names, value):
                found.append(Cause(parameter, "number", False, spelling, place=place))
            elif key != STABLE and jitted.transform.api.name in KEEPS_NUMBERS_STATIC \
                    and is_python_number(self.file.names, value):
                found.append(Cause(parameter, "number", key == VARIES, spelling, place=place))
        found = [c if c.repeats or loop.every_iteration(given[c.parameter]) else
                 Cause(c.parameter, c.what, c.repeats, c.spelling, c.detail, c.place, sometimes=True) for c in found]
        order = ("auxiliary", "static", "instance", "shape", "function", "value", "number", "objects", "reallocated")
        found.sort(key=lambda c: (c.repeats, order.index(c.what)))
        return found[0] if found else None

    def _message(self, jitted: Jitted, cause: Cause, loop: Loop) -> tuple[str, str, str]:
        """(what is wrong, the stable key to use instead, what else explains it) for a call's cause."""
        name, p = jitted.name, cause.parameter
        framework = jitted.transform.framework
        verb = "re-compiles" if framework == "jax" else "re-traces"
        changes = "changes with the iteration" if cause.repeats else "is new each iteration"
        per = "once per distinct value" if cause.repeats else "on every call"
        if cause.sometimes:
            changes, per = "changes on some iterations, never back to an earlier value", f"each time `{p}` changes"
            if cause.outer:
                changes = "changes with an outer loop, never back to an earlier value"
        if jitted.phiml and not cause.repeats:
            per += " and keeps every trace"
        if cause.what in ("auxiliary", "static"):
            cure = (f"pass `{p}` as a tensor (`math.tensor(...)`) and drop it from `auxiliary_args`, if `{name}` only "
                    f"computes with it" if cause.what == "auxiliary" else f"make `{p}` a traced argument, or keep it to a few values")
            return f"`{name}` {verb} {per}: its {cause.what} argument `{p}` {changes}", cure, ""
        if cause.what == "instance":
            cls = cause.detail
            compare = "PhiML compares its keys by `==`" if framework == "phiml" else "jax hashes static arguments"
            return (f"`{name}` {verb} {per}: `{p}` is a new `{cls}` each iteration",
                    f"create it once before the loop, give `{cls}` value equality (`@dataclass(frozen=True)`), or pass the "
                    f"numbers it holds as {'tensors' if framework == 'phiml' else 'traced arguments'}",
                    f"`{cls}` has no value equality (no `__eq__`): {compare}, which for it is identity")
        if cause.what == "objects":
            return (f"`{name}` may re-trace per sample: its non-tensor argument `{p}` is rebuilt from objects each iteration",
                    "keep the structure fixed and let only tensors vary: stack the objects along an instance dimension "
                    "(e.g. one geometry with `instance` centers), padded to a fixed count",
                    "PhiML keys on its structure (length, the objects' types and their non-tensor values, objects without "
                    "value equality by identity), so it traces again whenever those differ between iterations")
        if cause.what == "reallocated":
            what = f"`{cause.detail}`" + (f" (passed as `{p}`)" if cause.detail != p else "")
            return (f"`{name}` {verb} after every reallocation of {what}: the new buffer has another size",
                    "allocate with headroom up front (a larger `capacity_multiplier` or `extra_capacity`) so "
                    "reallocations, and the traces they cost, stay rare",
                    "one trace per capacity: expected when overflows are rare")
        if cause.what == "shape":
            how = "grows by concatenation each iteration" if cause.spelling in loop.growing else changes
            return (f"`{name}` {verb} {per}: the shape of `{p}` {how}",
                    f"pad `{p}` to a fixed size (and mask it), or round sizes up to a few buckets", "")
        if cause.what == "function":
            return (f"`{name}` {verb} {per}: `{p}` is a new function object each iteration",
                    "define the function once, at module level, and pass what it reads as arguments",
                    "PhiML keys traces on functions by identity")
        if cause.what == "value":
            return (f"`{name}` {verb} {per}: its non-tensor argument `{p}` {changes}",
                    "keep it to a few values, or pass numbers as tensors", "")
        if framework == "tensorflow":
            return (f"`{name}` {verb} {per}: `{p}` is a new Python number "
                    f"{'each time it changes' if cause.sometimes else 'each iteration'}", "pass `tf.constant(...)`",
                    "`tf.function` traces once per Python value")
        return (f"`{name}` {verb} {per}: `{p}` is a Python number that {changes}",
                f"pass `{p}` as an array (`jnp.asarray(...)`) if `{name}` only computes with it; a trip count or a shape "
                f"must stay a Python number, and then each new value compiles",
                f"`{jitted.transform.api.name}` keeps every argument that is not an array static: one compile per value")

    def _reset_before(self, loop: Loop, name: str, call: ast.Call) -> bool:
        """`level = START` at the top of the loop body, before the statement of the call, and nothing
        between rebinds it: whatever the rest of the body does to `level`, the call sees `START`. Lines
        are what count (libcst's statements): an assignment sharing its line with another statement, or
        in a one-line body, proves nothing."""
        if not isinstance(loop.node, _STATEMENT_LOOPS):
            return False
        body = loop.node.body
        names = self.file.names
        statement = next((a for a in [call, *ancestors(names, call)] if isinstance(a, ast.stmt) and any(a is s for s in body)), None)
        head = line_head(names, self.file.reading.lines, statement) if statement is not None else None  # type: ignore[union-attr]
        if head is None:
            return False
        lines: list[list[ast.stmt]] = []  # the statements before the call's line, a line at a time
        for earlier in body[:next(i for i, s in enumerate(body) if s is head)]:
            if lines and (lines[-1][-1].end_lineno or 0) >= earlier.lineno:
                lines[-1].append(earlier)
            else:
                lines.append([earlier])
        for line in reversed(lines):
            if not any(name in bound_names_in(s) for s in line):
                continue
            small = line[0] if len(line) == 1 else None
            if isinstance(small, ast.Assign) and len(small.targets) == 1 and isinstance(small.targets[0], ast.Name) \
                    and small.targets[0].id == name:
                value = small.value
                return name not in read_names(value) and loop.key(value) == STABLE
            return False
        return False

    def _new_instance(self, expr: ast.expr, loop: Loop) -> str | None:
        """The class of `expr` when it creates, every iteration, an instance of a class of this file
        that compares by identity (no `__eq__`, no decorator, no base class that could add one)."""
        if isinstance(expr, ast.Name) and loop.value_of(expr.id) is not None and expr.id in loop.changed:
            expr = loop.value_of(expr.id)  # type: ignore[assignment]
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Name):
            return None
        assignments = self.file.names.assignments(expr.func)
        if len(assignments) != 1:
            return None
        node = getattr(next(iter(assignments)), "node", None)
        if not isinstance(node, ast.ClassDef) or node.decorator_list:
            return None
        if any(not (isinstance(b, ast.Name) and b.id == "object") for b in node.bases) or node.keywords:
            return None
        own = {n.name for n in node.body if isinstance(n, _DEFS)}
        assigned = {t.id for statement in node.body if isinstance(statement, ast.Assign)
                    for t in statement.targets if isinstance(t, ast.Name)}
        if own & {"__eq__", "__hash__", "__new__"} or (own | assigned) & {"__variable_attrs__", "__value_attrs__", "__eq__"}:
            return None
        return node.name

    # -- the fix --------------------------------------------------------------------------------
    def _forget(self, jitted: Jitted) -> tuple[PlannedFix | None, str]:
        """The fix adding `forget_traces=True`, or why there is none."""
        if jitted.transform.api.name not in FORGETTING:
            return None, ""
        if jitted.transform.keyword("forget_traces") is not None:
            return None, "its `forget_traces` is set explicitly: left as chosen"
        if self._reads_cache:
            return None, "not fixed: this module inspects the trace cache (`.traces`, `trace_check`), which forgetting would change"
        if isinstance(jitted.function, _DEFS) and enclosing_function(self.file.names, jitted.function) is not None:
            return None, "not fixed: the def is nested in a function (PML102 moves it to module level first)"
        holder = jitted.holder
        if isinstance(holder, (ast.Name, ast.Attribute)) or isinstance(holder, ast.Call) and (holder.args or holder.keywords) \
                and not any(isinstance(a, ast.Starred) for a in holder.args) and all(k.arg is not None for k in holder.keywords):
            return PlannedFix("add `forget_traces=True`: PhiML keeps only the latest trace", (holder,), _write_forget,
                              reads=(holder,)), ""
        return None, "not fixed: the transform is configured in a way this rule does not edit"

    @cached_property
    def _reads_cache(self) -> bool:
        return any(map(_reads_cache, self.file.nodes(*_SPELLS_CACHE)))

    # -- evidence from `phiml-rewrite profile` -------------------------------------------------------
    def _check_evidence(self, fixed: dict[int, ast.Call]) -> None:
        file = self.file
        evidence = file.evidence
        if not evidence:
            return
        for context in file.jit.contexts:
            if context.how == "called" or id(context.function) in fixed:
                continue
            function = context.function
            lines = self._first_lines(function)
            text = next((evidence[line] for line in lines if line in evidence), None)
            if text is None:
                continue
            if context.how == "decorator":
                jitted = self._decorated(function)
            else:
                app = file.jit.application_of(function)
                jitted = Jitted(function, app.transform, app.call) if app is not None else None
            if jitted is None or _forgets(jitted):
                continue
            fix, refusal = self._forget(jitted)
            # At a def: its name, where libcst has a node inside the def (`args`, as near, for what encloses it).
            target, place = (function.args, file.python.name_place(function)) if isinstance(function, _DEFS) else (function, None)
            message = f"`{jitted.name}` re-traced at run time ({text})"
            if fix is None:
                self.report(target, message, hint="make the key that changes between calls stable", note=refusal, place=place)
                continue
            self.report(target, message, fix=fix, note="each new key still traces", place=place)

    def _first_lines(self, function: ast.AST) -> set[int]:
        """The lines Python reports for a def: its first decorator's (`co_firstlineno`) and the `def`'s."""
        python = self.file.python
        lines = {self.file.span(function).line}
        if isinstance(function, _DEFS):
            lines.add(python.name_place(function).line)
            if function.decorator_list:
                lines.add(python.decorator_place(function.decorator_list[0]).line)
        return lines


def _write_forget(context, holder: cst.BaseExpression):
    """`forget_traces=True` added to the jit decorator or application `holder`."""
    keyword = forget_traces()
    if isinstance(holder, (cst.Name, cst.Attribute)):
        return [Replace(holder, cst.Call(holder, [keyword]))]
    if isinstance(holder, cst.Call) and holder.args and not any(a.star for a in holder.args):
        args = list(holder.args)
        args[-1] = args[-1].with_changes(comma=comma())
        return [Replace(holder, holder.with_changes(args=[*args, keyword]))]
    return None


# The nodes that may spell a name (`_reads_cache`).
_SPELLS_CACHE = (ast.Name, ast.Attribute, ast.keyword, ast.arg, *_DEFS, ast.ClassDef, ast.alias, ast.ImportFrom, ast.Global,
                 ast.Nonlocal)


def _reads_cache(node: ast.AST) -> bool:
    """`node` spells a name of the trace cache (CACHE_ATTRIBUTES as an attribute, `trace_check` anywhere),
    as libcst's names there are: attribute and keyword names, and the parts of an import's dotted path."""
    if isinstance(node, ast.Name):
        return node.id == "trace_check"
    if isinstance(node, ast.Attribute):
        return node.attr == "trace_check" or node.attr in CACHE_ATTRIBUTES
    if isinstance(node, (ast.keyword, ast.arg)):
        return node.arg == "trace_check"
    if isinstance(node, (*_DEFS, ast.ClassDef)):
        return node.name == "trace_check"
    if isinstance(node, ast.alias):
        return _spells_cache(node.name) or node.asname == "trace_check"
    if isinstance(node, ast.ImportFrom):
        return _spells_cache(node.module or "")
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return "trace_check" in node.names
    return False


def _spells_cache(dotted: str) -> bool:
    """`phiml.math.trace_check`, `x.traces`: a module path naming the cache (its attributes, past the first part)."""
    path = dotted.split(".")
    return "trace_check" in path or bool(CACHE_ATTRIBUTES.intersection(path[1:]))


def _on_self(func: ast.expr) -> bool:
    """`self.step`: an attribute of a plain name (the method's first parameter is checked later)."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)


def _not_plain_method(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(last_name(d) in ("staticmethod", "classmethod", "property") for d in function.decorator_list)


def _argument_of(names, node: ast.expr) -> ast.Call | None:
    """The call `node` is an argument of (`jit(make_op(dt))`), if any."""
    parent = names.parent(node)
    if isinstance(parent, (ast.keyword, ast.Starred)):
        holder = names.parent(parent)
        return holder if isinstance(holder, ast.Call) and parent is not holder.func else None
    return parent if isinstance(parent, ast.Call) and parent.func is not node else None


def _few_values(loop: ast.AST) -> bool:
    """`for mode in ("a", "b")`, `for backend in BACKENDS`: a few fixed configurations, one trace each
    (what the loop asks for)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    if isinstance(loop.iter, (ast.Tuple, ast.List, ast.Set)):
        return len(loop.iter.elts) <= 4  # type: ignore[attr-defined]
    return isinstance(loop.iter, ast.Name) and loop.iter.id.isupper()


def _assignment(loop: Loop, name: str) -> ast.stmt | None:
    """The first statement of the loop body that assigns `name` (`x = ...`, `t += dt`)."""
    for statement in loop_body(loop.node):
        for node in walked(statement):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets) \
                    or isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) and node.target.id == name:
                return node  # type: ignore[return-value]
    return None


def _listed(names) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _retraces(framework: str) -> str:
    return {"phiml": "PhiML traces", "jax": "jax traces and compiles", "tensorflow": "tf.function traces"}.get(framework, "it traces")


def _argument_advice(jitted: Jitted) -> str:
    return _framework_advice(jitted.transform.framework)


def _framework_advice(framework: str) -> str:
    if framework == "phiml":
        return "a tensor, or listed in `auxiliary_args` where it must stay a Python value"
    if framework == "jax":
        return "traced, or in `static_argnames` where it must stay a Python value"
    return "a tensor"


def _reallocation(loop: Loop, expr: ast.expr) -> ast.Call | None:
    """`nbrs = neighbor_fn.allocate(...)` in the loop, under `if nbrs.did_buffer_overflow:` (jax-md's
    neighbour lists): a buffer rebuilt larger, so its shape changes, when it overflows."""
    while isinstance(expr, ast.Attribute):  # `nbrs.idx`
        expr = expr.value  # type: ignore[attr-defined]
    if not isinstance(expr, ast.Name) or expr.id not in loop.changed:
        return None
    for node in walked(loop.node):
        if not isinstance(node, ast.If) or not any(
                isinstance(n, (ast.Name, ast.Attribute)) and "overflow" in (last_name(n) or "") for n in walked(node.test)):
            continue
        for inner in (n for statement in node.body for n in walked(statement)):
            if isinstance(inner, ast.Assign) and isinstance(inner.value, ast.Call) and any(
                    isinstance(t, ast.Name) and t.id == expr.id for t in inner.targets):
                return inner.value
    return None


def _objects(loop: Loop, expr: ast.expr) -> ast.expr | None:
    """A list or tuple of constructed objects (`[Sphere(c, r) for c, r in sample]`), built in the loop."""
    if isinstance(expr, ast.Name) and loop.value_of(expr.id) is not None:
        expr = loop.value_of(expr.id)  # type: ignore[assignment]
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp)):
        elements = [expr.elt]  # type: ignore[attr-defined]
    elif isinstance(expr, (ast.List, ast.Tuple)):
        elements = [e.value if isinstance(e, ast.Starred) else e for e in expr.elts]  # type: ignore[attr-defined]
    else:
        return None
    if elements and all(isinstance(e, ast.Call) and (last_name(e.func) or "")[:1].isupper() for e in elements):
        return expr
    return None


def _forgets(jitted: Jitted) -> bool:
    value = jitted.transform.keyword("forget_traces")
    return isinstance(value, ast.Constant) and value.value is True


def _bound_arguments(call: ast.Call, function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, bound: int = 0):
    """(parameter, value) pairs for the plain positional and keyword arguments of `call`; the first
    `bound` parameters are not passed (`self`)."""
    positional = positional_params(function)[bound:]
    index = 0
    for arg in arguments(call):
        if arg.star:
            return
        if arg.keyword is not None:
            yield arg.keyword, arg.value
        elif index < len(positional):
            yield positional[index], arg.value
            index += 1


def _is_text(expr: ast.expr) -> bool:
    return isinstance(expr, ast.JoinedStr) or isinstance(expr, ast.Constant) and isinstance(expr.value, (str, bytes)) or \
        isinstance(expr, ast.Call) and last_name(expr.func) in ("str", "repr", "format")
