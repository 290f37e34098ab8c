"""What the control-flow codemods (PML201-PML204) share: which traced functions to rewrite and in
which framework's primitives, what a finding says per framework, and where a name is defined."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.forms import Agreement, Form, Forms, agreement
from rewriter.analysis.traced import FunctionFlow, Trace, Value
from rewriter.emit.branches import Refused
from rewriter.findings import Severity
from rewriter.analysis.transforms import literal
from rewriter.emit import Emitter, Spelling

_LIBRARIES = ("phiml.math.", "jax.numpy.", "jax.lax.", "jax.nn.", "torch.", "tensorflow.", "numpy.")

# What a Python `if`/loop on a tracer does under each framework's jit (measured on every backend), in a
# few words for a message; `{what}` is "branch" or "trip count". The rules' explain pages say it in full.
CONSEQUENCE = {
    "phiml": "fails on jax, bakes in one {what} on torch",
    "jax": "raises under `jax.jit`",
    "torch": "bakes in the example's {what} under `torch.jit.trace`",
    "tensorflow": "raises in `tf.function` without autograph",
}


def rewritable(flow: FunctionFlow) -> bool:
    """Is Python control flow on tracers a problem in this context? Not under autograph
    (`tf.function` converts it), `torch.compile` (graph breaks) or `torch.jit.script` (compiles it)."""
    transform = flow.context.transform
    if flow.framework == "tensorflow":
        autograph = transform.keyword("autograph")
        try:
            return autograph is not None and literal(autograph) is False
        except ValueError:
            return False
    if flow.framework == "torch":
        return transform.api.name == "torch.jit.trace"
    return flow.framework in ("phiml", "jax")


def emitter(file, flow: FunctionFlow) -> tuple[Emitter, Spelling]:
    spelling = Spelling(file.analysis.names, file.analysis.identifiers)
    return Emitter(flow.framework, spelling), spelling


def library_call(file):
    """Predicate: the callee is a side-effect-free array-library function (`math.laplace`, `jnp.sin`)."""
    names = file.analysis.names

    def pure(func: cst.BaseExpression) -> bool:
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return False
        try:
            qualified = names.qualified_names(func)
        except Exception:
            return False
        return bool(qualified) and all(q.startswith(_LIBRARIES) for q in qualified)

    return pure


def deferred_to_static_argument(file, value: Value) -> bool:
    """The value is traced only through configuration parameters (flags, counts, modes: see
    `rewriter.analysis.callsites`) -> PML204 declares them static and the control flow stays."""
    traced = file.analysis.traced
    return bool(value.sources) and all(traced.is_config(source) for source in value.sources)


def defined_before(file, fn: cst.CSTNode, name: str, node: cst.CSTNode) -> bool:
    """`name` has a value when `node` runs: a parameter of `fn`, or assigned in `fn` earlier in the text."""
    names = file.analysis.names
    if isinstance(fn, (cst.FunctionDef, cst.Lambda)):
        p = fn.params
        if name in {q.name.value for q in (*p.posonly_params, *p.params, *p.kwonly_params)}:
            return True
    scope = names.scope(node)
    if scope is None or name not in scope:
        return False
    def start(n):
        position = names.positions[n].start
        return position.line, position.column

    begin = start(node)
    for assignment in scope.assignments[name]:
        target = getattr(assignment, "node", None)
        if target is not None and start(target) < begin:
            return True
    return False


def traced_message(file, flow: FunctionFlow, what: str, node: cst.CSTNode, value: Value) -> tuple[str, list]:
    """A control-flow finding's message — `what` (`if` on a traced value), its consequence under this
    framework, the test and its derivation without line numbers — and the derivation's places, for
    `related=` (the traced parameter, each assignment on the way)."""
    code = file.code(node).strip()
    chain, places = value.derivation()
    shown = f"`{code}`" if chain == f"`{code}`" else f"`{code}` (from {chain})"
    kind = "branch" if what.startswith(("`if`", "conditional")) else "trip count"
    return f"{what} {CONSEQUENCE[flow.framework].format(what=kind)}: {shown}", places


def block_statements(node) -> list:
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body.body)] \
        if isinstance(body, cst.SimpleStatementSuite) else list(body)


def own_nodes(fn: cst.CSTNode):
    """Nodes of `fn`'s own body, pre-order, not descending into nested functions or classes."""
    stack = [fn.body]
    while stack:
        node = stack.pop()
        yield node
        children = [c for c in node.children if not isinstance(c, (cst.FunctionDef, cst.Lambda, cst.ClassDef))]
        stack.extend(reversed(children))


def traced_test_inside(flow: FunctionFlow, statements) -> cst.CSTNode | None:
    """The first condition or trip count inside `statements` that is not static (None: all static)."""
    for statement in statements:
        for node in own_nodes_of(statement):
            test = node.test if isinstance(node, (cst.If, cst.While, cst.IfExp)) else node.iter if isinstance(node, cst.For) else None
            value = flow.value_of(test) if test is not None else None
            if value is not None and not value.static:
                return test
    return None


def own_nodes_of(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed([c for c in current.children if not isinstance(c, (cst.FunctionDef, cst.Lambda, cst.ClassDef))]))


def traced_nodes(file, types):
    """(flow, node) for every node of `types` in the own body of a traced function whose control
    flow on tracers is a problem (see `rewritable`)."""
    if not file.analysis.jit.contexts:
        return
    for flow in list(file.analysis.traced.flows.values()):
        if rewritable(flow) and not file.analysis.expected_to_fail(flow.context.root.function):
            if flow.nodes is None:  # walked once, shared by every control-flow rule
                flow.nodes = [n for n in own_nodes(flow.context.function)
                              if isinstance(n, (cst.If, cst.IfExp, cst.For, cst.While, cst.Call))]
            for node in flow.nodes:
                if isinstance(node, types):
                    yield flow, node


def needs_conversion(codemod, flow: FunctionFlow, test: cst.CSTNode) -> Value | None:
    """The value of `test` when it is traced and this rule handles it; None otherwise. An undecidable
    value is reported (info, no fix); one traced only through Python int/bool parameters is PML204's."""
    value = flow.value_of(test)
    if value is None or value.static:
        return None
    if value.trace is Trace.UNKNOWN:
        chain, places = value.derivation()
        kind = "trip count" if isinstance(codemod.parent(test), (cst.For, cst.While)) else "branch"
        codemod.report(test, f"cannot tell whether `{codemod.file.code(test).strip()}` is traced (from {chain})",
                       note=f"not rewritten; if it is, it {CONSEQUENCE[flow.framework].format(what=kind)}",
                       hint="if it is a Python value, declare it static; if it is an array, rewrite this by hand",
                       related=places, severity=Severity.INFO)
        return None
    if deferred_to_static_argument(codemod.file, value):
        return None
    return value


def branch_agreement(file, flow: FunctionFlow, anchor: cst.CSTNode, per_branch: list[list[cst.BaseExpression]]) -> str:
    """Why merging these branch values (one list per branch, one value per result) may change what
    the code computes ("" when every result provably has one shape, dtype and structure); raises
    Refused when it provably does (a function, string or None selected; structures that differ)."""
    forms = Forms(file.analysis.names, flow.context.function, anchor, param_forms(file, flow))
    for results in zip(*per_branch):
        verdict = agreement([forms.of(value) for value in results])
        if verdict.agreement is Agreement.CLASH:
            raise Refused(verdict.reason)
        if verdict.agreement is Agreement.DOUBT:
            shown = " and ".join(f"`{_short(value)}`" for value in dict.fromkeys(_code(v) for v in results))
            return f"{shown}: {verdict.reason}"
    return ""


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node).strip()


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def param_forms(file, flow: FunctionFlow, depth: int = 0) -> dict[str, Form]:
    """What the calls say about the parameters of a traced function, as forms (rewriter.analysis.forms):
    a parameter every call passes a Python number is a scalar; one every call passes a float array is
    an array of floats; a helper's parameter has the form of what its callers pass (when they agree)."""
    if flow.context.how != "called":
        out = {}
        for name, role in file.analysis.traced.roles(flow.context).items():
            kinds = {type(v) for v in role.values}
            if role.values and kinds <= {int, float, bool}:
                out[name] = Form("scalar", dtype="float" if float in kinds else "int" if int in kinds else "bool")
            elif role.arrays:
                shapes = set(role.shapes)
                root = f"shape {shapes.pop()}" if len(shapes) == 1 and None not in shapes else name
                out[name] = Form("array", root, "float" if all(d == "float" for d in role.arrays) else "same")
        return out
    if depth > 3 or not isinstance(flow.context.function, cst.FunctionDef):
        return {}
    fn = flow.context.function
    jit = file.analysis.jit
    seen: dict[str, list[Form]] = {}
    calls = 0
    for caller in list(file.analysis.traced.flows.values()):
        for callee, call, _ in caller.calls:
            if not any(f is fn for f in jit.functions_denoted(callee)):
                continue
            calls += 1
            forms = Forms(file.analysis.names, caller.context.function, call, param_forms(file, caller, depth + 1))
            for name, expr in bound_arguments(fn, call).items():
                form = forms.of(expr)
                seen.setdefault(name, []).append(form if form.kind != "array" else Form("array", f"{caller.context.name}:{form.root}", form.dtype))
    out = {}
    for name, forms in seen.items():
        if len(forms) == calls and agreement(forms).agreement is Agreement.AGREE:
            out[name] = forms[0]
    return out


def bound_arguments(fn: cst.FunctionDef, call: cst.Call) -> dict[str, cst.BaseExpression]:
    """Parameter -> the argument expression one call gives it (none for `*args`/`**kwargs` calls)."""
    if any(arg.star for arg in call.args):
        return {}
    positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    out, index = {}, 0
    for arg in call.args:
        if arg.keyword is not None:
            out[arg.keyword.value] = arg.value
        elif index < len(positional):
            out[positional[index]] = arg.value
            index += 1
    return out
