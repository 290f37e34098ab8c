"""rewriter.analysis.ast_forms: the form of every expression of the traced functions, and whether the
values a rewrite merges agree (rewriter.emit.ast_agreement).

Over a file: in every function a jit context traces, every expression of the function's own body (in
pre-order; a nested def, lambda or class met, not entered) is asked for its form and why it is no
condition (`Forms.of`, `Forms.condition`, one `Forms` per function), with the forms the calls give the
parameters (`param_forms`) and the arguments each call of a def of the module binds (`bound_arguments`).
The answers over every golden case, and over the installed phiml and phi (the files where a jit context
is found), are recorded in tests/data/forms/: they are the answers libcst's reading (forms.Forms, deleted)
gave on the same code when they were recorded (tests/test_ast_forms.py compared the two trees on every
such expression, over 5,000 of them, until then). After a reviewed change of the forms,

    python -m tests.test_ast_forms --record

writes the files again, and `git diff tests/data/forms/` is the review. `python -m tests.test_ast_forms
PATH...` prints the reading of other files.
"""
from __future__ import annotations

import ast
import importlib.metadata
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.forms import UNKNOWN, Agreement, Form, agreement
from rewriter.ast_rule import AstFile
from rewriter.emit import ast_agreement as on_ast
from rewriter.emit.branches import Refused

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / ".venv" / "lib" / "python3.11" / "site-packages"
RECORDED = ROOT / "tests" / "data" / "forms"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_expressions(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, python: AstModule) -> list[ast.expr]:
    """The expressions of the function's own body in pre-order (a nested def, lambda or class met, not
    entered), but for the nodes no rule asks the form of (`_asked`)."""
    out: list[ast.expr] = []
    stack: list[tuple[ast.AST, ast.AST]] = [(fn.body, fn)] if isinstance(fn, ast.Lambda) else [(s, fn) for s in reversed(fn.body)]
    while stack:
        node, parent = stack.pop()
        if isinstance(node, ast.expr) and _asked(node, parent, python):
            out.append(node)
        if not isinstance(node, _SCOPES):
            stack.extend((child, node) for child in reversed(list(ast.iter_child_nodes(node))))
    return out


def _asked(node: ast.expr, parent: ast.AST, python: AstModule) -> bool:
    """Whether `node` is an expression as libcst writes it, what a rule may ask the form of: not a slice,
    a starred argument, the pieces of an f-string (its texts, each `{...}`), nor the tuple of indices of
    `x[:, None]`, written without parentheses."""
    if isinstance(node, (ast.Slice, ast.FormattedValue)) or isinstance(node, ast.Starred) and isinstance(parent, ast.Call):
        return False
    if isinstance(parent, ast.JoinedStr):
        return False
    return not (isinstance(node, ast.Tuple) and isinstance(parent, ast.Subscript) and node is parent.slice
                and not python.parenthesized(node))


def _anchor(fn):
    """Where a function's forms are asked: its first statement (a lambda's body), in its own scope."""
    return fn.body if isinstance(fn, ast.Lambda) else fn.body[0]


def _shown(form: Form | None) -> str:
    """A form in short: its kind, and the fields that are not their defaults (`?`: UNKNOWN)."""
    if form is None:
        return "None"
    if form == UNKNOWN:
        return "?"
    fields = [repr(form.root)] if form.root is not None else []
    fields += [form.dtype] if form.dtype != "?" else []
    fields += [", ".join(map(_shown, form.parts))] if form.parts else []
    fields += [repr(form.what)] if form.what else []
    return f"{form.kind}({', '.join(fields)})"


_NO_SELECTION = ": its truth is a Python value, not an array a selection can take"


def _why(reason: str) -> str:
    """Why an expression is no condition, its most frequent ending in short."""
    return reason[: -len(_NO_SELECTION)] + ": …" if reason.endswith(_NO_SELECTION) else reason


def _code(node: ast.AST, limit: int = 40) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def reading(source: str, every_function: bool = False) -> list[str]:
    """What the forms say of every expression of the traced functions of `source` (of every function:
    `every_function`), one line each, by function: its place, its parameters' forms, then each call's
    bound arguments and each expression's form (and why it is no condition, where it is none)."""
    python = AstModule(source)
    file = AstFile("module.py", python, python)
    out: list[str] = []
    functions = [c.function for c in file.jit.contexts]
    if every_function:
        functions = [f for f in ast.walk(python.tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    flows = {id(flow.context.function): flow for flow in file.traced.flows.values()}
    for fn in dict.fromkeys(functions):
        flow = flows.get(id(fn))
        params = on_ast.param_forms(file, flow) if flow is not None else None
        name = getattr(fn, "name", "lambda")
        shown = "no flow" if params is None else ", ".join(f"{k}={_shown(v)}" for k, v in params.items()) or "-"
        out.append(f"{name} at {fn.lineno}:{fn.col_offset}: {shown}")
        if flow is not None:
            out += _calls(file, flow)
        forms = on_ast.forms_in(file, fn, _anchor(fn), params)
        for node in _own_expressions(fn, python):
            why = forms.condition(node)
            out.append(f"  {node.lineno}:{node.col_offset} `{_code(node)}` {_shown(forms.of(node))}" + (f" | {_why(why)}" if why else ""))
    return out


def _calls(file: AstFile, flow) -> list[str]:
    """The arguments each call of a def of the module binds, by parameter, at their places."""
    out = []
    for callee, call, _ in flow.calls:
        for fn in file.jit.functions_denoted(callee):
            if isinstance(fn, ast.Lambda):
                continue
            bound = {name: f"{place.line}:{place.column}" for name, v in on_ast.bound_arguments(fn, call).items()
                     if (place := file.python.place(v))}
            out.append(f"  call {call.lineno}:{call.col_offset} of {fn.name} at {fn.lineno}: {bound}")
    return out


def _sources(root: Path, traced_only: bool = False):
    """(path, source) of the `.py` files under `root` CPython reads (not the golden expectations);
    `traced_only`: those where the jit analysis finds a context."""
    for path in sorted(root.rglob("*.py")):
        if path.name.endswith(".expected.py"):
            continue
        source = path.read_text(encoding="utf-8")
        python = AstModule(source)
        if python.tree is None or traced_only and not python.jit.contexts:
            continue
        yield path, source


def _read_all(roots: list[Path], traced_only: bool, relative_to: Path) -> list[str]:
    out = []
    for root in roots:
        for path, source in _sources(root, traced_only):
            lines = reading(source)
            if lines or not traced_only:
                out += [f"== {path.relative_to(relative_to)}", *lines]
    return out


def _installed() -> str:
    return f"phiml {importlib.metadata.version('phiml')}, phiflow {importlib.metadata.version('phiflow')}"


def _golden() -> list[str]:
    return _read_all([ROOT / "golden"], False, ROOT)


def _phiml_and_phi() -> list[str]:
    return [f"# {_installed()}", *_read_all([SITE / "phiml", SITE / "phi"], True, SITE)]


_RECORDINGS = {"golden.txt": _golden, "phiml_and_phi.txt": _phiml_and_phi}


def _recorded(name: str) -> list[str]:
    return (RECORDED / name).read_text(encoding="utf-8").splitlines()


def _first_difference(found: list[str], recorded: list[str]) -> str:
    file = ""
    for i, (a, b) in enumerate(zip(found, recorded)):
        file = a if a.startswith("== ") else file
        if a != b:
            return f"{file}, line {i + 1} of the recording:\n  recorded: {b}\n  found:    {a}"
    return f"{len(found)} lines found, {len(recorded)} recorded"


def test_golden_cases_read_as_recorded():
    cases = [p for p in (ROOT / "golden").rglob("*.py") if not p.name.endswith(".expected.py")]
    found, recorded = _golden(), _recorded("golden.txt")
    assert found == recorded, _first_difference(found, recorded) + " (`python -m tests.test_ast_forms --record`)"
    assert sum(line.startswith("== ") for line in found) == len(cases)  # (every case CPython reads)
    assert sum(line.startswith("  ") and not line.startswith("  call ") for line in found) > 5000


@pytest.mark.skipif(not (SITE / "phiml").is_dir() or not (SITE / "phi").is_dir(), reason="phiml and phi not installed")
def test_installed_phiml_and_phi_read_as_recorded():
    recorded = _recorded("phiml_and_phi.txt")
    if recorded[0] != f"# {_installed()}":
        pytest.skip(f"recorded on {recorded[0][2:]}, installed: {_installed()}")
    found = _phiml_and_phi()
    assert found == recorded, _first_difference(found, recorded) + " (`python -m tests.test_ast_forms --record`)"
    assert sum(line.startswith("== ") for line in found) >= 1 and len(found) > 100


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


# -- targeted: branch_agreement ----------------------------------------------------------------------
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


def _values(statement: ast.If) -> list[list[ast.expr]]:
    """The values an `if` assigns in its two branches."""
    return [[statement.body[0].value], [statement.orelse[0].value]]  # type: ignore[attr-defined]


def _ifs(source: str):
    """The file of `source`, the flow of its one jitted function, and that function's `if` statements."""
    python = AstModule(source)
    file = AstFile("module.py", python, python)
    (flow,) = file.traced.flows.values()
    return file, flow, [s for s in flow.context.function.body if isinstance(s, ast.If)]


def test_branch_agreement():
    """(The answers libcst's reading, emit/agreement.py, gave: recorded when it was deleted.)"""
    file, flow, (doubt, clash) = _ifs(AGREEMENT)
    found = on_ast.branch_agreement(file, flow, doubt, _values(doubt), [doubt.test], code=file.code)
    assert found == "`x * 0.5` and `x`: their dtypes may differ (floats in one, `x`'s dtype in the other)"
    with pytest.raises(Refused) as refused:
        on_ast.branch_agreement(file, flow, clash, _values(clash))
    assert str(refused.value) == "a branch is `jnp.sin`, a function or module, not an array: a selection cannot hold it"


DTYPE_DOUBTS = """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    if x.sum() > 0:
        y = x + 1j * x
    else:
        y = x
    if x.sum() > 1:
        z = jnp.zeros(3, dtype=jnp.int32)
    else:
        z = jnp.zeros(3)
    return y, z
"""


def test_a_dtype_doubt_names_the_dtypes_it_knows():
    """A complex literal's dtype is one the forms do not track: the note must not call it an integer, a
    float or a boolean."""
    file, flow, (complex_, spelled) = _ifs(DTYPE_DOUBTS)
    found = on_ast.branch_agreement(file, flow, complex_, _values(complex_), [complex_.test], code=file.code)
    assert found == "`x + 1j * x` and `x`: nothing proves their dtypes equal"
    found = on_ast.branch_agreement(file, flow, spelled, _values(spelled), [spelled.test], code=file.code)
    assert found == "`jnp.zeros(3, dtype=jnp.int32)` and `jnp.zeros(3)`: their dtypes may differ (floats in one, integers in the other)"


def test_a_public_helper_escapes_an_open_module():
    python = AstModule(AGREEMENT)
    file = AstFile("module.py", python, python, world=SimpleNamespace(open_module="the package is installed"))
    fn = next(s for s in python.tree.body if isinstance(s, ast.FunctionDef) and s.name == "f")
    assert on_ast._escapes(file, fn) == "`f` is public: the package is installed"


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        RECORDED.mkdir(parents=True, exist_ok=True)
        for name, read in _RECORDINGS.items():
            (RECORDED / name).write_text("\n".join(read()) + "\n", encoding="utf-8")
            print(f"wrote {RECORDED / name}")
    else:
        for argument in sys.argv[1:]:
            for path, source in _sources(Path(argument)):
                print(f"== {path}", *reading(source, every_function=True), sep="\n")
