"""PML205 auxiliary-args-mismatch."""
from __future__ import annotations

import ast
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import match_transform
from rewriter.analysis.transforms import intended_parameter
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented


class AuxiliaryArgsMismatch(AstRule):
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
        if not syntax.spells(Kind.JIT, Kind.CUSTOM_GRADIENT) or not syntax.may_spell(b"auxiliary_args"):
            return False  # (a keyword is spelled in the source: `facts.call_keywords` below, without the walk)
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

    def check(self) -> None:
        file = self.file
        names = file.names
        nodes = sorted(file.nodes(*_DEFS, ast.Call), key=lambda n: (n.lineno, n.col_offset))
        for node in nodes:
            if isinstance(node, ast.Call):
                self._wrapped(node)
                continue
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and any(k.arg == "auxiliary_args" for k in decorator.keywords):
                    transform = match_transform(names, decorator, (Kind.JIT, Kind.CUSTOM_GRADIENT))
                    if transform is not None and transform.framework == "phiml":
                        self._check(node, transform.keyword("auxiliary_args"))

    def _wrapped(self, node: ast.Call) -> None:
        """`math.jit_compile(f, auxiliary_args=...)` / `math.custom_gradient(f, g, auxiliary_args=...)`."""
        value = _auxiliary_keyword(node)
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        if value is None or not positional or not isinstance(positional[0], ast.Name):
            return
        api = self.file.names.api(node.func, (Kind.JIT, Kind.CUSTOM_GRADIENT))
        if api is None or api.framework != "phiml":
            return
        functions = self.file.jit.functions_denoted(positional[0])
        if len(functions) == 1 and isinstance(functions[0], _DEFS):
            self._check(functions[0], value)

    def _check_concatenated(self, fn, value: ast.Constant) -> None:
        """`"a, b, " "c"` over several lines: reported (the pieces are the author's layout; not rewritten)."""
        params = _params(fn)
        named = _split(value.value)
        for name in [n for n in named if n not in params]:
            intended = intended_parameter(name, params, named)
            self.report(value, _message(fn, name), hint=f"did you mean `{intended}`?" if intended is not None else _listed(params),
                        note="not rewritten: the names are spread over several string pieces")

    def _check(self, fn, value: ast.expr | None) -> None:
        if fn.args.kwarg is not None:
            return  # a name may arrive through **kwargs
        python = self.file.python
        if isinstance(value, ast.Constant) and python.string_pieces(value) > 1:
            if isinstance(value.value, str):
                self._check_concatenated(fn, value)
            return
        strings = _strings(python, value)
        if strings is None:
            return
        params = _params(fn)
        named = [n for s in strings for n in _split(s.value)]
        for string in strings:
            parts = _split(string.value)
            wrong = [n for n in parts if n not in params]
            for name in wrong:
                intended = intended_parameter(name, params, named)
                close = [intended] if intended is not None else []
                message = _message(fn, name)
                if len(close) != 1:
                    self.report(string, message, hint=_listed(params),
                                note="not rewritten: no single parameter is a close spelling")
                    continue
                pieces = str(string.value).split(",")  # keep the author's separators and spaces
                fixed = ",".join(p.replace(name, close[0]) if p.strip() == name else p for p in pieces)
                new = _quote(python.text(string), fixed)
                steering = _steers_control_flow(fn, close[0])
                if steering is not None:
                    how, use = steering
                    self.report(string, message, related=[(use, f"`{close[0]}` is used as {how} here: it cannot be traced")],
                                fix=PlannedFix(f"rename to `{close[0]}`", (string,), partial(_write_string, value=new),
                                               Safety.SAFE, invalidates=fn))
                else:
                    self.report(string, message, note=f"unsafe: `{close[0]}` becomes static, traced once per distinct value",
                                fix=PlannedFix(f"rename to `{close[0]}` (unsafe: `{close[0]}` becomes static)", (string,),
                                               partial(_write_string, value=new), invalidates=fn))
                break  # one edit per string per pass


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Every parameter's name, in order: positional-only, positional, keyword-only, `*args`, `**kwargs`."""
    a = fn.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p is not None]


def _write_string(context, string: cst.CSTNode, *, value: str) -> list[Replace] | None:
    return [Replace(string, string.with_changes(value=value))] if isinstance(string, cst.SimpleString) else None


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


def _message(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str:
    return f"`auxiliary_args` names `{name}`, not a parameter of `{fn.name}`: PhiML silently ignores it"


def _listed(params: list[str]) -> str:
    return f"name one of the parameters: {', '.join(params)}" if params else "remove it: the function has no parameters"


def _strings(python, value: ast.expr | None) -> list[ast.Constant] | None:
    """The string literals `value` is (one, or a tuple or list of them), each a single piece."""
    elements = [value] if isinstance(value, ast.Constant) else value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
    if elements is None or not all(isinstance(e, ast.Constant) and isinstance(e.value, (str, bytes)) and python.string_pieces(e) == 1
                                   for e in elements):
        return None
    return elements  # type: ignore[return-value]


def _split(text) -> list[str]:
    return [p.strip() for p in str(text).split(",") if p.strip()]


def _quote(original: str, text: str) -> str:
    prefix = ""
    while original and original[0] not in "'\"":
        prefix, original = prefix + original[0], original[1:]
    quote = original[:3] if original[:3] in ("'''", '"""') else original[0]
    return f"{prefix}{quote}{text}{quote}"


def _steers_control_flow(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> tuple[str, ast.expr] | None:
    """How `name` steers Python control flow in `fn`'s own body (`if name:`, `range(name)`), and
    where (the condition or iterable), or None.

    Such a use fails on a traced value (jax, tensorflow) or keeps the first call's value (torch): the
    spelling fix that makes the parameter static is then what the author meant *and* what works."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_DEFS, ast.Lambda, ast.ClassDef)):
            continue
        test = node.test if isinstance(node, (ast.If, ast.While, ast.IfExp)) else \
            node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else None
        if test is not None and _reads(test, name):
            return ("a condition" if not isinstance(node, (ast.For, ast.AsyncFor)) else "a trip count"), test
        stack.extend(ast.iter_child_nodes(node))
    return None


def _reads(expr: ast.expr, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(expr))
