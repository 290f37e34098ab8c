"""PML501 side-effect-in-jit."""
from __future__ import annotations

import libcst as cst

from rewriter import prefilter
from rewriter.analysis.jit import JitContext, assigned_value
from rewriter.analysis.scopes import BuiltinAssignment
from rewriter.analysis.static_names import STORING
from rewriter.codemod import Codemod, Example, Unchanged, dedented
from rewriter.findings import Safety

from ._hazards import contexts, own_nodes, trace_related

# Methods that store their argument in the container they are called on.
RETURN_IT = "return the value as an extra output instead"


class SideEffectInJit(Codemod):
    """A jit-compiled function is run once per trace with symbolic values, and afterwards its trace
    is replayed without running the Python body. A value stored outside the function during the
    trace — appended to a global list, written into an attribute or an argument's container, bound
    with `global` / `nonlocal` — is therefore a tracer (jax: `UnexpectedTracerError` when used), a
    symbolic tensor out of its graph (tensorflow: `TypeError`), or on torch the first call's value,
    silently never updated (measured: the side effect ran 2x for 3 calls, logging stale values).
    Under a PhiML `jit_compile` each of these happens on the matching backend; under `jax.jit`,
    using the stored tracer later raises `UnexpectedTracerError`; under `tf.function` the stored
    symbolic tensor is out of scope after the trace (`TypeError` when used); under `torch.jit` the
    side effect runs only while tracing, and later calls replay the trace without it.
    `print` of a traced value likewise prints once per trace, and prints a tracer, not the values
    of any call.

    The portable fix is to return the value as an extra output (`return y + 1, y`), which works on
    every backend; for printing, `jax.debug.print` under `jax.jit`. PhiML's `math.when_available`
    is not a safe replacement in phiml 1.16 (it breaks on re-trace and on torch). Containers created
    inside the function (`out = []; out.append(x)`) are local and fine.
    """

    CODE = "PML501"
    NAME = "side-effect-in-jit"
    SUMMARY = "a jit-compiled function stores a value outside itself or prints a traced value: it happens once per trace"
    SAFETY = Safety.DISPLAY
    FIX_SAFETY = "Reported only: moving a value out as an extra return value changes the function's signature and every caller."
    EXAMPLES = (
        Example(
            dedented("""
                LOG = []


                @math.jit_compile
                def step(x):
                    y = x * 2
                    LOG.append(y)
                    return y + 1
            """),
            None,
            note="return `y` as an extra output instead",
            by_hand=dedented("""
                LOG = []


                @math.jit_compile
                def step(x):
                    y = x * 2
                    return y + 1, y


                out, y = step(x)
                LOG.append(y)  # outside the traced function: the real value
            """),
        ),
        Unchanged(dedented("""
            @math.jit_compile
            def step(x):
                out = []
                out.append(x * 2)
                return out[0] + 1
        """), "a container created inside the function"),
        Unchanged(dedented("""
            @jax.jit
            def loss(x):
                print(x.shape)
                return jnp.sum(x ** 2)
        """), "a print of a static value, a shape"),
    )
    HAZARDS = ("Avoid side effects (Jax)",)
    GATE = frozenset({prefilter.TRACED_SIDE_EFFECT})
    TRIGGERS = (("jit",), ("function",), ("compile",))

    def leave_Module(self, original_node: cst.Module) -> None:
        for context in contexts(self.file):
            self._check(context)

    def _check(self, context: JitContext) -> None:
        names = self.file.analysis.names
        trace = f"once per trace of `{context.root.name}`, not per call"
        related = trace_related(self.file, context)
        for node in own_nodes(context.function):
            kind = type(node)  # (exact classes: cst_tree.concrete)
            if kind is cst.Call and isinstance(node.func, cst.Attribute) and node.func.attr.value in STORING \
                    and isinstance(node.func.value, cst.Name):
                owner = self._outside(node.func.value, context)
                if owner:
                    self.report(node, f"`{node.func.value.value}.{node.func.attr.value}(...)` stores a value in `{owner}` {trace}",
                                hint=RETURN_IT, related=related)
            elif kind is cst.Assign or kind is cst.AugAssign or kind is cst.AnnAssign:
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, (cst.Attribute, cst.Subscript)) and isinstance(target.value, cst.Name):
                        owner = self._outside(target.value, context)
                        if owner:
                            self.report(target, f"`{self.file.code(target)}` writes into `{owner}` {trace}",
                                        hint=RETURN_IT, related=related)
            elif kind is cst.Global or kind is cst.Nonlocal:
                declared = ", ".join(n.name.value for n in node.names)
                keyword = "global" if isinstance(node, cst.Global) else "nonlocal"
                self.report(node, f"`{keyword} {declared}` rebinds a name outside the function {trace}",
                            hint="return the value instead", related=related)
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "print" \
                    and _builtin(names.assignments(node.func)):
                self._check_print(node, context)

    def _outside(self, name: cst.Name, context: JitContext) -> str:
        """`name`'s own name if it denotes a container that outlives the traced call ("" otherwise).

        Parameters are not: jit rebuilds containers passed in (a write into one is lost, not leaked),
        and library code uses them as scratch. Only `self`, and module or closure names bound to a
        container (`LOG = []`, `CACHE = dict()`), count: a name bound to a module, a function or an
        object of unknown kind (a Pallas `Ref`) is left alone.
        """
        names = self.file.analysis.names
        scope = names.scope(name)
        if scope is None:
            return ""
        local = scope.assignments[name.value] if name.value in scope.assignments else []
        if local:
            params = [a for a in local if isinstance(a.node, cst.Param)]
            if len(params) == len(local) and name.value == "self" and params[0].node is _first_param(context.function):
                return "self"  # an object that outlives the call
            return ""  # a local, or a parameter
        bindings = names.assignments(name)
        if not bindings or _builtin(bindings):
            return ""
        values = [assigned_value(names, getattr(a, "node", None)) for a in bindings]
        if all(_container(v) for v in values):
            return name.value  # lives outside the function
        return ""

    def _check_print(self, call: cst.Call, context: JitContext) -> None:
        traced = self.file.analysis.traced
        values = [traced.value_anywhere(a.value) for a in call.args]
        if not any(v is not None and v.traced for v in values):
            return  # static values (a shape, a string) print once per trace, which is what the author sees
        hint = "use `jax.debug.print`" if context.framework == "jax" else "return the value and print it outside"
        self.report(call, f"`print` of a traced value prints a tracer, once per trace of `{context.root.name}`",
                    hint=hint, related=trace_related(self.file, context))


def _builtin(assignments) -> bool:
    """Bound by Python itself (or not at all): `print` is the builtin unless the module rebinds it."""
    return all(isinstance(a, BuiltinAssignment) for a in assignments)


CONTAINER_TYPES = frozenset({"list", "dict", "set", "deque", "defaultdict", "OrderedDict", "Counter"})


def _container(value) -> bool:
    if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    return isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)) \
        and getattr(value.func, "attr", value.func).value in CONTAINER_TYPES


def _first_param(function) -> cst.Param | None:
    params = [*function.params.posonly_params, *function.params.params]
    return params[0] if params else None
