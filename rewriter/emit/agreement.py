"""Whether the values a rewrite merges agree: the branches of a `where`/`cond`, a loop's carry before
and after its body. What may differ (a shape, a dtype, a structure) makes a fix unsafe, or refuses it;
what the calls of a traced function say about its parameters (their forms) often proves agreement."""
from __future__ import annotations

from ..lazy_libcst import cst

from ..analysis.forms import Agreement, Form, Forms, agreement, forms_of_roles
from ..analysis.trace_values import FunctionFlow
from .branches import Refused


def branch_agreement(file, flow: FunctionFlow, anchor: cst.CSTNode, per_branch: list[list[cst.BaseExpression]],
                     conditions: list[cst.BaseExpression] = ()) -> str:
    """Why merging these branch values (one list per branch, one value per result) may change what
    the code computes ("" when every result provably has one shape, dtype and structure); raises
    Refused when it provably does (a function, string, None, a Shape or an object selected;
    structures that differ), or when one of the `conditions` the selection would take is provably no
    array (a Shape, a Python container: forms.Forms.condition)."""
    forms = Forms(file.analysis.names, flow.context.function, anchor, param_forms(file, flow))
    for condition in conditions:
        why = forms.condition(condition)
        if why:
            raise Refused(why)
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
        return forms_of_roles(file.analysis.traced.roles(flow.context))
    if depth > 3 or not isinstance(flow.context.function, cst.FunctionDef):
        return {}
    fn = flow.context.function
    if _escapes(file, fn):
        return {}  # called from code this module does not show: what the calls here pass proves nothing
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


def _escapes(file, fn: cst.FunctionDef) -> str:
    """Why a helper has callers beyond the traced calls in this module ("" when it has none that can be
    told): public in a module that code outside the run imports, or called from the project's other
    modules (the open-world rule of callsites.CallEvidence.open)."""
    from ..analysis.jit import qualified_def_name

    traced = file.analysis.traced
    name = qualified_def_name(file.analysis.names, fn)
    if traced.open_module and not fn.name.value.startswith("_") and name is not None and "." not in name:
        return f"`{fn.name.value}` is public: {traced.open_module}"
    if traced.project and name and traced.project.calls_of(name):
        return f"`{fn.name.value}` is called from other modules"
    return ""


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
