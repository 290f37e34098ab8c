"""PML401 retracing."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.jit import assigned_value, bound_value
from rewriter.analysis.names import last_name
from rewriter.analysis.structure import ancestors, enclosing_function, enclosing_loops, is_inside
from rewriter.analysis.transforms import Transform, match_application, match_transform, positional_params, static_params
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.findings import Related, Safety, Severity

from ._hazards import own_nodes
from ._lift import COMMA, NO_SPACE_EQUAL, is_called
from ._loop_keys import NEW_EACH_TIME, STABLE, VARIES, Loop, bound_names, bound_names_in, read_names, walk
from ._python_numbers import is_python_number

FORGETTING = frozenset({"phiml.math.jit_compile", "phiml.math.jit_compile_linear"})  # take forget_traces=
# Keep every argument that is not an array static: a Python number is a compile key.
KEEPS_NUMBERS_STATIC = frozenset({"equinox.filter_jit"})
# Reading these means the program relies on what the trace cache remembers.
CACHE_ATTRIBUTES = frozenset({"traces", "recorded_mappings", "forget_traces", "matrices_and_biases"})


@dataclass(frozen=True)
class Jitted:
    """A function a call reaches through a jit transform, and the expression that configures it."""

    function: cst.FunctionDef | cst.Lambda
    transform: Transform
    holder: cst.CSTNode  # the decorator expression or the application call that gets `forget_traces=True`
    called_as: str = ""  # the name the loop calls it by (`advance = jit_compile(_advance)`)
    factory: str = ""  # `step = make_step(...)`: the function of this file that built it
    bound: int = 0  # leading parameters the call does not pass: `self` of a method called as `self.step(...)`

    @property
    def name(self) -> str:
        if self.called_as:
            return self.called_as
        return self.function.name.value if isinstance(self.function, cst.FunctionDef) else "<lambda>"

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
    parameter: str
    what: str  # auxiliary | static | value | shape | function | number
    repeats: bool  # the key may come back (the cache then helps): reported at info level, never fixed
    spelling: str
    detail: str = ""  # "instance": the class; "reallocated": the argument as written
    place: cst.CSTNode | None = field(default=None, compare=False)  # where the key changes: an assignment in the loop
    sometimes: bool = False  # never repeats, but changes only on some iterations (`if plateau: n += 1`)
    outer: bool = False  # stable in the innermost loop, changes with an outer one


class Retracing(Codemod):
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
    argument that is not an array static, so there a number that changes is reported — only where it is
    certainly a Python number (a counter, `int(...)`, arithmetic on those, names bound only to them):
    `t += dt` with a `dt` of unknown type may be an array after the first step. A method called as
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
        facts = syntax.facts
        if facts is None:
            return False
        if facts.jit_defs_in_loops or not facts.jitted_method_names.isdisjoint(facts.methods_called_in_loops):
            return True
        factories = facts.jit_factories | facts.remote_factories  # (names Syntax.factory_sensitive lists)
        return not facts.called_in_loops.isdisjoint(facts.jit_decorated | facts.jit_bindings.keys() | factories) or any(
            facts.assigned_calls.get(name, set()) & factories for name in facts.called_in_loops)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._calls: list[cst.Call] = []
        self._defs_in_loops: list[cst.FunctionDef] = []

    def visit_Call(self, node: cst.Call) -> None:
        if self.file.syntax.loop_depth and (isinstance(node.func, cst.Name) or _on_self(node.func)):
            self._calls.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.file.syntax.loop_depth and node.decorators:
            self._defs_in_loops.append(node)

    def leave_Module(self, original_node: cst.Module) -> None:
        fixed: dict[int, cst.Call] = {}  # function -> the call whose finding carries its fix
        for node in self._defs_in_loops:
            self._check_def_in_loop(node)
        for call in self._calls:
            if isinstance(call.func, cst.Attribute):
                if self._method(call) is not None:
                    self._check_call(call, fixed)
            elif self._factory(call.func) is not None or self._remote_factory(call.func) is not None:
                self._check_factory_call(call)
            elif self.file.syntax.may_be_jitted(call.func) or self._built_by_factory(call.func):
                self._check_call(call, fixed)
        self._check_evidence(fixed)

    # -- static: a new jit function on every iteration ---------------------------------------------
    def _check_def_in_loop(self, node: cst.FunctionDef) -> None:
        """`for dt in dts: @jit_compile def step(x): ...`: the def runs, and makes a new jit function with
        an empty cache, every iteration. PML102 leaves defs in loops alone, PML101 those passed on."""
        names = self.file.analysis.names
        jitted = self._decorated(node)
        if jitted is None or self.file.analysis.jit.enclosing_context(node) is not None:
            return
        loops = enclosing_loops(names, node)
        if not loops or not isinstance(loops[0], (cst.For, cst.While)) or _few_values(loops[0]):
            return
        scope = names.scope(node)
        bindings = scope.assignments[node.name.value] if scope is not None else ()
        binding = next((a for a in bindings if getattr(a, "node", None) is node), None)
        if binding is None or len(bindings) != 1:
            return
        references = [r.node for r in binding.references]
        if not references or not all(is_called(names, r) and is_inside(names, r, loops[0]) for r in references):
            return  # passed on (PML101's business), or used after the loop
        loop = Loop.of(loops[0])
        varying = sorted(read_names(node.body) & (loop.counters | loop.changed) - {node.name.value})
        name = node.name.value
        how = _retraces(jitted.transform.framework)
        cure = (f"define it once, before the loop or at module level, taking {_listed(varying)} as "
                f"{'an argument' if len(varying) == 1 else 'arguments'} ({_argument_advice(jitted)})"
                if varying else "define it once, before the loop or at module level")
        reads = f"it reads {_listed(varying)}, which change{'s' if len(varying) == 1 else ''} in the loop; " if varying else ""
        self.report(node.name, f"`{name}` is jit-compiled inside the loop: {how} a new jit function every iteration",
                    hint=cure, note=f"{reads}each new jit function (`{jitted.transform.api.name}`) starts with an empty trace cache")

    def _check_factory_call(self, call: cst.Call) -> None:
        """`op = make_op(dt)` in a loop, where `make_op` returns a jit function it creates: a new one,
        with an empty cache, every iteration."""
        names = self.file.analysis.names
        local = self._factory(call.func)
        if local is not None:
            factory_name, api, framework = local[0].name.value, local[1].transform.api.name, local[1].transform.framework
            related = [(local[0].name, f"`{factory_name}` is defined here")]
        else:
            remote = self._remote_factory(call.func)
            factory_name, api, framework = remote.function, remote.jit_api, remote.framework
            related = [Related.line_of(remote.path, remote.line, f"`{factory_name}` is defined here")]
        if self.file.analysis.jit.enclosing_context(call) is not None:
            return  # inside a traced body: inlined into the outer trace
        loops = enclosing_loops(names, call)
        if not loops or not isinstance(loops[0], (cst.For, cst.While)) or _few_values(loops[0]):
            return
        parent = names.parent(call)
        if isinstance(parent, cst.Arg) and isinstance(names.parent(parent), cst.Call) \
                and match_application(names, names.parent(parent), (Kind.JIT,)) is not None:
            return  # `jit(make_op(dt))`: PML302 / PML303
        loop = Loop.of(loops[0])
        varying = sorted(read_names(call) & (loop.counters | loop.changed) - {factory_name})
        spelling = self.file.code(call).strip()
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

    def _factory(self, func: cst.BaseExpression) -> tuple[cst.FunctionDef, Jitted] | None:
        """`make_op`: a function of this file whose every `return` hands out a jit function it creates."""
        if not isinstance(func, cst.Name):
            return None
        assignments = self.file.analysis.names.assignments(func)
        if len(assignments) != 1:
            return None
        node = getattr(next(iter(assignments)), "node", None)
        if not isinstance(node, cst.FunctionDef) or node.decorators:
            return None  # a decorator (`functools.cache`) may hand out the same function again
        found = None
        returns = [n for n in own_nodes(node) if isinstance(n, cst.Return)]
        for ret in returns:
            jitted = self._created_jit(ret.value, node) if ret.value is not None else None
            if jitted is None:
                return None
            found = found or jitted
        return (node, found) if found is not None else None

    def _remote_factory(self, func: cst.BaseExpression):
        """`make_op` imported from another module of the project, which returns a jit function it
        creates on every call (rewriter/project/index.py); None otherwise."""
        found = self.file.analysis.imported_factory(func)
        return found if found is not None and found.jit_api else None

    def _created_jit(self, value: cst.BaseExpression, factory: cst.FunctionDef) -> Jitted | None:
        names = self.file.analysis.names
        if isinstance(value, cst.Name):
            defs = [n for n in own_nodes(factory) if isinstance(n, cst.FunctionDef) and n.name.value == value.value]
            if len(defs) == 1:
                return self._decorated(defs[0])
            binding = [n for n in own_nodes(factory) if isinstance(n, cst.Assign) and len(n.targets) == 1
                       and isinstance(n.targets[0].target, cst.Name) and n.targets[0].target.value == value.value]
            value = binding[0].value if len(binding) == 1 else value
        if isinstance(value, cst.Call):
            app = match_application(names, value, (Kind.JIT,))
            if app is not None:
                functions = self.file.analysis.jit.functions_denoted(app.function)
                return Jitted(functions[0], app.transform, app.call) if len(functions) == 1 else None
        return None

    def _built_by_factory(self, func: cst.BaseExpression) -> bool:
        value = bound_value(self.file.analysis.names, func)
        return isinstance(value, cst.Call) and self._factory(value.func) is not None

    # -- static: calls in loops -----------------------------------------------------------------
    def _check_call(self, call: cst.Call, fixed: dict[int, cst.Call]) -> None:
        names = self.file.analysis.names
        if self.file.analysis.jit.enclosing_context(call) is not None:
            return  # inside a traced body the call is inlined into the outer trace
        loops = enclosing_loops(names, call)
        if not loops:
            return
        jitted = self._method(call) if isinstance(call.func, cst.Attribute) else self._jitted(call.func)
        if jitted is None or _forgets(jitted):
            return  # with `forget_traces=True` memory is bounded already: the author chose
        if jitted.factory and any(is_inside(names, a.node, loops[0]) for a in names.assignments(call.func)
                                  if getattr(a, "node", None) is not None):
            return  # built anew in the loop: reported at the factory call
        if isinstance(jitted.function, cst.FunctionDef) and is_inside(names, jitted.function, loops[0]):
            return  # defined anew in the loop: reported at the def
        loop = Loop.of(loops[0])
        cause = self._cause(call, jitted, loop)
        inner = bound_names(loops[0])
        for outer in loops[1:]:
            if cause is not None:
                break
            # stable within the inner loop, the key may change between its runs: then it traces once per
            # change (the names the inner loops assign are judged there, not here)
            loop = Loop.of(outer).without(inner)
            inner |= bound_names(outer)
            cause = self._cause(call, jitted, loop)
            if cause is not None and not cause.repeats:
                cause = replace(cause, sometimes=True, outer=True)
        if cause is None:
            return
        message, cure, why = self._message(call, jitted, cause, loop)
        grows = cause.what == "shape" and cause.spelling in loop.growing
        if cause.place is None:
            related = []
        elif cause.what == "reallocated":
            related = [(cause.place, f"`{cause.detail}` is reallocated here, after its buffer overflowed")]
        else:
            related = [(cause.place, f"`{cause.parameter}` {'grows' if grows else 'is assigned'} here")]
        if cause.repeats:
            if cause.what in ("auxiliary", "static", "value"):
                why = "; ".join(filter(None, (why, "if the values repeat, the trace cache serves them")))
            self.report(call, message, hint=cure, note=why, related=related, severity=Severity.INFO)
            return
        edit, refusal = self._forget(jitted)
        if edit is None:
            self.report(call, message, hint=cure, note="; ".join(filter(None, (refusal, why))), related=related)
            return
        if id(jitted.function) in fixed:
            self.report(call, message, hint=cure, note="; ".join(filter(None, (why, "`forget_traces=True` is proposed with another finding"))),
                        related=[*related, (fixed[id(jitted.function)], "`forget_traces=True` is proposed with this finding")])
            return
        finding = self.report(call, message, edits=[edit], related=related,
                              fix_description="add `forget_traces=True`: PhiML keeps only the latest trace",
                              note="; ".join(filter(None, (why, f"each {'change' if cause.sometimes else 'call'} still traces; "
                                                                f"stable key: {cure}"))))
        if finding is not None:
            fixed[id(jitted.function)] = call

    def _jitted(self, func: cst.BaseExpression) -> Jitted | None:
        """The jit-compiled function a name denotes: a decorated def, or `name = jit(f)` at module level."""
        names = self.file.analysis.names
        if not isinstance(func, cst.Name):
            return None
        assignments = names.assignments(func)
        if len(assignments) != 1:
            assignments = names.reaching(func)  # redefined (a notebook's later cell): the def the call sees
        if len(assignments) != 1:
            return None
        node = getattr(next(iter(assignments)), "node", None)
        if isinstance(node, cst.FunctionDef):
            return self._decorated(node)
        value = assigned_value(names, node)
        if not isinstance(value, cst.Call):
            return None
        built = self._factory(value.func)
        if built is not None:
            factory, jitted = built
            return Jitted(jitted.function, jitted.transform, jitted.holder, func.value, factory.name.value)
        app = match_application(names, value, (Kind.JIT,))
        if app is None:
            return None
        functions = self.file.analysis.jit.functions_denoted(app.function)
        return Jitted(functions[0], app.transform, app.call, func.value) if len(functions) == 1 else None

    def _method(self, call: cst.Call) -> Jitted | None:
        """`self.step(...)` in a method of a class whose own `step` is jit-decorated (jax, tensorflow,
        equinox: PhiML's `jit_compile` does not bind `self`). Judged by the class's own def: a subclass
        that overrides it is not seen."""
        names = self.file.analysis.names
        function = enclosing_function(names, call)
        if not isinstance(function, cst.FunctionDef) or not _on_self(call.func):
            return None
        first = positional_params(function)[:1]
        block = names.parent(function)
        owner = names.parent(block) if block is not None else None
        if first != [call.func.value.value] or not isinstance(owner, cst.ClassDef) or _not_plain_method(function):
            return None
        defs = [n for n in owner.body.body if isinstance(n, cst.FunctionDef) and n.name.value == call.func.attr.value]
        if len(defs) != 1 or _not_plain_method(defs[0]) or not positional_params(defs[0]):
            return None
        jitted = self._decorated(defs[0])
        if jitted is None or jitted.phiml:
            return None
        return Jitted(defs[0], jitted.transform, jitted.holder, f"{call.func.value.value}.{call.func.attr.value}", bound=1)

    def _decorated(self, node: cst.FunctionDef) -> Jitted | None:
        for decorator in node.decorators:
            transform = match_transform(self.file.analysis.names, decorator.decorator, (Kind.JIT,))
            if transform is not None:
                return Jitted(node, transform, decorator.decorator)
        return None

    def _cause(self, call: cst.Call, jitted: Jitted, loop: Loop) -> Cause | None:
        """The first argument whose trace key changes across iterations (the costliest kind first)."""
        static = jitted.static()
        if static is None:
            return None
        framework = jitted.transform.framework
        if framework not in ("phiml", "jax", "tensorflow"):
            return None
        found: list[Cause] = []
        given: dict[str, cst.BaseExpression] = {}
        for parameter, arg in _bound_arguments(call, jitted.function, jitted.bound):
            given[parameter] = arg.value
            if isinstance(arg.value, cst.Name) and self._reset_before(loop, arg.value.value, call):
                continue
            spelling = self.file.code(arg.value).strip()
            place = None
            if isinstance(arg.value, cst.Name) and loop.value_of(arg.value.value) is not None:
                spelling = f"{spelling} = {self.file.code(loop.value_of(arg.value.value)).strip()}"
                place = _assignment(loop, arg.value.value)
            elif isinstance(arg.value, cst.Name) and arg.value.value in loop.growing:
                place = _assignment(loop, arg.value.value)
            key = loop.key(arg.value)
            instance = self._new_instance(arg.value, loop) if framework in ("phiml", "jax") else None
            # PhiML: a plain object as a non-tensor argument is a key compared by `==` (an auxiliary one
            # must be a tree PhiML can `stop_gradient`, which a plain object is not: it fails, not re-traces).
            if instance is not None and (parameter in static) == (framework == "jax"):
                found.append(Cause(parameter, "instance", False, spelling, instance, place))
                continue
            if parameter in static:
                if key != STABLE and not loop.new_function(arg.value):
                    found.append(Cause(parameter, "auxiliary" if framework == "phiml" else "static", key == VARIES, spelling,
                                       place=place))
                continue
            reallocated = _reallocation(loop, arg.value)
            if reallocated is not None:
                found.append(Cause(parameter, "reallocated", True, self.file.code(reallocated).strip(),
                                   self.file.code(arg.value).strip(), reallocated))
            elif key != STABLE and framework == "phiml" and _objects(loop, arg.value) is not None:
                found.append(Cause(parameter, "objects", True, self.file.code(_objects(loop, arg.value)).strip(), place=place))
            elif loop.new_function(arg.value) and framework == "phiml":
                found.append(Cause(parameter, "function", False, spelling, place=place))
            elif loop.grows(arg.value) is not None:
                found.append(Cause(parameter, "shape", False, spelling, place=place))
            elif key != STABLE and _is_text(arg.value) and framework == "phiml":
                found.append(Cause(parameter, "value", key == VARIES, spelling, place=place))
            elif key == NEW_EACH_TIME and framework == "tensorflow" and _is_number(arg.value):
                found.append(Cause(parameter, "number", False, spelling, place=place))
            elif key != STABLE and jitted.transform.api.name in KEEPS_NUMBERS_STATIC \
                    and is_python_number(self.file.analysis.names, arg.value):
                found.append(Cause(parameter, "number", key == VARIES, spelling, place=place))
        found = [c if c.repeats or loop.every_iteration(given[c.parameter]) else
                 Cause(c.parameter, c.what, c.repeats, c.spelling, c.detail, c.place, sometimes=True) for c in found]
        order = ("auxiliary", "static", "instance", "shape", "function", "value", "number", "objects", "reallocated")
        found.sort(key=lambda c: (c.repeats, order.index(c.what)))
        return found[0] if found else None

    def _message(self, call: cst.Call, jitted: Jitted, cause: Cause, loop: Loop) -> tuple[str, str, str]:
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

    def _reset_before(self, loop: Loop, name: str, call: cst.Call) -> bool:
        """`level = START` at the top of the loop body, before the statement of the call, and nothing
        between rebinds it: whatever the rest of the body does to `level`, the call sees `START`."""
        body = getattr(getattr(loop.node, "body", None), "body", None)
        if not isinstance(body, (list, tuple)):
            return False
        names = self.file.analysis.names
        statement = next((a for a in [call, *ancestors(names, call)] if any(a is s for s in body)), None)
        if statement is None:
            return False
        before = body[:next(i for i, s in enumerate(body) if s is statement)]
        for earlier in reversed(before):
            if name not in bound_names_in(earlier):
                continue
            small = earlier.body[0] if isinstance(earlier, cst.SimpleStatementLine) and len(earlier.body) == 1 else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                    and small.targets[0].target.value == name:
                value = small.value
                return name not in read_names(value) and loop.key(value) == STABLE
            return False
        return False

    def _new_instance(self, expr: cst.BaseExpression, loop: Loop) -> str | None:
        """The class of `expr` when it creates, every iteration, an instance of a class of this file
        that compares by identity (no `__eq__`, no decorator, no base class that could add one)."""
        if isinstance(expr, cst.Name) and loop.value_of(expr.value) is not None and expr.value in loop.changed:
            expr = loop.value_of(expr.value)
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
            return None
        assignments = self.file.analysis.names.assignments(expr.func)
        if len(assignments) != 1:
            return None
        node = getattr(next(iter(assignments)), "node", None)
        if not isinstance(node, cst.ClassDef) or node.decorators:
            return None
        if any(not (isinstance(b.value, cst.Name) and b.value.value == "object") for b in node.bases) or node.keywords:
            return None
        own = {n.name.value for n in node.body.body if isinstance(n, cst.FunctionDef)}
        assigned = {t.target.value for line in node.body.body if isinstance(line, cst.SimpleStatementLine)
                    for small in line.body if isinstance(small, cst.Assign)
                    for t in small.targets if isinstance(t.target, cst.Name)}
        if own & {"__eq__", "__hash__", "__new__"} or (own | assigned) & {"__variable_attrs__", "__value_attrs__", "__eq__"}:
            return None
        return node.name.value

    # -- the fix --------------------------------------------------------------------------------
    def _forget(self, jitted: Jitted) -> tuple[Replace | None, str]:
        """The edit adding `forget_traces=True`, or why there is none."""
        if jitted.transform.api.name not in FORGETTING:
            return None, ""
        if jitted.transform.keyword("forget_traces") is not None:
            return None, "its `forget_traces` is set explicitly: left as chosen"
        if self._reads_cache:
            return None, "not fixed: this module inspects the trace cache (`.traces`, `trace_check`), which forgetting would change"
        if isinstance(jitted.function, cst.FunctionDef) and enclosing_function(self.file.analysis.names, jitted.function) is not None:
            return None, "not fixed: the def is nested in a function (PML102 moves it to module level first)"
        holder = jitted.holder
        keyword = cst.Arg(cst.Name("True"), keyword=cst.Name("forget_traces"), equal=NO_SPACE_EQUAL)
        if isinstance(holder, (cst.Name, cst.Attribute)):
            return Replace(holder, cst.Call(holder, [keyword])), ""
        if isinstance(holder, cst.Call) and holder.args and not any(a.star for a in holder.args):
            args = list(holder.args)
            args[-1] = args[-1].with_changes(comma=COMMA)
            return Replace(holder, holder.with_changes(args=[*args, keyword])), ""
        return None, "not fixed: the transform is configured in a way this rule does not edit"

    @cached_property
    def _reads_cache(self) -> bool:
        return any(isinstance(n, cst.Attribute) and n.attr.value in CACHE_ATTRIBUTES
                   or isinstance(n, cst.Name) and n.value == "trace_check" for n in walk(self.file.module))

    # -- evidence from `phiml-rewrite profile` -------------------------------------------------------
    def _check_evidence(self, fixed: dict[int, int]) -> None:
        evidence = self.file.evidence
        if not evidence:
            return
        for context in self.file.analysis.jit.contexts:
            if context.how == "called" or id(context.function) in fixed:
                continue
            lines = _first_lines(self, context.function)
            text = next((evidence[line] for line in lines if line in evidence), None)
            if text is None:
                continue
            if context.how == "decorator":
                jitted = self._decorated(context.function)
            else:
                app = self.file.analysis.jit.application_of(context.function)
                jitted = Jitted(context.function, app.transform, app.call) if app is not None else None
            if jitted is None or _forgets(jitted):
                continue
            edit, refusal = self._forget(jitted)
            target = context.function.name if isinstance(context.function, cst.FunctionDef) else context.function
            message = f"`{jitted.name}` re-traced at run time ({text})"
            if edit is None:
                self.report(target, message, hint="make the key that changes between calls stable", note=refusal)
                continue
            self.report(target, message, edits=[edit], note="each new key still traces",
                        fix_description="add `forget_traces=True`: PhiML keeps only the latest trace")


def _on_self(func: cst.BaseExpression) -> bool:
    """`self.step`: an attribute of a plain name (the method's first parameter is checked later)."""
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)


def _not_plain_method(function: cst.FunctionDef) -> bool:
    return any(last_name(d.decorator) in ("staticmethod", "classmethod", "property") for d in function.decorators)


def _few_values(loop: cst.CSTNode) -> bool:
    """`for mode in ("a", "b")`, `for backend in BACKENDS`: a few fixed configurations, one trace each
    (what the loop asks for)."""
    if not isinstance(loop, cst.For):
        return False
    if isinstance(loop.iter, (cst.Tuple, cst.List, cst.Set)):
        return len(loop.iter.elements) <= 4
    return isinstance(loop.iter, cst.Name) and loop.iter.value.isupper()


def _assignment(loop: Loop, name: str) -> cst.CSTNode | None:
    """The first statement of the loop body that assigns `name` (`x = ...`, `t += dt`)."""
    for node in walk(getattr(loop.node, "body", loop.node)):
        if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets) \
                or isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name) and node.target.value == name:
            return node
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


def _reallocation(loop: Loop, expr: cst.BaseExpression) -> cst.Call | None:
    """`nbrs = neighbor_fn.allocate(...)` in the loop, under `if nbrs.did_buffer_overflow:` (jax-md's
    neighbour lists): a buffer rebuilt larger, so its shape changes, when it overflows."""
    while isinstance(expr, cst.Attribute):  # `nbrs.idx`
        expr = expr.value
    if not isinstance(expr, cst.Name) or expr.value not in loop.changed:
        return None
    for node in walk(loop.node):
        if not isinstance(node, cst.If) or not any(
                isinstance(n, (cst.Name, cst.Attribute)) and "overflow" in last_name(n) for n in walk(node.test)):
            continue
        for inner in walk(node.body):
            if isinstance(inner, cst.Assign) and isinstance(inner.value, cst.Call) and any(
                    isinstance(t.target, cst.Name) and t.target.value == expr.value for t in inner.targets):
                return inner.value
    return None


def _objects(loop: Loop, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """A list or tuple of constructed objects (`[Sphere(c, r) for c, r in sample]`), built in the loop."""
    if isinstance(expr, cst.Name) and loop.value_of(expr.value) is not None:
        expr = loop.value_of(expr.value)
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
        elements = [expr.elt]
    elif isinstance(expr, (cst.List, cst.Tuple)):
        elements = [e.value for e in expr.elements]
    else:
        return None
    if elements and all(isinstance(e, cst.Call) and last_name(e.func)[:1].isupper() for e in elements):
        return expr
    return None


def _forgets(jitted: Jitted) -> bool:
    value = jitted.transform.keyword("forget_traces")
    return isinstance(value, cst.Name) and value.value == "True"


def _first_lines(codemod: Codemod, function: cst.CSTNode) -> set[int]:
    """The lines Python reports for a def: its first decorator's (`co_firstlineno`) and the `def`'s."""
    lines = {codemod.span(function).line}
    if isinstance(function, cst.FunctionDef):
        lines.add(codemod.span(function.name).line)
        if function.decorators:
            lines.add(codemod.span(function.decorators[0]).line)
    return lines


def _bound_arguments(call: cst.Call, function: cst.FunctionDef | cst.Lambda, bound: int = 0):
    """(parameter, argument) pairs for the plain positional and keyword arguments of `call`; the first
    `bound` parameters are not passed (`self`)."""
    positional = positional_params(function)[bound:]
    index = 0
    for arg in call.args:
        if arg.star:
            return
        if arg.keyword is not None:
            yield arg.keyword.value, arg
        elif index < len(positional):
            yield positional[index], arg
            index += 1


def _is_text(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.FormattedString, cst.SimpleString, cst.ConcatenatedString)) or \
        isinstance(expr, cst.Call) and last_name(expr.func) in ("str", "repr", "format")


def _is_number(expr: cst.BaseExpression) -> bool:
    """A Python number (not a tensor): counter arithmetic, or `float(i)`."""
    if isinstance(expr, cst.Call):
        return last_name(expr.func) in ("float", "int")
    return not any(isinstance(n, cst.Call) for n in walk(expr))
