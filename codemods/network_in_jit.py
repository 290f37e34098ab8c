"""PML503 network-in-jit."""
from __future__ import annotations

import ast

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import bound_value
from rewriter.ast_rule import AstRule
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import call_api, contexts, may_run_on, own_nodes, trace_related, traced

CONSTRUCTORS = frozenset({"phiml.nn.mlp", "phiml.nn.u_net", "phiml.nn.conv_net", "phiml.nn.res_net",
                          "phiml.nn.conv_classifier", "phiml.nn.invertible_net"})
_CONSTRUCTOR_NAMES = frozenset(name.rsplit(".", 1)[1] for name in CONSTRUCTORS)  # as the gate reads callees
_NETWORK_CALLS = frozenset({"native_call", "update_weights"})


class NetworkInJit(AstRule):
    """PhiML network weights are not arguments of the jit-compiled function, so jax captures them as
    constants of the trace: inference under `jit_compile` keeps using the weights of the first call
    after training changed them — silently (measured: after 4 SGD steps the jitted output differed
    from the eager one by up to 1.53; torch and tensorflow read the current weights). `nn.update_weights` inside a jit-compiled function
    fails on jax (`TracerArrayConversionError`) and torch (`RuntimeError: Cannot insert a Tensor that
    requires grad as a constant`). PhiML documents one exception, a jit-compiled loss passed to
    `update_weights`; in phiml 1.16 it is wrong on jax too: the jitted update reads the optimizer
    state captured when it was traced, so the parameters drift from the eager result from the second
    step on (measured 0.11 after 2 steps, 0.34 after 4).

    Reported only. The portable form calls the network and `update_weights` outside jit, with a plain
    loss function. A module that selects torch or tensorflow for the program (`from phi.torch.flow
    import *`) has no stale weights to report.
    """

    CODE = "PML503"
    NAME = "network-in-jit"
    SUMMARY = "a PhiML network called or trained inside a jit-compiled function: stale weights on jax"
    SAFETY = Safety.DISPLAY
    FIX_SAFETY = "Reported only: moving the network call out of the jit-compiled function restructures the code."
    EXAMPLES = (
        Example(
            dedented("""
                from phiml import nn

                net = nn.mlp(1, 1, [8])


                @math.jit_compile
                def predict(x):
                    return math.native_call(net, x)
            """),
            None,
            note="call the network outside the jit-compiled function",
            by_hand=dedented("""
                from phiml import nn

                net = nn.mlp(1, 1, [8])


                def predict(x):  # eager: always the current weights
                    return math.native_call(net, x)
            """),
        ),
        Unchanged(dedented("""
            from phiml import nn

            net = nn.mlp(1, 1, [8])


            def predict(x):
                return math.native_call(net, x)
        """), "a network called in eager code"),
    )
    HAZARDS = ("Do not jit-compile neural networks (Jax)",)
    READS_FACTS = True
    TRIGGERS = (("native_call",), ("update_weights",), ("phiml.nn",), ("nn.",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A function a jit traces (or one it calls) calls `native_call`, `update_weights` or a name
        bound to a network constructor's result; or the file jit-compiles and calls `update_weights`."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        if facts is None:
            return False
        traced_callees = set().union(*(facts.callees_by.get(k, ()) for k in facts.traced_functions))
        networks = {name for name, callees in facts.bound_callees.items() if not callees.isdisjoint(_CONSTRUCTOR_NAMES)}
        return not traced_callees.isdisjoint(_NETWORK_CALLS | networks) or facts.jitted and "update_weights" in facts.callees

    def check(self) -> None:
        file = self.file
        inside: set[int] = set()
        for context in contexts(file, ("phiml",)):
            for node in own_nodes(context.function):
                if not isinstance(node, ast.Call):
                    continue
                api = call_api(file, node, (Kind.NETWORK,))
                if api is not None and api.name == "phiml.nn.update_weights":
                    inside.add(id(node))
                    self.report(node, f"`nn.update_weights` inside {traced(context)} fails on jax and torch",
                                hint="train outside jit, with a plain loss function", related=trace_related(file, context))
                elif (api is not None and api.name == "phiml.math.native_call" or self._network(node.func)) \
                        and may_run_on(file, "jax"):
                    self.report(node, f"a network called inside {traced(context)} keeps its first weights on jax",
                                hint="call the network outside the jit-compiled function",
                                related=trace_related(file, context))
        for call in _updates(file):
            if id(call) in inside or call_api(file, call, (Kind.NETWORK,)) is None:
                continue
            loss = _loss_function(call)
            if loss is not None and file.jit.jitted_value(loss) is not None and may_run_on(file, "jax"):
                self.report(call, "`nn.update_weights` with a jit-compiled loss function: the weights drift on jax",
                            hint="pass the plain loss function")

    def _network(self, func: ast.expr) -> bool:
        """A name bound only to a PhiML network constructor call (`net = nn.mlp(...)`), called directly."""
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return False
        value = bound_value(self.file.names, func)
        if not isinstance(value, ast.Call):
            return False
        api = call_api(self.file, value, (Kind.NETWORK,))
        return api is not None and api.name in CONSTRUCTORS


def _updates(file) -> list[ast.Call]:
    """The calls of something named `update_weights`, in the order written."""
    found = [node for node in file.nodes(ast.Call) if isinstance(node.func, (ast.Name, ast.Attribute))
             and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "update_weights"]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _loss_function(call: ast.Call) -> ast.expr | None:
    """What `update_weights` is given as its loss function: `loss_function=`, else its third argument."""
    for keyword in call.keywords:
        if keyword.arg == "loss_function":
            return keyword.value
    written: list[ast.expr | ast.keyword] = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    if len(written) < 3:
        return None
    third = written[2]
    if isinstance(third, ast.keyword):
        return third.value if third.arg is None else None  # (`**options`: libcst's argument without a keyword)
    return third.value if isinstance(third, ast.Starred) else third
