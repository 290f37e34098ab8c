"""`phiml-rewrite profile`: programs that re-trace on purpose are named with the right reason, programs
that do not are left alone, and `--fix` bounds the trace cache without changing results."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from rewriter.cli import main
from rewriter.profile.report import FunctionProfile

pytestmark = pytest.mark.backends

PROGRAM = textwrap.dedent('''\
    from phiml import math
    from phiml.math import spatial


    @math.jit_compile(auxiliary_args='k')
    def damp(x, k):
        return x * math.exp(-k)


    @math.jit_compile
    def energy(x):
        return math.sum(x ** 2, 'x')


    @math.jit_compile
    def stable(x, k):
        return x * k


    def smooth(x):
        return 0.5 * x


    def main():
        x = math.tensor([1.0, 2.0, 3.0, 4.0], spatial('x'))
        out = []
        for i in range(5):
            x = damp(x, 0.1 * (i + 1))
            out.append(energy(math.pad(x, {'x': (0, i)}, 0)))
            x = stable(x, math.tensor(1.0 + 0.01 * i))
            out.append(math.jit_compile(smooth)(x))
        print([round(float(v.sum), 5) for v in out])


    main()
''')


def _profile(tmp_path: Path, *args: str, program: str = PROGRAM) -> tuple[int, dict]:
    (tmp_path / "program.py").write_text(program)
    runner = CliRunner()
    with _cwd(tmp_path):
        result = runner.invoke(main, ["profile", "--output-format", "json", *args, "--", "python", "program.py"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)


class _cwd:
    def __init__(self, path: Path) -> None:
        self.path, self.old = path, None

    def __enter__(self):
        import os

        self.old = os.getcwd()
        os.chdir(self.path)

    def __exit__(self, *exc):
        import os

        os.chdir(self.old)


def _by_name(data: dict) -> dict[str, dict]:
    return {f["name"]: f for f in data["retracing"]}


def test_names_each_retracing_function_with_its_reason_and_nothing_else(tmp_path):
    code, data = _profile(tmp_path, "--backend", "jax")
    assert code == 1
    found = _by_name(data)
    assert set(found) == {"damp", "energy", "smooth"}, found  # `stable` is traced once: its key is stable
    assert found["damp"]["cause"] == "auxiliary" and found["damp"]["traces"] == 5
    assert "auxiliary argument `k` changed: 0.1 -> 0.2" in found["damp"]["reason"]
    assert found["energy"]["cause"] == "shape" and "shape of `x` changed" in found["energy"]["reason"]
    assert found["smooth"]["cause"] == "per-call" and found["smooth"]["instances"] == 5
    assert found["damp"]["fix"] == found["energy"]["fix"] == "forget_traces"
    assert found["smooth"]["fix"] is None  # a new jit function per call: forgetting traces cannot help
    assert "PML302" in found["smooth"]["advice"]
    assert found["damp"]["call_sites"] == {"program.py:28": 5}
    assert [f["name"] for f in data["traced_once"]] == ["stable"]


def test_fix_bounds_the_cache_and_keeps_results(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    before = subprocess.run([sys.executable, "program.py"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    code, data = _profile(tmp_path, "--backend", "jax", "--fix")
    # damp's counter is found statically (the call, line 28); energy's padded shape only by running it (the def, line 11)
    assert data["written"] == [{"path": str(tmp_path / "program.py"), "applied": ["PML401:28", "PML401:11"], "error": None}]
    source = (tmp_path / "program.py").read_text()
    assert "@math.jit_compile(auxiliary_args='k', forget_traces=True)\ndef damp" in source
    assert "@math.jit_compile(forget_traces=True)\ndef energy" in source
    assert "@math.jit_compile\ndef stable" in source  # stable keys: left alone
    after = subprocess.run([sys.executable, "program.py"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert after == before
    _, again = _profile(tmp_path, "--backend", "jax", program=source)
    found = _by_name(again)
    assert found["damp"]["max_cache"] == found["energy"]["max_cache"] == 1  # was 5: bounded now
    assert found["damp"]["traces"] == 5  # still one per key: the stable key is the cure, and the advice says so
    assert found["damp"]["fix"] is None and "stable key" in found["damp"]["advice"]


def test_program_without_retracing_exits_zero(tmp_path):
    program = textwrap.dedent('''\
        from phiml import math
        from phiml.math import spatial

        @math.jit_compile(auxiliary_args='n')
        def step(x, n):
            return x * n

        x = math.tensor([1.0, 2.0], spatial('x'))
        for i in range(4):
            x = step(x, 2)
        print(x)
    ''')
    code, data = _profile(tmp_path, "--backend", "jax", program=program)
    assert code == 0 and data["retracing"] == []
    assert [(f["name"], f["calls"], f["traces"]) for f in data["traced_once"]] == [("step", 4, 1)]


def test_forget_traces_on_keys_that_come_back_is_reported(tmp_path):
    program = textwrap.dedent('''\
        from phiml import math
        from phiml.math import spatial

        @math.jit_compile(forget_traces=True)
        def total(x):
            return math.sum(x, 'x')

        for i in range(6):
            total(math.zeros(spatial(x=2 + i % 2)))
    ''')
    _, data = _profile(tmp_path, "--backend", "jax", program=program)
    total = _by_name(data)["total"]
    assert total["traces"] == 6 and total["returned_keys"] == 4
    assert "remove it" in total["advice"] and total["fix"] is None


def test_raw_jax_compiles_are_explained(tmp_path):
    program = textwrap.dedent('''\
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=1)
        def power(x, n):
            return (x ** n).sum()

        @jax.jit
        def total(x):
            return x.sum()

        x = jnp.arange(6.0)
        for n in range(1, 4):
            power(x, n)
            total(x[:n])
            jax.jit(lambda v: v * 2)(x)
        total(x[:1])
    ''')
    code, data = _profile(tmp_path, program=program)
    assert [r["backend"] for r in data["runs"]] == ["jax"]  # raw jax: one run, whatever PhiML's backend
    found = _by_name(data)
    assert found["power"]["cause"] == "static" and found["power"]["traces"] == 3
    assert found["total"]["cause"] == "shape" and found["total"]["traces"] == 3
    assert found["<lambda>"]["cause"] == "per-call"
    assert "at x, now f32[2] and before f32[1]" in found["total"]["reason"]


@pytest.mark.skipif(not __import__("importlib").util.find_spec("tensorflow"), reason="tensorflow not installed")
def test_hidden_backend_retraces_on_tensorflow(tmp_path):
    """PhiML keeps one trace for a Python number, but tf.function traces once per value: only the
    profiler's count of body runs sees it."""
    program = textwrap.dedent('''\
        from phiml import math
        from phiml.math import spatial

        @math.jit_compile
        def scale(x, k):
            return x * k

        x = math.tensor([1.0, 2.0], spatial('x'))
        for i in range(4):
            x = scale(x, 1.0 + i)
    ''')
    _, data = _profile(tmp_path, "--backend", "tensorflow", program=program)
    scale = _by_name(data)["scale"]
    assert scale["traces"] == 1 and scale["hidden_traces"] == 3
    assert scale["cause"] == "python-number" and scale["fix"] is None
    assert "Python number `k` changed: 1.0 -> 2.0" in scale["reason"]


def test_pytest_mode(tmp_path):
    (tmp_path / "test_grow.py").write_text(textwrap.dedent('''\
        from phiml import math
        from phiml.math import spatial

        @math.jit_compile
        def total(x):
            return math.sum(x, 'x')

        def test_sizes():
            for n in range(2, 6):
                assert float(total(math.ones(spatial(x=n)))) == n
    '''))
    with _cwd(tmp_path):
        result = CliRunner().invoke(main, ["profile", "--backend", "jax", "--output-format", "json", "--pytest", "test_grow.py"])
    data = json.loads(result.output)
    assert data["runs"][0]["exit_code"] == 0
    assert _by_name(data)["total"]["cause"] == "shape"


def test_usage_errors():
    runner = CliRunner()
    assert runner.invoke(main, ["profile"]).exit_code == 2
    assert runner.invoke(main, ["profile", "--pytest", "x", "--", "python", "y.py"]).exit_code == 2


def _fp(**kw) -> FunctionProfile:
    base = dict(kind="jit_compile", name="f", file="a.py", line=1, backends=["jax"], calls=10, traces=10,
                reasons={"shape": 9}, texts={"shape of `x` changed": 9})
    return FunctionProfile(**{**base, **kw})


def test_forget_is_proposed_only_for_keys_that_never_come_back():
    assert _fp().forget_fix
    assert not _fp(older_key_hits=1).forget_fix  # the cache served an older key
    assert not _fp(forget_traces=True).forget_fix
    assert not _fp(kind="custom_gradient").forget_fix  # has no forget_traces
    assert not _fp(kind="jax.jit").forget_fix
    assert not _fp(traces=2, reasons={"shape": 1}).forget_fix  # a second signature is not a leak
    assert not _fp(reasons={"per-call": 9}, texts={"a new jit function object": 9}).forget_fix
    assert not _fp(hidden_traces=3).forget_fix


def test_nested_traces_are_the_outer_functions_doing():
    f = _fp(traces=4, nested_traces=4, reasons={"nested": 3})
    assert f.retraces == 0 and f.cause is None
    assert _fp(traces=6, backends=["jax", "torch"]).retraces == 4  # one first trace per backend


ROOT = Path(__file__).resolve().parent.parent


def _demo(*args: str) -> dict:
    with _cwd(ROOT):
        result = CliRunner().invoke(main, ["profile", "--output-format", "json", *args])
    assert result.exit_code == 1, result.output
    return json.loads(result.output)


def test_demo_phiml_program_names_exactly_its_retracing_functions():
    data = _demo("--backend", "torch", "--", "python", "examples/phiml_diffusion.py", "torch")
    found = {(f["name"], f["line"]): f["cause"] for f in data["retracing"]}
    assert found == {
        ("diffuse", 13): "per-call",  # simulate / two_steps: jit_compile(diffuse) per call
        ("total_heat", 18): "per-call",  # heat_report
        ("<lambda>", 59): "per-call",  # implicit_step: jit_compile_linear(lambda) per call
        ("blur", 65): "per-call",  # smooth: nested jitted def
        ("heated_step", 91): "auxiliary",  # simulate_heated: a new auxiliary `t` every step
        ("<lambda>", 128): "per-call",  # conductivity_sweep: one jitted lambda per value, on purpose
    }
    assert {f["name"] for f in data["traced_once"]} == {"limited_step", "relax", "run_fixed", "two_steps", "step"}


def test_demo_jax_program_names_exactly_its_retracing_functions():
    data = _demo("--", "python", "examples/jax_training.py")
    found = {(f["name"], f["line"]): f["cause"] for f in data["retracing"]}
    assert found == {
        ("<lambda>", 64): "per-call",  # train: jax.jit(lambda) every epoch
        ("sgd_step", 48): "per-call",  # fast_sgd_step = jax.jit(sgd_step): a second wrapper, a second compile
        ("<lambda>", 91): "per-call",  # lr_sweep: one jitted lambda per learning rate, on purpose
    }


def test_custom_gradient_traces_are_counted(tmp_path):
    program = textwrap.dedent('''\
        from phiml import math
        from phiml.math import spatial

        def clipped(x):
            return math.clip(x, -1, 1)

        def clipped_gradient(inputs, y, dy):
            return {'x': dy}

        op = math.custom_gradient(clipped, clipped_gradient)
        for n in range(2, 6):
            op(math.ones(spatial(x=n)))
    ''')
    _, data = _profile(tmp_path, "--backend", "jax", program=program)
    found = _by_name(data)["clipped"]
    assert found["kind"] == "custom_gradient" and found["traces"] == 4 and found["cause"] == "shape"
    assert found["fix"] is None  # custom_gradient has no forget_traces: the advice is the stable key


def test_program_outside_the_current_directory_is_profiled(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "program.py").write_text(PROGRAM)
    with _cwd(tmp_path / "sub"):
        result = CliRunner().invoke(main, ["profile", "--backend", "jax", "--output-format", "json", "--", "python",
                                           "../elsewhere/program.py"])
    data = json.loads(result.output)
    assert {f["name"] for f in data["retracing"]} == {"damp", "energy", "smooth"}
    assert data["retracing"][0]["file"] == str((tmp_path / "elsewhere" / "program.py").resolve())


def test_a_program_that_inspects_the_cache_keeps_it(tmp_path):
    """Tests that call trace_check depend on remembered traces: no forget_traces for that function."""
    program = textwrap.dedent('''\
        from phiml import math
        from phiml.math import spatial

        @math.jit_compile(auxiliary_args='k')
        def scale(x, k):
            return x * k

        x = math.tensor([1.0, 2.0], spatial('x'))
        for i in range(4):
            x = scale(x, 1.0 + i)
        assert not math.trace_check(scale, x, 9.0)[0]
    ''')
    _, data = _profile(tmp_path, "--backend", "jax", program=program)
    scale = _by_name(data)["scale"]
    assert scale["cause"] == "auxiliary" and scale["fix"] is None
    assert scale["cache_inspected"] == "program.py:11" and "left to you" in scale["advice"]
