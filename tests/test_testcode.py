"""Test code (rewriter/analysis/testcode.py and the gate in rewriter/codemod.py): the forms that say code
is meant to fail, the functions they reach, what counts as a test reading the program's structure, and
the refusals the rules inherit. Golden cases show them end to end (golden/*/test_expects_error*.py,
golden/*/test_reads_*.py, golden/notebooks/control_flow_error_cell.ipynb)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from nbformat.v4 import new_code_cell, new_output

from rewriter.analysis import ModuleAnalysis
from rewriter.ast_rule import AstRule
from rewriter.codemod import Codemod
from rewriter.engine import Settings, process_source
from rewriter.findings import Span
from rewriter.notebooks import process_notebook, reading
from rewriter.registry import all_codemods, by_code
from tests.harness.trees import function_defs
from tests.test_notebooks import notebook, write

ROOT = Path(__file__).resolve().parent.parent


def _analysis(source: str, path: str = "test_module.py") -> ModuleAnalysis:
    return ModuleAnalysis(cst.MetadataWrapper(cst.parse_module(textwrap.dedent(source)), unsafe_skip_copy=True), path)


def _at(analysis: ModuleAnalysis, node: cst.CSTNode) -> Span:
    """Where `node` is: the place the test code's readings are asked about, as a rule asks them."""
    r = analysis.names.positions[node]
    return Span(r.start.line, r.start.column, r.end.line, r.end.column)


def _expected(analysis: ModuleAnalysis, node: cst.CSTNode):
    return analysis.expected_failure(_at(analysis, node), isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)))


def _failing(source: str, path: str = "test_module.py") -> dict[str, str]:
    """Each def of `source` -> how the code says it is meant to fail ("" : it is not)."""
    analysis = _analysis(source, path)
    return {name: (found.how if (found := _expected(analysis, fn)) else "") for name, fn in function_defs(analysis).items()}


# -- the forms that say code is meant to fail -----------------------------------------------------
_FUNCTIONS = textwrap.dedent("""
    import unittest
    import warnings
    from functools import partial

    import jax
    import numpy as np
    import pytest

    def f(x):
        return x

    def g(x):
        return x

    def used_normally(x):
        return x
""")


@pytest.mark.parametrize("body, how", [
    ("with pytest.raises(TypeError, match='bad'):\n    jax.jit(f)(1)", "`with pytest.raises`"),
    ("pytest.raises(TypeError, jax.jit(f), 1)", "`pytest.raises`"),
    ("with pytest.warns(UserWarning):\n    f(1)", "`with pytest.warns`"),
    ("with pytest.deprecated_call():\n    f(1)", "`with pytest.deprecated_call`"),
    ("with self.assertRaises(TypeError):\n    f(1)", "`with self.assertRaises`"),
    ("with self.assertRaisesRegex(TypeError, 'msg'):\n    f(1)", "`with self.assertRaisesRegex`"),
    ("with self.assertWarns(UserWarning):\n    f(1)", "`with self.assertWarns`"),
    ("with self.assertWarnsRegex(UserWarning, 'msg'):\n    f(1)", "`with self.assertWarnsRegex`"),
    ("self.assertRaises(TypeError, f, 1)", "`self.assertRaises`"),
    ("self.assertRaisesRegex(TypeError, 'msg', f, 1)", "`self.assertRaisesRegex`"),
    ("np.testing.assert_raises(TypeError, f, 1)", "`np.testing.assert_raises`"),
    ("with warnings.catch_warnings(record=True):\n    f(1)", "`with warnings.catch_warnings(record=True)`"),
    ("try:\n    f(1)\nexcept Exception as e:\n    msg = str(e)", "an `except` that reads the error (`e`)"),
    ("try:\n    f(1)\n    ok = True\nexcept TypeError:\n    ok = False", "an `except` that handles the failure in a test"),
    ("self.assertRaises(TypeError, lambda: f(1))", "`self.assertRaises`"),
    ("with pytest.raises(TypeError):\n    jax.jit(partial(f, 1))()", "`with pytest.raises`"),
    ("with pytest.raises(TypeError):\n    jax.vmap(jax.jit(f))(1)", "`with pytest.raises`"),
])
def test_each_form_reaches_the_function(body, how):
    source = _FUNCTIONS + "\n\nclass TestF(unittest.TestCase):\n    def test_it(self):\n" + textwrap.indent(body, " " * 8) + \
        "\n        used_normally(1)\n"
    failing = _failing(source)
    assert failing["f"] == how
    assert failing["g"] == "" and failing["used_normally"] == ""


@pytest.mark.parametrize("body", [
    "with self.assertRaisesRegex(TypeError, 'msg'):\n    g(1)",  # the pattern is no function (Regex call form: third)
    "try:\n    f(1)\nexcept TypeError:\n    raise",  # the error goes on
    "try:\n    f(1)\nexcept TypeError as e:\n    raise ValueError('wrapped') from e",
    "try:\n    f(1)\nexcept TypeError:\n    self.fail('f must work')",  # the error fails the test: not wanted
    "try:\n    f(1)\nfinally:\n    pass",
    "with warnings.catch_warnings():\n    f(1)",  # not recorded
    "with self.subTest('f'):\n    f(1)",
])
def test_forms_that_do_not_expect_failure(body):
    source = _FUNCTIONS + "\n\nclass TestF(unittest.TestCase):\n    def test_it(self):\n" + textwrap.indent(body, " " * 8) + "\n"
    assert _failing(source)["f"] == ""


def test_outside_tests_only_a_handler_that_reads_the_error_expects_failure():
    source = _FUNCTIONS + textwrap.dedent("""
    def run(x):
        try:
            return f(x)
        except TypeError as error:
            log(f"{error}")
            return x

    def fall_back(x):
        try:
            return g(x)
        except TypeError:
            return x
    """)
    failing = _failing(source, "pkg/module.py")
    assert failing["f"] == "an `except` that reads the error (`error`)"
    assert failing["g"] == ""


def test_xfail_marks_and_callees_of_every_shape():
    source = """
    import unittest
    import jax
    import pytest

    def by_helper(x):
        return x

    def helper(x):
        return by_helper(x) + 1

    def in_setup(x):
        return x

    def in_xfail(x):
        return x

    def factory():
        def built(x):
            return x
        return built

    @pytest.mark.xfail(strict=True)
    def test_marked():
        jax.jit(in_xfail)(1)

    class TestShapes(unittest.TestCase):
        def setUp(self):
            self.step = jax.jit(in_setup)

        def check(self, x):
            return x

        def test_method(self):
            with self.assertRaises(TypeError):
                self.step(1)

        def test_helper_and_factory(self):
            with self.assertRaises(TypeError):
                helper(1)
                factory()(1)
                self.check(1)

        @unittest.expectedFailure
        def test_expected(self):
            pass
    """
    analysis = _analysis(source)
    defs = function_defs(analysis)
    how = {name: (found.how if (found := _expected(analysis, fn)) else "") for name, fn in defs.items()}
    assert how["by_helper"] == "`with self.assertRaises`"  # reached through `helper` (innermost first)
    assert how["helper"] == how["in_setup"] == how["factory"] == how["built"] == how["check"] == "`with self.assertRaises`"
    assert how["in_xfail"] == "the test is marked `pytest.mark.xfail`"
    assert how["test_marked"] == ""  # the def itself is not inside its body; its body is
    test_marked = defs["test_marked"]
    assert _expected(analysis, test_marked.body.body[0]).how == "the test is marked `pytest.mark.xfail`"
    assert _expected(analysis, defs["test_expected"].body.body[0]).how == "the test is marked `unittest.expectedFailure`"


# -- tests that read structure --------------------------------------------------------------------
def _read(source: str, node_name: str = "target", words=("jit",), path: str = "test_module.py"):
    """The structure read seen from the call of `target` in `source` (None: nothing is read)."""
    analysis = _analysis(source, path)
    found = []
    stack = [analysis.wrapper.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == node_name:
            found.append(node)
        stack.extend(node.children)
    read = analysis.testcode.structure_read(_at(analysis, found[0]), words)
    return read.what if read is not None else None


@pytest.mark.parametrize("line, what", [
    ("jaxpr = jax.make_jaxpr(f)(1)", "the staged program (`jaxpr`)"),
    ("assert len(jax.make_jaxpr(f)(1).eqns) == 1", "the jaxpr (`make_jaxpr`)"),
    ("text = jax.jit(f).lower(1).as_text()", "the lowered program's text (`.as_text()`)"),
    ("lowered = jax.jit(f).lower(1)", "the lowered program (`.lower(...)`)"),
    ("compiled = lowered.compile()", "the compiled program (`.compile()`)"),
    ("assert 'jit(g)' in text", "a jit's name in the staged program ('jit(g)')"),
    ("assert f._cache_size() == 1", "the size of a jit's cache (`_cache_size`)"),
    ("chex.assert_max_traces(f, 1)", "the number of traces (`assert_max_traces`)"),
    ("with jtu.count_jit_tracing_cache_miss() as count: f(1)", "a count of traces or compiles (`count_jit_tracing_cache_miss`)"),
    ("with jax.checking_leaks(): f(1)", "leaked tracers (`checking_leaks`)"),
    ("jax.config.update('jax_check_tracer_leaks', True)", None),  # a string naming the flag is not its name
    ("with jax.named_scope('outer'): f(1)", "the name stack (`named_scope`)"),
    ("assert f.__name__ == 'f'", "a function's name (`__name__`)"),
    ("frames = inspect.stack()", "frames or signatures (`inspect`)"),
    ("frame = sys._getframe()", "a frame (`sys._getframe`)"),
    ("stack = traceback.format_stack()", "a traceback (`traceback`)"),
    ("ref = weakref.ref(f)", "an object's lifetime (`weakref`)"),
    ("with jax.log_compiles(): f(1)", "the compiles (`log_compiles`)"),
    ("assert float(f(1)) == 1.0", None),
    ("name = 'ABC'.lower()", None),
])
def test_each_read(line, what):
    source = f"""
    import jax

    def test_it():
        f = target(jax.jit(lambda x: x))
        {line}
    """
    assert _read(source) == what


def test_reads_by_side_effect_count_traces_only_in_functions():
    counted = """
    def test_it():
        traces = 0

        def inner(x):
            nonlocal traces
            traces += 1
            return x

        target(inner)
    """
    assert _read(counted) == "a count kept by a side effect (`nonlocal`)"
    recorded = """
    def test_it():
        seen = []

        def inner(x):
            seen.append(x)
            return x

        target(inner)
    """
    assert _read(recorded) == "a record kept by a side effect (`.append(...)`)"
    at_test_level = """
    def test_it():
        seen = []
        seen.append(target(1))
        x = jnp.zeros(3).at[0].set(1.0)
    """
    assert _read(at_test_level) is None


def test_the_scope_of_a_read():
    # another test's read does not count; a module-level helper the test calls does
    source = """
    import jax

    def staged(f):
        return jax.make_jaxpr(f)(1)

    def test_reads():
        staged(jax.jit(g))

    def test_other():
        target(g)

    def test_through_helper():
        staged(target(g))
    """
    analysis = _analysis(source)
    calls = [n for n in _walk(analysis.wrapper.module) if isinstance(n, cst.Call) and getattr(n.func, "value", None) == "target"]
    in_other, in_helper = calls
    assert analysis.testcode.structure_read(_at(analysis, in_other), ("jit",)) is None
    read = analysis.testcode.structure_read(_at(analysis, in_helper), ("jit",))
    assert read.what == "the jaxpr (`make_jaxpr`)" and read.test
    # at module level (or in a helper), every test of the module may read it
    module_level = textwrap.dedent(source) + "\nresult = target(g)\n"
    analysis = _analysis(module_level)
    node = [n for n in _walk(analysis.wrapper.module) if isinstance(n, cst.Call) and getattr(n.func, "value", None) == "target"][-1]
    read = analysis.testcode.structure_read(_at(analysis, node), ("jit",))
    assert read.what == "the jaxpr (`make_jaxpr`)" and not read.test


def test_what_is_no_read():
    source = '''
    """Docstrings may say jit(f) and make_jaxpr."""
    import inspect
    from jax import make_jaxpr

    def test_jaxpr_free_name():
        target(g)

    if __name__ == "__main__":
        main()
    '''
    assert _read(source) is None  # imports, docstrings, the module's __name__, the test's own name
    assert _read(source.replace("test_jaxpr_free_name", "test_nested_jit"), words=("jit",)) == \
        "its name says it tests `jit` (`test_nested_jit`)"
    assert _read(source.replace("test_jaxpr_free_name", "testVmapOfJit"), words=("vmap",)) == \
        "its name says it tests `vmap` (`testVmapOfJit`)"
    assert _read(source.replace("test_jaxpr_free_name", "test_jitter"), words=("jit",)) is None


def _walk(node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


# -- the gate: which rules, and what they say -----------------------------------------------------
def test_the_rules_that_remove_errors_or_change_structure():
    removes = {c.CODE for c in all_codemods() if c.REMOVES_ERRORS}
    changes = {c.CODE for c in all_codemods() if c.CHANGES_STRUCTURE}
    assert {"PML201", "PML202", "PML203", "PML204", "PML205", "PML206", "PML601", "PML602", "PML603", "PML604", "PML605"} <= removes
    assert changes == {"PML101", "PML102", "PML301", "PML302", "PML303", "PML304"}
    assert all(isinstance(w, str) and w == w.lower() for c in all_codemods() for w in c.CHANGES_STRUCTURE)
    assert Codemod.REMOVES_ERRORS is False and Codemod.CHANGES_STRUCTURE == ()
    assert by_code("PML303").CHANGES_STRUCTURE and not by_code("PML303").REMOVES_ERRORS


def _run(source: str, path: str, **settings):
    return process_source(textwrap.dedent(source).encode(), path, Settings(all_codemods(), **settings))


# A jitted `if` on a tracer, and a test that expects jax to reject it.
_REJECTED = """
    import jax
    import jax.numpy as jnp
    import pytest

    @jax.jit
    def sign(x):
        if x > 0:
            return x
        return -x

    def test_rejected():
        with pytest.raises(jax.errors.ConcretizationTypeError):
            sign(jnp.float32(1.0))
"""


def test_a_refused_fix_is_reported_with_why_and_where():
    source = _REJECTED
    result = _run(source, "tests/test_sign.py")
    assert result.new_source is None
    (finding,) = [f for f in result.findings if f.code == "PML201"]
    assert finding.fix is None and not finding.applied
    assert finding.note.startswith("not fixed: this code is expected to fail: `with pytest.raises`")
    assert [r.message for r in finding.related][-1] == "expected to fail here"
    # the same file, without the test: fixed
    alone = _run(source.split("def test_rejected")[0], "tests/test_sign.py")
    assert alone.new_source is not None and b"jnp.where" in alone.new_source


def test_a_file_only_a_newer_python_parses_fails_closed():
    """Test code and code meant to fail are read from CPython's parse; where this Python cannot parse the
    file (PEP 695 syntax, which libcst reads), the fixes they would refuse are refused, and only there."""
    source = _REJECTED + "\n    type Alias = int\n"
    result = _run(source, "tests/test_sign.py")
    assert result.new_source is None
    (finding,) = [f for f in result.findings if f.code == "PML201"]
    assert not finding.applied and "cannot read the file's syntax" in finding.note
    # nothing there says code is meant to fail: fixed, as before
    alone = _run(source.split("def test_rejected")[0] + "type Alias = int\n", "tests/test_sign.py")
    assert alone.new_source is not None and b"jnp.where" in alone.new_source


def test_compatibility_branches_of_a_file_only_a_newer_python_parses_are_not_fixed():
    """Which branches cannot run is read from CPython's parse: where it cannot parse the file, a file with
    compatibility checks gets its findings and no fix."""
    source = """
    import jax

    if not hasattr(jax, "numpy"):
        @jax.jit
        def sign(x):
            if x > 0:
                return x
            return -x

    type Alias = int
    """
    result = _run(source, "pkg/mod.py")
    assert result.new_source is None
    (finding,) = [f for f in result.findings if f.code == "PML201"]
    assert not finding.applied and "compatibility branches" in finding.note


def test_structure_refusals_hold_with_unsafe_fixes_and_only_in_test_code():
    source = """
    import jax

    def square(v):
        return v * v

    def test_wrapped():
        wrapped = jax.jit(jax.jit(square))
        assert wrapped._cache_size() == 0
    """
    for unsafe in (False, True):
        result = _run(source, "tests/test_wrapped.py", unsafe_fixes=unsafe)
        assert result.new_source is None
        (finding,) = [f for f in result.findings if f.code == "PML303"]
        assert finding.note == "not fixed: this test inspects the structure the fix changes: the size of a jit's cache (`_cache_size`)"
    program = _run(source.replace("def test_wrapped", "def run_wrapped"), "pkg/wrapped.py")
    assert program.new_source is not None  # not test code: the structure is no one's subject


# -- notebooks: a cell run to show an error ---------------------------------------------------------
def test_a_cell_whose_output_is_an_error_is_meant_to_fail(tmp_path):
    traced = "@jax.jit\ndef {}(x):\n    if x > 0:\n        return x\n    return -x\n"
    shown = new_code_cell(traced.format("sign") + "\nsign(jnp.float32(1.0))")
    shown.outputs = [new_output("error", ename="TracerBoolConversionError", evalue="...", traceback=[])]
    plain = new_code_cell(traced.format("magnitude"))
    plain.outputs = [new_output("stream", name="stderr", text="a warning, not an error\n")]
    path = write(tmp_path / "nb.ipynb", notebook("import jax\nimport jax.numpy as jnp", shown, plain))
    source = path.read_bytes()
    assert [c.shows_error for c in reading.read(source).cells] == [False, True, False]
    result = process_notebook(source, "nb.ipynb", Settings(all_codemods()))
    by_cell = {f.cell: f for f in result.findings if f.code == "PML201"}
    assert by_cell[2].note == "not fixed: this code is expected to fail: cell 2 shows an error in its stored output"
    assert not by_cell[2].applied and by_cell[3].applied
    new = result.new_source.decode()
    assert "return jnp.where(x > 0, x, -x)" in new and "    if x > 0:" in new


# -- executed: the refused fixes would break the tests ---------------------------------------------
_CASES = ["golden/traced-if/test_expects_error.py", "golden/traced-if/test_expects_error_handled.py",
          "golden/static-count-argument/test_expects_error.py", "golden/redundant-jit/test_reads_structure.py"]


def _pytest(folder: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(folder)],
                          cwd=folder, capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.backends
def test_the_refused_fixes_would_break_the_tests(tmp_path, monkeypatch):
    """Each case's tests pass as they are (the tool leaves them so); with the gate off, the rewrite makes
    some of each case's tests fail: the refusals are what keeps them passing."""
    kept, forced = tmp_path / "kept", tmp_path / "forced"
    kept.mkdir()
    forced.mkdir()
    for case in _CASES:
        name = case.replace("/", "_").replace("-", "_").replace("golden_", "test_", 1)
        source = (ROOT / case).read_bytes()
        assert _run_bytes(source, case).new_source is None
        (kept / name).write_bytes(source)
    monkeypatch.setattr(Codemod, "_refusal", lambda self, node, edits: None)
    monkeypatch.setattr(AstRule, "_refusal", lambda self, node, span, fix: None)  # (the rules decided on `ast`)
    for case in _CASES:
        name = case.replace("/", "_").replace("-", "_").replace("golden_", "test_", 1)
        rewritten = _run_bytes((ROOT / case).read_bytes(), case, unsafe_fixes=True).new_source
        assert rewritten is not None, case
        (forced / name).write_bytes(rewritten)
    passed = _pytest(kept)
    assert passed.returncode == 0, passed.stdout[-3000:]
    failed = _pytest(forced)
    assert failed.returncode == 1, failed.stdout[-3000:]
    for case in _CASES:
        name = case.replace("/", "_").replace("-", "_").replace("golden_", "test_", 1)
        assert f"FAILED {name}" in failed.stdout, (case, failed.stdout[-3000:])


def _run_bytes(source: bytes, path: str, **settings):
    return process_source(source, path, Settings(all_codemods(), **settings))
