"""PML504 gradient-in-jit."""
from __future__ import annotations

import ast

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import match_application
from rewriter.ast_rule import AstRule
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import api_calls, contexts, may_run_on, trace_related, traced

PHIML_GRADIENTS = frozenset({"phiml.math.gradient", "phiml.math.jacobian", "phiml.math.hessian"})


class GradientInJit(AstRule):
    """`math.gradient` (or `jacobian`, `hessian`) evaluated inside a PhiML `jit_compile`d function,
    and `jit_compile(math.gradient(f))`, fail on tensorflow: measured `RuntimeError: A non-persistent
    GradientTape can only be used to compute one set of gradients`. PhiML's tensorflow backend tests
    the loss shape with a Python `if` that autograph turns into `tf.cond`, tracing both `tape.gradient`
    and `tape.jacobian` on one tape. jax and torch compute it correctly (PhiML's documentation warns
    about torch; in phiml 1.16 that does not reproduce).

    The portable form computes the gradient outside the jit-compiled function and jit-compiles the
    rest. Reported only: where the gradient goes is a design decision. A module that selects jax or
    torch for the program (`from phi.jax.flow import *`) never runs it on tensorflow: not reported.
    """

    CODE = "PML504"
    NAME = "gradient-in-jit"
    SUMMARY = "`math.gradient` inside a jit-compiled function, or jit of a gradient function: fails on tensorflow"
    SAFETY = Safety.DISPLAY
    FIX_SAFETY = "Reported only: moving the gradient out of the jit-compiled function restructures the code."
    EXAMPLES = (
        Example(
            dedented("""
                def loss(x):
                    return math.l2_loss(x)


                @math.jit_compile
                def step(x):
                    grad = math.gradient(loss, 'x', get_output=False)(x)
                    return x - 0.1 * grad
            """),
            None,
            note="compute the gradient outside the jit-compiled function",
            by_hand=dedented("""
                def loss(x):
                    return math.l2_loss(x)


                loss_gradient = math.gradient(loss, 'x', get_output=False)


                @math.jit_compile
                def apply(x, grad):
                    return x - 0.1 * grad


                def step(x):
                    return apply(x, loss_gradient(x))
            """),
        ),
        Unchanged(dedented("""
            def loss(x):
                return math.l2_loss(x)


            loss_gradient = math.gradient(loss, 'x', get_output=False)


            @math.jit_compile
            def apply(x, grad):
                return x - 0.1 * grad
        """), "the gradient computed outside the jit-compiled function"),
    )
    HAZARDS = ("Do no compute gradients (PyTorch)",)
    READS_FACTS = True
    TRIGGERS = (("gradient",), ("jacobian",), ("hessian",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A function a PhiML jit may trace (or one it calls) calls what may be PhiML's gradient, jacobian
        or hessian (not `tape.gradient`), or a jit is applied to the result of such a call."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        if facts is None:
            return False
        if not PHIML_GRADIENTS.isdisjoint(facts.jitted_result_apis):
            return True
        traced = facts.traced_under(_phiml)
        return any(not PHIML_GRADIENTS.isdisjoint(facts.apis_called_by.get(key, ())) for key in traced)

    def check(self) -> None:
        file = self.file
        if not may_run_on(file, "tensorflow"):
            return
        for context in contexts(file, ("phiml",)):
            for call, api in api_calls(file, context, (Kind.GRAD,)):
                if api.name in PHIML_GRADIENTS:
                    name = api.name.rsplit(".", 1)[1]
                    self.report(call, f"`math.{name}` inside {traced(context)} fails on tensorflow",
                                hint="compute the gradient outside the jit-compiled function and jit-compile the rest",
                                related=trace_related(file, context))
        names = file.names
        for call in _jit_compile_calls(file):
            app = match_application(names, call, (Kind.JIT,))
            if app is None or app.transform.framework != "phiml" or not isinstance(app.function, ast.Call):
                continue
            inner = match_application(names, app.function, (Kind.GRAD,))
            if inner is not None and inner.transform.api.name in PHIML_GRADIENTS:
                self.report(call, f"`jit_compile` of `math.{inner.transform.api.name.rsplit('.', 1)[1]}(...)` fails on tensorflow",
                            hint="jit-compile the function that uses the gradient, with the gradient computed outside it")


def _jit_compile_calls(file) -> list[ast.Call]:
    """The calls of something named `jit_compile`."""
    return [node for node in file.nodes(ast.Call) if isinstance(node.func, (ast.Name, ast.Attribute))
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "jit_compile"]


def _phiml(compiler) -> bool:
    """PhiML's jit transforms: the contexts `leave_Module` reads (`contexts(..., ("phiml",))`)."""
    return compiler.api.startswith("phiml.")
