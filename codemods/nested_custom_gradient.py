"""PML502 nested-custom-gradient."""
from __future__ import annotations

import ast

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_names import own_nodes as own_nodes_on_ast
from rewriter.analysis.jit import bound_value
from rewriter.analysis.transforms import Application, match_application
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.findings import Safety

from ._hazards import call_api, own_nodes

CUSTOM_GRADIENT = "phiml.math.custom_gradient"


class NestedCustomGradient(Codemod):
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

    def __init__(self, file) -> None:
        super().__init__(file)
        self._applications: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, (cst.Name, cst.Attribute)) and (getattr(node.func, "attr", node.func).value == "custom_gradient"):
            self._applications.append(node)

    def leave_Module(self, original_node: cst.Module) -> None:
        names = self.file.analysis.names
        for call in self._applications:
            app = match_application(names, call, (Kind.CUSTOM_GRADIENT,))
            if app is None or app.transform.api.name != CUSTOM_GRADIENT:
                continue
            for forward in self.file.analysis.jit.functions_denoted(app.function):
                self._check(forward, app)

    def _check(self, forward: cst.FunctionDef | cst.Lambda, app: Application) -> None:
        label = f"`{forward.name.value}`" if isinstance(forward, cst.FunctionDef) else "the lambda"
        for node in own_nodes(forward):
            if not isinstance(node, cst.Call):
                continue
            api = call_api(self.file, node, (Kind.SOLVER,))
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
                        edits=[Replace(node.func, cst.Attribute(node.func, cst.Name("f")))], safety=safety, note=note,
                        fix_description=f"call its forward directly, `{inner}.f(...)`")

    def _custom_gradient_name(self, func: cst.BaseExpression) -> str | None:
        """`inner` when the callee is a name bound only to `math.custom_gradient(...)`."""
        names = self.file.analysis.names
        value = bound_value(names, func)
        if not isinstance(value, cst.Call):
            return None
        app = match_application(names, value, (Kind.CUSTOM_GRADIENT,))
        return func.value if app is not None and app.transform.api.name == CUSTOM_GRADIENT else None

    def _only_used_through(self, forward: cst.CSTNode, app: Application) -> bool:
        if not isinstance(forward, cst.FunctionDef):
            return True  # a lambda passed straight in
        scope = self.file.analysis.names.scope(forward)
        if scope is None:
            return False
        bindings = [a for a in scope.assignments[forward.name.value] if getattr(a, "node", None) is forward]
        references = [r for b in bindings for r in b.references]
        return bool(references) and all(r.node is app.function for r in references)


def _last_name(func: ast.AST) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _custom_gradient_names(syntax) -> set[str]:
    """Names some assignment of the file binds to a `custom_gradient(...)` call (`bound_value`'s candidates)."""
    out: set[str] = set()
    for node in ast.walk(syntax.tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and isinstance(node.value, ast.Call) \
                and any(_last_name(n) == "custom_gradient" or "phiml.math.custom_gradient" in syntax.apis(n)
                        for n in ast.walk(node.value.func) if isinstance(n, (ast.Name, ast.Attribute))):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out
