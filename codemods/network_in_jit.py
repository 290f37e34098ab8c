"""PML503 network-in-jit."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.jit import bound_value
from rewriter.codemod import Codemod, Example, Unchanged, dedented
from rewriter.findings import Safety

from ._hazards import call_api, contexts, may_run_on, own_nodes, trace_related, traced

CONSTRUCTORS = frozenset({"phiml.nn.mlp", "phiml.nn.u_net", "phiml.nn.conv_net", "phiml.nn.res_net",
                          "phiml.nn.conv_classifier", "phiml.nn.invertible_net"})
_CONSTRUCTOR_NAMES = frozenset(name.rsplit(".", 1)[1] for name in CONSTRUCTORS)  # as the gate reads callees
_NETWORK_CALLS = frozenset({"native_call", "update_weights"})


class NetworkInJit(Codemod):
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
        facts = syntax.facts
        if facts is None:
            return False
        traced_callees = set().union(*(facts.callees_by.get(k, ()) for k in facts.traced_functions))
        networks = {name for name, callees in facts.bound_callees.items() if not callees.isdisjoint(_CONSTRUCTOR_NAMES)}
        return not traced_callees.isdisjoint(_NETWORK_CALLS | networks) or facts.jitted and "update_weights" in facts.callees

    def __init__(self, file) -> None:
        super().__init__(file)
        self._updates: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, (cst.Name, cst.Attribute)) and getattr(node.func, "attr", node.func).value == "update_weights":
            self._updates.append(node)

    def leave_Module(self, original_node: cst.Module) -> None:
        inside: set[int] = set()
        for context in contexts(self.file, ("phiml",)):
            for node in own_nodes(context.function):
                if not isinstance(node, cst.Call):
                    continue
                api = call_api(self.file, node, (Kind.NETWORK,))
                if api is not None and api.name == "phiml.nn.update_weights":
                    inside.add(id(node))
                    self.report(node, f"`nn.update_weights` inside {traced(context)} fails on jax and torch",
                                hint="train outside jit, with a plain loss function", related=trace_related(self.file, context))
                elif (api is not None and api.name == "phiml.math.native_call" or self._network(node.func)) \
                        and may_run_on(self.file, "jax"):
                    self.report(node, f"a network called inside {traced(context)} keeps its first weights on jax",
                                hint="call the network outside the jit-compiled function",
                                related=trace_related(self.file, context))
        jit = self.file.analysis.jit
        for call in self._updates:
            if id(call) in inside or call_api(self.file, call, (Kind.NETWORK,)) is None:
                continue
            loss = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "loss_function"), None)
            if loss is None and len(call.args) >= 3 and call.args[2].keyword is None:
                loss = call.args[2].value
            if loss is not None and jit.jitted_value(loss) is not None and may_run_on(self.file, "jax"):
                self.report(call, "`nn.update_weights` with a jit-compiled loss function: the weights drift on jax",
                            hint="pass the plain loss function")

    def _network(self, func: cst.BaseExpression) -> bool:
        """A name bound only to a PhiML network constructor call (`net = nn.mlp(...)`), called directly."""
        value = bound_value(self.file.analysis.names, func)
        if not isinstance(value, cst.Call):
            return False
        api = call_api(self.file, value, (Kind.NETWORK,))
        return api is not None and api.name in CONSTRUCTORS
