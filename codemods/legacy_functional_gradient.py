"""PML601 functional-gradient."""
from __future__ import annotations

import ast
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.ast_names import dotted
from rewriter.ast_rule import PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._ast_migration import AstTableMigration
from ._migration import PHIFLOW_3, int_literal, unpacks
from ._migration_rows import FUNCTIONAL_GRADIENT, GRADIENT_FUNCTIONS, WRT_BY_NAME_SINCE


class FunctionalGradient(AstTableMigration):
    """`math.functional_gradient` is PhiFlow 2's name for `math.gradient`. PhiML's `phiml.math` never
    had it, so code ported from `phi.math` to `phiml.math` (or run with PhiFlow 3's
    `from phi.flow import *`, whose `math` is `phiml.math`) fails with AttributeError; `phi.math`,
    `phiml` and `phi.flow` keep it only as a compatibility alias (`functional_gradient = gradient`).

    The name is replaced by `gradient` with the arguments unchanged: the parameters (`f`, `wrt`,
    `get_output`), their order and defaults are the same, and PhiFlow 2.3-2.4's `functional_gradient`
    was the code the installed `gradient` runs (`simplify_wrt` + `GradientFunction(..., is_f_scalar=True)`).
    PhiFlow 2.0-2.2's default `wrt=(0,)` is what the installed `wrt=None` means (the first parameter,
    gradients returned as a tuple). A `from ... import functional_gradient` imports `gradient` under the
    old local name, so the rest of the file is untouched.

    `wrt` given by position (`wrt=0`, `wrt=(0, 1)`) is deprecated in the installed phiml (a
    SyntaxWarning from `simplify_wrt`: "Specifying wrt by position is deprecated") for `gradient`,
    `jacobian` and the alias: when the function is a plain (undecorated) def or lambda of this
    file, the positions are replaced by the parameter names `simplify_wrt` would pick (`0` -> `'x'`,
    `(0, 1)` -> `('x', 'y')`: an int gives the bare gradient, a tuple or list a tuple, exactly as
    before). Otherwise it is reported.
    """

    CODE = "PML601"
    NAME = "functional-gradient"
    SUMMARY = "`math.functional_gradient` (PhiFlow 2) is `math.gradient`; `wrt` by position becomes parameter names"
    SAFETY = Safety.SAFE
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe: `phi.math.functional_gradient`, `phiml.functional_gradient` and `phi.flow`'s are the very object "
        "`gradient` is in the installed phiflow 3.4 / phiml 1.16.1, and `phiml.math.functional_gradient` raises "
        "AttributeError, so the rename gives the meaning the alias has. Positions in `wrt` are replaced by the names "
        "the installed `simplify_wrt` maps them to (only for undecorated defs and lambdas of the file, whose parameters "
        "are known), which also silences the deprecation warning. Not changed: PhiFlow 2.0-2.2 returned the "
        "gradients as a list (now a tuple) and flattened tree-valued arguments; code that relied on either must be "
        "adapted by hand, with or without this rewrite."
    )
    EXAMPLES = (
        Example(
            dedented("""
                def loss(x, y):
                    return math.l2_loss(x - y)


                dx = math.functional_gradient(loss, 'x', get_output=False)
            """),
            dedented("""
                def loss(x, y):
                    return math.l2_loss(x - y)


                dx = math.gradient(loss, 'x', get_output=False)
            """),
        ),
        Example(
            dedented("""
                def loss(x, y):
                    return math.l2_loss(x - y)


                grad = math.gradient(loss, wrt=(0, 1))
            """),
            dedented("""
                def loss(x, y):
                    return math.l2_loss(x - y)


                grad = math.gradient(loss, wrt=('x', 'y'))
            """),
            note="wrt by position (deprecated) becomes parameter names",
        ),
        Unchanged(dedented("""
            def loss(x, y):
                return math.l2_loss(x - y)


            grad = math.gradient(loss, wrt='x,y')
        """), "`math.gradient` with `wrt` by name"),
        Unchanged(dedented("""
            def functional_gradient(f):
                return f


            grad = functional_gradient(abs)
        """), "a function of your own called `functional_gradient`"),
    )
    TRIGGERS = (("gradient",), ("jacobian",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """The table's sources, or a call of one of CALLS with `f` and a `wrt` of int literals, spelled
        through a module-level name (`self.jacobian(f, [0])` cannot denote PhiML's `jacobian`)."""
        if super().ast_gate(syntax):
            return True
        if {"gradient", "jacobian"}.isdisjoint(syntax.identifiers.names):
            return False
        return any(_positional_wrt(call) and syntax.module_level(dotted(call.func).split(".", 1)[0])
                   for call in cls.calls_on_ast(syntax) if dotted(call.func) is not None)

    MIGRATIONS = FUNCTIONAL_GRADIENT

    CALLS = frozenset({"gradient", "jacobian", "functional_gradient"})

    def check(self) -> None:
        super().check()
        for call in self.calls():
            self._check_wrt(call)

    def _check_wrt(self, call: ast.Call) -> None:
        qualified, _ = self._resolve(call.func)
        if qualified not in GRADIENT_FUNCTIONS or unpacks(call):
            return
        keywords = {k.arg: k.value for k in call.keywords}
        f_arg = call.args[0] if call.args else keywords.get("f")
        wrt = call.args[1] if len(call.args) > 1 else keywords.get("wrt")
        if f_arg is None or wrt is None:
            return
        positions = _positions(wrt)
        if positions is None:
            return
        function = qualified.rsplit(".", 1)[1]
        message = f"`wrt` of `{function}` by position is deprecated in the installed phiml"
        params = self._parameters(f_arg)
        text = self.file.python.text
        if params is None:
            self.report(wrt, message, hint="pass the parameter names", severity=Severity.INFO,
                        note=f"not rewritten: the parameters of `{text(f_arg)}` are not known here")
            return
        if any(i >= len(params) for i in positions):
            self.report(wrt, message, hint="pass the parameter names", severity=Severity.INFO,
                        note=f"not rewritten: `{text(f_arg)}` has {len(params)} positional parameters")
            return
        self.report(wrt, message, severity=Severity.INFO,
                    fix=PlannedFix(f"name the parameters it selects: `wrt={self._named_text(wrt, params)}`", (wrt,),
                                   partial(_write_named, params=tuple(params)), Safety.SAFE),
                    requires=(*WRT_BY_NAME_SINCE, *(PHIFLOW_3 if self._through_phiflow_3(call.func) else ())))

    def _named_text(self, wrt: ast.expr, params: list[str]) -> str:
        """The code of `wrt` with each position replaced by the name it selects, as written otherwise."""
        python = self.file.python
        if isinstance(wrt, ast.Constant):
            return repr_name(params[wrt.value])
        out, line, column = [], wrt.lineno, wrt.col_offset
        for element in wrt.elts:  # type: ignore[attr-defined]
            out += [python.text_between(line, column, element.lineno, element.col_offset), repr_name(params[element.value])]
            line, column = element.end_lineno, element.end_col_offset
        out.append(python.text_between(line, column, wrt.end_lineno, wrt.end_col_offset))  # type: ignore[arg-type]
        return "".join(out)

    def _parameters(self, expr: ast.expr) -> list[str] | None:
        """The positional parameter names of an undecorated def or lambda `expr` denotes, in order."""
        if isinstance(expr, ast.Lambda):
            arguments = expr.args
        elif isinstance(expr, ast.Name):
            assignments = self.file.names.assignments(expr)
            if len(assignments) != 1:
                return None
            definition = getattr(next(iter(assignments)), "node", None)
            if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) or definition.decorator_list:
                return None
            arguments = definition.args
        else:
            return None
        return [a.arg for a in (*arguments.posonlyargs, *arguments.args)]


def _positional_wrt(call: ast.Call) -> bool:
    """`_check_wrt`'s conditions on CPython's ast: `f` and `wrt` passed, `wrt` an int or a tuple/list of them."""
    if unpacks(call):
        return False
    keywords = {k.arg: k.value for k in call.keywords}
    f_arg = call.args[0] if call.args else keywords.get("f")
    wrt = call.args[1] if len(call.args) > 1 else keywords.get("wrt")
    if f_arg is None or wrt is None:
        return False
    return int_literal(wrt) or isinstance(wrt, (ast.Tuple, ast.List)) and bool(wrt.elts) and all(map(int_literal, wrt.elts))


def _positions(expr: ast.expr) -> list[int] | None:
    """The ints of `0` or `(0, 1)` / `[0]` written as literals, else None."""
    if int_literal(expr):
        return [expr.value]  # type: ignore[attr-defined]
    if isinstance(expr, (ast.Tuple, ast.List)) and expr.elts and all(map(int_literal, expr.elts)):
        return [e.value for e in expr.elts]  # type: ignore[attr-defined]
    return None


def repr_name(name: str) -> str:
    return f"'{name}'"


def _string(name: str) -> cst.SimpleString:
    return cst.SimpleString(repr_name(name))


def _write_named(context, wrt: cst.CSTNode, *, params: tuple[str, ...]) -> list[Replace] | None:
    """`wrt` with each position replaced by the parameter name it selects (brackets and spacing kept)."""
    if isinstance(wrt, cst.Integer):
        return [Replace(wrt, _string(params[int(wrt.evaluated_value)]).with_changes(lpar=wrt.lpar, rpar=wrt.rpar))]
    if isinstance(wrt, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Integer) for e in wrt.elements):
        elements = [e.with_changes(value=_string(params[int(e.value.evaluated_value)])) for e in wrt.elements]
        return [Replace(wrt, wrt.with_changes(elements=elements))]
    return None
