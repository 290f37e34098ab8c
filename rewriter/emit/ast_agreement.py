"""Whether the values a rewrite merges agree: the branches of a `where`/`cond`, a loop's carry before
and after its body. What may differ (a shape, a dtype, a structure) makes a fix unsafe, or refuses it;
what the calls of a traced function say about its parameters (their forms) often proves agreement.
The forms are read with analysis/ast_forms.py (the algebra is analysis/forms.py's).

`file` is what a rule on `ast` sees (ast_rule.AstFile: `names`, `jit`, `traced`, `reading`, `project`);
`flow` an `ast` FunctionFlow (its context's function and its calls are `ast` nodes). The values compared
may be rebuilt, not nodes of the file: how their code is quoted is the caller's (`code`).
"""
from __future__ import annotations

import ast
from typing import Callable, Sequence

from ..analysis.ast_forms import Forms
from ..analysis.forms import Agreement, Form, agreement, forms_of_roles
from ..analysis.trace_values import FunctionFlow
from .branches import Refused

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def branch_agreement(file, flow: FunctionFlow, anchor: ast.AST, per_branch: Sequence[Sequence[ast.expr]],
                     conditions: Sequence[ast.expr] = (), code: Callable[[ast.expr], str] = ast.unparse) -> str:
    """Why merging these branch values (one list per branch, one value per result) may change what the
    code computes ("" when every result provably has one shape, dtype and structure); raises Refused
    when it provably does, or when one of the `conditions` is provably no array (a Shape, a Python container:
    ast_forms.Forms.condition). `code`: a value's code, as the reason quotes it."""
    forms = forms_in(file, flow.context.function, anchor, param_forms(file, flow))
    for condition in conditions:
        why = forms.condition(condition)
        if why:
            raise Refused(why)
    for results in zip(*per_branch):
        verdict = agreement([forms.of(value) for value in results])
        if verdict.agreement is Agreement.CLASH:
            raise Refused(verdict.reason)
        if verdict.agreement is Agreement.DOUBT:
            shown = " and ".join(f"`{_short(value)}`" for value in dict.fromkeys(code(v).strip() for v in results))
            return f"{shown}: {verdict.reason}"
    return ""


def _short(text: str, limit: int = 40) -> str:
    """`text` on one line, cut to `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def stacked_by_where(file, flow: FunctionFlow, anchor: ast.AST, per_branch: Sequence[Sequence[ast.expr]]) -> bool:
    """Some result is a tuple or list in a branch: `where` (of every framework, PhiML's too) stacks it into
    one array, where the `if` kept the tuple; `lax.cond` and `tf.cond` keep its structure."""
    forms = forms_in(file, flow.context.function, anchor, param_forms(file, flow))
    return any(forms.of(value).kind == "tuple" for results in per_branch for value in results)


def forms_in(file, fn, anchor: ast.AST, params: dict[str, Form] | None = None) -> Forms:
    """ast_forms.Forms in `fn` of `file`, with what the file's `ast` resolver does not hold: the project's
    classes the file imports, and the module's text (where strings' literals are counted)."""
    return Forms(file.names, fn, anchor, params, classes=frozenset(getattr(file.project, "classes", ())),
                 reading=file.reading)


def param_forms(file, flow: FunctionFlow, depth: int = 0) -> dict[str, Form]:
    """What the calls say about the parameters of a traced function, as forms (analysis.forms.Form):
    a parameter every call passes a Python number is a scalar; one every call passes a float array is
    an array of floats; a helper's parameter has the form of what its callers pass (when they agree)."""
    if flow.context.how != "called":
        return forms_of_roles(file.traced.roles(flow.context))
    if depth > 3 or not isinstance(flow.context.function, _DEFS):
        return {}
    fn = flow.context.function
    if _escapes(file, fn):
        return {}  # called from code this module does not show: what the calls here pass proves nothing
    jit = file.jit
    seen: dict[str, list[Form]] = {}
    calls = 0
    for caller in list(file.traced.flows.values()):
        for callee, call, _ in caller.calls:
            if not any(f is fn for f in jit.functions_denoted(callee)):
                continue
            calls += 1
            forms = forms_in(file, caller.context.function, call, param_forms(file, caller, depth + 1))
            for name, expr in bound_arguments(fn, call).items():
                form = forms.of(expr)
                seen.setdefault(name, []).append(
                    form if form.kind != "array" else Form("array", f"{caller.context.name}:{form.root}", form.dtype))
    out = {}
    for name, passed in seen.items():
        if len(passed) == calls and agreement(passed).agreement is Agreement.AGREE:
            out[name] = passed[0]
    return out


def _escapes(file, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """Why a helper has callers beyond the traced calls in this module ("" when it has none that can be
    told): public in a module that code outside the run imports, or called from the project's other
    modules (the open-world rule of callsites.CallEvidence.open)."""
    from ..analysis.ast_jit import qualified_def_name

    traced = file.traced
    name = qualified_def_name(file.names, fn)
    if traced.open_module and not fn.name.startswith("_") and name is not None and "." not in name:
        return f"`{fn.name}` is public: {traced.open_module}"
    if traced.project and name and traced.project.calls_of(name):
        return f"`{fn.name}` is called from other modules"
    return ""


def bound_arguments(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> dict[str, ast.expr]:
    """Parameter -> the argument expression one call gives it (none for `*args`/`**kwargs` calls)."""
    if any(type(arg) is ast.Starred for arg in call.args) or any(k.arg is None for k in call.keywords):
        return {}
    positional = [p.arg for p in (*fn.args.posonlyargs, *fn.args.args)]
    out: dict[str, ast.expr] = dict(zip(positional, call.args))  # (positional arguments precede every keyword)
    for keyword in call.keywords:
        out[keyword.arg] = keyword.value  # type: ignore[index]
    return out
