"""rewriter.analysis.ast_forms gives the forms rewriter.analysis.forms gives, on CPython's `ast`; and
rewriter.emit.ast_agreement what rewriter.emit.agreement says.

Over a file: in every function a jit context traces (each tree's own jit analysis finds them, and they
must be the same functions), every expression of the function's own body is asked for its form and
why it is no condition (`Forms.of`, `Forms.condition`, one `Forms` per function on each tree, asked in
the same order), its `ast` twin found by the locator; the forms the calls give the parameters
(`param_forms`) and the arguments a call binds (`bound_arguments`) are compared for every flow. Every
golden case is compared; of the installed phiml and phi, the files where `ast`'s jit analysis finds a
context (tests/test_ast_jit.py compares the jit analyses). `python -m tests.test_ast_forms PATH...`
compares every function of other files (not only the traced ones) and prints every difference.
"""
from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import libcst as cst
import pytest

from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.forms import UNKNOWN, Agreement, Form, Forms as CstForms, agreement
from rewriter.analysis.locator import _AST_KINDS
from rewriter.analysis.module import ModuleAnalysis
from rewriter.ast_rule import AstFile
from rewriter.emit import agreement as on_cst
from rewriter.emit import ast_agreement as on_ast
from rewriter.emit.branches import Refused

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / ".venv" / "lib" / "python3.11" / "site-packages"
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _readings(source: str, path: str = "module.py") -> tuple[ModuleAnalysis, AstFile]:
    """libcst's analysis of `source`, and the AstFile beside it (sharing its `ast` reading, as AstFile.beside)."""
    analysis = ModuleAnalysis(cst.MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True), path)
    file = AstFile(path, analysis.python, analysis.python)
    file.__dict__["traced"] = analysis.traced.reading
    return analysis, file


def _own_expressions(fn: cst.FunctionDef | cst.Lambda) -> list[cst.BaseExpression]:
    """The expressions of the function's own body in libcst's pre-order (a nested def, lambda or class
    met, not entered)."""
    out: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [fn.body] if isinstance(fn, cst.Lambda) else list(reversed(fn.body.body))
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseExpression):
            out.append(node)
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(node.children))
    return out


def _anchor(fn):
    """Where a function's forms are asked: its first statement (a lambda's body), in its own scope."""
    if isinstance(fn, (cst.Lambda, ast.Lambda)):
        return fn.body
    return fn.body.body[0] if isinstance(fn, cst.FunctionDef) else fn.body[0]


def differences(source: str, every_function: bool = False) -> tuple[int, list[str]]:
    """(how many expressions were compared, the differences) of the two readings of `source`."""
    analysis, file = _readings(source)
    python, locator = analysis.python, analysis.locator
    cst_file = SimpleNamespace(analysis=analysis)
    out: list[str] = []
    theirs = {id(c.function): c.function for c in python.jit.contexts}
    ours = {id(c.function): c.function for c in analysis.jit.contexts}
    if every_function:
        theirs = {id(f): f for f in ast.walk(python.tree)
                  if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))}
        ours = {id(twin): twin for f in theirs.values() if (twin := locator.cst_of(f)) is not None}
    pairs = []
    for fn in theirs.values():
        twin = locator.cst_of(fn)
        if twin is None or id(twin) not in ours:
            out.append(f"line {fn.lineno}: `ast`'s jit context has no libcst twin")
        else:
            pairs.append((twin, fn))
    if len(pairs) != len(ours):
        out.append(f"libcst's jit finds {len(ours)} traced functions, `ast`'s {len(theirs)}")
    compared = 0
    for cst_fn, ast_fn in pairs:
        cst_flow, ast_flow = analysis.traced.flows.get(id(cst_fn)), file.traced.flows.get(id(ast_fn))
        cst_params = on_cst.param_forms(cst_file, cst_flow) if cst_flow is not None else None
        ast_params = on_ast.param_forms(file, ast_flow) if ast_flow is not None else None
        if cst_params != ast_params:
            out.append(f"line {ast_fn.lineno}: param_forms {cst_params} != {ast_params}")
        if cst_flow is not None and ast_flow is not None:
            out += _call_differences(analysis, file, cst_flow, ast_flow)
        cst_forms = CstForms(analysis.names, cst_fn, _anchor(cst_fn), cst_params)
        ast_forms = on_ast.forms_in(file, ast_fn, _anchor(ast_fn), ast_params)
        for node in _own_expressions(cst_fn):
            twin = locator.ast_of(node)
            if twin is None or type(twin) not in _AST_KINDS.get(type(node), ()):
                continue  # (a name that is no expression: an attribute's, a keyword's)
            compared += 1
            if (a := cst_forms.of(node)) != (b := ast_forms.of(twin)):
                out.append(f"{_where(twin)}: of {a} != {b}")
            if (a := cst_forms.condition(node)) != (b := ast_forms.condition(twin)):
                out.append(f"{_where(twin)}: condition {a!r} != {b!r}")
    return compared, out


def _where(node: ast.expr) -> str:
    return f"line {node.lineno}:{node.col_offset} `{ast.unparse(node)[:50]}`"


def _call_differences(analysis, file, cst_flow, ast_flow) -> list[str]:
    """The arguments each call of a def of the module binds, by parameter: the same, at the same places."""
    out = []
    positions = analysis.names.positions
    for (_, cst_call, _), (ast_callee, ast_call, _) in zip(cst_flow.calls, ast_flow.calls):
        for fn in file.jit.functions_denoted(ast_callee):
            if isinstance(fn, ast.Lambda):
                continue
            twin = analysis.locator.cst_of(fn)
            ours = {name: (positions[v].start.line, positions[v].start.column)
                    for name, v in on_cst.bound_arguments(twin, cst_call).items()}
            theirs = {name: (place.line, place.column) for name, v in on_ast.bound_arguments(fn, ast_call).items()
                      if (place := file.python.place(v))}
            if ours != theirs:
                out.append(f"line {ast_call.lineno}: bound_arguments {ours} != {theirs}")
    if len(cst_flow.calls) != len(ast_flow.calls):
        out.append(f"`{ast_flow.context.name}`: {len(cst_flow.calls)} calls != {len(ast_flow.calls)}")
    return out


def _sources(root: Path, traced_only: bool = False):
    """(path, source) of the `.py` files under `root` both parsers read (not the golden expectations);
    `traced_only`: those where `ast`'s jit analysis finds a context (libcst parses no other)."""
    for path in sorted(root.rglob("*.py")):
        if path.name.endswith(".expected.py"):
            continue
        source = path.read_text(encoding="utf-8")
        python = AstModule(source)
        if python.tree is None or traced_only and not python.jit.contexts:
            continue
        try:
            cst.parse_module(source)
        except cst.ParserSyntaxError:
            continue
        yield path, source


def _compare_all(roots: list[Path], traced_only: bool) -> tuple[int, int, dict[str, list[str]]]:
    files = compared = 0
    found: dict[str, list[str]] = {}
    for root in roots:
        for path, source in _sources(root, traced_only):
            files += 1
            count, diff = differences(source)
            compared += count
            if diff:
                found[str(path)] = diff[:4]
    return files, compared, found


def test_golden_cases_read_alike():
    cases = [p for p in (ROOT / "golden").rglob("*.py") if not p.name.endswith(".expected.py")]
    files, compared, found = _compare_all([ROOT / "golden"], traced_only=False)
    assert found == {}
    assert files == len(cases)  # (every case both parsers read)
    assert compared > 5000, compared


@pytest.mark.skipif(not (SITE / "phiml").is_dir() or not (SITE / "phi").is_dir(), reason="phiml and phi not installed")
def test_installed_phiml_and_phi_read_alike():
    files, compared, found = _compare_all([SITE / "phiml", SITE / "phi"], traced_only=True)
    assert found == {}
    assert files >= 1 and compared > 100, (files, compared)


# -- targeted: the `ast` answers themselves -------------------------------------------------------
HEADER = """
    import jax
    import jax.numpy as jnp
    import tensorflow as tf
    from jaxtyping import Array, Float32

    JOINED = "a" f"{jnp}"
    FORMATTED = f"{jnp}"

"""


def _function(signature: str, body: str, params: dict[str, Form] | None = None):
    """The Forms of `def f(<signature>)` with `body`, and its assignments' values by name."""
    source = textwrap.dedent(HEADER) + f"def f({signature}):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    python = AstModule(source)
    file = AstFile("module.py", python, python)
    fn = next(s for s in python.tree.body if isinstance(s, ast.FunctionDef))
    values = {s.targets[0].id: s.value for s in fn.body if isinstance(s, ast.Assign)}
    return on_ast.forms_in(file, fn, fn.body[-1], params), values


def test_true_is_a_bool_and_one_an_int():
    forms, values = _function("x", "t = True\none = 1\nh = 1.5\nn = None\ndots = ...\nreturn x\n")
    assert forms.of(values["t"]) == Form("scalar", dtype="bool")
    assert forms.of(values["one"]) == Form("scalar", dtype="int")
    assert forms.of(values["h"]) == Form("scalar", dtype="float")
    assert forms.of(values["n"]) == Form("other", what="None")
    assert forms.of(values["dots"]) == UNKNOWN
    assert agreement([forms.of(values["t"]), forms.of(values["one"])]).agreement is Agreement.DOUBT


def test_strings():
    forms, values = _function("x", 's = "a" "b"\nb = b"x"\nfs = f"{x}"\nj = JOINED\nfo = FORMATTED\nreturn x\n')
    for name in ("s", "b", "fs", "j"):
        assert forms.of(values[name]) == Form("other", what="a string"), name
    assert forms.of(values["fo"]) == UNKNOWN  # (a module's one f-string: libcst's FormattedString is not read)
    assert forms.condition(values["s"]).startswith("the condition is a string")


def test_shape():
    forms, values = _function("x", "s = x.shape\nn = x.shape[0]\nreturn x\n")
    assert forms.of(values["s"]) == Form("other", what="a Shape")
    assert forms.of(values["n"]) == Form("scalar", dtype="int")
    assert forms.condition(values["s"]).startswith("the condition is a Shape")


def test_jaxtyping_annotation():
    forms, values = _function('fl: Float32[Array, "n"], c: list', "y = fl * 2.0\nreturn fl\n")
    assert forms.of(values["y"]) == Form("array", "fl", "float32")
    assert forms.condition(ast.Name("c", ast.Load())).startswith("`c` is declared a Python container")


def test_casts():
    forms, values = _function("x", """
        a = x.astype(jnp.float32)
        b = x.astype("float32")
        c = x.astype("float" "32")
        d = tf.cast(x, tf.float64)
        e = x.to("cpu")
        return x
    """)
    assert forms.of(values["a"]) == forms.of(values["b"]) == Form("array", "x", "float32")
    assert forms.of(values["c"]) == Form("array", "x", "?")  # (libcst reads no implicitly concatenated dtype)
    assert forms.of(values["d"]) == Form("array", "x", "float64")
    assert forms.of(values["e"]) == UNKNOWN


def test_reshape_with_a_literal_shape():
    forms, values = _function("x", """
        a = x.reshape((2, 3))
        b = jnp.reshape(x, (2, 3))
        c = x.reshape(2, -1)
        return x
    """)
    assert forms.of(values["a"]) == forms.of(values["b"]) == Form("array", "x reshaped to (2, 3)", "same")
    assert forms.of(values["c"]) == UNKNOWN


def test_bindings_are_met_in_the_order_written():
    """libcst's forms meet them in a set's order, by address: `z` may be either binding's form there."""
    forms, values = _function("x", "z = True\nz = jnp.all(x)\nreturn z\n")
    assert forms.of(ast.Name("z", ast.Load())) == Form("scalar", dtype="bool")


# -- targeted: branch_agreement on both trees -------------------------------------------------
AGREEMENT = """
import jax
import jax.numpy as jnp


@jax.jit
def f(x, n):
    if x.sum() > 0:
        y = x * 0.5
    else:
        y = x
    if x.sum() > 1:
        z = jnp.sin
    else:
        z = x
    return y, z
"""


def _ifs(analysis: ModuleAnalysis, file: AstFile):
    """Each `if` of `f` on both trees: (libcst's, `ast`'s, its function and flow on each)."""
    cst_fn = next(c.function for c in analysis.jit.contexts)
    ast_fn = next(c.function for c in file.jit.contexts)
    cst_flow, ast_flow = analysis.traced.flows[id(cst_fn)], file.traced.flows[id(ast_fn)]
    ours = [s for s in cst_fn.body.body if isinstance(s, cst.If)]
    theirs = [s for s in ast_fn.body if isinstance(s, ast.If)]
    return list(zip(ours, theirs)), cst_flow, ast_flow


def _values(statement):
    """The values an `if` assigns in its two branches, on either tree."""
    if isinstance(statement, cst.If):
        return [[statement.body.body[0].body[0].value], [statement.orelse.body.body[0].body[0].value]]
    return [[statement.body[0].value], [statement.orelse[0].value]]


def test_branch_agreement_says_what_libcst_says():
    analysis, file = _readings(AGREEMENT)
    cst_file = SimpleNamespace(analysis=analysis)
    ifs, cst_flow, ast_flow = _ifs(analysis, file)
    (doubt_cst, doubt_ast), (clash_cst, clash_ast) = ifs
    expected = on_cst.branch_agreement(cst_file, cst_flow, doubt_cst, _values(doubt_cst), [doubt_cst.test])
    assert expected.startswith("`x * 0.5` and `x`: ")
    found = on_ast.branch_agreement(file, ast_flow, doubt_ast, _values(doubt_ast), [doubt_ast.test], code=file.code)
    assert found == expected
    with pytest.raises(Refused) as refused:
        on_cst.branch_agreement(cst_file, cst_flow, clash_cst, _values(clash_cst))
    with pytest.raises(Refused, match="a branch is `jnp.sin`, a function or module, not an array") as refused_on_ast:
        on_ast.branch_agreement(file, ast_flow, clash_ast, _values(clash_ast))
    assert str(refused_on_ast.value) == str(refused.value)


def test_a_public_helper_escapes_an_open_module():
    python = AstModule(AGREEMENT)
    file = AstFile("module.py", python, python, world=SimpleNamespace(open_module="the package is installed"))
    fn = next(s for s in python.tree.body if isinstance(s, ast.FunctionDef) and s.name == "f")
    assert on_ast._escapes(file, fn) == "`f` is public: the package is installed"


if __name__ == "__main__":
    total = 0
    for argument in sys.argv[1:]:
        for path, source in _sources(Path(argument)):
            count, found = differences(source, every_function=True)
            total += count
            if found:
                print(path)
                for line in found[:6]:
                    print("   ", line)
    print(f"{total} expressions compared")
