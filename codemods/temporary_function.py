"""PML101 temporary-function."""
from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import TEMPORARY_FUNCTION_APIS, TEMPORARY_FUNCTION_BUILDERS, Kind, lookup
from rewriter.analysis.ast_captures import captures, free_names
from rewriter.analysis.ast_jit import bound_value, literal, match_application
from rewriter.analysis.ast_names import FUNCTIONS, Argument, with_enclosing
from rewriter.analysis.ast_names import arguments as _arguments
from rewriter.analysis.ast_structure import ancestors, enclosing_function, is_inside, top_level_statement
from rewriter.analysis.transforms import literal as written_literal
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import InsertBefore, Replace
from rewriter.emit.statements import assign
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from . import _custom_derivative as custom_derivative
from ._ast_hazards import own_nodes, spelled_jits
from ._ast_lift import (AstTemporary, assigned_within, at_module_level, bindings_of, is_called, loops_repeating,
                        rebound_in_loop, temporary_at, written_elsewhere, written_temporary)
from ._lift import (Temporary, comma, forget_traces, import_line, lifted_def, no_space_equal,
                    rewrite_function_body)

@dataclass(frozen=True)
class Slot:
    """Where an API takes a function, and how values the function captured can reach it."""

    position: int | None  # positional index, if it can be passed positionally
    keyword: str
    role: str  # names the lifted def: `_<enclosing>_<role>`
    channel: str | None = None  # "f_args": appended positionally; "preprocess_y_args": a tuple keyword
    stored: bool = False  # kept and called later (a captured name rebound meanwhile would differ)
    positional_before: int = 3  # "f_args": positional arguments that must precede the appended values
    positional_names: tuple[str, ...] = ()  # their parameter names: given by keyword, they are made positional
    # Lifting makes the API's trace cache hit (measured). jax's `cg`/`gmres`/`bicgstab`,
    # `custom_linear_solve`, and `custom_root`'s `solve`/`tangent_solve` trace the function on
    # every eager call however it is defined (they wrap it in a new closure or `partial` first).
    lift_helps: bool = True


_SLOTS: dict[str, tuple[Slot, ...]] = {
    "phiml.math.solve_linear": (Slot(0, "f", "operator", "f_args", positional_names=("f", "y", "solve")),),
    "phiml.math.Solve": (Slot(None, "preprocess_y", "preprocess_y", "preprocess_y_args", stored=True),),
    # `solve.with_preprocessing(f, *args)`: a method of a Solve instance, recognised by its name
    "phiml.math.Solve.with_preprocessing": (Slot(0, "preprocess_y", "preprocess_y", "f_args", stored=True, positional_before=1),),
    "phiml.math.minimize": (Slot(0, "f", "loss"),),
    "phiml.math.solve_nonlinear": (Slot(0, "f", "equation"),),
    "jax.lax.custom_root": (Slot(0, "f", "equation"), Slot(2, "solve", "solve", lift_helps=False),
                            Slot(3, "tangent_solve", "tangent_solve", lift_helps=False)),
    "jax.lax.custom_linear_solve": (Slot(0, "matvec", "matvec", lift_helps=False), Slot(2, "solve", "solve", lift_helps=False),
                                    Slot(3, "transpose_solve", "transpose_solve", lift_helps=False)),
    **{f"jax.scipy.sparse.linalg.{n}": (Slot(0, "A", "matvec", lift_helps=False), Slot(None, "M", "preconditioner", lift_helps=False))
       for n in ("cg", "gmres", "bicgstab")},
}
# Transforms that return a new function with its own trace cache: built per call, they are hoisted.
_TRANSFORM_SLOTS: dict[str, tuple[Slot, ...]] = {
    "phiml.math.custom_gradient": (Slot(0, "f", "forward"), Slot(1, "gradient", "gradient")),
    "phiml.math.gradient": (Slot(0, "f", "function"),),
    "phiml.math.jacobian": (Slot(0, "f", "function"),),
    "phiml.math.hessian": (Slot(0, "f", "function"),),
}
# What a function created per call costs in each slot, in a few words (the why is the docstring's).
# `custom_root` keys the trace of `f` on the function object: a new one is traced once more.
_COST = {"jax.lax.custom_root": " and traced once more"}
_CHAINS = (ast.Name, ast.Attribute)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# The kinds of API the gate starts from: a jit or custom-gradient function called, an API that takes
# a function (TEMPORARY_FUNCTION_APIS), a jax custom-derivative decorator.
_GATE_KINDS = frozenset({Kind.JIT, Kind.CUSTOM_GRADIENT,
                         *(lookup(name).kind for name in (*TEMPORARY_FUNCTION_APIS, *custom_derivative.DERIVATIVES))})
# What `check` reads in one walk: calls, assignments and nested defs, each with the function around it.
_WALKED = frozenset({ast.Call, ast.Assign, *_DEFS})
_RETRACED = " and re-traced"


class TemporaryFunction(AstRule):
    """PhiML caches traces per function object. A lambda or nested def handed to a solver or to a
    jit-compiled function is a new object every time the enclosing function runs, so its cache
    entry is never reused: every call traces again, orders of magnitude slower than a cached call,
    with memory growing on every call (figures: docs/benchmarks.md, "What the hazards cost"). `solve_linear` keys its linear-operator traces (and,
    under jit, whole traces) on the function object; `minimize` and `solve_nonlinear` key the traces
    of the objective and of the equation on it; `Solve(preprocess_y=...)` and `with_preprocessing`
    cache traces per function object, so nothing traced for a new one is ever reused; a jit-compiled
    function keys its traces on the identity of its function arguments, so it re-traces on every call.

    The function is lifted to module level under a name that says where it came from
    (`_diffuse_operator`); `jit_compile_linear` stays as its decorator. Values it read from the
    enclosing function become parameters right after its first one and are passed through the API's
    own channel: `solve_linear(f, y, solve, *f_args)` (`y=` and `solve=` given by keyword become
    positional for them, where that keeps the order arguments are evaluated in) and
    `Solve(preprocess_y=f, preprocess_y_args=(...))`. For a `jit_compile_linear` operator they are
    auxiliary arguments, part of its cache key, so it gets `forget_traces=True`: a per-call operator
    kept no matrix beyond its call, and a module-level one whose captured value changes on every call
    (a time, a velocity field) would keep one per value, warning from the fourth.

    A solver runs the function during the call, so the closure reads its captured names then, as the
    values passed at the call are: how they were assigned before does not matter, in a loop or not.
    Three things still do: a function kept for later (`Solve(preprocess_y=...)`) built in a loop that
    assigns a value it captures reads the last value when the solves run (not lifted); another function
    writing the name through `nonlocal`, or `:=` inside the call, could change it in between (not
    lifted); and a `jit_compile_linear` operator created once and used in a loop that changes a value
    it captures is traced on its first use only, so later iterations reuse that matrix: a bug of the
    code as it is, reported, since a lift (the cure) would change the results.
    `math.jit_compile_linear(fn)` of a module-level `fn`, written at the solve, is a new operator on
    every call too: it is built once at module level, after `fn` (not when its options are computed at
    run time, or `fn` reads a global that is assigned again: its matrix would keep the first value).
    Where an API has no such channel (`minimize`, `solve_nonlinear`, arguments of a jit-compiled
    function, jax's `custom_root` equation), only functions that capture nothing are lifted; the
    finding says which values to pass instead.

    Transforms that return a new function with its own trace cache — `math.custom_gradient(f, g)`,
    `math.gradient` / `jacobian` / `hessian` of a function — built on every call are built once at
    module level, their functions lifted with them; a `@jax.custom_vjp` / `@jax.custom_jvp` def in a
    function that leaves it (passed on, stored) moves to module level with its rule functions and its
    `defvjp` / `defjvp` statement. One built, given its rules and called where it is defined is left
    alone: nothing keyed on it is traced again (measured: docs/benchmarks.md).

    Where lifting does not make a trace cache hit, nothing is lifted. Measured on jax 0.10.2 with a
    counter in the function, over eager calls of the enclosing function: `jax.scipy.sparse.linalg.cg`
    / `gmres` / `bicgstab` trace their `A` (and `M`) 5 times a call and compile their loop again,
    whether it is a nested def, a module-level def or a `functools.partial` of one (slow in eager
    calls, cheap under a jitted caller);
    `lax.custom_linear_solve` wraps its functions in a new closure before tracing (one trace a call
    however defined; far less under a jitted caller); `lax.custom_root` passes `partial(solve, f)` (its `solve` and `tangent_solve` are traced once a
    call however defined), but keys the trace of `f` on the function object: a module-level `f` is
    traced twice a call, a new one three times (a jitted caller traces it once), so that one is
    lifted when it captures nothing. The others get one info finding per call (the caller may be
    jitted in another module): jit the function that calls the solver; lifting would not help.

    Where no fix is safe, the finding gives the module-level form: a `math.custom_gradient(f, g)`
    whose functions capture values takes them as (auxiliary) parameters of `f`, read from `params`
    in `g` (a value that is a traced tensor stays a regular parameter instead of an auxiliary one,
    and `g` then returns its gradient too); a function that builds and returns a `custom_gradient` /
    `jax.custom_vjp` around what it is given is a factory: its results are kept per wrapped function,
    at module level or in a dict keyed on the wrapped functions (a method can keep them on the
    instance; a module function that returns a `math.custom_gradient` it builds, called per call, is
    reported the same way), and its
    module-level form is a `@functools.partial(jax.custom_vjp, nondiff_argnums=...)` def taking the
    factory's parameters its rules read (`self` included) first, with rules taking them first too,
    `defvjp` once, and the factory returning `functools.partial(lifted, ...)` (an array among them
    stays a regular argument, with a zero cotangent). These cost little: a
    `math.custom_gradient` built per call builds its backend function again, a fraction of a
    millisecond a call (its `f` runs once a call either way; under a jitted caller, once per trace),
    a `jax.custom_vjp` about as much and no extra trace in eager or `jax.grad` calls (figures:
    docs/benchmarks.md, "What the hazards cost"), so the report-only ones are infos; what they cost more is in anything that
    caches on the function (`jax.jit` of it).

    It is left alone, with the reason, when lifting could change what it computes: a function kept
    for later reads a captured name that is assigned again later (late binding), it writes
    `nonlocal`/`global`, its `jit_compile_linear(auxiliary_args=...)` would not list the new
    parameters, the call passes `*args`/`**kwargs`, or it is a
    generator, calls itself or another local function, reads `self`/`cls` or a class body, has
    defaults or decorators that read locals, or is used elsewhere too. A lambda created inside a
    traced body is traced once and costs nothing: it is not reported.
    """

    CODE = "PML101"
    MOVES_CODE = True
    NAME = "temporary-function"
    SUMMARY = "a lambda or nested def passed to a solver or jit function is lifted to module level"
    SAFETY = Safety.SAFE
    CHANGES_STRUCTURE = ("jit", "cache")
    FIX_SAFETY = (
        "The lifted function computes the same values: it only reads module globals (as before) and "
        "values passed at the moment it is used, which are the ones its closure would have read — the "
        "fix is refused whenever a captured name could change in between. What changes is the "
        "function's identity (stable now) and its `__name__`/`__qualname__`. Transforms built once instead of "
        "per call (`custom_gradient`, `gradient`, `custom_vjp`) are lazy wrappers: building them earlier does no "
        "work; decorators that act when the def runs (`torch.jit.script`, unknown ones) are never moved. "
        "Captured values passed as `f_args` to a `jit_compile_linear` operator: under jit on jax or tensorflow, a "
        "Tensor among them needs `Solve(..., rank_deficiency=0)`; the fix notes it but does not add it, since it "
        "changes the result of a singular system. They are auxiliary arguments of the module-level operator, so "
        "its cached matrix holds them: with `grad_for_f`, a differentiated one would stay in it, and a later call "
        "with an equal value fails on torch and jax instead of tracing anew, so that fix is unsafe (without "
        "`grad_for_f` the solve passes no gradient to them either way)."
    )
    EXAMPLES = (
        Example(
            dedented("""
                from phiml import math


                def diffuse(u, dt, solve):
                    return math.solve_linear(math.jit_compile_linear(lambda x: x - dt * math.laplace(x)), u, solve)
            """),
            dedented("""
                from phiml import math


                @math.jit_compile_linear(forget_traces=True)
                def _diffuse_operator(x, dt):
                    return x - dt * math.laplace(x)


                def diffuse(u, dt, solve):
                    return math.solve_linear(_diffuse_operator, u, solve, dt)
            """),
        ),
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile
                def step(y, f):
                    return math.solve_linear(f, y, math.Solve('CG', 1e-5, 1e-5, x0=0 * y))


                def run(y):
                    def times3(x):
                        return 3 * x
                    return step(y, times3)
            """),
            dedented("""
                from phiml import math


                @math.jit_compile
                def step(y, f):
                    return math.solve_linear(f, y, math.Solve('CG', 1e-5, 1e-5, x0=0 * y))


                def _run_times3(x):
                    return 3 * x


                def run(y):
                    return step(y, _run_times3)
            """),
            note="argument of a jit-compiled function",
        ),
        Example(
            dedented("""
                from phiml import math


                def clipped(x):
                    scale = math.custom_gradient(lambda x: 3 * x, lambda params, y, dy: {'x': math.clip(dy, -1, 1)})
                    return scale(x)
            """),
            dedented("""
                from phiml import math


                def _clipped_forward(x):
                    return 3 * x


                def _clipped_gradient(params, y, dy):
                    return {'x': math.clip(dy, -1, 1)}


                _clipped_custom_gradient = math.custom_gradient(_clipped_forward, _clipped_gradient)


                def clipped(x):
                    scale = _clipped_custom_gradient
                    return scale(x)
            """),
            note="a custom gradient built per call",
        ),
        Unchanged(dedented("""
            @math.jit_compile_linear
            def operator(x):
                return x - 0.1 * math.laplace(x)


            def diffuse(u, solve):
                return math.solve_linear(operator, u, solve)
        """), "a module-level operator: the same object on every call"),
        Unchanged(dedented("""
            @math.jit_compile
            def diffuse(u, dt):
                operator = math.jit_compile_linear(lambda x: x - dt * math.laplace(x))
                return math.solve_linear(operator, u, math.Solve('CG', 1e-5, 1e-5, x0=u))
        """), "a lambda created inside a traced body, traced once"),
        Unchanged(dedented("""
            def make_loss_gradient(weight):
                return math.gradient(lambda x: weight * math.l2_loss(x), 'x')
        """), "a gradient function built and returned: a factory"),
    )
    HAZARDS = ("Avoid nested functions and lambdas (Jax)",)
    READS_FACTS = True
    TRIGGERS = (("solve_linear",), ("preprocess_y",), ("minimize",), ("solve_nonlinear",), ("custom_root",), ("gradient",), ("jacobian",), ("hessian",),
                ("custom_linear_solve",), ("jit",), ("custom_vjp",), ("custom_jvp",), ("with_preprocessing",), ("linalg",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """In a function: a call of an API that builds a function per call (TEMPORARY_FUNCTION_BUILDERS);
        a def a jax custom-derivative decorator makes; or a solver call, a `.with_preprocessing(...)`,
        or a call of a jit or custom-gradient function, passed a lambda, a local def or a
        `jit_compile_linear(...)`."""
        if not (syntax.spells(*_GATE_KINDS) or syntax.may_call_with_preprocessing()):
            return False  # nothing here applies a jit, a custom gradient, a gradient or a solver, nor preprocesses
        if not syntax.spells(Kind.JIT, Kind.CUSTOM_GRADIENT) and not _may_hand_a_temporary(syntax):
            return False  # no jit nor custom gradient, and no call of an API that takes a function can be given one
        facts = syntax.facts
        if facts is None:
            return False
        for fn in facts.custom_gradient_defs_in_defs:
            if any(isinstance(d, (ast.Name, ast.Attribute)) and not syntax.apis(d).isdisjoint(custom_derivative.DERIVATIVES)
                   for d in fn.decorator_list):
                return True
        for call in facts.calls_in_functions:
            func = call.func
            spelled = isinstance(func, (ast.Name, ast.Attribute))
            apis = syntax.apis(func) & TEMPORARY_FUNCTION_APIS if spelled else frozenset()
            if apis and not apis.isdisjoint(TEMPORARY_FUNCTION_BUILDERS):
                return True  # built per call, whatever it is given
            if apis or isinstance(func, ast.Attribute) and func.attr == "with_preprocessing":
                if _may_pass_a_temporary(syntax, facts, call):
                    return True  # only a function created per call is worth lifting
            elif (facts.may_be_jitted(func) or isinstance(func, ast.Name) and func.id in facts.custom_gradients) \
                    and _may_pass_a_temporary(syntax, facts, call):
                return True
        return False

    def __init__(self, file) -> None:
        super().__init__(file)
        self._local_functions: set[str] = set()  # names of defs and lambdas bound inside functions
        self._factories: dict[int, bool] = {}  # id of a module-level def -> it returns a custom_gradient it builds
        self._factory_names: dict[str, bool] = {}  # a name -> some module-level def of that name is such a factory
        self._defs_by_name: dict[str, list] | None = None

    def check(self) -> None:
        """The calls in functions that may be given a function made per call, in the order written (the
        order the lifted names are handed out in), and the custom-derivative defs nested in functions."""
        file = self.file
        names = file.names
        deferred: list[ast.Call] = []
        candidates: list[ast.Call] = []
        derivatives: list[tuple[ast.AST, ast.AST]] = []
        custom_gradient_assigned: set[str] = set()
        for node, around in with_enclosing(file.tree, _WALKED, FUNCTIONS):
            kind = type(node)
            if kind is ast.Assign and type(node.value) is ast.Call and type(node.value.func) in _CHAINS \
                    and names.could_be_api(node.value.func, (Kind.CUSTOM_GRADIENT,)):
                custom_gradient_assigned.update(t.id for t in node.targets if type(t) is ast.Name)
            function = around
            if function is None:
                continue  # (at module level: runs once)
            if kind is ast.Call:
                func = node.func
                if type(func) in _CHAINS and names.could_be_one_of(func, TEMPORARY_FUNCTION_APIS):
                    deferred.append(node)
                elif type(func) is ast.Attribute and func.attr == "with_preprocessing":
                    deferred.append(node)
                elif any(type(v.value) in (ast.Lambda, ast.Name, ast.Call) for v in _arguments(node)):
                    candidates.append(node)  # decided once the whole file is seen (the callee may be defined later)
            elif kind is ast.Assign:
                value = node.value
                if type(value) is ast.Lambda or type(value) is ast.Call and names.could_be_one_of(value.func, _LINEAR):
                    self._local_functions.update(t.id for t in node.targets if type(t) is ast.Name)
            else:  # a def inside a function
                self._local_functions.add(node.name)
                if any(type(d) in _CHAINS and names.could_be_api(d, (Kind.CUSTOM_GRADIENT,)) for d in node.decorator_list):
                    derivatives.append((node, function))
        jits = spelled_jits(file)
        # A factory of custom gradients builds one in a def: a call that is in `deferred` already.
        builds_gradients = any(type(c.func) in _CHAINS and names.could_be_api(c.func, (Kind.CUSTOM_GRADIENT,)) for c in deferred)
        deferred += [c for c in candidates if (jits.may_be_jitted(c.func)
                     or type(c.func) is ast.Name and c.func.id in custom_gradient_assigned)
                     and self._may_pass_a_temporary(c)
                     or builds_gradients and type(c.func) is ast.Name and self._named_factory(c.func.id)
                     and self._custom_gradient_factory(c.func)]
        self._check_derivatives(derivatives)
        for node in deferred:
            if file.jit.runs_only_traced(node):
                continue  # created and consumed inside a traced body: traced once
            api = names.api(node.func, (Kind.SOLVER, Kind.CUSTOM_GRADIENT, Kind.GRAD)) if type(node.func) in _CHAINS else None
            if api is None and type(node.func) is ast.Attribute and node.func.attr == "with_preprocessing":
                self._check(node, _SLOTS["phiml.math.Solve.with_preprocessing"][0], "phiml.math.Solve.with_preprocessing")
                continue
            if api is not None and api.name in ("jax.custom_vjp", "jax.custom_jvp"):
                self._report_derivative_call(node, api.name)
            elif api is not None and api.name in _TRANSFORM_SLOTS:
                self._check_transform(node, api.name)
            elif api is not None and api.name in _SLOTS:
                outcome = None
                for slot in _SLOTS[api.name]:
                    if slot.lift_helps:
                        outcome = self._check(node, slot, api.name) or outcome
                        if outcome == "fixed":
                            break  # the call is replaced: its other slots are looked at in the next pass
                if outcome is None:
                    self._report_no_gain(node, api.name)
            elif api is None and (file.jit.jitted_value(node.func) is not None or self._custom_gradient_value(node.func)):
                self._check_jit_arguments(node)
            elif api is None and type(node.func) is ast.Name and self._custom_gradient_factory(node.func):
                self._check_factory_call(node)

    def _may_pass_a_temporary(self, call: ast.Call) -> bool:
        """Some argument could be a function created in the enclosing function (cheap, by spelling)."""
        names = self.file.names
        return any(type(v.value) is ast.Lambda or type(v.value) is ast.Name and v.value.id in self._local_functions
                   or type(v.value) is ast.Call and names.could_be_one_of(v.value.func, _LINEAR)
                   for v in _arguments(call))

    def _check_derivatives(self, derivatives) -> None:
        for node, outer in derivatives:
            if type(outer) not in _DEFS or self.file.jit.runs_only_traced(node):
                continue
            plan = custom_derivative.plan(self.file, node, outer)
            if plan is None:
                continue
            place = self.file.python.name_place(node)
            if plan.refusal is not None:
                self.report(node, plan.message, note=f"not lifted: {plan.refusal}", hint=plan.hint, related=plan.related,
                            place=place)
            else:
                self.report(node, plan.message, fix=plan.fix, place=place)

    # -- sites ------------------------------------------------------------------------------
    def _check(self, call: ast.Call, slot: Slot, api: str) -> str | None:
        arg = _slot_arg(call, slot)
        if arg is None:
            return None
        short = api.split(".", 2)[-1] if api.startswith("phiml.math.") else api
        where = f"`{short}`" if slot.position == 0 else f"`{short}({slot.keyword}=...)`"
        # jax's iterative solvers cost nothing extra under a jitted caller, which may be in another module
        severity = Severity.INFO if api.startswith("jax.scipy.") else None
        return self._lift(call, arg, slot, f"passed to {where}", _COST.get(api, _RETRACED), f"`{short}`", severity)

    def _report_no_gain(self, call: ast.Call, api: str) -> None:
        """Functions created per call in slots where lifting does not make the trace cache hit: one
        info finding per call, on the first of them, with the fix that helps (a jitted caller)."""
        file = self.file
        enclosing = _enclosing_def(file.names, call)
        if enclosing is None:
            return
        label = enclosing.name.lstrip("_") or "function"
        text = file.code
        temporaries = []
        for slot in _SLOTS[api]:
            arg = _slot_arg(call, slot)
            if arg is None or slot.lift_helps:
                continue
            found = temporary_at(file, arg.value, slot.role, label)
            if isinstance(found, AstTemporary):
                what = f"`{found.function.name}`" if type(found.function) in _DEFS else \
                    f"`{text(arg.value)}`" if type(arg.value) is ast.Name else "a lambda"
                temporaries.append((arg, f"`{slot.keyword}` ({what})"))
            elif isinstance(found, str):
                temporaries.append((arg, f"`{slot.keyword}` (`{text(arg.value)}`)"))
        if not temporaries:
            return
        short = api.rsplit(".", 1)[-1]
        what = " and ".join(t for _, t in temporaries)
        self.report(temporaries[0][0].value, f"`{short}` traces its {what} again on every eager call of `{enclosing.name}`",
                    severity=Severity.INFO, hint=f"jit the function that calls `{short}` (or the step it runs in)",
                    note="lifting would not help: a module-level function or a `functools.partial` is traced just as often")

    def _report_derivative_call(self, call: ast.Call, api: str) -> None:
        """`g = jax.custom_vjp(f)` inside a function: reported; the decorator form is lifted (see below)."""
        names = self.file.names
        enclosing = enclosing_function(names, call)
        if enclosing is None or type(enclosing) is ast.Lambda:
            return
        target = names.parent(call)
        bound = target.targets[0] if type(target) is ast.Assign and len(target.targets) == 1 \
            and type(target.targets[0]) is ast.Name else None
        if bound is not None and custom_derivative.only_used_locally(names, bound, bound.id, "def"):
            return  # built, given its rules and called here: no cache keyed on it misses (_custom_derivative.py)
        head = f"`{api}(...)` builds a new function on each call of `{enclosing.name}`: a `jax.jit` of it traces it anew"
        arguments = _arguments(call)
        wrapped = arguments[0].value if arguments and arguments[0].keyword is None else None
        a = enclosing.args
        params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        if type(wrapped) is ast.Name and wrapped.id in params:  # it wraps what it is given: a factory
            built = bound.id if bound is not None else "its result"
            reason, hint = custom_derivative.factory_advice(enclosing, built, api)
            self.report(call, head, note=f"not lifted: {reason}", hint=hint)
            return
        self.report(call, head, note="not lifted automatically in this form",
                    hint=f"define it once at module level, with `@{api}` and its rules")

    def _custom_gradient_value(self, expr: ast.expr) -> bool:
        """`expr` names a module-level `math.custom_gradient(...)` result (its calls key traces on arguments)."""
        names = self.file.names
        value = bound_value(names, expr)
        func = value.func if type(value) is ast.Call else None
        return type(func) in _CHAINS and getattr(names.api(func, (Kind.CUSTOM_GRADIENT,)), "name", None) == "phiml.math.custom_gradient"

    def _custom_gradient_factory(self, func: ast.Name) -> bool:
        """`func` is a module-level def of this file that returns a `math.custom_gradient(...)` it builds
        (PhiML's `attach_gradient_solve`): calling it builds a function with an empty trace cache."""
        file = self.file
        defs = file.jit.functions_denoted(func)
        if len(defs) != 1 or type(defs[0]) not in _DEFS or not at_module_level(file.names, defs[0]):
            return False
        return self._factory_def(defs[0])

    def _named_factory(self, name: str) -> bool:
        """Some module-level def named `name` is a factory of custom gradients (`_custom_gradient_factory`
        asks where the name is read which def it denotes: one bound by a def bears its name). Once per name."""
        found = self._factory_names.get(name)
        if found is None:
            if self._defs_by_name is None:
                self._defs_by_name = {}
                for fn in self.file.nodes(*_DEFS):
                    self._defs_by_name.setdefault(fn.name, []).append(fn)
            found = self._factory_names[name] = any(at_module_level(self.file.names, fn) and self._factory_def(fn)
                                                    for fn in self._defs_by_name.get(name, ()))
        return found

    def _factory_def(self, fn) -> bool:
        if id(fn) not in self._factories:  # a def called from many places is read once
            self._factories[id(fn)] = self._builds_custom_gradient(fn)
        return self._factories[id(fn)]

    def _builds_custom_gradient(self, fn) -> bool:
        names = self.file.names
        built: set[str] = set()
        returns: list[ast.expr | None] = []
        for node in own_nodes(fn):
            kind = type(node)
            if kind is ast.Assign and type(node.value) is ast.Call and _is_custom_gradient(names, node.value.func):
                built.update(t.id for t in node.targets if type(t) is ast.Name)
            elif kind is ast.Return:
                returns.append(node.value)
        return bool(returns) and all(
            type(r) is ast.Call and _is_custom_gradient(names, r.func) or type(r) is ast.Name and r.id in built
            for r in returns)

    def _check_factory_call(self, call: ast.Call) -> None:
        """A custom-gradient factory called in a function: a new function with an empty trace cache on
        every call. Reported with what stops it from being built once (its functions' captures)."""
        file = self.file
        names = file.names
        enclosing = _enclosing_def(names, call)
        if enclosing is None:
            return
        text = file.code
        factory = call.func.id  # type: ignore[attr-defined]
        label = enclosing.name.lstrip("_") or "function"
        blocked, related = [], []
        for i, arg in enumerate(_arguments(call)):
            found = temporary_at(file, arg.value, f"arg{i}", label)
            if isinstance(found, AstTemporary):
                result = captures(names, found.function)
                if result.refusal is not None:
                    blocked.append(f"`{text(arg.value)}` {result.refusal}")
                    related += result.related
                elif result.names:
                    blocked.append(f"`{text(arg.value)}` captures {', '.join(f'`{n}`' for n in result.names)}")
            elif found is None and not (type(arg.value) is ast.Name and _module_level_name(names, arg.value)):
                if not _constant(arg.value):
                    blocked.append(f"its argument `{text(arg.value)}` is computed at run time")
        message = f"`{factory}(...)` builds a new `math.custom_gradient` function on each call of `{enclosing.name}`"
        if blocked:
            self.report(call, message, severity=Severity.INFO, note=f"not built once: {'; '.join(blocked)}", related=related,
                        hint="make them module-level functions that take these values as arguments (named in "
                             "`auxiliary_args` when they are Python values), then build it once")
            return
        self.report(call, message, severity=Severity.INFO,
                    hint=f"build it once at module level: `_{label}_{factory.lstrip('_')} = {text(call)}`")

    def _check_transform(self, call: ast.Call, api: str) -> None:
        """`math.custom_gradient(f, g)` / `math.gradient(f)` built on every call: a new function
        object with an empty trace cache each time. Lift its functions and build it once."""
        file = self.file
        names = file.names
        enclosing = _enclosing_def(names, call)
        if enclosing is None or not self._used_per_call(call):
            return
        text = file.code
        short = api.rsplit(".", 1)[-1]
        label = enclosing.name.lstrip("_") or "function"
        message = f"`math.{short}(...)` is built anew on each call of `{enclosing.name}` and re-traced"
        if api == "phiml.math.custom_gradient":
            message = f"`math.custom_gradient(...)` rebuilds its backend function on each call of `{enclosing.name}`"
        # a custom gradient built per call costs little (measured): report-only findings are infos
        severity = Severity.INFO if api == "phiml.math.custom_gradient" else None
        lifted: list[tuple[Argument, AstTemporary]] = []
        captured: dict[str, list[str]] = {}  # base name of a lifted function -> the values it captures
        for slot in _TRANSFORM_SLOTS[api]:
            arg = _slot_arg(call, slot)
            if arg is None:
                continue
            found = temporary_at(file, arg.value, slot.role, label)
            if isinstance(found, str):
                self.report(call, message, severity=severity, note=f"not built once: {found}")
                return
            if found is None:
                if not _module_level_name(names, arg.value):
                    return  # a function only known at run time: building per call may be the point
                continue
            result = captures(names, found.function, module_level=found.decorators)
            if result.refusal is not None or result.imports or result.names and api != "phiml.math.custom_gradient":
                why = result.refusal or f"{found.label} captures {', '.join(f'`{n}`' for n in result.names)}"
                self.report(call, message, severity=severity, note=f"not built once: {why}", related=result.related)
                return
            captured[found.base_name] = list(result.names)
            lifted.append((arg, found))
        if any(captured.values()):
            why, hint = _custom_gradient_form(captured, label)
            self.report(call, message, severity=severity, note=f"not built once: {why}", hint=hint)
            return
        slot_args = [_slot_arg(call, slot) for slot in _TRANSFORM_SLOTS[api]]
        for arg in _arguments(call):
            if any(arg == a for a in slot_args):
                continue
            try:
                literal(arg.value)
            except ValueError:
                self.report(call, message, severity=severity,
                            note=f"not built once: its argument `{text(arg.value)}` is computed at run time")
                return
        anchor = top_level_statement(names, file.reading.lines, call)
        new_names = [file.fresh_name(found.base_name) for _arg, found in lifted]
        built = file.fresh_name(f"_{label}_{short}")
        removals = [found.remove for _arg, found in lifted if found.remove is not None]
        if len(removals) > 1 or (removals and not is_inside(names, call, enclosing)):
            return
        build = partial(_write_transform, built=built, lifted=tuple(zip(new_names, (found for _a, found in lifted))))
        needs = (call, *(node for arg, found in lifted for node in (arg.value, *_temporary_nodes(found))))
        self.report(call, message, severity=severity,
                    fix=PlannedFix(f"build it once at module level as `{built}`", (anchor, enclosing), build, needs=needs))

    def _used_per_call(self, call: ast.Call) -> bool:
        """Called right away, or bound to a local name that is only ever called (not returned or stored)."""
        names = self.file.names
        parent = names.parent(call)
        if type(parent) is ast.Call and parent.func is call:
            return True
        if type(parent) is not ast.Assign or len(parent.targets) != 1 or type(parent.targets[0]) is not ast.Name:
            return False
        target = parent.targets[0]
        scope = names.scope(target)
        if scope is None:
            return False
        assignments = [a for a in scope.assignments[target.id]]
        if len(assignments) != 1:
            return False
        references = list(assignments[0].references)
        return bool(references) and all(is_called(names, r.node) for r in references)

    def _check_jit_arguments(self, call: ast.Call) -> None:
        callee = self.file.code(call.func)
        for i, arg in enumerate(_arguments(call)):
            if arg.star:
                continue
            role = arg.keyword if arg.keyword is not None else f"arg{i}"
            slot = Slot(i if arg.keyword is None else None, role, role)
            if self._lift(call, arg, slot, f"passed to the jit-compiled `{callee}`", f": `{callee}` re-traces",
                          f"`{callee}`") == "fixed":
                return

    def _lift(self, call: ast.Call, arg: Argument, slot: Slot, passed: str, cost: str, callee: str,
              severity: Severity | None = None) -> str | None:
        """Report the function in the slot: "fixed" (a fix replaces the call), "reported", or None."""
        file = self.file
        names = file.names
        enclosing = _enclosing_def(names, call)
        if enclosing is None:
            return None
        enclosing_name = enclosing.name.lstrip("_") or "function"
        found = temporary_at(file, arg.value, slot.role, enclosing_name, shown=enclosing.name)
        if found is None:
            return self._hoist_operator(call, arg, enclosing, passed, cost, severity)
        what = found.label if isinstance(found, AstTemporary) else f"the local function `{file.code(arg.value)}`"
        message = f"{what} {passed} is new on each call of `{enclosing.name}`{cost}"

        def refuse(reason: str, related=()) -> str:
            self.report(arg.value, message, severity=severity, note=f"not lifted: {reason}", related=related)
            return "reported"

        if isinstance(found, str):
            return refuse(found)
        # A function the API calls during the call reads its captured names then, and so do explicit
        # arguments evaluated at the call: how the names were assigned before does not matter. One the API
        # keeps (`Solve(preprocess_y=...)`) runs later: a name assigned again after the call would differ.
        result = captures(names, found.function, rebinding_after=call if slot.stored else None,
                          late_binding=slot.stored, module_level=found.decorators)
        if result.refusal is not None:
            return refuse(result.refusal, result.related)
        values = ", ".join(f"`{n}`" for n in result.names)
        if result.names and slot.channel is None:
            return refuse(f"it captures {values}, which {callee} cannot pass on to a module-level function")
        linear = [d for d in found.decorators if _is_linear_jit(names, d)]
        if result.names and any(type(d) is ast.Call and _is_linear_jit(names, d)
                                and any(k.arg == "auxiliary_args" for k in d.keywords) for d in found.decorators):
            return refuse(f"its `auxiliary_args` name the parameters it is not linear in: {values} would be traced as "
                          "linear inputs (add them to `auxiliary_args` by hand)")
        if linear and (why := self._unstable_globals(found.function)):
            return refuse(f"a per-call operator is traced with the globals it reads as they are then, a module-level one "
                          f"keeps the matrix of its first trace: {why}")
        hazard = self._binding_hazard(call, found, slot, result.names, bool(linear))
        if hazard is not None:
            kind, reason, related = hazard
            if kind == "stale":
                self._report_stale(arg, found, slot, reason, related)
                return "reported"
            return refuse(reason, related)
        refused = _channel_refusal(file, call, arg, slot, result.names)
        if refused is not None:
            return refuse(refused)
        anchor = top_level_statement(names, file.reading.lines, call)
        name = file.fresh_name(found.base_name)
        owner = None
        if found.remove is not None:  # one edit for the deletion and the call, so the gap the def leaves closes cleanly
            owner = _enclosing_def(names, found.remove)
            if owner is None or not is_inside(names, call, owner):
                return refuse("it is defined in another function than it is used")
        passed_as = f", passing {values} as `{slot.channel}`" if result.names else ""
        note, safety = "", None
        if result.names and slot.channel == "f_args" and linear:
            note = ("under jit on jax or tensorflow, a Tensor among the `f_args` needs `Solve(..., rank_deficiency=0)`: add it "
                    "if the system has full rank — not added automatically, since it changes the result of a singular one")
            if _asks_gradient_for_f(call):
                safety = Safety.UNSAFE
                held = f"{values} holds" if len(result.names) == 1 else f"one of {values} is"
                note = (f"unsafe: with `grad_for_f`, if {held} a tensor being differentiated, the matrix the operator caches "
                        "for that value keeps it, and a later call with an equal value fails instead of tracing anew; " + note)
        build = partial(_write_lift, name=name, found=found, slot=slot, captured=result.names,
                        imports=tuple(i.name for i in result.imports), forgetting=len(linear) if result.names else 0,
                        owned=owner is not None)
        needs = (call, arg.value, *_temporary_nodes(found), *(linear if result.names else ()),
                 *(i.statement for i in result.imports))
        self.report(arg.value, message, severity=severity, note=note,
                    fix=PlannedFix(f"lift it to module level as `{name}`{passed_as}", (anchor, owner or call), build, safety,
                                   needs=needs))
        return "fixed"

    def _hoist_operator(self, call: ast.Call, arg: Argument, enclosing, passed: str, cost: str,
                        severity: Severity | None) -> str | None:
        """`math.jit_compile_linear(fn)` of a module-level `fn`, built at the call: a new operator, with an
        empty matrix cache, on every call. Built once at module level, right after `fn` is bound (or
        before the function that uses it, if `fn` is bound earlier)."""
        file = self.file
        names = file.names
        value = arg.value
        app = match_application(names, value, (Kind.JIT,)) if type(value) is ast.Call else None
        if app is None or app.transform.api.name != "phiml.math.jit_compile_linear" or type(app.function) is not ast.Name:
            return None
        wrapped = app.function
        assignments = list(names.assignments(wrapped))
        node = getattr(assignments[0], "node", None) if len(assignments) == 1 else None
        if node is None or not at_module_level(names, node) or type(node) not in (*_DEFS, ast.Import, ast.ImportFrom):
            return None
        message = f"`{file.code(value)}` {passed} is a new operator on each call of `{enclosing.name}`{cost}"
        configured = [*(k.value for k in app.transform.keywords),
                      *(a.value for a in _arguments(value) if a.value is not wrapped and a.keyword is None)]
        if any(not _constant(a) for a in configured):
            self.report(value, message, severity=severity, note="not built once: its options are computed at run time")
            return "reported"
        why = file.globals.unstable_reason(wrapped.id) or (self._unstable_globals(node) if type(node) in _DEFS else None)
        if why:
            self.report(value, message, severity=severity,
                        note=f"not built once: a per-call operator is traced with the globals it reads as they are then, "
                             f"a module-level one keeps the matrix of its first trace: {why}")
            return "reported"
        body = file.tree.body
        anchor = top_level_statement(names, file.reading.lines, call)
        bound_at = top_level_statement(names, file.reading.lines, node)
        index = next(i for i, x in enumerate(body) if x is bound_at)
        if index < next(i for i, x in enumerate(body) if x is anchor):
            place = anchor
        else:  # the statement of the next line (libcst's next statement: those sharing a line are one)
            end = bound_at.end_lineno
            place = next((x for x in body[index + 1:] if x.lineno > end), None)
            if place is None:
                return None
        name = file.fresh_name(f"_{wrapped.id.lstrip('_')}_operator")
        self.report(value, message, severity=severity,
                    fix=PlannedFix(f"build it once at module level as `{name}`", (place, value),
                                   partial(_write_operator, name=name)))
        return "fixed"

    def _unstable_globals(self, fn: ast.AST) -> str | None:
        """A global `fn` reads (directly, or through a module function it calls) that may not hold the same
        value at every call: a module-level operator keeps the matrix of its first trace."""
        return self.file.globals.unstable_among(free_names(self.file.names, fn))

    def _binding_hazard(self, call: ast.Call, found: AstTemporary, slot: Slot, captured: tuple[str, ...],
                        linear: bool) -> tuple[str, str, tuple] | None:
        """Why values passed explicitly could differ from what the closure reads: ("refuse", why,
        related), or ("stale", why, related) for a `jit_compile_linear` operator that already computes
        with old values (its matrix is traced once per function object, keyed on its arguments only)."""
        if not captured:
            return None
        names = self.file.names
        bindings = bindings_of(names, found.function, captured)
        other = written_elsewhere(names, found.function, bindings)
        if other is not None:
            return ("refuse", f"`{other[0]}` is written through `nonlocal` in another function: it may change "
                              "between the call and the moment the function reads it", ((other[1], "written here"),))
        if slot.stored:
            hit = rebound_in_loop(names, bindings, loops_repeating(names, call))
            if hit is not None:
                name, node, _ = hit
                return ("refuse", f"`{name}` is assigned again in the loop the function is created in: a function kept "
                                  f"for later reads the value `{name}` has when it runs, an explicit argument the value of "
                                  "its own iteration", ((node, f"`{name}` is assigned here"),))
            return None
        walrus = assigned_within(names, call, captured, found.function)
        if walrus is not None:
            return ("refuse", f"`{walrus[0]}` is assigned inside the call, after the values passed to it would be read",
                    ((walrus[1], "assigned here"),))
        if linear and found.remove is not None:
            hit = rebound_in_loop(names, bindings, loops_repeating(names, call, once=found.remove))
            if hit is not None:
                name, node, _ = hit
                return ("stale", name, ((node, f"`{name}` is assigned again here"),))
        return None

    def _report_stale(self, arg: Argument, found: AstTemporary, slot: Slot, name: str, related) -> None:
        """A `jit_compile_linear` operator created once and used in a loop that assigns a value it
        captures: it is traced on its first use only, so later solves reuse the first value's matrix.
        Lifting with the value as an argument fixes that, but changes the results: report only."""
        fn = found.function
        shown = f"`{fn.name}`" if type(fn) in _DEFS else found.label
        message = (f"{found.label} is traced once, on its first use in the loop: later iterations reuse that matrix although "
                   f"`{name}`, which it captures, changes")
        if slot.channel == "f_args":
            hint = (f"make `{name}` a parameter of {shown} after its first one and pass it at each solve, "
                    f"`solve_linear(..., solve, {name})`: each value then gets its own matrix")
        else:
            hint = f"make `{name}` a parameter of {shown} and pass it at each use: each value then gets its own matrix"
        self.report(arg.value, message, severity=Severity.ERROR, hint=hint, related=related,
                    note="not lifted: the lift would change the results (to what the loop means)")


def _slot_arg(call: ast.Call, slot: Slot) -> Argument | None:
    """The argument in the slot: by keyword, or by position before any `*args`."""
    arguments = _arguments(call)
    for a in arguments:
        if a.keyword is not None and a.keyword == slot.keyword:
            return a
    positional = []
    for a in arguments:
        if a.star:
            break
        if a.keyword is None:
            positional.append(a)
    if slot.position is not None and slot.position < len(positional):
        return positional[slot.position]
    return None


def _channel_refusal(file, call: ast.Call, arg: Argument, slot: Slot, captured: tuple[str, ...]) -> str | None:
    """Why the call cannot take the captured values in the slot's channel (`_with_channel` on libcst
    writes them), or None."""
    if not captured:
        return None
    arguments = _arguments(call)
    if slot.channel == "f_args":
        if any(a.star for a in arguments):
            return f"`{file.code(call.func)}` is given `*` or `**` arguments: where its values go is not known"
        positional = [a for a in arguments if a.keyword is None]
        if len(positional) >= slot.positional_before:
            return None
        needed = slot.positional_names[len(positional):slot.positional_before]
        if len(positional) + len(needed) < slot.positional_before:
            return "its leading arguments are not all given"
        moved = []
        for wanted in needed:
            given = next((a for a in arguments if a.keyword == wanted), None)
            if given is None:
                return f"`{wanted}` is not given: the values cannot follow it"
            moved.append(given)
        rest = [a for a in arguments if a.keyword is not None and all(a != m for m in moved)]
        ordered = positional + moved + rest
        # (the function in the slot is a name by then: `_with_channel` reads the call with it replaced)
        if any(a != b for a, b in zip(ordered, arguments)) \
                and not all(a == arg or _plain(a.value) for a in arguments if a.keyword is not None):
            return (f"making {', '.join(f'`{n}=`' for n in needed)} positional would evaluate the keyword arguments in "
                    "another order")
        return None
    if slot.channel == "preprocess_y_args":
        existing = next((a for a in arguments if a.keyword == "preprocess_y_args"), None)
        if existing is not None and type(existing.value) is not ast.Tuple:
            return "`preprocess_y_args` is not written as a tuple"
        return None
    return f"`{slot.channel}` is given in a form that cannot be extended"


def _plain(expr: ast.expr) -> bool:
    """A name or a literal: evaluating it has no effect another argument could see."""
    return type(expr) is ast.Name or _constant(expr)


def _constant(expr: ast.expr) -> bool:
    if type(expr) is ast.Constant and type(expr.value) in (float, complex):
        return True
    try:
        literal(expr)
        return True
    except ValueError:
        return False


def _is_custom_gradient(names, func: ast.expr) -> bool:
    api = names.api(func, (Kind.CUSTOM_GRADIENT,)) if type(func) in _CHAINS else None
    return api is not None and api.name == "phiml.math.custom_gradient"


def _is_linear_jit(names, expr: ast.expr) -> bool:
    """`math.jit_compile_linear`, bare or called with its options (`@jit_compile_linear(forget_traces=True)`)."""
    if type(expr) is ast.Call:
        expr = expr.func
    api = names.api(expr, (Kind.JIT,)) if type(expr) in _CHAINS else None
    return api is not None and api.name == "phiml.math.jit_compile_linear"


def _asks_gradient_for_f(call: ast.Call) -> bool:
    """`grad_for_f=` given, and not a literal False."""
    for k in call.keywords:
        if k.arg == "grad_for_f":
            return not (type(k.value) is ast.Constant and (k.value.value is False or k.value.value is None))
    return False


def _module_level_name(names, expr: ast.expr) -> bool:
    """A name bound only at module level (to anything): the same object on every call."""
    if type(expr) is not ast.Name:
        return False
    assignments = names.assignments(expr)
    return bool(assignments) and all(getattr(x, "node", None) is not None and at_module_level(names, x.node)
                                     for x in assignments)


def _enclosing_def(names, node: ast.AST):
    """The nearest enclosing `def` (a lambda has no name to derive the lifted name from)."""
    return next((a for a in ancestors(names, node) if type(a) in _DEFS), None)


def _temporary_nodes(found: AstTemporary) -> tuple[ast.AST, ...]:
    """The nodes whose twins `written_temporary` takes: the function, the statement it removes, its decorators."""
    return (found.function, *((found.remove,) if found.remove is not None else ()), *found.decorators)


def _taken(found: AstTemporary, twins) -> tuple[tuple, tuple]:
    """(the twins of `_temporary_nodes(found)` as written_temporary takes them, the twins after them)."""
    function, rest = twins[0], twins[1:]
    remove = None
    if found.remove is not None:
        remove, rest = rest[0], rest[1:]
    count = len(found.decorators)
    return (function, remove, rest[:count]), rest[count:]


def _write_lift(context, anchor, site, call: cst.Call, value, *twins, name: str, found: AstTemporary, slot: Slot,
                captured: tuple[str, ...], imports: tuple[str, ...], forgetting: int, owned: bool):
    """The lifted def before `anchor`, and the call given it (and the captured values in the slot's channel);
    the def's statement deleted from `site`, its owner, in the same edit."""
    (function, remove, decorators), rest = _taken(found, twins)
    linear, import_twins = rest[:forgetting], rest[forgetting:]
    temporary = written_temporary(context, found, function, remove, decorators)
    if forgetting:
        temporary = _forgetting(temporary, lambda expr: any(expr is t for t in linear))
    arg = context.analysis.names.parent(value)
    new_call = _with_channel(call, arg, slot, captured, cst.Name(name)) if isinstance(arg, cst.Arg) else None
    lines = tuple(import_line(i, n) for i, n in zip(import_twins, imports))
    if not isinstance(new_call, cst.Call) or any(line is None for line in lines):
        return None
    lifted = lifted_def(temporary, name, captured, anchor, lines, after_first=slot.channel is not None)
    if not owned:
        return [InsertBefore(anchor, (lifted,)), Replace(call, new_call)]
    return [InsertBefore(anchor, (lifted,)), Replace(site.body, rewrite_function_body(site, {id(call): new_call}, temporary.remove))]


def _write_transform(context, anchor, enclosing: cst.FunctionDef, call: cst.Call, *twins, built: str,
                     lifted: tuple[tuple[str, AstTemporary], ...]):
    """The lifted functions and `built = <the transform of them>` before `anchor`, and the call replaced by
    `built` in `enclosing` (the statement of a lifted def deleted in the same edit)."""
    statements: list[cst.BaseStatement] = []
    new_args = list(call.args)
    removals = []
    rest = twins
    for name, found in lifted:
        value, rest = rest[0], rest[1:]
        taken, rest = _taken(found, rest)
        temporary = written_temporary(context, found, *taken)
        statements.append(lifted_def(temporary, name, (), anchor))
        arg = context.analysis.names.parent(value)
        new_args = [a.with_changes(value=cst.Name(name)) if a is arg else a for a in new_args]
        if temporary.remove is not None:
            removals.append(temporary.remove)
    statements.append(assign(built, call.with_changes(args=new_args), anchor))
    body = rewrite_function_body(enclosing, {id(call): cst.Name(built)}, removals[0] if removals else None)
    return [InsertBefore(anchor, tuple(statements)), Replace(enclosing.body, body)]


def _write_operator(context, place, value: cst.BaseExpression, *, name: str):
    """`name = <the operator>` before `place`, and `name` where it was built."""
    if not isinstance(place, cst.BaseStatement):
        place = context.analysis.names.parent(place)  # (a simple statement's line)
    return [InsertBefore(place, (assign(name, value, place),)), Replace(value, cst.Name(name))]


def _custom_gradient_form(captured: dict[str, list[str]], label: str) -> tuple[str, str]:
    """Why a `math.custom_gradient(f, g)` whose functions capture values is not built once, and its
    module-level form: PhiML hands every argument of `f` to `g` in `params` (measured on jax and torch)."""
    values = list(dict.fromkeys(n for names in captured.values() for n in names))
    shown = ", ".join(f"`{n}`" for n in values)
    forward, gradient = (list(captured) + ["_gradient"])[:2]
    aux = ",".join(values)
    return (f"they capture {shown}",
            f"build it once: `_{label}_custom_gradient = math.custom_gradient({forward}, {gradient}, auxiliary_args='{aux}')`, "
            f"with {shown} as parameters of `{forward}` after its inputs, read as `params['{values[0]}']` in `{gradient}`, "
            "and passed at each call")


def _forgetting(found: Temporary, is_linear) -> Temporary:
    """The operator with `forget_traces=True` on its `jit_compile_linear` (`is_linear` of a decorator's
    expression says which it is): its captured values become auxiliary arguments, part of its cache key. A
    per-call operator kept no matrix beyond its call; at module level, one that captures a value that changes
    on every call (a time, a velocity field) would keep a matrix per value. Forgetting, it keeps the latest,
    which calls with equal values reuse."""
    def forgetting(decorator: cst.Decorator) -> cst.Decorator:
        expr = decorator.decorator
        if not is_linear(expr):
            return decorator
        if isinstance(expr, cst.Call):
            if any(a.keyword is not None and a.keyword.value == "forget_traces" for a in expr.args):
                return decorator
            args = [*expr.args[:-1], expr.args[-1].with_changes(comma=comma())] if expr.args else []
            return decorator.with_changes(decorator=expr.with_changes(args=[*args, forget_traces()]))
        return decorator.with_changes(decorator=cst.Call(expr, [forget_traces()]))

    new = {id(d): forgetting(d) for d in found.decorators}
    fn = found.function
    if isinstance(fn, cst.FunctionDef):
        fn = fn.with_changes(decorators=[new.get(id(d), d) for d in fn.decorators])
        own = {id(d) for d in found.function.decorators}
        kept = [d for d in fn.decorators] + [new[id(d)] for d in found.decorators if id(d) not in own]
        return replace(found, function=fn, decorators=tuple(kept))
    return replace(found, decorators=tuple(new[id(d)] for d in found.decorators))


_LINEAR = frozenset({"phiml.math.jit_compile_linear"})


def _with_channel(call: cst.Call, arg: cst.Arg, slot: Slot, captured: tuple[str, ...], name: cst.Name) -> cst.Call | str:
    """The call with the lifted function in the slot and the captured values in the channel, first
    (the lifted def takes them right after its first parameter); or why the call cannot take them."""
    args = [a.with_changes(value=name) if a is arg else a for a in call.args]
    if not captured:
        return call.with_changes(args=args)
    values = [cst.Name(c) for c in captured]
    if slot.channel == "f_args":
        if any(a.star for a in args):
            return "`*` or `**` arguments"  # (refused on `ast` first: _channel_refusal)
        positional = [a for a in args if a.keyword is None]
        if len(positional) < slot.positional_before:
            args = _made_positional(args, slot)
            if isinstance(args, str):
                return args
        return call.with_changes(args=_insert_after(args, slot.positional_before - 1, [cst.Arg(v) for v in values]))
    if slot.channel == "preprocess_y_args":
        existing = next((a for a in args if a.keyword is not None and a.keyword.value == "preprocess_y_args"), None)
        if existing is None:
            elements = [cst.Element(v, comma=comma()) for v in values[:-1]] + [cst.Element(values[-1], comma=cst.Comma() if len(values) == 1 else cst.MaybeSentinel.DEFAULT)]
            keyword = cst.Arg(cst.Tuple(elements), keyword=cst.Name("preprocess_y_args"),
                              equal=no_space_equal())
            return call.with_changes(args=_insert_after(args, len(args) - 1, [keyword]))
        if not isinstance(existing.value, cst.Tuple):
            return "`preprocess_y_args` is not written as a tuple"
        old = [e.with_changes(comma=comma()) for e in existing.value.elements]
        new = [cst.Element(v, comma=comma()) for v in values] + old
        new[-1] = new[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new_tuple = existing.value.with_changes(elements=new)
        return call.with_changes(args=[a.with_changes(value=new_tuple) if a is existing else a for a in args])
    return f"`{slot.channel}` is given in a form that cannot be extended"


def _made_positional(args: list[cst.Arg], slot: Slot) -> list[cst.Arg] | str:
    """`solve_linear(op, y=field, solve=solve, ...)` as `solve_linear(op, field, solve, ...)`, so values
    can follow `solve`. Refused when that would change the order the arguments are evaluated in
    (unless they are names or literals, which reading earlier or later cannot change)."""
    positional = [a for a in args if a.keyword is None]
    needed = slot.positional_names[len(positional):slot.positional_before]
    if len(positional) + len(needed) < slot.positional_before:
        return "its leading arguments are not all given"
    moved = []
    for wanted in needed:
        given = next((a for a in args if a.keyword is not None and a.keyword.value == wanted), None)
        if given is None:
            return f"`{wanted}` is not given: the values cannot follow it"
        moved.append(given)
    rest = [a for a in args if a.keyword is not None and all(a is not m for m in moved)]
    ordered = positional + moved + rest
    if any(a is not b for a, b in zip(ordered, args)) and not all(_plain_written(a.value) for a in args if a.keyword is not None):
        return (f"making {', '.join(f'`{n}=`' for n in needed)} positional would evaluate the keyword arguments in "
                "another order")
    out = [a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) if any(a is m for m in moved) else a
           for a in ordered]
    if any(a is not b for a, b in zip(ordered, args)):  # reordered: one separator, the call's last comma at the end
        separator = next((a.comma for a in args if isinstance(a.comma, cst.Comma)), comma())
        out = [a.with_changes(comma=separator) for a in out[:-1]] + [out[-1].with_changes(comma=args[-1].comma)]
    return out


def _plain_written(expr: cst.BaseExpression) -> bool:
    """A name or a literal (`_plain`, of the call being written)."""
    if isinstance(expr, (cst.Name, cst.Float, cst.Imaginary)):
        return True
    try:
        written_literal(expr)
        return True
    except ValueError:
        return False


def _insert_after(args: list[cst.Arg], index: int, new: list[cst.Arg]) -> list[cst.Arg]:
    """`new` after `args[index]`, separated like the arguments before (one per line stays one per
    line); a trailing comma stays at the end of the list."""
    trailing = args[index].comma
    separator = next((a.comma for a in reversed(args[:index]) if isinstance(a.comma, cst.Comma)), comma())
    if index == len(args) - 1 and not isinstance(trailing, cst.Comma):
        separator = comma() if index == 0 else separator
    args = list(args)
    args[index] = args[index].with_changes(comma=separator)
    new = [a.with_changes(comma=separator) for a in new]
    new[-1] = new[-1].with_changes(comma=trailing if index == len(args) - 1 else separator)
    return [*args[: index + 1], *new, *args[index + 1:]]


def _may_hand_a_temporary(syntax) -> bool:
    """The gate's conditions that need no jit or custom gradient, each read as a superset off every call
    of the file (Syntax.calls: no walk where the survey's is at hand): some call of an API that takes a
    function, or `.with_preprocessing(...)`, builds one per call or is passed a lambda, a name or a
    `jit_compile_linear(...)`. Where the file spells neither a jit nor a custom gradient (Syntax.spells),
    the walk finds no jitted callee, no name bound to a custom gradient and no def one decorates."""
    for call in syntax.calls:
        func = call.func
        if not isinstance(func, (ast.Name, ast.Attribute)):
            continue
        apis = syntax.apis(func) & TEMPORARY_FUNCTION_APIS
        if not apis.isdisjoint(TEMPORARY_FUNCTION_BUILDERS):
            return True
        if (apis or isinstance(func, ast.Attribute) and func.attr == "with_preprocessing") and any(
                isinstance(a, (ast.Lambda, ast.Name)) or isinstance(a, ast.Call) and not _LINEAR.isdisjoint(syntax.apis(a.func))
                for a in [*call.args, *(k.value for k in call.keywords)]):
            return True
    return False


def _may_pass_a_temporary(syntax, facts, call: ast.Call) -> bool:
    """An argument of `call` may be a function made per call: a lambda, a def or lambda bound in a
    function, or a `jit_compile_linear(...)`."""
    return any(isinstance(a, ast.Lambda) or isinstance(a, ast.Name) and a.id in facts.local_functions
               or isinstance(a, ast.Call) and not _LINEAR.isdisjoint(syntax.apis(a.func))
               for a in [*call.args, *(k.value for k in call.keywords)])
