"""The `ast` twins of the decisions PML201 reads (rewriter/emit/ast_branches.py, ast_safety.py, ast_condition.py)
answer as the libcst ones do, with the same messages; ast_structure.defined_before answers as recorded.

Over every golden case and the installed phiml and phi packages: the block of every `if`, `elif`, `else` and loop
body (its effect: the reason it is refused, or the names, return and values; then the risks, work, guard and
literal of each value), the test of every `if`, `while` and conditional expression (NotConvertible, and whether
the tensor condition is a plain name), and whether each name a branch assigns is defined before its `if`.
Twins are paired by the order both trees hold them (locator.cst_in_order / ast_in_order). Whether a name is
defined before its `if` is recorded in tests/data/readings/defined_before.txt (tests/harness/readings.py): the
answers libcst's reading (analysis/structure.py on the libcst scopes, deleted) gave, which this test compared
with the `ast` ones until then; `python -m tests.test_ast_emit --record` writes them again.
"""
from __future__ import annotations

import ast
import copy
import gc
import importlib.metadata
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import libcst as cst
import pytest

from codemods._control_flow import block_statements
from rewriter.analysis import ast_structure
from rewriter.analysis.ast_module import AstModule
from rewriter.ast_rule import AstFile
from rewriter.analysis.ast_names import dotted
from rewriter.analysis.locator import Locator, _arity, ast_in_order, cst_in_order
from rewriter.analysis.module import ModuleAnalysis
from rewriter.analysis.positions import statement_outline
from rewriter.analysis.names import last_name
from rewriter.emit import ast_branches, ast_condition, ast_safety, branches, condition
from rewriter.emit.frameworks import Emitter
from rewriter.emit.spelling import Spelling
from rewriter.cst_tree import children, track_subtree, walk
from tests.harness import readings

_ROOT = Path(__file__).resolve().parents[1]
_SITE = _ROOT / ".venv" / "lib" / "python3.11" / "site-packages"
_LIBRARIES = ("jnp.", "math.")


def _files() -> list[Path]:
    golden = [p for p in sorted((_ROOT / "golden").rglob("*.py")) if not p.name.endswith(".expected.py")]
    installed = [p for package in ("phiml", "phi") for p in sorted((_SITE / package).rglob("*.py"))]
    return golden + installed


# -- reading libcst's answers as `ast` ------------------------------------------------------------------
def _normalised(tree: ast.AST) -> str:
    """The dump of `tree` without places, a target's context read as a load (a substituted value is one), an
    f-string as the call `__f__(...)` of its expressions (`_Parenthesise`)."""
    if any(isinstance(n, ast.JoinedStr) for n in ast.walk(tree)):
        tree = _FStrings().visit(copy.deepcopy(tree))
    return re.sub(r"ctx=(Store|Del)\(\)", "ctx=Load()", ast.dump(tree, include_attributes=False))


def _fstring_call(expressions: list) -> ast.Call:
    return ast.Call(ast.Name("__f__", ast.Load()), expressions, [])


class _FStrings(ast.NodeTransformer):
    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.Call:
        self.generic_visit(node)
        return _fstring_call(_ast_fields(node))


def _ast_fields(node: ast.JoinedStr) -> list:
    """The expressions of an f-string whose own f-strings are calls already (visited first)."""
    out = []
    for part in node.values:
        if isinstance(part, ast.FormattedValue):
            out.append(part.value)
            out += part.format_spec.args if part.format_spec is not None else []  # (already a call)
    return out


class _Parenthesise(cst.CSTTransformer):
    """What libcst's code generation of a value needs to say what its tree says: a bare tuple that `atom` put
    inside an operation (`a = 1, 2; b = a * 3`), an integer before a dot (`1 .real`); and an f-string as the
    call `__f__(...)` of its expressions, which Python 3.11 may not read once a string with its quotes was
    substituted into it (`_normalised` reads `ast`'s alike)."""

    def leave_Tuple(self, original, updated):
        return updated if updated.lpar else updated.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def leave_Attribute(self, original, updated):
        value = updated.value
        if isinstance(value, cst.Integer) and not value.lpar:
            return updated.with_changes(value=value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        return updated

    def leave_FormattedString(self, original, updated):
        return _cst_fstring_call(_cst_fields(updated.parts))

    def leave_ConcatenatedString(self, original, updated):
        sides = [updated.left, updated.right]
        if not any(_is_fstring_call(side) for side in sides):
            return updated
        return _cst_fstring_call([arg.value for side in sides if _is_fstring_call(side) for arg in side.args])


_REWRITTEN = (cst.Tuple, cst.Attribute, cst.FormattedString)


def _cst_fstring_call(expressions: list) -> cst.Call:
    return cst.Call(cst.Name("__f__"), [cst.Arg(e) for e in expressions])


def _is_fstring_call(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "__f__"


def _cst_fields(parts) -> list:
    out = []
    for part in parts:
        if isinstance(part, cst.FormattedStringExpression):
            out.append(part.expression)
            out += _cst_fields(part.format_spec) if part.format_spec else []
    return out


def _as_ast(module: cst.Module, node: cst.BaseExpression) -> ast.expr:
    """libcst's expression as CPython reads its code (through `_Parenthesise` where that is needed)."""
    if any(type(n) in _REWRITTEN for n in walk(node)):
        node = node.visit(_Parenthesise())
    return ast.parse(f"(\n{module.code_for_node(node)}\n)", mode="eval").body


# -- the libcst reading PML201 had (rewriter/emit/safety.py before the move): the oracle ----------------
def _cst_nonzero_literal(expr) -> bool:
    try:
        return isinstance(expr, (cst.Integer, cst.Float)) and float(expr.evaluated_value) != 0
    except (ValueError, TypeError):
        return False


def _cst_has_work(expr) -> bool:
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and last_name(node.func) not in ast_safety.HARMLESS_CALLS:
            return True
        stack.extend(c for c in children(node) if isinstance(c, cst.CSTNode))
    return False


def _cst_risks(expr, pure=None) -> list[str]:
    out: list[str] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Divide, cst.FloorDivide, cst.Modulo)):
            if not _cst_nonzero_literal(node.right):
                out.append("a division (inf/NaN where the denominator is 0)")
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power) \
                and not isinstance(node.right, cst.Integer):
            out.append("a power with a non-integer exponent")
        elif isinstance(node, cst.Call):
            name = last_name(node.func)
            if name in ast_safety.DOMAIN_CALLS:
                out.append(f"`{name}` (NaN/inf outside its domain)")
            elif name == "exp":
                out.append("`exp` (may overflow to inf)")
            elif name not in ast_safety.HARMLESS_CALLS and not (pure is not None and pure(node.func)):
                out.append(f"a call of `{name or 'an expression'}` (may raise or have side effects)")
        elif isinstance(node, (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr)):
            out.append("a lambda, yield, await or assignment expression")
        stack.extend(c for c in children(node) if isinstance(c, cst.CSTNode))
    return list(dict.fromkeys(out))


def _cst_guardable(expr, pure=None) -> bool:
    return all(r.startswith(("a division", "`sqrt`", "`log", "`rsqrt`")) for r in _cst_risks(expr, pure))


def _literal(value: cst.BaseExpression) -> bool:
    """codemods/traced_if.py's `_literal` as PML201 read it on libcst (the rule now reads ast_safety.literal)."""
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float)) or isinstance(value, cst.Name) and value.value == "None"


def _static(expr: ast.AST) -> SimpleNamespace:
    """A stand-in for the traced values: static when every name it reads starts with `s`."""
    return SimpleNamespace(static=all(n.id.startswith("s") for n in ast.walk(expr) if isinstance(n, ast.Name)))


def _cst_pure(func) -> bool:
    """A stand-in for `library_call`: the callee is spelled `jnp.…` or `math.…` (a dotted name)."""
    parts = []
    while isinstance(func, cst.Attribute):
        parts.append(func.attr.value)
        func = func.value
    return isinstance(func, cst.Name) and ".".join([func.value, *reversed(parts)]).startswith(_LIBRARIES)


def _ast_pure(func) -> bool:
    name = dotted(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    return bool(name) and name.startswith(_LIBRARIES)


# -- the comparisons --------------------------------------------------------------------------------------
class Comparison:
    def __init__(self) -> None:
        self.differences: list[str] = []
        self.blocks = self.values = self.conditions = self.definitions = 0
        self.defined_before: dict[str, list[str]] = {}  # source -> whether each name is defined before its `if`
        self.source = ""  # the name of the source compared

    def differ(self, where: str, what: str, theirs, ours) -> None:
        self.differences.append(f"{where}: {what}: libcst {theirs!r}, ast {ours!r}")

    def block(self, where: str, module: cst.Module, statements: list, ours: list[ast.stmt], python: AstFile,
              allow_return: bool) -> branches.Effect | None:
        self.blocks += 1
        try:
            theirs = branches.effect(statements, allow_return)
        except branches.Refused as why:
            theirs = str(why)
        try:
            mine = ast_branches.effect(ours, allow_return, python)
        except branches.Refused as why:
            mine = str(why)
        if isinstance(theirs, str) or isinstance(mine, str):
            if theirs != mine:
                self.differ(where, "refused", theirs, mine if isinstance(mine, str) else list(mine.values))
            return None
        if list(theirs.values) != list(mine.values) or theirs.returns != mine.returns \
                or (theirs.returned is None) != (mine.returned is None):
            self.differ(where, "effect", (list(theirs.values), theirs.returns), (list(mine.values), mine.returns))
            return None
        pairs = [(n, theirs.values[n], mine.values[n]) for n in theirs.values]
        if theirs.returned is not None:
            pairs.append(("<return>", theirs.returned, mine.returned))
        for name, value, twin in pairs:
            self.value(f"{where} {name}", module, value, twin, python)
        return theirs

    def value(self, where: str, module: cst.Module, value: cst.BaseExpression, twin: ast.expr, python: AstFile) -> None:
        self.values += 1
        expected, found = _normalised(_as_ast(module, value)), _normalised(twin)
        if expected != found:
            self.differ(where, "value", expected, found)
        written, twin_written = " ".join(module.code_for_node(value).split()), " ".join(ast_branches.written(python, twin).split())
        if written != twin_written:
            self.differ(where, "written", written, twin_written)
        theirs_known, ours_known = self.originals_resolved(value, python), _resolved(python.names, twin)
        if theirs_known != ours_known:
            self.differ(where, "callees resolved", theirs_known, ours_known)
        for pure, ast_pure in ((None, None), (_cst_pure, _ast_pure)):
            if _cst_risks(value, pure) != ast_safety.risks(twin, ast_pure):
                self.differ(where, "risks", _cst_risks(value, pure), ast_safety.risks(twin, ast_pure))
        if _cst_guardable(value, _cst_pure) != ast_safety.guardable(twin, _ast_pure):
            self.differ(where, "guardable", _cst_guardable(value, _cst_pure), ast_safety.guardable(twin, _ast_pure))
        if _cst_has_work(value) != ast_safety.has_work(twin):
            self.differ(where, "has_work", _cst_has_work(value), ast_safety.has_work(twin))
        if _literal(value) != ast_safety.literal(twin):
            self.differ(where, "literal", _literal(value), ast_safety.literal(twin))

    def condition(self, where: str, module: cst.Module, emitters: dict[str, Emitter], test: cst.BaseExpression,
                  twin: ast.expr) -> None:
        if _cst_risks(test, _cst_pure) != ast_safety.risks(twin, _ast_pure):  # (a test's risks join the values')
            self.differ(where, "test risks", _cst_risks(test, _cst_pure), ast_safety.risks(twin, _ast_pure))
        for framework, emitter in emitters.items():
            self.conditions += 1
            try:
                converted = condition.tensor_condition(test, emitter, lambda e: _static(_as_ast(module, e)))
                theirs: object = isinstance(converted, cst.Name)
            except condition.NotConvertible as why:
                theirs = str(why)
            try:
                mine: object = ast_condition.check_condition(twin, framework, _static)
            except ast_condition.NotConvertible as why:
                mine = str(why)
            if theirs != mine:
                self.differ(f"{where} ({framework})", "condition", theirs, mine)

    def originals_resolved(self, value: cst.BaseExpression, python: AstFile) -> list[bool]:
        """`_resolved` of a libcst value: whether each callee in it is a node of the file (a callee the
        substitution rebuilt is none, and has no qualified names) whose `ast` twin has qualified names (what
        libcst's resolver answered there: tests/test_ast_resolver.py)."""
        if self.originals is None:  # (the ids of the file's libcst nodes, once per file)
            self.originals = {}
            track_subtree(self.module, self.originals)
        out = []
        for call in (n for n in walk(value) if isinstance(n, cst.Call)):
            twin = self.locator.ast_of(call.func) if id(call.func) in self.originals else None
            out.append(twin is not None and bool(python.names.qualified_names(twin)))
        return sorted(out)

    def defined(self, where: str, analysis: ModuleAnalysis, python: AstModule, name: str, node: cst.If,
                twin: ast.If) -> None:
        self.definitions += 1
        names = analysis.names
        if names.tracked_parents is None:  # (as the engine's walk does: no ParentNodeProvider pass for positions)
            names.tracked_parents = {}
            track_subtree(names.wrapper.module, names.tracked_parents)
        fn = names.parent(node)
        while fn is not None and not isinstance(fn, (cst.FunctionDef, cst.Lambda)):
            fn = names.parent(fn)
        twin_fn = ast_structure.enclosing_function(python.names, twin)
        if _function_key(fn) != _function_key(twin_fn):
            self.differ(where, "enclosing function", _function_key(fn), _function_key(twin_fn))
        mine = ast_structure.defined_before(python.names, twin_fn, name, twin)
        self.defined_before.setdefault(self.source, []).append(f"{where} {name}: {mine}")


def _function_key(fn) -> object:
    """What tells twin functions: a def's name, a lambda's parameters."""
    if fn is None or isinstance(fn, (cst.Lambda, ast.Lambda)):
        return fn and _arity(fn)
    return fn.name.value if isinstance(fn, cst.FunctionDef) else fn.name


# -- walking both trees --------------------------------------------------------------------------------
_FRAMEWORKS = ("phiml", "jax")  # (`.all`/`.any` are converted for PhiML only)
_STATEMENTS = {ast.If: cst.If, ast.For: cst.For, ast.AsyncFor: cst.For, ast.While: cst.While, ast.IfExp: cst.IfExp}


def _resolved(names, value) -> list[bool]:
    """Whether each callee in `value` has qualified names: PML201's `library_call` asks this, and a callee
    libcst's substitution rebuilt has none (ast_branches rebuilds as it does)."""
    calls = [n for n in (walk(value) if isinstance(value, cst.CSTNode) else ast.walk(value))
             if isinstance(n, (cst.Call, ast.Call))]
    return sorted(bool(names.qualified_names(c.func)) for c in calls)


def compare_source(source: str, name: str, comparison: Comparison) -> None:
    module = cst.parse_module(source)
    module_on_ast = AstModule(source)
    if module_on_ast.tree is None:
        return
    python = AstFile(name, module_on_ast, module_on_ast)
    analysis = ModuleAnalysis(cst.MetadataWrapper(module, unsafe_skip_copy=True))
    comparison.source = name
    analysis.names.source = source.encode()
    analysis.names.outline = statement_outline(module_on_ast.tree.body)
    comparison.locator = Locator(module, analysis.names.positions, module_on_ast, analysis.names.parent)
    comparison.module, comparison.originals = module, None
    try:
        _compare_twins(name, module, python, analysis, comparison)
    finally:
        analysis.release()
        python.release()


def _compare_twins(name: str, module: cst.Module, python: AstFile, analysis: ModuleAnalysis,
                   comparison: Comparison) -> None:
    ours = cst_in_order(module, (cst.If, cst.For, cst.While, cst.IfExp))
    theirs = ast_in_order(ast.walk(python.tree), _STATEMENTS)  # type: ignore[arg-type]
    for kind in ours:
        assert len(ours[kind]) == len(theirs[kind]), f"{name}: {kind.__name__} twins not paired"
    emitters = {framework: Emitter(framework, Spelling(python.names, frozenset())) for framework in _FRAMEWORKS}
    for kind in (cst.If, cst.For, cst.While):
        for node, twin in zip(ours[kind], theirs[kind]):
            where = f"{name}:{twin.lineno}"
            if kind is not cst.If:
                for allow_return in (True, False):
                    comparison.block(where, module, block_statements(node), twin.body, python, allow_return)
                if kind is cst.While:
                    comparison.condition(where, module, emitters, node.test, twin.test)
                continue
            comparison.condition(where, module, emitters, node.test, twin.test)
            assigned: list[str] = []
            found = comparison.block(where, module, block_statements(node), twin.body, python, True)
            assigned += list(found.values) if found else []
            if isinstance(node.orelse, cst.Else):
                statements = block_statements(node.orelse)
                found = comparison.block(f"{where} else", module, statements, twin.orelse, python, True)
                assigned += list(found.values) if found else []
            for assigned_name in dict.fromkeys(assigned):
                comparison.defined(where, analysis, python, assigned_name, node, twin)
    for node, twin in zip(ours[cst.IfExp], theirs[cst.IfExp]):
        where = f"{name}:{twin.lineno} (conditional expression)"
        comparison.condition(where, module, emitters, node.test, twin.test)
        comparison.value(f"{where} body", module, node.body, twin.body, python)  # (PML201 reads them as branch values)
        comparison.value(f"{where} orelse", module, node.orelse, twin.orelse, python)


def _corpus() -> Comparison:
    comparison = Comparison()
    gc.disable()  # (the trees hold no cycles, `release` breaks the analyses': the collector would only cost time)
    try:
        for path in _files():
            source = path.read_text(encoding="utf-8")
            compare_source(source, str(path.relative_to(_ROOT)), comparison)
    finally:
        gc.enable()
    return comparison


def _installed() -> str:
    return f"phiml {importlib.metadata.version('phiml')}, phiflow {importlib.metadata.version('phiflow')}"


def _defined_as_recorded(found: dict[str, list[str]], keys=None) -> None:
    """`found` (source -> whether each name is defined before its `if`) is what defined_before.txt holds
    for those sources (`keys`), or for all of them but the installed packages' when they are other releases."""
    recorded = readings.recorded("defined_before")
    installed = recorded.pop("installed")
    if keys is not None:
        recorded = {k: recorded[k] for k in keys if k in recorded}
    else:
        recorded = {k: v for k, v in recorded.items() if not k.startswith("form ")}
        if installed != [_installed()]:  # (recorded on other releases: their files are not compared)
            found = {k: v for k, v in found.items() if k.startswith("golden/")}
            recorded = {k: v for k, v in recorded.items() if k.startswith("golden/")}
    assert found == recorded, readings.first_difference(found, recorded, "tests.test_ast_emit")


def test_every_block_value_and_condition_of_the_corpus():
    comparison = _corpus()
    print(f"{comparison.blocks} blocks, {comparison.values} values, {comparison.conditions} conditions, "
          f"{comparison.definitions} definitions compared")
    assert comparison.differences == [], "\n".join(comparison.differences[:30])
    assert comparison.blocks > 5000 and comparison.values > 3000 and comparison.definitions > 1000  # (all were read)
    _defined_as_recorded(comparison.defined_before)


# -- where the trees differ ---------------------------------------------------------------------------------
_FORMS = [
    # a line of several statements is one libcst statement: only a new line after `return` is code after it
    ("if c: a = 1; b = 2", "if c: return x; y = 1", "if c:\n    return x\n    y = 1", "if c: x = 1; return",
     "if c:\n    x = 1; return x\n    y = 2", "if c:\n    return"),
    # compound and small statements are named by libcst's classes
    ("if c:\n    async for a in b: pass", "if c:\n    async with a: pass", "if c:\n    async def g(): pass",
     "if c:\n    try:\n        pass\n    except* E:\n        pass", "if c:\n    match a:\n        case _: pass"),
    ("if c:\n    class K: pass", "while c:\n    while d: pass", "if c:\n    with a: pass",
     "if c:\n    for a in b: pass", "if c:\n    try:\n        pass\n    finally:\n        pass"),
    ("if c:\n    del a", "if c:\n    a: int", "if c:\n    a.b += 1", "if c:\n    a <<= 1", "if c:\n    import a",
     "if c:\n    a[0] = 1", "if c:\n    (a, b), d = e", "if c:\n    a, b = e", "if c:\n    global a"),
    ("if c:\n    raise E", "if c:\n    assert a", "if c:\n    f(a)", "for a in b:\n    break",
     "for a in b:\n    continue", "for a in b:\n    return a", "async for a in b:\n    y = a"),
    # substitution: attribute names and keywords are never replaced, but a keyword or lambda parameter counts
    ("if c:\n    a = f(x)\n    y = h(a=a)", "if c:\n    a = f(x)\n    y = lambda *a: a",
     "if c:\n    a = f(x)\n    y = lambda a: 1", "if c:\n    a = f(x)\n    y = a.a + h(a=1)",
     "if c:\n    a = f(x)\n    y = lambda p=a, /, *q, r=a, **a: 1"),
    ("if c:\n    a = g\n    y = [a for a in z]", "if c:\n    a = f(x)\n    y = [a for a in z]",
     "if c:\n    a = g\n    y = (a := 3)"),
    ("if c:\n    a, *b = 1, 2", "if c:\n    a = b = f(x)\n    a: int = a + 1", "if c:\n    a = 1, 2\n    b = a * 3",
     "if c:\n    a = 1\n    b = a.real", "if c:\n    t = (1, 2)\n    a, b = t"),
    ("if c:\n    a = 2\n    a **= 2.0\n    a //= 0", "if c:\n    a = f(x)\n    a += a\nelse:\n    a = -1"),
    # which reused intermediate is named first: the one written first (in a dict, a conditional, a call, a lambda)
    ("if c:\n    a = f(x)\n    b = g(x)\n    d = {1: b, a: 2, 3: a, b: 4}",
     "if c:\n    a = f(x)\n    b = g(x)\n    d = b if a else (a, b)",
     "if c:\n    a = f(x)\n    b = g(x)\n    d = h(k=b, *a, j=a, *b)",
     "if c:\n    a = f(x)\n    b = g(x)\n    d = lambda p=b, *, q=a: a + b"),
    # trivial intermediates: Names (`True`, `None`), numbers, one string literal, attributes of them
    ("if c:\n    a = 'x' 'y'\n    b = a + a", "if c:\n    a = 'x'\n    b = a + a", "if c:\n    a = True\n    b = a + a",
     "if c:\n    a = None\n    b = a + a", "if c:\n    a = 1j\n    b = a + a", "if c:\n    a = ...\n    b = a + a"),
    ("if c:\n    a = b'x'\n    b = a + a", "if c:\n    a = 'x'.upper\n    b = a + a",
     "if c:\n    a = (1).real\n    b = a + a", "if c:\n    a = f'{x}'\n    b = a + a",
     "if c:\n    a = 'x'\n    b = f'{a}{a!r:>{a}}'"),
    # risks, in libcst's order; literals
    ("if c:\n    y = f(a) if g(b) else h(c)", "if c:\n    y = {f(): g(), h(): k()}",
     "if c:\n    y = jnp.sqrt(x) / f(z) + g(1) ** 0.5", "if c:\n    y = h(k=f(), *g())\n    z = await q(x)",
     "if c:\n    w = lambda: f()\n    v = (a := f())"),
    ("if c:\n    y = x ** True\n    z = x ** 2\n    w = x / 0\n    v = x / 2.0\n    u = x / True\n    t = x % -1",
     "if c:\n    y = True()\n    z = (lambda: 1)()\n    w = math.exp(x)\n    v = jnp.log(x)\n    u = (yield x)",
     "if c:\n    y = -1\n    z = None\n    w = True\n    v = not None\n    u = 1j\n    t = ...\n    s = +2.5"),
    # conditions: libcst nests `a and b and c` from the left, a static left operand keeps the short circuit
    ("if a and b and c: pass", "if s and b and c: pass", "if a and s1 and s2: pass", "if s1 and s2 and c: pass",
     "if (a < b < c) and d: pass", "if a or b and c: pass", "if (a and b) and c: pass"),
    ("if a and (b or c < d < e): pass", "while s1 < s2 < s3: pass", "if not s: pass", "if not a: pass",
     "if x.all: pass", "if s.any: pass", "if bool(a < b < c): pass", "if bool(*a): pass", "if bool(x=a): pass"),
    ("if True: pass", "if None: pass", "if ...: pass", "if bool(True): pass", "if a: pass",
     "y = a if s1 < s2 < s3 else b", "y = a if a < b < c else b"),
    # defined before the `if`: parameters, earlier bindings, an `elif`'s names
    ("if c:\n    q = 1\nelif d:\n    r = 2\nelse:\n    p = 3", "if c:\n    args = 1\n    kw = 2\n    k = 3",
     "for i in e:\n    pass\nif c:\n    i = 1\n    (w := 2)", "if (v := c):\n    v = 1"),
]


def _in_function(*blocks: str) -> str:
    """The blocks in a function with parameters of every kind (`x`, and `c`, `d`, `e` bound first)."""
    indented = "\n".join("    " + line for block in blocks for line in block.split("\n"))
    return f"async def f(x, /, p, *args, k, **kw):\n    c = d = e = x\n{indented}\n"


@pytest.mark.parametrize("blocks", _FORMS)
def test_forms_where_the_trees_differ(blocks):
    comparison = _form(blocks)
    assert comparison.differences == []
    assert comparison.blocks or comparison.conditions
    _defined_as_recorded(comparison.defined_before, [f"form {_FORMS.index(blocks)}"])


def _form(blocks) -> Comparison:
    comparison = Comparison()
    compare_source(_in_function(*blocks), f"form {_FORMS.index(blocks)}", comparison)
    return comparison


def _first_effect(body: str, **kwargs):
    block = ast.parse(_in_function(body)).body[0].body[1].body
    return ast_branches.effect(block, **kwargs)


def test_answers_of_libcst_shapes():
    """A few of the answers the comparison above checks, spelled out."""
    with pytest.raises(branches.Refused, match="nested `for`"):
        _first_effect("if c:\n    async for a in b: pass\n")
    with pytest.raises(branches.Refused, match="a `Del` statement"):
        _first_effect("if c:\n    del a\n")
    with pytest.raises(branches.Refused, match="reuses the intermediate `b`"):
        _first_effect("if c:\n    a = f(x)\n    b = g(x)\n    d = {1: b, a: 2, 3: a, b: 4}\n")
    assert list(_first_effect("if c: return x; y = 1\n").values) == ["y"]
    assert isinstance(_first_effect("if c:\n    return\n").returned, ast.Constant)
    assert ast_safety.risks(ast.parse("f(a) if g(b) else h(c)", mode="eval").body) == [
        f"a call of `{n}` (may raise or have side effects)" for n in "hgf"]
    called_true = ast.parse("True()", mode="eval").body
    assert ast_safety.risks(called_true) == ["a call of `True` (may raise or have side effects)"]
    assert ast_condition.check_condition(ast.parse("True", mode="eval").body, "jax", _static) is True


def test_the_file_tree_is_not_written():
    """Substituted values are new nodes without a place; what did not change is the file's own node."""
    tree = ast.parse(_in_function("if c:\n    a = y\n    b = h(k=a, *a, j=1, *[a])\n    a += b"))
    before = ast.dump(tree, include_attributes=True)
    block = tree.body[0].body[1].body
    found = ast_branches.effect(block)
    assert ast.dump(tree, include_attributes=True) == before
    rebuilt = found.values["b"]
    assert not hasattr(rebuilt, "lineno") and rebuilt.args[0].value is block[0].value
    assert rebuilt.func is not block[1].value.func  # (rebuilt, as libcst's transformer rebuilds every node it visits)
    order = [ast.unparse(n) for n in ast_safety.written_children(rebuilt)]
    assert order == ["h", "k=y", "*y", "j=1", "*[y]"]
    assert ast.unparse(found.values["a"]) == "y + h(*y, *[y], k=y, j=1)"  # (`ast` writes keywords last)


@pytest.mark.parametrize("block, why", [
    ("a = g\n    y = [a for a in z]", "a comprehension rebinds"),  # (libcst wrote `[g for g in z]`)
    ("a = f(x)\n    y = (a := 3)", "an assignment expression rebinds"),  # (`(f(x) := 3)`)
    ("a = g\n    y = h(lambda *, a=1: a)", "a lambda rebinds"),  # (`lambda *, g=1: g`)
    ("a = g\n    y = h(lambda **a: a)", "a lambda rebinds"),
    ("a, *b = 1, 2", "an unpacking assignment"),  # (`b = 2`, where Python binds `[2]`)
])
def test_a_value_written_where_a_name_is_bound_is_refused(block, why):
    """Both trees refuse what the substitution used to write wrong: a value where a comprehension, an
    assignment expression or a lambda binds the name, a starred target's list as one element."""
    with pytest.raises(branches.Refused, match=why):
        _first_effect(f"if c:\n    {block}\n")
    module = cst.parse_module(_in_function(f"if c:\n    {block}\n"))
    statements = block_statements(next(n for n in walk(module) if isinstance(n, cst.If)))
    with pytest.raises(branches.Refused, match=why):
        branches.effect(statements)


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        found = {"installed": [_installed()], **_corpus().defined_before}
        for blocks in _FORMS:
            found.update(_form(blocks).defined_before)
        readings.write("defined_before", found)
