"""PML502 nested-custom-gradient."""
from __future__ import annotations

import ast

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import bound_value, match_application
from rewriter.analysis.ast_names import branches, own_nodes as own_nodes_on_ast
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import call_api, own_nodes

CUSTOM_GRADIENT = "phiml.math.custom_gradient"


class NestedCustomGradient(AstRule):
    """The forward function of a PhiML `math.custom_gradient` that calls another custom-gradient
    function (or `math.solve_linear`, which is one: it defines its own implicit gradient) fails when
    jit-compiled on torch: an empty `AssertionError` from PhiML's torch backend, then `KeyError` on
    the next call (measured; jax and tensorflow run it). Inside a custom forward the inner function's
    gradient is never used — the outer gradient function replaces the whole backward pass — so calling
    the inner forward directly, `inner.f(x)`, computes the same values and traces on every backend.

    `solve_linear` inside a custom forward is reported: it is a custom-gradient function itself, and
    nesting them fails the same way under jit on torch (an empty `AssertionError`, measured). Move the
    solve out of the custom-gradient function (it has its own gradient) and pass its result in.
    """

    CODE = "PML502"
    NAME = "nested-custom-gradient"
    SUMMARY = "a custom-gradient forward calls another custom-gradient function: call its `.f` (fails under jit on torch)"
    SAFETY = Safety.SAFE
    REMOVES_ERRORS = True
    SAFETY_VARIES = True
    FIX_SAFETY = (
        "Safe when the forward function is only used through `custom_gradient`: its own gradient replaces the "
        "inner one, so `inner.f(x)` gives the same values and gradients. Unsafe when the forward def is also "
        "called directly (then a gradient taken through that direct call would lose the inner custom gradient)."
    )
    EXAMPLES = (
        Example(
            dedented("""
                def clip_forward(x):
                    return math.clip(x, -1, 1)


                def clip_gradient(inputs, y, dy):
                    return {'x': dy}


                clip = math.custom_gradient(clip_forward, clip_gradient)


                def double_forward(x):
                    return clip(x) * 2


                def double_gradient(inputs, y, dy):
                    return {'x': dy * 2}


                double = math.custom_gradient(double_forward, double_gradient)
            """),
            dedented("""
                def clip_forward(x):
                    return math.clip(x, -1, 1)


                def clip_gradient(inputs, y, dy):
                    return {'x': dy}


                clip = math.custom_gradient(clip_forward, clip_gradient)


                def double_forward(x):
                    return clip.f(x) * 2


                def double_gradient(inputs, y, dy):
                    return {'x': dy * 2}


                double = math.custom_gradient(double_forward, double_gradient)
            """),
        ),
        Unchanged(dedented("""
            def clip_forward(x):
                return math.clip(x, -1, 1)


            def clip_gradient(inputs, y, dy):
                return {'x': dy}


            clip = math.custom_gradient(clip_forward, clip_gradient)


            def loss(x):
                return math.l2_loss(clip(x))
        """), "a custom-gradient function called outside any custom forward"),
    )
    HAZARDS = ("Avoid nested custom_gradient (PyTorch)",)
    READS_FACTS = True
    TRIGGERS = (("custom_gradient",),)

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A `custom_gradient(f, ...)` whose forward (a def of the file or a lambda) calls `solve_linear`
        or a name assigned a `custom_gradient(...)`: `leave_Module`'s conditions, by spelling."""
        if not syntax.spells(Kind.CUSTOM_GRADIENT):
            return False
        facts = syntax.facts
        if facts is None or not (facts.custom_gradients or facts.custom_gradient_decorated):
            return False  # no custom-gradient function in the file
        built: set[str] | None = None
        for call in syntax.calls:
            if _last_name(call.func) != "custom_gradient":
                continue
            if not call.args or isinstance(call.args[0], ast.Starred):
                if any(k.arg in (None, "f") for k in call.keywords):
                    return True  # the forward is not where this reads it
                continue
            first = call.args[0]
            forwards = [first] if isinstance(first, ast.Lambda) else syntax.defs(first.id) if isinstance(first, ast.Name) else []
            for forward in forwards:
                for node in (n for n in own_nodes_on_ast(forward) if isinstance(n, ast.Call)):
                    if _last_name(node.func) == "solve_linear" or "phiml.math.solve_linear" in syntax.apis(node.func):
                        return True
                    if isinstance(node.func, ast.Name):
                        built = _custom_gradient_names(syntax) if built is None else built
                        if node.func.id in built:
                            return True
        return False

    def check(self) -> None:
        file = self.file
        names = file.names
        applications = sorted((node for node in file.nodes(ast.Call) if _last_name(node.func) == "custom_gradient"),
                              key=lambda n: (n.lineno, n.col_offset))
        for call in applications:  # (in the order written, as libcst visits them)
            app = match_application(names, call, (Kind.CUSTOM_GRADIENT,))
            if app is None or app.transform.api.name != CUSTOM_GRADIENT:
                continue
            for forward in file.jit.functions_denoted(app.function):
                self._check(forward, app)

    def _check(self, forward: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, app) -> None:
        file = self.file
        label = f"`{forward.name}`" if not isinstance(forward, ast.Lambda) else "the lambda"
        for node in own_nodes(forward):
            if type(node) is not ast.Call:
                continue
            api = call_api(file, node, (Kind.SOLVER,))
            if api is not None and api.name == "phiml.math.solve_linear":
                self.report(node, f"`solve_linear` in {label}, a custom-gradient forward, fails under jit on torch",
                            hint="solve outside the custom-gradient function and pass the solution in")
                continue
            inner = self._custom_gradient_name(node.func)
            if inner is None:
                continue
            safety = Safety.SAFE if self._only_used_through(forward, app) else Safety.UNSAFE
            note = "" if safety is Safety.SAFE else (f"unsafe: {label} is also called directly, where `{inner}`'s own "
                                                     "gradient would then be lost")
            self.report(node, f"{label}, a custom-gradient forward, calls the custom-gradient `{inner}`: fails under jit on torch",
                        note=note, fix=PlannedFix(f"call its forward directly, `{inner}.f(...)`", (node.func,), _write_forward,
                                                  safety))

    def _custom_gradient_name(self, func: ast.expr) -> str | None:
        """`inner` when the callee is a name bound only to `math.custom_gradient(...)`."""
        names = self.file.names
        value = bound_value(names, func)
        if type(value) is not ast.Call:
            return None
        app = match_application(names, value, (Kind.CUSTOM_GRADIENT,))
        return func.id if app is not None and app.transform.api.name == CUSTOM_GRADIENT else None  # type: ignore[attr-defined]

    def _only_used_through(self, forward: ast.AST, app) -> bool:
        if isinstance(forward, ast.Lambda):
            return True  # a lambda passed straight in
        scope = self.file.names.scope(forward)
        if scope is None:
            return False
        bindings = [a for a in scope.assignments[forward.name] if getattr(a, "node", None) is forward]
        references = [r for b in bindings for r in b.references]
        return bool(references) and all(r.node is app.function for r in references)


def _write_forward(context, func: cst.BaseExpression) -> list[Replace]:
    """`inner(x)` as `inner.f(x)`."""
    return [Replace(func, cst.Attribute(func, cst.Name("f")))]


def _last_name(func: ast.AST) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _custom_gradient_names(syntax) -> set[str]:
    """Names some assignment of the file binds to a `custom_gradient(...)` call (`bound_value`'s candidates).
    (A walk over `branches`: `ast.walk`'s generators cost more than the rest of the gate in a large module.)"""
    out: set[str] = set()
    stack: list[ast.AST] = [syntax.tree]
    while stack:
        node = stack.pop()
        if type(node) in _BINDINGS and type(node.value) is ast.Call \
                and any(_last_name(n) == "custom_gradient" or "phiml.math.custom_gradient" in syntax.apis(n)
                        for n in ast.walk(node.value.func) if isinstance(n, (ast.Name, ast.Attribute))):
            targets = node.targets if type(node) is ast.Assign else [node.target]
            out.update(t.id for t in targets if isinstance(t, ast.Name))
        stack.extend(branches(node))
    return out


_BINDINGS = (ast.Assign, ast.AnnAssign, ast.NamedExpr)
