"""PML303 redundant-jit."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.names import dotted
from rewriter.analysis.syntax import spelled_application, spelled_transform
from rewriter.analysis.transforms import Transform, match_application, match_transform
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.cst_tree import branches
from rewriter.findings import Safety, Severity

from ._shared import replacement_in_place

# jit_compile_linear is more than a jit: it traces a linear function into a matrix for solve_linear.
_NOT_PLAIN_JIT = {"phiml.math.jit_compile_linear"}


def _plain(transform: Transform) -> bool:
    return transform.api.name not in _NOT_PLAIN_JIT


def _remove_decorator(decorators: list[cst.Decorator], drop: cst.Decorator) -> list[Replace] | None:
    """Edits removing `drop`; its comments move onto the next decorator. None if they cannot."""
    comments = [line for line in drop.leading_lines if line.comment is not None]
    trailing = drop.trailing_whitespace.comment
    if not comments and trailing is None:
        return [Replace(drop, cst.RemovalSentinel.REMOVE)]
    index = decorators.index(drop)
    if index + 1 == len(decorators):
        return None
    following = decorators[index + 1]
    moved = list(drop.leading_lines)
    if trailing is not None:
        moved.append(cst.EmptyLine(indent=True, comment=trailing))
    return [
        Replace(drop, cst.RemovalSentinel.REMOVE),
        Replace(following, following.with_changes(leading_lines=[*moved, *following.leading_lines])),
    ]


# What a jit's arguments do, in a few words: a jit that carries any is more than a compilation, and
# removing it (or the jit around it) changes what they do.
_ARGUMENT_EFFECTS = {
    "static_argnums": "keeps arguments Python values", "static_argnames": "keeps arguments Python values",
    "auxiliary_args": "keeps arguments Python values",
    "donate_argnums": "donates input buffers, at the outermost jit only",
    "donate_argnames": "donates input buffers, at the outermost jit only",
    "in_shardings": "places the inputs", "out_shardings": "places the result",
    "backend": "chooses the backend, and another one around it raises",
    "device": "chooses the device, and another one around it raises",
    "keep_unused": "keeps unused arguments in the program", "inline": "inlines the call",
    "abstracted_axes": "abstracts axes of the inputs", "compiler_options": "passes options to the compiler",
    "forget_traces": "bounds its trace cache", "autograph": "converts Python control flow",
    "jit_compile": "compiles with XLA", "reduce_retracing": "relaxes shapes on retracing",
    "input_signature": "fixes the input signature",
}


# Arguments of the jit that stays which removing a bare jit beside it cannot change: it keeps its
# arguments static, where the bare one around it traced them (the hazard the fix removes).
_STATIC_KEYWORDS = frozenset({"static_argnums", "static_argnames", "auxiliary_args"})


def _arguments(removed: Transform, *kept: Transform) -> str:
    """"`backend=` chooses the backend, ...": what the jits' arguments do that removing `removed` (which
    must be bare) may change, beside `kept`; "" when there is none."""
    given = [(a, True) for a in removed.keywords] + [(a, False) for t in kept for a in t.keywords]
    named = [f"`{a.keyword.value}=` {_ARGUMENT_EFFECTS.get(a.keyword.value, 'is an option of its own')}"
             for a, own in given if a.keyword is not None and (own or a.keyword.value not in _STATIC_KEYWORDS)]
    named += ["positional options" for t in (removed, *kept) if t.extra_positional]
    return ", ".join(dict.fromkeys(named))


# Calls whose effect a separately compiled (cached) inner jit observably changes: they run when a program
# is traced, and an inner jit's cache skips its trace where the outer one traces again.
_EFFECTS = frozenset({"print", "debug.print", "debug.callback", "pure_callback", "io_callback", "callback", "id_tap", "id_print"})


def _effects(fn: cst.CSTNode | None) -> str:
    """The first call in `fn`'s body that has an effect a separate compilation makes observable ("" if none)."""
    if fn is None:
        return ""
    stack = [fn.body] if isinstance(fn, (cst.FunctionDef, cst.Lambda)) else []
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            name = dotted(node.func) or ""
            if any(name == e or name.endswith("." + e) for e in _EFFECTS):
                return name
        stack.extend(branches(node))
    return ""


class RedundantJit(Codemod):
    """A jit applied to a function that is already jitted, or a jit built inside a function that is
    itself being traced, adds nothing: the inner program is inlined into the outer trace. It does
    cost: an extra wrapper and cache lookup per call, one more trace cache to fill (PhiML), and on
    torch PhiML ignores nested jit with a warning ("PyTorch does not support nested tracing").

    Fixed only where the jit removed is a bare jit whose only effect is compilation:
    `jax.jit(already_jitted)` becomes `already_jitted`, a second jit decorator is removed, and a jit
    applied inside a traced body is replaced by the plain function, all within one framework.
    `math.jit_compile_linear` is never treated as a plain jit: it builds a sparse matrix for solves.

    Reported without a fix, saying why: a jit that carries arguments, its own or the other jit's
    (`static_argnames` keeps arguments Python values that the jit around it would trace; `backend=`,
    `device=`, shardings, `donate_argnums` change where and how it runs, and a conflict that raises
    would vanish); an inner jit of a function with effects that run once per trace (`print`,
    `jax.debug.print`, callbacks: a separately compiled, cached inner trace runs them fewer times); an
    inner jit called only for its effects; an inner jit given a value the outer trace does not trace
    (the inner jit traces a Python count the plain function would get as it is); an inner jit whose
    jit object is used (`jax.jit(g).lower(...)`); one in a function that may also run un-jitted; and a
    dropped decorator whose comments would have nowhere to go.
    """

    CODE = "PML303"
    NAME = "redundant-jit"
    SUMMARY = "jit of an already-jitted function, or jit inside a jitted body, is removed"
    SAFETY = Safety.SAFE
    CHANGES_STRUCTURE = ("jit", "pjit", "nested", "inner", "double", "stage", "staged")
    SEVERITY = Severity.INFO
    FIX_SAFETY = (
        "Inside a trace, a bare inner jit given traced values is inlined, so calling the plain function computes "
        "the same values (only applied inside functions that are always traced: jit-decorated ones); a bare jit "
        "over a bare jitted function compiles the same program. A jit with arguments of its own or around one "
        "with arguments, a function with effects that run per trace, an inner jit given Python values, mixed "
        "frameworks and jit_compile_linear are reported, not fixed."
    )
    EXAMPLES = (
        Example(
            dedented("""
                @jax.jit
                def step(x):
                    return x * 2

                fast_step = jax.jit(step)
            """),
            dedented("""
                @jax.jit
                def step(x):
                    return x * 2

                fast_step = step
            """),
        ),
        Example(
            dedented("""
                @math.jit_compile
                def simulate(x):
                    for _ in range(3):
                        x = math.jit_compile(step)(x)
                    return x
            """),
            dedented("""
                @math.jit_compile
                def simulate(x):
                    for _ in range(3):
                        x = step(x)
                    return x
            """),
            note="jit inside a jitted body",
        ),
        Unchanged(dedented("""
            def step(x):
                return x * 2

            fast_step = jax.jit(step)
        """), "one jit of a plain function"),
        Unchanged(dedented("""
            @math.jit_compile
            def smooth(x):
                return x * 2

            operator = math.jit_compile_linear(smooth)
        """), "jit_compile_linear builds a matrix: not a plain jit"),
        Unchanged(dedented("""
            @jax.jit
            def step(x):
                return x * 2


            @jax.jit
            def twice(x):
                return step(step(x))
        """), "a jitted function calling another: no jit to remove"),
    )
    READS_FACTS = True
    TRIGGERS = (("jit",), ("tensorflow", "function"), ("torch", "compile"))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """Two jit decorators on one def; a jit of something that may be jitted already; or a jit
        (applied, or a decorated def) inside a function that may be traced."""
        facts = syntax.facts
        if facts is None:
            return False
        return facts.stacked_jits \
            or any(facts.may_be_jitted(call.args[0], call) or facts.may_be_traced(functions) for call, functions, _ in facts.jit_calls) \
            or any(facts.may_be_traced(functions) for _, functions in facts.nested_jit_defs)

    def __init__(self, file) -> None:
        super().__init__(file)
        # candidates that need the whole file's syntax index, each with its check (a function, not a bound
        # method: a method of the rule held by the rule is a cycle that keeps the file's tree for the collector)
        self._deferred: list = []

    def visit_Call(self, node: cst.Call) -> None:
        first = spelled_application(self.file.analysis.names, node)
        if first is not None:
            self._deferred.append((RedundantJit._check_call, node, tuple(self.file.syntax.functions), first))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        names = self.file.analysis.names
        spelled = sum(spelled_transform(names, d.decorator) for d in node.decorators)
        if spelled >= 2 or spelled == 1 and len(self.file.syntax.functions) > 1:
            self._deferred.append((RedundantJit._check_def, node, tuple(self.file.syntax.functions[:-1]), None))

    def leave_Module(self, original_node: cst.Module) -> None:
        syntax = self.file.syntax
        for check, node, functions, first in self._deferred:
            if check is RedundantJit._check_call and not (syntax.may_be_jitted(first) or syntax.may_be_traced(functions)):
                continue
            if check is RedundantJit._check_def and len(node.decorators) and functions and not syntax.may_be_traced(functions) \
                    and sum(spelled_transform(self.file.analysis.names, d.decorator) for d in node.decorators) < 2:
                continue
            check(self, node)

    def _check_call(self, node: cst.Call) -> None:
        analysis = self.file.analysis
        app = match_application(analysis.names, node, (Kind.JIT,))
        if app is None or not _plain(app.transform):
            return
        outer_name = app.transform.api.name
        inner = analysis.jit.jitted_value(app.function)
        if inner is not None and _plain(inner):
            message = f"`{outer_name}` of a function already jitted with `{inner.api.name}`: the outer jit only adds overhead"
            carried = _arguments(app.transform, inner)
            if inner.api.name == outer_name and not carried:
                self.report(node, message, edits=[Replace(node, replacement_in_place(self.parent(node), node, app.function))],
                            fix_description="drop the outer jit")
            elif carried:
                self.report(node, message, hint="keep one of the two jits, with the options it needs",
                            note=f"not fixed: a jit with arguments is more than a compilation: {carried}")
            else:
                self.report(node, message, hint="keep one of the two jits, with the options it needs",
                            note="not fixed: different frameworks")
            return
        if inner is not None:
            return
        context = analysis.jit.enclosing_context(node, direct_only=True)
        if context is not None:
            message = f"`{outer_name}` inside `{context.name}`, traced by `{context.transform.api.name}`: the inner jit is inlined"
            parent = self.parent(node)
            called = isinstance(parent, cst.Call) and parent.func is node
            refusal = self._observed(app.transform, analysis.jit.functions_denoted(app.function), [parent] if called else [],
                                     statement=called and isinstance(self.parent(parent), cst.Expr))
            if not called:  # `jax.jit(g).lower(...)`, `h = jax.jit(g)`: the jit object itself is used
                self.report(node, message, hint="call the plain function where the jit object is not needed",
                            note="not fixed: its jit object is used, not only called")
            elif context.how != "decorator":  # also callable un-jitted: the inner jit still helps there
                self.report(node, message, hint=f"call the plain function if `{context.name}` always runs jitted",
                            note=f"not fixed: `{context.name}` may also be called directly, where the inner jit still compiles")
            elif context.framework != app.transform.framework:
                self.report(node, message, hint="call the plain function", note="not fixed: different frameworks")
            elif refusal:
                self.report(node, message, hint="call the plain function if nothing depends on its separate compilation",
                            note=f"not fixed: {refusal}")
            else:
                self.report(node, message, edits=[Replace(node, replacement_in_place(self.parent(node), node, app.function))],
                            fix_description="call the plain function")

    def _observed(self, transform: Transform, functions: list, calls: list[cst.Call], statement: bool = False) -> str:
        """Why removing an inner jit may change what the program observes ("" when it cannot): arguments
        it carries; effects in the function, which a separately compiled, cached trace runs fewer times;
        a call made only for its effects; a Python value passed to it, which the inner jit traces and the
        plain function gets as it is (a count that fails in the inner trace works without it)."""
        carried = _arguments(transform)
        if carried:
            return f"a jit with arguments is more than a compilation: {carried}"
        effect = next((e for e in map(_effects, functions) if e), "")
        if effect == "print":
            return "it calls `print`, which runs once per trace: the inner jit's cached trace prints fewer times"
        if effect:
            return (f"it calls `{effect}`: effects may be ordered or eliminated otherwise once its jit is inlined "
                    "into the outer program")
        if statement:
            return "its result is not used: the call is made for what compiling it does"
        traced = self.file.analysis.traced
        for call in calls:
            for arg in call.args:
                value = traced.value_anywhere(arg.value)
                if value is None or not value.traced:
                    return (f"`{self.file.code(arg.value).strip()}` may be a Python value here: the inner jit makes it a "
                            "tracer, the plain function would compute with the Python value")
        return ""

    def _only_called(self, fn: cst.FunctionDef) -> bool:
        """Every use of the def's name calls it (no `.lower()`, no passing the jit object on)."""
        scope = self.file.analysis.names.scope(fn.name)
        if scope is None:
            return False
        for access in scope.accesses[fn.name.value]:
            user = self.parent(access.node)
            if not (isinstance(user, cst.Call) and user.func is access.node):
                return False
        return True

    def _check_def(self, node: cst.FunctionDef) -> None:
        analysis = self.file.analysis
        jits = [
            (deco, t)
            for deco in node.decorators
            if (t := match_transform(analysis.names, deco.decorator, (Kind.JIT,))) is not None and _plain(t)
        ]
        if len(jits) >= 2:
            (outer_deco, outer), (inner_deco, inner) = jits[0], jits[1]
            message = f"`{node.name.value}` is jitted twice (`{outer.api.name}` over `{inner.api.name}`)"
            decorators = list(node.decorators)
            adjacent = decorators.index(inner_deco) == decorators.index(outer_deco) + 1
            same = outer.api.name == inner.api.name
            outer_kept, inner_kept = _arguments(outer, inner), _arguments(inner, outer)  # "" : that one can go
            if same and adjacent and not (outer_kept and inner_kept):
                drop = outer_deco if not outer_kept else inner_deco
            elif same and not adjacent and not inner_kept:
                drop = inner_deco  # `@jit @vmap @jit`: the outer jit compiles the vmap; the inner is inlined
            else:
                carried = inner_kept or outer_kept
                self.report(outer_deco, message, hint="keep one jit decorator, with the options it needs",
                            note=f"not fixed: a jit with arguments is more than a compilation: {carried}" if same and carried
                            else "not fixed: different frameworks")
                return
            edits = _remove_decorator(decorators, drop)
            which = "outer" if drop is outer_deco else "inner"
            if edits is None:
                self.report(outer_deco, message, hint=f"remove the {which} jit decorator by hand",
                            note="not fixed: the decorator to drop carries comments")
            else:
                self.report(outer_deco, message, edits=edits, fix_description=f"remove the {which} jit decorator")
            return
        if len(jits) == 1:
            deco, transform = jits[0]
            context = analysis.jit.enclosing_context(node, direct_only=True)
            if context is None:
                return
            message = f"`@{transform.api.name}` on `{node.name.value}` inside `{context.name}`, traced by `{context.transform.api.name}`: the inner jit is inlined"
            if not self._only_called(node):
                self.report(deco, message, hint="remove the decorator where the jit object is not needed",
                            note=f"not fixed: `{node.name.value}` is used as a jit object, not only called")
            elif context.how != "decorator":
                self.report(deco, message, hint=f"remove the decorator if `{context.name}` always runs jitted",
                            note=f"not fixed: `{context.name}` may also be called directly, where the inner jit still compiles")
            elif context.framework != transform.framework:
                self.report(deco, message, hint="remove the inner jit decorator", note="not fixed: different frameworks")
            elif refusal := self._observed(transform, [node], self._calls_of(node)):
                self.report(deco, message, hint="remove the inner jit decorator if nothing depends on its separate compilation",
                            note=f"not fixed: {refusal}")
            elif (edits := _remove_decorator(list(node.decorators), deco)) is not None:
                self.report(deco, message, edits=edits, fix_description="remove the inner jit decorator")
            else:
                self.report(deco, message, hint="remove the inner jit decorator by hand",
                            note="not fixed: the decorator to drop carries comments")

    def _calls_of(self, fn: cst.FunctionDef) -> list[cst.Call]:
        """The calls of the def's name (`_only_called` holds: every use is one)."""
        scope = self.file.analysis.names.scope(fn.name)
        return [self.parent(access.node) for access in scope.accesses[fn.name.value]] if scope is not None else []
