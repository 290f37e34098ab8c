"""PML205 auxiliary-args-mismatch."""
from __future__ import annotations

import ast

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.structure import all_params
from rewriter.analysis.transforms import intended_parameter, match_transform
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.cst_tree import SCOPES, children
from rewriter.findings import Safety, Severity


class AuxiliaryArgsMismatch(Codemod):
    """PhiML silently ignores an `auxiliary_args` name that is not a parameter of the function
    (`jit_compile`, `jit_compile_linear`, `custom_gradient`). The parameter the author meant to
    keep static is traced instead: a count becomes a tracer (PML202/204 failures), a flag is
    branched on at trace time, and nothing warns. Published examples contain exactly this typo.

    When exactly one parameter is a close spelling of the name (difflib ratio >= 0.6) and not
    already auxiliary, the name is corrected; otherwise the finding lists the parameters. A name
    inside a string split over several pieces (`"a, b, " "c"`) is reported, not rewritten.
    """

    CODE = "PML205"
    NAME = "auxiliary-args-mismatch"
    SUMMARY = "an `auxiliary_args` name that is not a parameter is silently ignored: fix the spelling"
    SAFETY = Safety.UNSAFE
    REMOVES_ERRORS = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe when the meant parameter steers Python control flow (`if flag:`, `range(n)`) in the function: that "
        "use cannot run on a traced value, so making it static is the only fix that keeps the author's meaning "
        "and every other rule judges the function as if it were static already. Unsafe otherwise: correcting the "
        "name makes that parameter static, which is what the author wrote but not what ran — PhiML now traces "
        "once per distinct value and requires the value to be hashable; a caller passing a tensor there would "
        "re-trace every call."
    )
    SAFETY_VARIES = True
    EXAMPLES = (
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile(auxiliary_args='step')
                def advance(x, steps: int):
                    for _ in range(steps):
                        x = x * 0.5
                    return x
            """),
            dedented("""
                from phiml import math


                @math.jit_compile(auxiliary_args='steps')
                def advance(x, steps: int):
                    for _ in range(steps):
                        x = x * 0.5
                    return x
            """),
        ),
        Unchanged(dedented("""
            @math.jit_compile(auxiliary_args='steps')
            def advance(x, steps: int):
                for _ in range(steps):
                    x = x * 0.5
                return x
        """), "every name is a parameter"),
        Unchanged(dedented("""
            @math.jit_compile(auxiliary_args='mode')
            def step(x, **kwargs):
                return x * 2
        """), "a name that may arrive through `**kwargs`"),
    )
    READS_FACTS = True
    TRIGGERS = (("auxiliary_args",),)

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """Some `auxiliary_args=` of a decorator, or of a call wrapping a def of the file by name,
        names a string that is not a parameter of that def (`_check`'s condition, on CPython's ast)."""
        facts = syntax.facts
        if facts is None or "auxiliary_args" not in facts.call_keywords or not (
                facts.jit_decorated or facts.jit_calls or facts.custom_gradients or facts.custom_gradient_decorated):
            return False  # no `auxiliary_args=`, or nothing in the file a jit or custom gradient applies to
        for fn in syntax.decorated:
            for decorator in fn.decorator_list:
                if isinstance(decorator, ast.Call) and _misnamed_on_ast(fn, _auxiliary_keyword(decorator)):
                    return True
        for call in syntax.calls:
            value = _auxiliary_keyword(call)
            positional = [a for a in call.args if not isinstance(a, ast.Starred)]
            if value is not None and positional and isinstance(positional[0], ast.Name) \
                    and any(_misnamed_on_ast(fn, value) for fn in syntax.defs(positional[0].id)):
                return True
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            expr = decorator.decorator
            if isinstance(expr, cst.Call) and any(a.keyword is not None and a.keyword.value == "auxiliary_args" for a in expr.args):
                transform = match_transform(self.file.analysis.names, expr, (Kind.JIT, Kind.CUSTOM_GRADIENT))
                if transform is not None and transform.framework == "phiml":
                    self._check(node, transform.keyword("auxiliary_args"))

    def visit_Call(self, node: cst.Call) -> None:
        """`math.jit_compile(f, auxiliary_args=...)` / `math.custom_gradient(f, g, auxiliary_args=...)`."""
        value = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "auxiliary_args"), None)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if value is None or not positional or not isinstance(positional[0].value, cst.Name):
            return
        api = self.file.analysis.names.api(node.func, (Kind.JIT, Kind.CUSTOM_GRADIENT))
        if api is None or api.framework != "phiml":
            return
        functions = self.file.analysis.jit.functions_denoted(positional[0].value)
        if len(functions) == 1 and isinstance(functions[0], cst.FunctionDef):
            self._check(functions[0], value)

    def _check_concatenated(self, fn: cst.FunctionDef, value: cst.ConcatenatedString) -> None:
        """`"a, b, " "c"` over several lines: reported (the pieces are the author's layout; not rewritten)."""
        params = [p.name.value for p in all_params(fn)]
        named = _split(value.evaluated_value)
        for name in [n for n in named if n not in params]:
            intended = intended_parameter(name, params, named)
            self.report(value, _message(fn, name), hint=f"did you mean `{intended}`?" if intended is not None else _listed(params),
                        note="not rewritten: the names are spread over several string pieces")

    def _check(self, fn: cst.FunctionDef, value: cst.BaseExpression | None) -> None:
        if fn.params.star_kwarg is not None:
            return  # a name may arrive through **kwargs
        if isinstance(value, cst.ConcatenatedString) and isinstance(value.evaluated_value, str):
            self._check_concatenated(fn, value)
            return
        strings = _strings(value)
        if strings is None:
            return
        params = [p.name.value for p in all_params(fn)]
        named = [n for s in strings for n in _split(s.evaluated_value)]
        for string in strings:
            parts = _split(string.evaluated_value)
            wrong = [n for n in parts if n not in params]
            for name in wrong:
                intended = intended_parameter(name, params, named)
                close = [intended] if intended is not None else []
                message = _message(fn, name)
                if len(close) != 1:
                    self.report(string, message, hint=_listed(params),
                                note="not rewritten: no single parameter is a close spelling")
                    continue
                pieces = str(string.evaluated_value).split(",")  # keep the author's separators and spaces
                fixed = ",".join(p.replace(name, close[0]) if p.strip() == name else p for p in pieces)
                new = string.with_changes(value=_quote(string.value, fixed))
                steering = _steers_control_flow(fn, close[0])
                if steering is not None:
                    how, use = steering
                    self.report(string, message, edits=[Replace(string, new)], safety=Safety.SAFE,
                                fix_description=f"rename to `{close[0]}`", invalidates=fn,
                                related=[(use, f"`{close[0]}` is used as {how} here: it cannot be traced")])
                else:
                    self.report(string, message, edits=[Replace(string, new)], invalidates=fn,
                                fix_description=f"rename to `{close[0]}` (unsafe: `{close[0]}` becomes static)",
                                note=f"unsafe: `{close[0]}` becomes static, traced once per distinct value")
                break  # one edit per string per pass


def _auxiliary_keyword(call: ast.Call) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == "auxiliary_args"), None)


def _misnamed_on_ast(fn: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr | None) -> bool:
    """`value` may name something that is not a parameter of `fn` (True where unsure: bytes)."""
    if value is None or fn.args.kwarg is not None:
        return False
    elements = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
    if not all(isinstance(e, ast.Constant) and isinstance(e.value, (str, bytes)) for e in elements):
        return False
    args = fn.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a is not None}
    return any(isinstance(e.value, bytes) or not params.issuperset(_split(e.value)) for e in elements)


def _message(fn: cst.FunctionDef, name: str) -> str:
    return f"`auxiliary_args` names `{name}`, not a parameter of `{fn.name.value}`: PhiML silently ignores it"


def _listed(params: list[str]) -> str:
    return f"name one of the parameters: {', '.join(params)}" if params else "remove it: the function has no parameters"


def _strings(value: cst.BaseExpression | None) -> list[cst.SimpleString] | None:
    if isinstance(value, cst.SimpleString):
        return [value]
    if isinstance(value, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.SimpleString) for e in value.elements):
        return [e.value for e in value.elements]
    return None


def _split(text) -> list[str]:
    return [p.strip() for p in str(text).split(",") if p.strip()]


def _quote(original: str, text: str) -> str:
    prefix = ""
    while original and original[0] not in "'\"":
        prefix, original = prefix + original[0], original[1:]
    quote = original[:3] if original[:3] in ("'''", '"""') else original[0]
    return f"{prefix}{quote}{text}{quote}"


def _steers_control_flow(fn: cst.FunctionDef, name: str) -> tuple[str, cst.CSTNode] | None:
    """How `name` steers Python control flow in `fn`'s own body (`if name:`, `range(name)`), and
    where (the condition or iterable), or None.

    Such a use fails on a traced value (jax, tensorflow) or keeps the first call's value (torch): the
    spelling fix that makes the parameter static is then what the author meant *and* what works."""
    stack = [fn.body]
    while stack:
        node = stack.pop()
        if type(node) in SCOPES:
            continue
        test = node.test if isinstance(node, (cst.If, cst.While, cst.IfExp)) else node.iter if isinstance(node, cst.For) else None
        if test is not None and _reads(test, name):
            return ("a condition" if not isinstance(node, cst.For) else "a trip count"), test
        stack.extend(children(node))
    return None


def _reads(expr: cst.CSTNode, name: str) -> bool:
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            return True
        if isinstance(node, cst.Attribute):
            stack.append(node.value)  # `x.name` is an attribute, not a read of `name`
            continue
        stack.extend(children(node))
    return False
