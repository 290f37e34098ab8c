"""PML204 static-count-argument."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.names import last_name
from rewriter.analysis.traced import FunctionFlow, all_params
from rewriter.codemod import Codemod, Example, Replace
from rewriter.findings import Safety, Severity

from ._auxiliary import with_auxiliary
from ._control_flow import own_nodes

_SHAPE_CONSTRUCTORS = frozenset({"phiml.math.spatial", "phiml.math.channel", "phiml.math.batch", "phiml.math.instance",
                                 "phiml.math.dual"})


_DIMENSION_TYPES = frozenset(q.rsplit(".", 1)[1] for q in _SHAPE_CONSTRUCTORS)


class StaticCountArgument(Codemod):
    """PhiML's `jit_compile` turns Python `int`/`float`/`bool` arguments into traced values (only
    parameters left at their defaults stay constants). A parameter meant as a count, a flag or a
    size — used as `range(n)`, `if flag:`, `spatial(x=n)` — then fails on jax and silently keeps the
    first call's value on torch (measured: `n=3` after `n=2` still loops twice); tensorflow
    happens to handle all three (measured with phiml 1.16.1), which is no reason to rely on it.

    Naming the parameter in `auxiliary_args` keeps it a Python value: PhiML traces once per distinct
    value and the loop, branch or shape is exact. Only parameters declared `int`/`bool` (or
    defaulting to an int/bool literal) are changed; a traced tensor used the same way is PML201-203's.
    """

    CODE = "PML204"
    NAME = "static-count-argument"
    SUMMARY = "a Python int/bool parameter of a PhiML jit function used as a count, flag or size: make it auxiliary"
    SAFETY = Safety.SAFE
    SAFETY_VARIES = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe when the parameter is annotated `int` or `bool`: results are those of the eager code, with one "
        "trace per distinct value (a count that changes every call re-traces every call — PML401 territory). "
        "Unsafe when only a literal default suggests a Python value: a caller passing a Tensor would then make "
        "it an auxiliary (hashed, compared by value) argument."
    )
    EXAMPLES = (
        Example(
            "from phiml import math\n\n\n"
            "@math.jit_compile\n"
            "def smooth(x, steps: int):\n"
            "    for _ in range(steps):\n"
            "        x = 0.5 * (x + math.shift(x, (-1,))[0])\n"
            "    return x\n",
            "from phiml import math\n\n\n"
            "@math.jit_compile(auxiliary_args='steps')\n"
            "def smooth(x, steps: int):\n"
            "    for _ in range(steps):\n"
            "        x = 0.5 * (x + math.shift(x, (-1,))[0])\n"
            "    return x\n",
        ),
    )
    TRIGGERS = (("jit",),)

    def leave_Module(self, original_node: cst.Module) -> None:
        if not self.file.analysis.jit.contexts:
            return
        for flow in list(self.file.analysis.traced.flows.values()):
            if flow.framework == "phiml" and flow.context.how != "called" and flow.python_scalars:
                self._check(flow)

    def _uses(self, flow: FunctionFlow) -> dict[str, tuple[cst.CSTNode, str]]:
        """Parameter -> (first node using it statically, how)."""
        out: dict[str, tuple[cst.CSTNode, str]] = {}
        names = self.file.analysis.names
        candidates = flow.python_scalars - (flow.context.static_params or frozenset())
        for node in own_nodes(flow.context.function):
            test, how = None, ""
            if isinstance(node, (cst.If, cst.While, cst.IfExp)):
                test, how = node.test, "a condition"
            elif isinstance(node, cst.For):
                test, how = node.iter, "a trip count"
            if test is not None:
                value = flow.value_of(test)
                if value is not None and value.traced and value.sources and value.sources <= candidates:
                    for name in sorted(value.sources):
                        out.setdefault(name, (test, how))
            if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)) and \
                    last_name(node.func) in _DIMENSION_TYPES and names.qualified_names(node.func) & _SHAPE_CONSTRUCTORS:
                for arg in node.args:
                    if isinstance(arg.value, cst.Name) and arg.value.value in candidates:
                        out.setdefault(arg.value.value, (node, "a dimension size"))
        return out

    def _check(self, flow: FunctionFlow) -> None:
        uses = self._uses(flow)
        if not uses:
            return
        fn = flow.context.function
        params = {p.name.value: p for p in all_params(fn)}
        ordered = [n for n in params if n in uses]
        first = params[ordered[0]]
        described = "; ".join(f"`{n}` as {uses[n][1]} (line {self.span(uses[n][0]).line})" for n in ordered)
        listed = ", ".join(f"`{n}`" for n in ordered)
        message = (f"{described}: `jit_compile` traces Python int/bool arguments, so this fails on jax and "
                   f"silently keeps the first call's value on torch")
        transform = flow.context.transform
        if flow.context.how != "decorator" or not isinstance(fn, cst.FunctionDef):
            self.report(first.name, f"{message} (not rewritten: name {listed} in `auxiliary_args` where `{flow.context.name}` "
                                    "is wrapped)")
            return
        decorators = with_auxiliary(fn, transform, tuple(ordered))
        if decorators is None:
            self.report(first.name, f"{message} (not rewritten: add {listed} to `auxiliary_args`)")
            return
        annotated = all(_annotation(params[n]) in ("int", "bool") for n in ordered)
        edits = [Replace(fn, fn.with_changes(decorators=decorators))]
        if annotated:
            self.report(first.name, f"{message}; {listed} added to `auxiliary_args` (one trace per value)", edits=edits,
                        fix_description="name it in `auxiliary_args`")
        else:
            self.report(first.name, f"{message}; {listed} added to `auxiliary_args` (one trace per value; unsafe: only a "
                                    "literal default says it is a Python value)", edits=edits, safety=Safety.UNSAFE,
                        fix_description="name it in `auxiliary_args` (unsafe: the type is inferred from a default)")


def _annotation(param: cst.Param) -> str | None:
    if param.annotation is None:
        return None
    ann = param.annotation.annotation
    return ann.value if isinstance(ann, cst.Name) else None
