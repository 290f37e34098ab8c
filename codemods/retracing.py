"""PML401 retracing."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.jit import assigned_value
from rewriter.analysis.names import last_name
from rewriter.analysis.structure import enclosing_function, enclosing_loops
from rewriter.analysis.transforms import Transform, match_application, match_transform, positional_params, static_params
from rewriter.codemod import Codemod, Example, Replace
from rewriter.findings import Safety, Severity

from ._lift import COMMA, NO_SPACE_EQUAL
from ._loop_keys import NEW_EACH_TIME, STABLE, VARIES, Loop, walk

FORGETTING = frozenset({"phiml.math.jit_compile", "phiml.math.jit_compile_linear"})  # take forget_traces=
# Reading these means the program relies on what the trace cache remembers.
CACHE_ATTRIBUTES = frozenset({"traces", "recorded_mappings", "forget_traces", "matrices_and_biases"})


@dataclass(frozen=True)
class Jitted:
    """A function a call reaches through a jit transform, and the expression that configures it."""

    function: cst.FunctionDef | cst.Lambda
    transform: Transform
    holder: cst.CSTNode  # the decorator expression or the application call that gets `forget_traces=True`
    called_as: str = ""  # the name the loop calls it by (`advance = jit_compile(_advance)`)

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


class Retracing(Codemod):
    """A jit-compiled function is traced again whenever what its cache is keyed on changes. PhiML
    keys on auxiliary argument values, non-tensor arguments (strings, objects, functions by
    identity) and tensor shapes; jax on static arguments and shapes; `tf.function` on Python values
    and shapes. Called in a loop with a key that changes every iteration — an auxiliary `0.5 + i`,
    a tensor that grows, a lambda created per iteration — it traces on every call: measured 20 traces
    in 20 calls, 185 ms per call instead of 3 ms, and +119 MB on jax. PhiML keeps every trace, so
    memory grows with the loop; it warns only after ten traces, at run time.

    The fix adds `forget_traces=True` to the PhiML `jit_compile` / `jit_compile_linear` decorator
    where the key never comes back (a loop counter, a growing shape, a new function): PhiML then keeps
    only the latest trace, which bounds memory on jax (measured over 20 traces: +32 MB -> +2 MB; torch's
    TorchScript keeps its traces regardless). It also silences PhiML's ten-trace warning, so
    `phiml-rewrite profile` is how to see the re-tracing that remains. It does not save the tracing time: the message
    names the stable key that would (pass the value as a tensor instead of an auxiliary argument, pad
    the shape, define the function once). Keys that may come back (`schedule[i]`, `i % 2`) are
    reported at info level and left alone: there the cache serves the repeats. Nothing is changed
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
            "from phiml import math\n\n\n"
            "@math.jit_compile(auxiliary_args='k')\n"
            "def step(x, k):\n"
            "    return math.sin(x) * k\n\n\n"
            "def run(x, n):\n"
            "    for i in range(n):\n"
            "        x = step(x, 0.5 + i)\n"
            "    return x\n",
            "from phiml import math\n\n\n"
            "@math.jit_compile(auxiliary_args='k', forget_traces=True)\n"
            "def step(x, k):\n"
            "    return math.sin(x) * k\n\n\n"
            "def run(x, n):\n"
            "    for i in range(n):\n"
            "        x = step(x, 0.5 + i)\n"
            "    return x\n",
        ),
        Example(
            "import jax\n\n\n"
            "@jax.jit\n"
            "def total(x):\n"
            "    return (x ** 2).sum()\n\n\n"
            "def run(x, n):\n"
            "    return [total(x[:i]) for i in range(1, n)]\n",
            None,
            "jax compiles once per shape: reported with the stable key to use",
        ),
    )
    TRIGGERS = (("jit",), ("function",))

    def __init__(self, file) -> None:
        super().__init__(file)
        self._calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and self.file.syntax.loop_depth:
            self._calls.append(node)

    def leave_Module(self, original_node: cst.Module) -> None:
        fixed: dict[int, int] = {}  # function -> line of the finding that carries its fix
        for call in self._calls:
            if self.file.syntax.may_be_jitted(call.func):
                self._check_call(call, fixed)
        self._check_evidence(fixed)

    # -- static: calls in loops -----------------------------------------------------------------
    def _check_call(self, call: cst.Call, fixed: dict[int, int]) -> None:
        names = self.file.analysis.names
        if self.file.analysis.jit.enclosing_context(call) is not None:
            return  # inside a traced body the call is inlined into the outer trace
        loops = enclosing_loops(names, call)
        if not loops:
            return
        jitted = self._jitted(call.func)
        if jitted is None or _forgets(jitted):
            return  # with `forget_traces=True` memory is bounded already: the author chose
        loop = Loop.of(loops[0])
        cause = self._cause(call, jitted, loop)
        if cause is None:
            return
        message = self._message(call, jitted, cause, loop)
        if cause.repeats:
            self.report(call, message + " If the values repeat, the trace cache serves them.", severity=Severity.INFO)
            return
        edit, refusal = self._forget(jitted)
        if edit is None:
            self.report(call, message + (f" ({refusal})" if refusal else ""))
            return
        if id(jitted.function) in fixed:
            self.report(call, message + f" (`forget_traces=True` is proposed with the finding at line {fixed[id(jitted.function)]})")
            return
        finding = self.report(call, message + " Fix: `forget_traces=True` makes PhiML keep only the latest trace (memory "
                                              "bounded on jax); each call still traces.",
                              edits=[edit], fix_description="add `forget_traces=True` to the jit decorator")
        if finding is not None:
            fixed[id(jitted.function)] = finding.span.line

    def _jitted(self, func: cst.BaseExpression) -> Jitted | None:
        """The jit-compiled function a name denotes: a decorated def, or `name = jit(f)` at module level."""
        names = self.file.analysis.names
        if not isinstance(func, cst.Name):
            return None
        assignments = names.assignments(func)
        if len(assignments) != 1:
            return None
        node = getattr(next(iter(assignments)), "node", None)
        if isinstance(node, cst.FunctionDef):
            return self._decorated(node)
        value = assigned_value(names, node)
        if not isinstance(value, cst.Call):
            return None
        app = match_application(names, value, (Kind.JIT,))
        if app is None:
            return None
        functions = self.file.analysis.jit.functions_denoted(app.function)
        return Jitted(functions[0], app.transform, app.call, func.value) if len(functions) == 1 else None

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
        for parameter, arg in _bound_arguments(call, jitted.function):
            spelling = self.file.code(arg.value).strip()
            if isinstance(arg.value, cst.Name) and loop.value_of(arg.value.value) is not None:
                spelling = f"{spelling} = {self.file.code(loop.value_of(arg.value.value)).strip()}"
            key = loop.key(arg.value)
            if parameter in static:
                if key != STABLE and not loop.new_function(arg.value):
                    found.append(Cause(parameter, "auxiliary" if framework == "phiml" else "static", key == VARIES, spelling))
                continue
            if loop.new_function(arg.value) and framework == "phiml":
                found.append(Cause(parameter, "function", False, spelling))
            elif loop.grows(arg.value) is not None:
                found.append(Cause(parameter, "shape", False, spelling))
            elif key != STABLE and _is_text(arg.value) and framework == "phiml":
                found.append(Cause(parameter, "value", key == VARIES, spelling))
            elif key == NEW_EACH_TIME and framework == "tensorflow" and _is_number(arg.value):
                found.append(Cause(parameter, "number", False, spelling))
        order = ("auxiliary", "static", "shape", "function", "value", "number")
        found.sort(key=lambda c: (c.repeats, order.index(c.what)))
        return found[0] if found else None

    def _message(self, call: cst.Call, jitted: Jitted, cause: Cause, loop: Loop) -> str:
        name, p, spelling = jitted.name, cause.parameter, cause.spelling
        framework = jitted.transform.framework
        retrace = {"phiml": "PhiML traces", "jax": "jax traces and compiles", "tensorflow": "tf.function traces"}[framework]
        changes = "changes with the iteration" if cause.repeats else "is new on every iteration"
        per = "once per distinct value" if cause.repeats else "again on every call"
        keeps = ", and PhiML keeps every trace (memory grows with the loop)" if jitted.phiml and not cause.repeats else ""
        if cause.what in ("auxiliary", "static"):
            kind = "auxiliary" if cause.what == "auxiliary" else "static"
            cure = (f"pass `{p}` as a tensor (`math.tensor(...)`) and drop it from `auxiliary_args`, if `{name}` only "
                    f"computes with it" if kind == "auxiliary" else f"make `{p}` a traced argument, or keep it to a few values")
            return f"`{name}` keys its traces on the {kind} argument `{p}`, whose value here {changes} (`{spelling}`): " \
                   f"{retrace} `{name}` {per}{keeps}. Stable key: {cure}."
        if cause.what == "shape":
            how = f"`{spelling}` grows by concatenation each iteration" if spelling in loop.growing else f"`{spelling}`"
            return (f"the shape of `{p}` {changes} ({how}): {retrace} `{name}` once per shape, so {per}{keeps}. "
                    f"Stable key: pad `{p}` to a fixed size (and mask it), or round sizes up to a few buckets.")
        if cause.what == "function":
            return (f"`{p}` is a new function object on every iteration (`{spelling}`), and PhiML keys `{name}`'s traces on it: "
                    f"{retrace} it {per}{keeps}. Stable key: define the function once, at module level, and pass what it "
                    "reads as arguments.")
        if cause.what == "value":
            return (f"the non-tensor argument `{p}` {changes} (`{spelling}`), and PhiML keys `{name}`'s traces on it: "
                    f"{retrace} it {per}{keeps}. Stable key: keep it to a few values, or pass numbers as tensors.")
        return (f"`{p}` is a new Python number on every iteration (`{spelling}`): {retrace} `{name}` once per Python value. "
                "Stable key: pass `tf.constant(...)`.")

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
                self.report(target, message + (f" ({refusal})" if refusal else ""))
                continue
            self.report(target, message + ". Fix: `forget_traces=True` makes PhiML keep only the latest trace (memory bounded "
                                          "on jax); each new key still traces.",
                        edits=[edit], fix_description="add `forget_traces=True` to the jit decorator")


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


def _bound_arguments(call: cst.Call, function: cst.FunctionDef | cst.Lambda):
    """(parameter, argument) pairs for the plain positional and keyword arguments of `call`."""
    positional = positional_params(function)
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
