"""verify: units, the runtime's recording, verdicts, and end to end on real backends.

The end-to-end tests run the CLI on small projects in a temporary directory; every run is a real
interpreter on a real backend, so they are the slow part of the suite (about a minute of CPU each
for the four-backend ones).
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from rewriter import units
from rewriter.cli import main
from rewriter.engine import Settings, process_source
from rewriter.registry import all_codemods
from rewriter import runtime
from rewriter.verify import session
from rewriter.verify.report import CALLS_DIFFER, DIFFERS, EQUAL, FAILS, NOT_COMPARABLE, NOT_EXERCISED, compare_calls
from tests.harness.projects import verify_json, write_files

pytestmark = pytest.mark.backends

ALL = ("numpy", "jax", "torch", "tensorflow")

# A PhiML `if` on a traced value: jax and tensorflow raise, torch bakes in the first call's branch.
TRACED_IF = '''
from phiml import math


@math.jit_compile
def scale_or_shift(x):
    if (x > 0).all:
        return x * 2
    return x - 1


def program():
    return [scale_or_shift(math.tensor(v, math.spatial("x"))) for v in ([1., 2., 3.], [-1., 2., 3.])]


if __name__ == "__main__":
    print(program())
'''
FIXED = TRACED_IF.replace('''    if (x > 0).all:
        return x * 2
    return x - 1''', '''    return math.where(math.all(x > 0), x * 2, x - 1)''')
DROPPED_BRANCH = TRACED_IF.replace('''    if (x > 0).all:
        return x * 2
    return x - 1''', '''    return x * 2''')


def _by_backend(data: dict, unit: str) -> dict[str, dict]:
    return {u["backend"]: u for u in data["verification"]["units"] if u["unit"] == unit}


# -- units ----------------------------------------------------------------------------------------

def test_units_and_changes():
    old = textwrap.dedent('''
        import jax
        X = 1
        def f(x):
            return x + X
        class Model:
            scale = 2
            def forward(self, x):
                return x * self.scale
        g = jax.jit(f)
        print(g(1))
    ''')
    new = old.replace("x * self.scale", "self.scale * x").replace("print(g(1))", "print(g(2))")
    table = units.units(old)
    assert {"X", "f", "Model", "Model.forward", "g", units.MODULE} == set(table)
    assert [(u.name, u.kind) for u in units.changed_units(old, new)] == [("Model.forward", "method"), (units.MODULE, "module")]
    assert units.unit_at(old, 9) == "Model.forward"
    assert units.unit_at(old, 7) == "Model"
    assert units.unit_at(old, 11) == units.MODULE


# -- the runtime, in process ------------------------------------------------------------------

def test_instrumentation_records_calls_and_keeps_signatures(tmp_path):
    source = textwrap.dedent('''
        def add(a, b=1, *, c=0):
            return a + b + c
        class Box:
            def scaled(self, k):
                return [self.v * k, {"k": k}]
        def boom(x):
            raise ValueError(x)
        untouched = 3
    ''')
    recorder = runtime.Recorder({"out": str(tmp_path)})
    tree = runtime.instrument(ast.parse(source), {"add", "Box.scaled", "boom"}, "m.py")
    namespace = {runtime.RECORD_NAME: recorder.wrap}
    exec(compile(tree, "m.py", "exec"), namespace)
    assert str(inspect.signature(namespace["add"])) == "(a, b=1, *, c=0)"  # PhiML inspects it
    assert namespace["add"](1, c=2) == 4
    box = namespace["Box"]()
    box.v = 2
    assert box.scaled(3) == [6, {"k": 3}]
    with pytest.raises(ValueError):
        namespace["boom"]("x")
    assert recorder.counts == {"m.py:add": 1, "m.py:Box.scaled": 1, "m.py:boom": 1}
    assert recorder.calls["m.py:add"][0]["value"] == {"__array__": 4, "shape": []}
    assert recorder.calls["m.py:Box.scaled"][0]["value"]["__seq__"][1] == {"__dict__": {"k": {"__array__": 3, "shape": []}}}
    assert recorder.calls["m.py:boom"][0]["error"] == "ValueError: x"


def test_the_workspace_mirrors_no_python_environment(tmp_path):
    from rewriter.verify import workspace

    write_files(tmp_path, {"main.py": "x = 1\n", "env/pyvenv.cfg": "", "env/lib/jax.py": "", "envs/sim/conda-meta/history": "",
                           "envs/sim/lib/phi.py": "", "pkg/mod.py": ""})
    ws = workspace.create(tmp_path)
    try:
        mirrored = sorted(str(p.relative_to(ws.original)) for p in ws.original.rglob("*.py"))
    finally:
        ws.cleanup()
    assert mirrored == ["main.py", "pkg/mod.py"]


def test_compare_calls_statuses():
    one = {"__array__": [1.0], "shape": [1]}
    two = {"__array__": [2.0], "shape": [1]}
    ref = [{"index": 0, "value": one}]
    assert compare_calls(ref, [{"index": 0, "value": one}], 1, 1).status == EQUAL
    differs = compare_calls(ref, [{"index": 0, "value": two}], 1, 1)
    assert (differs.status, differs.max_abs) == (DIFFERS, 1.0)
    assert compare_calls(ref, [{"index": 0, "error": "TypeError: no"}], 1, 1).status == FAILS
    assert compare_calls(ref, [{"index": 0, "value": one}], 2, 1).status == CALLS_DIFFER
    assert compare_calls(ref, [], 1, 0, traced=1).status == NOT_COMPARABLE  # only seen while traced
    assert compare_calls([], [], 0, 0).status == NOT_EXERCISED
    # a tiny float32 reordering is equal, a real difference is not
    close = {"__array__": [1.00001], "shape": [1]}
    assert compare_calls(ref, [{"index": 0, "value": close}], 1, 1).status == EQUAL


def test_missing_backends_are_skipped_not_passed(monkeypatch, tmp_path):
    monkeypatch.setattr(session, "available_backends", lambda: {"numpy": True, "jax": True, "torch": False, "tensorflow": False})
    ws = type("WS", (), {"frameworks": {"phiml"}})()
    specs, skipped = session.plan(ws, None)
    assert skipped == {"torch": "not installed", "tensorflow": "not installed"}
    assert {s.backend for s in specs} == {"numpy", "jax"}
    assert len(specs) == 8  # original/rewritten x eager/jit


def test_engine_limits_unsafe_fixes_to_verified_units():
    case = Path(__file__).resolve().parent.parent / "golden" / "map-of-jit" / "map_of_jitted.py"
    source = case.read_bytes()
    codemods = all_codemods()
    denied = process_source(source, "m.py", Settings(codemods, unsafe_fixes=True, unsafe_units=frozenset()))
    assert denied.new_source is None
    allowed = process_source(source, "m.py", Settings(codemods, unsafe_fixes=True, unsafe_units=frozenset({"golden_run"})))
    assert b"return energy(u)" in allowed.new_source
    withheld = process_source(source, "m.py", Settings(codemods, unsafe_fixes=True, withheld_units=frozenset({"golden_run"})))
    assert withheld.new_source is None


# -- end to end -----------------------------------------------------------------------------

def test_dropped_branch_differs_where_the_original_runs_and_where_it_fails(tmp_path, monkeypatch):
    """A wrong rewrite is caught against the original's eager result: on numpy, where the original runs,
    and on jax, where it raises under jit (every backend's verdict is the same code path: the four-backend
    run is test_traced_if_is_wrong_before_and_fixed_after's)."""
    write_files(tmp_path, {"proj/model.py": TRACED_IF, "wrong/model.py": DROPPED_BRANCH})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["model.py", "--rewritten", "../wrong/model.py", "--run", "python model.py",
                          "--backend", "numpy", "--backend", "jax"])
    assert code == 1
    verdicts = _by_backend(data, "scale_or_shift")
    assert set(verdicts) == {"numpy", "jax"}
    assert verdicts["jax"]["original"]["status"] == FAILS
    for backend, v in verdicts.items():
        assert v["rewritten"]["status"] == DIFFERS, (backend, v)
        assert v["rewritten"]["max_abs"] == pytest.approx(4.0)  # second call, x = 3: 6 instead of 2
        assert v["replay"]["status"] == DIFFERS
        assert not v["verified"]


def test_traced_if_is_wrong_before_and_fixed_after(tmp_path, monkeypatch):
    write_files(tmp_path, {"proj/model.py": TRACED_IF, "fixed/model.py": FIXED})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["model.py", "--rewritten", "../fixed/model.py", "--run", "python model.py"])
    assert code == 0, data
    verdicts = _by_backend(data, "scale_or_shift")
    original = {b: (v["original"]["status"], v["original"]["detail"].split(":")[0]) for b, v in verdicts.items()}
    assert original["numpy"][0] == EQUAL
    assert original["torch"][0] == DIFFERS  # silently wrong: the first call's branch is baked in
    assert original["jax"] == (FAILS, "TracerBoolConversionError")
    assert original["tensorflow"][0] == FAILS
    for backend, v in verdicts.items():
        assert (v["rewritten"]["status"], v["rewritten_eager"]["status"], v["replay"]["status"]) == (EQUAL, EQUAL, EQUAL), backend
        assert v["verified"]
    backends = {b["backend"]: b for b in data["verification"]["backends"]}
    assert backends["jax"]["program"]["original_jit"].startswith("fails")
    assert backends["torch"]["program"]["original_jit"] == "ok"  # no error: only verify shows it is wrong


def test_pytest_mode_reports_tests_that_pass_before_and_fail_after(tmp_path, monkeypatch):
    ops = '''
        from phiml import math


        @math.jit_compile
        def shift(x):
            return math.where(x > 0, x, x - 1)


        def total(x):
            return math.sum(shift(x))
    '''
    write_files(tmp_path, {
        "proj/pkg/__init__.py": "",
        "proj/pkg/ops.py": ops,
        "proj/tests/test_ops.py": '''
            from phiml import math
            from pkg.ops import total


            def test_positive():
                assert abs(float(total(math.tensor([1., 2.], math.spatial("x")))) - 3) < 1e-5


            def test_mixed():
                assert abs(float(total(math.tensor([-1., 2.], math.spatial("x")))) - 0) < 1e-5
        ''',
        "wrong/ops.py": ops.replace("x - 1", "x + 1"),
    })
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["pkg/ops.py", "--rewritten", "../wrong/ops.py", "--pytest", "tests",
                          "--backend", "numpy", "--backend", "torch"])
    assert code == 1
    for backend in data["verification"]["backends"]:
        assert backend["test_regressions"] == ["tests/test_ops.py::test_mixed"], backend
    verdicts = _by_backend(data, "shift")
    assert {v["rewritten"]["status"] for v in verdicts.values()} == {DIFFERS}


def test_in_place_verify_applies_unsafe_fixes_only_where_verified(tmp_path, monkeypatch):
    write_files(tmp_path, {"proj/energy.py": '''
        import numpy as np
        from phiml import math
        from phiml.math import batch, spatial


        @math.jit_compile
        def energy(u):
            return math.sum(u ** 2, "x")


        def used():
            u = math.tensor(np.arange(12, dtype=np.float32).reshape(3, 4), batch("b"), spatial("x"))
            return math.map(energy, u, dims=batch)


        def unused(u):
            return math.map(energy, u, dims=batch)


        if __name__ == "__main__":
            print(used())
    '''})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["energy.py", "--run", "python energy.py", "--in-place", "--backend", "numpy", "--backend", "jax"])
    assert code == 3, data  # `unused` was not compared
    assert data["verification"]["not_compared"] == [{"file": "energy.py", "unit": "unused", "why": "not called by the command"}]
    text = (tmp_path / "proj" / "energy.py").read_text()
    assert "def used():" in text and "    return energy(u)\n" in text  # verified on numpy and jax
    assert "def unused(u):\n    return math.map(energy, u, dims=batch)" in text  # never ran: stays a finding
    assert data["written"] == [{"path": "energy.py", "applied": ["PML304:14"]}]


def test_raw_jax_program_runs_on_its_own_framework(tmp_path, monkeypatch):
    write_files(tmp_path, {"proj/train.py": '''
        import jax
        import jax.numpy as jnp


        def step(w, x):
            return w - 0.1 * jnp.tanh(w * x)


        def train(w, xs):
            for x in xs:
                w = jax.jit(step)(w, x)
            return w


        if __name__ == "__main__":
            print(train(jnp.ones(3), [jnp.full(3, i / 10) for i in range(6)]))
    '''})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["train.py", "--run", "python train.py"])
    assert code == 0, data
    [backend] = data["verification"]["backends"]
    assert backend["backend"] == "jax"
    assert backend["jax_compiles"][0] >= 1
    assert _by_backend(data, "train")["jax"]["rewritten"]["status"] == EQUAL


def test_nothing_to_verify_and_usage_errors(tmp_path, monkeypatch):
    write_files(tmp_path, {"clean.py": "x = 1\n"})
    monkeypatch.chdir(tmp_path)
    code, data = verify_json(["clean.py", "--run", "python clean.py"])
    assert (code, data["verification"]) == (0, None)
    assert "nothing to verify" in data["message"]
    result = CliRunner().invoke(main, ["verify", "clean.py"])  # neither --run nor --pytest: synthesized inputs
    assert result.exit_code == 0 and "nothing to verify" in result.output
    result = CliRunner().invoke(main, ["verify", "clean.py", "--run", "python clean.py", "--pytest", "tests"])
    assert result.exit_code == 2 and "give one of --run COMMAND and --pytest TESTS" in result.output
    result = CliRunner().invoke(main, ["verify", "/", "--run", "python x.py"])
    assert result.exit_code == 2 and "outside the current directory" in result.output


def test_pytest_plugin_selects_phiml_backend_on_its_own(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "test_backend.py").write_text(textwrap.dedent('''
        from phiml import backend


        def test_default_backend():
            assert backend.default_backend().name == "torch"
    '''))
    env = {**os.environ, "PHIML_REWRITE_BACKEND": "torch"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "rewriter.verify.pytest_plugin", "-p", "no:cacheprovider",
                           str(tmp_path / "test_backend.py")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
