"""PML303 redundant-jit."""
from __future__ import annotations

import ast
from dataclasses import replace

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import match_application, match_transform, spelled_application, spelled_transform
from rewriter.analysis.ast_names import branches, dotted
from rewriter.analysis.transforms import Transform
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import enclosing_functions, spelled_jits
from ._shared import replacement_in_place

# jit_compile_linear is more than a jit: it traces a linear function into a matrix for solve_linear.
_NOT_PLAIN_JIT = {"phiml.math.jit_compile_linear"}


def _plain(transform: Transform) -> bool:
    return transform.api.name not in _NOT_PLAIN_JIT


def _remove_decorator(decorators: list[cst.Decorator], drop: cst.Decorator) -> list[Replace] | None:
    """Edits removing `drop`; its comments move onto the next decorator. None if they cannot (the rule
    decides that on `ast` first: `_comments_stay`)."""
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
    given = [(a.arg, True) for a in removed.keywords] + [(a.arg, False) for t in kept for a in t.keywords]
    named = [f"`{name}=` {_ARGUMENT_EFFECTS.get(name, 'is an option of its own')}"
             for name, own in given if name is not None and (own or name not in _STATIC_KEYWORDS)]
    named += ["positional options" for t in (removed, *kept) if t.extra_positional]
    return ", ".join(dict.fromkeys(named))


# Calls whose effect a separately compiled (cached) inner jit observably changes: they run when a program
# is traced, and an inner jit's cache skips its trace where the outer one traces again.
_EFFECTS = frozenset({"print", "debug.print", "debug.callback", "pure_callback", "io_callback", "callback", "id_tap", "id_print"})


def _effects(fn: ast.AST | None) -> str:
    """The first call in `fn`'s body that has an effect a separate compilation makes observable ("" if none)."""
    body = getattr(fn, "body", None) if isinstance(fn, (*_DEFS, ast.Lambda)) else None
    stack: list[ast.AST] = list(body) if isinstance(body, list) else [body] if body is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if any(name == e or name.endswith("." + e) for e in _EFFECTS):
                return name
        stack.extend(branches(node))
    return ""


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class RedundantJit(AstRule):
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
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        if facts is None:
            return False
        return facts.stacked_jits \
            or any(facts.may_be_jitted(call.args[0], call) or facts.may_be_traced(functions) for call, functions, _ in facts.jit_calls) \
            or any(facts.may_be_traced(functions) for _, functions in facts.nested_jit_defs)

    def check(self) -> None:
        file = self.file
        names, spelled = file.names, spelled_jits(file)
        nodes = sorted(file.nodes(ast.Call, *_DEFS), key=lambda n: (n.lineno, n.col_offset))
        for node in nodes:
            if isinstance(node, ast.Call):
                first = spelled_application(names, node)
                if first is not None and (spelled.may_be_jitted(first) or spelled.may_be_traced(enclosing_functions(names, node))):
                    self._check_call(node)
                continue
            count = sum(spelled_transform(names, d) for d in node.decorator_list)
            outer = enclosing_functions(names, node)
            if count >= 2 or count == 1 and outer and spelled.may_be_traced(outer):
                self._check_def(node)

    def _check_call(self, node: ast.Call) -> None:
        file = self.file
        names, jit = file.names, file.jit
        app = match_application(names, node, (Kind.JIT,))
        if app is None or not _plain(app.transform):
            return
        outer_name = app.transform.api.name
        inner = jit.jitted_value(app.function)
        plain = PlannedFix("", (node, app.function), _unwrap)
        if inner is not None and _plain(inner):
            message = f"`{outer_name}` of a function already jitted with `{inner.api.name}`: the outer jit only adds overhead"
            carried = _arguments(app.transform, inner)
            if inner.api.name == outer_name and not carried:
                self.report(node, message, fix=replace(plain, description="drop the outer jit"))
            elif carried:
                self.report(node, message, hint="keep one of the two jits, with the options it needs",
                            note=f"not fixed: a jit with arguments is more than a compilation: {carried}")
            else:
                self.report(node, message, hint="keep one of the two jits, with the options it needs",
                            note="not fixed: different frameworks")
            return
        if inner is not None:
            return
        context = jit.enclosing_context(node, direct_only=True)
        if context is None:
            return
        message = f"`{outer_name}` inside `{context.name}`, traced by `{context.transform.api.name}`: the inner jit is inlined"
        parent = names.parent(node)
        called = isinstance(parent, ast.Call) and parent.func is node
        refusal = self._observed(app.transform, jit.functions_denoted(app.function), [parent] if called else [],
                                 statement=called and isinstance(names.parent(parent), ast.Expr))
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
            self.report(node, message, fix=replace(plain, description="call the plain function"))

    def _observed(self, transform: Transform, functions: list, calls: list, statement: bool = False) -> str:
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
        traced = self.file.traced
        for call in calls:
            given = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
            for arg in given:
                expr = arg.value if isinstance(arg, (ast.Starred, ast.keyword)) else arg
                value = traced.value_anywhere(expr)
                if value is None or not value.traced:
                    return (f"`{self.file.python.text(expr).strip()}` may be a Python value here: the inner jit makes it a "
                            "tracer, the plain function would compute with the Python value")
        return ""

    def _accesses(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list | None:
        scope = self.file.names.scope(fn)
        return list(scope.accesses[fn.name]) if scope is not None else None

    def _only_called(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Every use of the def's name calls it (no `.lower()`, no passing the jit object on)."""
        accesses = self._accesses(fn)
        if accesses is None:
            return False
        names = self.file.names
        for access in accesses:
            user = names.parent(access.node)
            if not (isinstance(user, ast.Call) and user.func is access.node):
                return False
        return True

    def _check_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        file = self.file
        names, python = file.names, file.python
        jits = [(deco, t) for deco in node.decorator_list
                if (t := match_transform(names, deco, (Kind.JIT,))) is not None and _plain(t)]
        if len(jits) >= 2:
            (outer_deco, outer), (inner_deco, inner) = jits[0], jits[1]
            message = f"`{node.name}` is jitted twice (`{outer.api.name}` over `{inner.api.name}`)"
            decorators = node.decorator_list
            adjacent = _index(decorators, inner_deco) == _index(decorators, outer_deco) + 1
            same = outer.api.name == inner.api.name
            outer_kept, inner_kept = _arguments(outer, inner), _arguments(inner, outer)  # "" : that one can go
            place = python.decorator_place(outer_deco)
            if same and adjacent and not (outer_kept and inner_kept):
                drop = outer_deco if not outer_kept else inner_deco
            elif same and not adjacent and not inner_kept:
                drop = inner_deco  # `@jit @vmap @jit`: the outer jit compiles the vmap; the inner is inlined
            else:
                carried = inner_kept or outer_kept
                self.report(outer_deco, message, hint="keep one jit decorator, with the options it needs", place=place,
                            note=f"not fixed: a jit with arguments is more than a compilation: {carried}" if same and carried
                            else "not fixed: different frameworks")
                return
            which = "outer" if drop is outer_deco else "inner"
            if not _removable(python, decorators, drop):
                self.report(outer_deco, message, hint=f"remove the {which} jit decorator by hand", place=place,
                            note="not fixed: the decorator to drop carries comments")
            else:
                self.report(outer_deco, message, place=place,
                            fix=PlannedFix(f"remove the {which} jit decorator", (drop,), _write_removal))
            return
        if len(jits) == 1:
            deco, transform = jits[0]
            context = file.jit.enclosing_context(node, direct_only=True)
            if context is None:
                return
            place = python.decorator_place(deco)
            message = f"`@{transform.api.name}` on `{node.name}` inside `{context.name}`, traced by `{context.transform.api.name}`: the inner jit is inlined"
            if not self._only_called(node):
                self.report(deco, message, hint="remove the decorator where the jit object is not needed", place=place,
                            note=f"not fixed: `{node.name}` is used as a jit object, not only called")
            elif context.how != "decorator":
                self.report(deco, message, hint=f"remove the decorator if `{context.name}` always runs jitted", place=place,
                            note=f"not fixed: `{context.name}` may also be called directly, where the inner jit still compiles")
            elif context.framework != transform.framework:
                self.report(deco, message, hint="remove the inner jit decorator", note="not fixed: different frameworks",
                            place=place)
            elif refusal := self._observed(transform, [node], [names.parent(a.node) for a in self._accesses(node) or ()]):
                self.report(deco, message, hint="remove the inner jit decorator if nothing depends on its separate compilation",
                            note=f"not fixed: {refusal}", place=place)
            elif _removable(python, node.decorator_list, deco):
                self.report(deco, message, place=place,
                            fix=PlannedFix("remove the inner jit decorator", (deco,), _write_removal))
            else:
                self.report(deco, message, hint="remove the inner jit decorator by hand", place=place,
                            note="not fixed: the decorator to drop carries comments")


def _index(decorators: list[ast.expr], decorator: ast.expr) -> int:
    return next(i for i, d in enumerate(decorators) if d is decorator)


def _removable(python, decorators: list[ast.expr], drop: ast.expr) -> bool:
    """`_remove_decorator` can remove `drop`: it carries no comment (one above it, below the decorator before
    it, or after it on its line), or a decorator follows it to carry them."""
    index = _index(decorators, drop)
    if index + 1 < len(decorators):
        return True
    end_line = drop.end_lineno or drop.lineno
    after = python.lines[end_line - 1][python._column(end_line, drop.end_col_offset or 0):].strip()
    if after.startswith("#"):
        return False
    if index == 0:
        return True  # (the lines above the first decorator are the def's)
    previous = decorators[index - 1]
    return not any(python.lines[line - 1].strip().startswith("#") for line in range((previous.end_lineno or 0) + 1, drop.lineno))


def _unwrap(context, node: cst.CSTNode, function: cst.CSTNode) -> list[Replace] | None:
    """`jax.jit(f)` -> `f`."""
    if not isinstance(function, cst.BaseExpression):
        return None
    return [Replace(node, replacement_in_place(context.analysis.names.parent(node), node, function))]


def _write_removal(context, decorator: cst.CSTNode) -> list[Replace] | None:
    drop = context.analysis.names.parent(decorator)
    fn = context.analysis.names.parent(drop)
    if not isinstance(drop, cst.Decorator) or not isinstance(fn, cst.FunctionDef):
        return None
    return _remove_decorator(list(fn.decorators), drop)
