"""PML605 removed-keyword."""
from __future__ import annotations

import ast
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.scope_model import BuiltinAssignment
from rewriter.ast_rule import PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._ast_migration import AstMigration
from ._migration import int_literal, unpacks
from ._migration_rows import OLD_SOLVE_POSITIONAL, REMOVED_KEYWORDS

_BY_FUNCTION: dict[str, dict[str, object]] = {}
for _m in REMOVED_KEYWORDS:
    _BY_FUNCTION.setdefault(_m.function, {})[_m.old] = _m
_LAST_NAMES = {f.rsplit(".", 1)[1] for f in _BY_FUNCTION}
_OLD_KEYWORDS = frozenset(m.old for m in REMOVED_KEYWORDS)


class RemovedKeyword(AstMigration):
    """Keyword arguments of PhiML's solver and loop functions that older releases accepted and the
    installed phiml 1.16.1 does not (compared from the signatures of PhiFlow 2.0-2.4 `phi.math` and
    PhiML 1.0-1.15 against `inspect.signature` of the installed functions):

    - `Solve(relative_tolerance=..., absolute_tolerance=...)` (PhiFlow 2.0-2.2) are `rel_tol` /
      `abs_tol`: the installed `Solve` raises TypeError on the old names. Same tolerance formula.
    - `solve_linear(f, y, solve, f_args=(a, b))` (PhiFlow 2.0-2.2): the installed `solve_linear`
      takes `*f_args`, so `f_args=` lands in `**f_kwargs_` and is passed to `f` as a keyword — a
      TypeError in `f`, or silently a different call. The tuple is passed by position instead,
      which the installed version unpacks exactly as before (`f(x, *f_args)`).
    - `iterate(f=...)` is `iterate(map_function=...)`.

    Also reported, never rewritten: `Solve(method, rel, abs, 100)` with an int literal as fourth
    positional argument. PhiFlow 2.0-2.2 read it as `max_iterations`, the installed `Solve` reads
    it as the initial guess `x0` (the order changed in PhiFlow 2.3) — silently. `jit_compile`,
    `jit_compile_linear`, `custom_gradient`, `minimize`, `solve_nonlinear`, `gradient` and
    `jacobian` lost no keyword in any release (they only gained `auxiliary_args`/`forget_traces`):
    nothing to migrate there.
    """

    CODE = "PML605"
    NAME = "removed-keyword"
    SUMMARY = "a keyword that PhiFlow 2 accepted (`Solve(relative_tolerance=)`, `solve_linear(f_args=)`) is passed the installed way"
    SAFETY = Safety.SAFE
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe: `rel_tol`/`abs_tol` and `map_function` are the same parameters under new names, and a tuple passed to "
        "`solve_linear` by position is unpacked by the installed version into `f(x, *f_args)`, the call PhiFlow 2.0-2.2 "
        "made (a list or another value is wrapped in `tuple(...)` so it is unpacked the same way). The changed meaning "
        "of Solve's fourth positional argument is only reported: old and new code look the same there."
    )
    EXAMPLES = (
        Example(
            "solve = math.Solve('CG', relative_tolerance=1e-5, absolute_tolerance=1e-5, max_iterations=100)\n",
            "solve = math.Solve('CG', rel_tol=1e-5, abs_tol=1e-5, max_iterations=100)\n",
        ),
        Example(
            dedented("""
                @math.jit_compile_linear
                def scaled(x, a):
                    return a * x


                def solve(y, a):
                    return math.solve_linear(scaled, y, math.Solve('CG', 1e-5, 1e-5), f_args=(a,))
            """),
            dedented("""
                @math.jit_compile_linear
                def scaled(x, a):
                    return a * x


                def solve(y, a):
                    return math.solve_linear(scaled, y, math.Solve('CG', 1e-5, 1e-5), (a,))
            """),
        ),
        Unchanged("solve = math.Solve('CG', rel_tol=1e-5, abs_tol=1e-5, max_iterations=100)\n", "the installed keywords"),
        Unchanged(dedented("""
            def solver(guess):
                return math.Solve('CG', 1e-5, 1e-5, guess)
        """), "a fourth positional argument that is no int literal: an initial guess"),
    )
    TRIGGERS = (("relative_tolerance",), ("absolute_tolerance",), ("f_args",), ("iterate",), ("Solve",))

    CALLS = frozenset(_LAST_NAMES)

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A call of one of the functions with an old keyword, or with an int literal fourth (`Solve`)."""
        identifiers = syntax.identifiers
        if cls.CALLS.isdisjoint(identifiers.names):
            return False
        if "Solve" not in identifiers.names and _OLD_KEYWORDS.isdisjoint(identifiers.keywords):
            return False
        return any(not _OLD_KEYWORDS.isdisjoint(k.arg for k in call.keywords)
                   or len(call.args) >= 4 and not unpacks(call) and int_literal(call.args[3])
                   for call in cls.calls_on_ast(syntax))

    def check(self) -> None:
        names = self.file.names
        for call in self.calls():
            found = names.qualified_names(call.func)
            if len(found) != 1:
                continue
            function = found.pop()
            if function == "phiml.math.Solve":
                self._solve(call)
            elif function == "phiml.math.solve_linear":
                self._solve_linear(call)
            elif function == "phiml.math.iterate":
                self._rename(call, "phiml.math.iterate")

    def _rename(self, call: ast.Call, function: str) -> None:
        table = _BY_FUNCTION[function]
        present = {k.arg for k in call.keywords if k.arg is not None}
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg not in table:
                continue
            m = table[keyword.arg]
            short = function.rsplit(".", 1)[1]
            message = f"`{short}({m.old}=...)` was removed in {m.since}: the parameter is `{m.new}`"
            if m.new in present:
                self.report(keyword, message, hint=f"keep one of `{m.old}=` and `{m.new}=`",
                            note=f"not rewritten: `{m.new}` is passed too")
                continue
            self.report(self.file.python.keyword_place(keyword), message, requires=m.requires,
                        fix=PlannedFix(f"rename `{m.old}=` to `{m.new}=`", (call,), partial(_write_renamed, old=m.old, new=m.new)))

    def _solve(self, call: ast.Call) -> None:
        self._rename(call, "phiml.math.Solve")
        if unpacks(call) or len(call.args) < 4 or not int_literal(call.args[3]):
            return
        value = self.file.python.text(call.args[3])
        self.report(call.args[3],
                    f"the fourth positional argument of `Solve` is `x0` since PhiFlow 2.3, not `{OLD_SOLVE_POSITIONAL[3]}`",
                    hint=f"if `{value}` is meant as the iteration limit, pass `max_iterations={value}`",
                    note="not rewritten: old and new code look the same here", severity=Severity.WARNING)

    def _solve_linear(self, call: ast.Call) -> None:
        keyword = next((k for k in call.keywords if k.arg == "f_args"), None)
        if keyword is None:
            return
        m = _BY_FUNCTION["phiml.math.solve_linear"]["f_args"]
        message = f"`solve_linear(f_args=...)` was removed in {m.since}: `f` now gets `f_args` as a keyword argument"
        by_hand = "pass `f`, `y`, `solve` and then the tuple by position: it is unpacked into `f(x, *f_args)`"
        if unpacks(call) or len(call.args) != 3:
            self.report(keyword, message, hint=by_hand,
                        note="not rewritten: the call does not pass exactly `f`, `y` and `solve` by position")
            return
        if not isinstance(keyword.value, (ast.Tuple, ast.List)) and not self._builtin_tuple(call):
            self.report(keyword, message, hint=by_hand, note="not rewritten: `tuple` is rebound in this file")
            return
        self.report(keyword, message, requires=m.requires,
                    fix=PlannedFix("pass `f_args` by position, unpacked into `f(x, *f_args)` as in PhiFlow 2", (call,),
                                   _write_by_position))

    def _builtin_tuple(self, node: ast.AST) -> bool:
        scope = self.file.names.scope(node)
        return scope is not None and all(isinstance(a, BuiltinAssignment) for a in scope["tuple"])


def _write_renamed(context, call: cst.CSTNode, *, old: str, new: str) -> list[Replace] | None:
    arg = next((a for a in getattr(call, "args", ()) if a.keyword is not None and a.keyword.value == old), None)
    return [Replace(arg.keyword, cst.Name(new))] if arg is not None else None


def _write_by_position(context, call: cst.CSTNode) -> list[Replace] | None:
    """`solve_linear(f, y, solve, f_args=(a, b), ...)` -> `solve_linear(f, y, solve, (a, b), ...)`: a list becomes a
    tuple, anything else `tuple(...)`; the argument keeps its layout."""
    if not isinstance(call, cst.Call):
        return None
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == "f_args"), None)
    positional = [a for a in call.args if a.keyword is None]
    if arg is None or len(positional) != 3:
        return None
    value = arg.value
    if isinstance(value, cst.Tuple):
        new_value: cst.BaseExpression = value
    elif isinstance(value, cst.List):
        elements = list(value.elements)
        if len(elements) == 1:
            elements[0] = elements[0].with_changes(comma=cst.Comma())
        new_value = cst.Tuple(elements, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    else:
        new_value = cst.Call(cst.Name("tuple"), [cst.Arg(value)])
    others = [a for a in call.args if a.keyword is not None and a is not arg]
    moved = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, value=new_value)  # keeps its layout
    ordered = [*positional, moved, *others]
    last_comma = call.args[-1].comma
    args = []
    for i, a in enumerate(ordered):
        if i < len(ordered) - 1:
            comma = a.comma if isinstance(a.comma, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        else:
            comma = last_comma
        args.append(a.with_changes(comma=comma))
    return [Replace(call, call.with_changes(args=args))]
