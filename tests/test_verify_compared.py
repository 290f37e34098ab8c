"""verify claims only what it compared: returned functions, values that cannot be compared, test
functions judged by their outcome, runs in parallel and cut short.

The end-to-end tests here run plain Python programs and pytest suites (verify's "python" column: no
framework, so no backend starts) except those marked `backends`, which run PhiML on numpy and jax.
"""
from __future__ import annotations

import ast
import functools
import json
import textwrap
import time

import pytest
from click.testing import CliRunner

from rewriter import runtime
from rewriter.cli import main
from rewriter.verify import report, session
from rewriter.verify.progress import Lines, Live
from rewriter.verify.report import (DIFFERS, EQUAL, FAILS, NOT_COMPARABLE, compare_calls,
                                    verdicts)
from rewriter.verify.session import RunResult, RunSpec
from rewriter.verify.values import compare
from tests.harness.projects import verify_json, write_files

# -- the runtime: what a returned function and an opaque value are recorded as -----------------------


def _instrumented(source: str, units: set[str], recorder: runtime.Recorder) -> dict:
    tree = runtime.instrument(ast.parse(textwrap.dedent(source)), units, "m.py")
    namespace = {runtime.RECORD_NAME: recorder.wrap}
    exec(compile(tree, "m.py", "exec"), namespace)
    return namespace


FACTORIES = '''
    import functools

    def make_scale(k):
        def scale(x):
            return x * k
        return scale

    def make_pair(k):
        return (lambda x: x + k), k, functools.partial(pow, k)

    def numbers(n):
        yield from range(n)

    class Box:
        pass

    def box():
        return Box()

    CACHE = {}

    def cached():
        return CACHE.setdefault("f", lambda x: x + 1)
'''


def test_returned_functions_are_recorded_through_their_calls(tmp_path):
    recorder = runtime.Recorder({"out": str(tmp_path)})
    ns = _instrumented(FACTORIES, {"make_scale", "make_pair", "numbers", "box", "cached"}, recorder)
    scale = ns["make_scale"](3)
    assert scale.__name__ == "scale" and scale(2) == 6 and scale(5) == 15
    assert recorder.calls["m.py:make_scale"] == [{"index": 0, "inputs": None, "value": {"__callable__": "make_scale.<locals>.scale"}}]
    calls = recorder.calls["m.py:make_scale/returned"]
    assert [c["value"] for c in calls] == [{"__array__": 6, "shape": []}, {"__array__": 15, "shape": []}]
    assert [c["origin"] for c in calls] == [{"parent": "m.py:make_scale", "parent_index": 0, "nth": n} for n in (0, 1)]
    add, k, power = ns["make_pair"](2)
    assert (add(1), k, power(3)) == (3, 2, 8)
    assert power.func is pow and power.args == (2,)  # a partial keeps its attributes through the proxy
    assert recorder.counts["m.py:make_pair/returned[0]"] == recorder.counts["m.py:make_pair/returned[2]"] == 1
    assert list(ns["numbers"](3)) == [0, 1, 2]  # the program still gets its generator
    assert recorder.calls["m.py:numbers"][0]["value"]["__opaque__"] == "generator"
    assert type(ns["box"]()).__name__ == "Box"
    assert ns["cached"]() is ns["cached"]()  # the same function returned twice: the same wrapper
    assert ns["cached"]()(1) == 2 and recorder.calls["m.py:cached/returned"][0]["origin"]["nth"] == 0
    assert "its repr is only its address" in recorder.calls["m.py:box"][0]["value"]["why"]


def test_a_method_of_a_returned_jit_proxy_binds_like_the_function():
    """A partial read from an instance stays unbound (partials are no descriptors); a function binds."""
    recorder = runtime.Recorder({"out": "/nonexistent"})
    holder = type("Holder", (), {"p": recorder.wrap_returned("m.py:f/returned", functools.partial(max, 0), "m.py:f", 0),
                                 "g": recorder.wrap_returned("m.py:g/returned", lambda self, x: x + 1, "m.py:g", 0)})
    assert holder().p(-5) == 0
    assert holder().g(1) == 2


# -- comparison and verdicts ------------------------------------------------------------------------

FN = {"__callable__": "make.<locals>.f"}
GEN = {"__opaque__": "generator", "why": "a generator yields its values only when its caller iterates it"}


def _value(v) -> dict:
    return {"__array__": v, "shape": []}


def test_functions_match_functions_and_opaque_values_match_nothing():
    assert compare(FN, FN).equal and not compare(FN, FN).data
    mixed = compare({"__seq__": [FN, _value(1.0)]}, {"__seq__": [FN, _value(1.0)]})
    assert mixed.equal and mixed.data and mixed.functions == ("result[0]",)
    assert compare(GEN, GEN).uncomparable.startswith("result is a generator")
    assert compare(FN, _value(1.0)).reason == "result: expected a function (make.<locals>.f), got an array"
    assert compare_calls([{"index": 0, "value": FN}], [{"index": 0, "value": FN}], 1, 1).status == NOT_COMPARABLE
    assert compare_calls([{"index": 0, "value": GEN}], [{"index": 0, "value": GEN}], 1, 1).status == NOT_COMPARABLE


def _run(version: str, eager: bool, calls: dict[str, list], *, backend: str = "numpy", exit_code: int | None = 0,
         tests: dict[str, str] | None = None, functions: dict[str, str] | None = None) -> RunResult:
    recorded = {key: [{"index": i, "value": v} for i, v in enumerate(values)] for key, values in calls.items()}
    return RunResult(RunSpec(backend, version, eager, True), exit_code, "", 1.0, recorded,
                     {key: len(v) for key, v in recorded.items()}, tests=tests or {}, test_functions=functions or {})


def _four(reference: dict, rewritten: dict, **kwargs) -> list[RunResult]:
    return [_run("original", True, reference, **kwargs), _run("original", False, reference, **kwargs),
            _run("rewritten", False, rewritten, **kwargs), _run("rewritten", True, rewritten, **kwargs)]


def test_a_factory_is_judged_by_what_its_functions_return():
    made = {"m.py:make": [FN, FN], "m.py:make/returned": [_value(1.0), _value(2.0)]}
    wrong = {"m.py:make": [FN, FN], "m.py:make/returned": [_value(1.0), _value(3.0)]}
    idle = {"m.py:make": [FN]}
    units = [("m.py", ["make"])]

    [same] = verdicts(_four(made, made), units, {}, []).units
    assert (same.rewritten.status, same.rewritten.calls, same.verified) == (EQUAL, 2, True)
    assert report.describe(same.rewritten) == "equal (via returned functions)"
    verification = verdicts(_four(made, wrong), units, {}, [])
    assert (verification.units[0].rewritten.status, verification.exit_code) == (DIFFERS, 1)
    verification = verdicts(_four(idle, idle), units, {}, [])
    assert verification.units[0].rewritten.status == NOT_COMPARABLE
    assert verification.exit_code == 3
    assert verification.not_compared() == {("m.py", "make"): "not comparable: returns a function that the program never calls"}


def test_what_was_not_compared_is_listed_and_never_passes():
    runs = _four({"m.py:gen": [GEN], "m.py:fine": [_value(1.0)]}, {"m.py:gen": [GEN], "m.py:fine": [_value(1.0)]})
    verification = verdicts(runs, [("m.py", ["gen", "fine", "idle"])], {}, [])
    assert verification.exit_code == 3
    assert verification.not_compared() == {
        ("m.py", "gen"): "not comparable: result is a generator: a generator yields its values only when its caller iterates it",
        ("m.py", "idle"): "not called by the command",
    }
    assert verification.verified_units() == {("m.py", "fine")}
    both = verdicts(_four({"m.py:fine": [_value(1.0)]}, {"m.py:fine": [_value(1.0)]}), [("m.py", ["fine"])], {}, [])
    assert (both.exit_code, both.not_compared()) == (0, {})


def test_a_run_cut_short_is_neither_passed_nor_failed():
    reference = {"m.py:f": [_value(1.0)]}
    runs = _four(reference, reference)
    runs[2] = _run("rewritten", False, {}, exit_code=None)  # killed at the timeout: no records
    verification = verdicts(runs, [("m.py", ["f"])], {}, [])
    [unit] = verification.units
    assert unit.rewritten.status == NOT_COMPARABLE and "cut short" in unit.rewritten.detail
    assert not unit.bad and unit.verified  # the eager rewrite still agrees
    assert verification.cut_short() == ["numpy/rewritten/jit"]
    assert verification.exit_code == 3


def test_a_changed_test_function_is_judged_by_its_outcome():
    functions = {"t/test_a.py::test_x[1]": "t/test_a.py:test_x", "t/test_a.py::test_x[2]": "t/test_a.py:test_x",
                 "t/test_a.py::TestB::test_y": "t/test_a.py:TestB.test_y"}
    passed = {test: "passed" for test in functions}
    units = [("t/test_a.py", ["test_x", "TestB.test_y"])]
    runs = [_run("original", True, {}, tests=passed, functions=functions), _run("original", False, {}, tests=passed, functions=functions),
            _run("rewritten", False, {}, tests=passed, functions=functions),
            _run("rewritten", True, {}, tests={**passed, "t/test_a.py::test_x[2]": "failed"}, functions=functions)]
    found = {u.unit: u for u in verdicts(runs, units, {}, []).units}
    assert (found["TestB.test_y"].rewritten.status, found["TestB.test_y"].rewritten.outcome, found["TestB.test_y"].verified) == \
        (EQUAL, True, True)
    assert found["test_x"].rewritten.detail == "passes, as with the original (2 tests)"
    eager = found["test_x"].rewritten_eager
    assert (eager.status, eager.detail) == (FAILS, "t/test_a.py::test_x[2] passed with the original, failed here")
    assert report.describe(eager) == "fails: t/test_a.py::test_x[2] passed with the original, failed here"


# -- sessions: order, the pool, the timeout, the progress ----------------------------------------------


def test_eager_originals_run_first_slowest_backend_first():
    specs = [RunSpec(b, v, e, True) for b in ("numpy", "jax", "tensorflow") for v in ("original", "rewritten") for e in (True, False)]
    ordered = [s.label for s in session.ordered(specs)]
    assert ordered[:3] == ["tensorflow/original/eager", "jax/original/eager", "numpy/original/eager"]
    assert ordered[3:6] == ["tensorflow/original/jit", "tensorflow/rewritten/jit", "tensorflow/rewritten/eager"]


def test_a_job_may_submit_more_and_the_pool_waits_for_them():
    done = []
    with session.Jobs(2) as jobs:
        def first():
            done.append("first")
            jobs.submit(lambda: (time.sleep(0.2), done.append("second")))  # submitted last, waited for too

        jobs.submit(first)
        jobs.wait()
    assert done == ["first", "second"]


def test_the_timeout_kills_the_commands_children_too(tmp_path):
    """A child that keeps the output pipe open would make a plain `subprocess.run` wait on it."""
    start = time.perf_counter()
    code, _ = session.run_process(["sh", "-c", "sleep 60 & sleep 60"], tmp_path, {"PATH": "/usr/bin:/bin"}, timeout=1)
    assert code is None
    assert time.perf_counter() - start < 15


def test_progress_lines_and_live_display():
    said = []
    lines = Lines(said.append)
    lines.finish("numpy", "original", "eager", "ok", 1.25)
    assert said == ["numpy/original/eager: ok (1.2 s)"]
    from rich.console import Console

    console = Console(record=True, width=120, force_terminal=False)
    with Live(console) as live:
        live.plan({("jax", "original"): ["jit", "eager"], ("jax", "rewritten"): ["eager", "jit", "replay"]})
        live.start("jax", "original", "eager")
        live.finish("jax", "original", "eager", "ok", 2.0)
        live.start("jax", "original", "jit")
        live.finish("jax", "original", "jit", "cut short by --timeout", 9.0)
    text = console.export_text()
    assert "jax original" in text and "eager ok 2.0 s · jit cut short by --timeout 9.0 s" in text
    assert "jax rewritten" in text and "eager waiting · jit waiting · replay waiting" in text


# -- end to end, plain Python: no backend ------------------------------------------------------------

CLOSURES = '''
def make_step(k):
    def step(x):
        return [v * k + 1 for v in x]
    return step


def numbers(n):
    for i in range(n):
        yield i * 2


def program():
    steps = [make_step(k) for k in (1, 2)]
    return [step([1.0, 2.0]) for step in steps], sum(numbers(4))


if __name__ == "__main__":
    print(program())
'''


def _units(data: dict) -> dict[str, dict]:
    return {u["unit"]: u for u in data["verification"]["units"]}


def test_a_closure_factory_is_verified_through_its_closures_and_a_generator_is_not_comparable(tmp_path, monkeypatch):
    write_files(tmp_path, {"proj/model.py": CLOSURES,
                      "same/model.py": CLOSURES.replace("v * k + 1", "k * v + 1").replace("yield i * 2", "yield 2 * i"),
                      "wrong/model.py": CLOSURES.replace("v * k + 1", "v * k - 1")})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["model.py", "--rewritten", "../same/model.py", "--run", "python model.py"])
    units = _units(data)
    assert {u["backend"] for u in units.values()} == {"python"}
    step = units["make_step"]
    assert (step["rewritten"]["status"], step["rewritten"]["calls"], step["replay"]["status"], step["verified"]) == \
        (EQUAL, 2, EQUAL, True)
    assert units["numbers"]["rewritten"]["status"] == NOT_COMPARABLE and "generator" in units["numbers"]["rewritten"]["detail"]
    assert code == 3  # the generator was not compared: no ✓, not 0

    text = CliRunner().invoke(main, ["verify", "model.py", "--rewritten", "../same/model.py", "--run", "python model.py"]).output
    assert "✓ the rewrite agrees" not in text
    assert "numbers (model.py): not comparable: result is a generator" in text

    code, data = verify_json(["model.py", "--rewritten", "../wrong/model.py", "--run", "python model.py"])
    step = _units(data)["make_step"]
    assert code == 1
    assert (step["rewritten"]["status"], step["replay"]["status"]) == (DIFFERS, DIFFERS)


TESTS = '''
def double(x):
    return x * 2


def test_double():
    assert double(2) == 4


class TestSums:
    def test_sum(self, offset):
        assert sum([1, 2]) + offset == 3

    def test_other(self):
        assert True
'''
CONFTEST = '''
import pytest


@pytest.fixture
def offset():
    return 0
'''


def test_changed_test_functions_are_verified_by_their_outcome(tmp_path, monkeypatch):
    """The test function by its outcome, a helper of the test file by its values (recorded though
    pytest imports test files itself), a changed fixture by the value pytest made for each test."""
    write_files(tmp_path, {"proj/tests/test_ops.py": TESTS, "proj/tests/conftest.py": CONFTEST,
                      "same/test_ops.py": TESTS.replace("sum([1, 2])", "sum([2, 1])").replace("x * 2", "2 * x"),
                      "same/conftest.py": CONFTEST.replace("return 0", "return 1 - 1"),
                      "wrong/test_ops.py": TESTS.replace("sum([1, 2])", "sum([1, 3])"), "wrong/conftest.py": CONFTEST})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["tests", "--rewritten", "../same", "--pytest", "tests"])
    units = _units(data)
    assert code == 0, data
    assert set(units) == {"double", "TestSums.test_sum", "offset"}
    assert units["TestSums.test_sum"]["rewritten"] == {**units["TestSums.test_sum"]["rewritten"], "status": EQUAL, "by_outcome": True}
    assert units["double"]["rewritten"]["calls"] == 1 and units["double"]["verified"]
    assert units["offset"]["rewritten"]["calls"] == 1 and units["offset"]["verified"]

    code, data = verify_json(["tests", "--rewritten", "../wrong", "--pytest", "tests"])
    verdict = _units(data)["TestSums.test_sum"]
    assert code == 1
    assert verdict["rewritten"]["status"] == FAILS
    assert verdict["rewritten"]["detail"] == "tests/test_ops.py::TestSums::test_sum passed with the original, failed here"


def test_parallel_jobs_give_the_verdict_of_one_job(tmp_path, monkeypatch):
    write_files(tmp_path, {"proj/model.py": CLOSURES, "wrong/model.py": CLOSURES.replace("v * k + 1", "v * k - 1")})
    monkeypatch.chdir(tmp_path / "proj")

    def verdict(jobs: str) -> tuple:
        code, data = verify_json(["model.py", "--rewritten", "../wrong/model.py", "--run", "python model.py", "--jobs", jobs])
        units = sorted((u["unit"], u["backend"], *(json.dumps(u[k], sort_keys=True) for k in ("original", "rewritten", "rewritten_eager", "replay")))
                       for u in data["verification"]["units"])
        return code, units, sorted(data["verification"]["backends"][0]["runs"])

    assert verdict("1") == verdict("4")


# -- end to end on PhiML backends --------------------------------------------------------------------

PHIML_FACTORY = '''
from phiml import math


def make_step(k):
    @math.jit_compile
    def step(x):
        return math.safe_div(x * k, x + 10)
    return step


if __name__ == "__main__":
    x = math.tensor([1., 2., 3.], math.spatial("x"))
    print([make_step(k)(x) for k in (1., 2.)])
'''


@pytest.mark.backends
def test_a_factory_of_jit_compiled_functions_on_numpy_and_jax(tmp_path, monkeypatch):
    """The returned `jit_compile` function stays PhiML's own (a proxy records its calls): its calls
    are compared eagerly and jitted, and replayed from the factory's recorded inputs."""
    write_files(tmp_path, {"proj/model.py": PHIML_FACTORY, "new/model.py": PHIML_FACTORY.replace("x * k", "k * x")})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["model.py", "--rewritten", "../new/model.py", "--run", "python model.py",
                          "--backend", "numpy", "--backend", "jax"])
    assert code == 0, data
    for u in data["verification"]["units"]:
        assert (u["rewritten"]["status"], u["rewritten_eager"]["status"], u["replay"]["status"]) == (EQUAL, EQUAL, EQUAL), u
        assert u["rewritten"]["returns_functions"] and u["verified"]
    assert {u["backend"] for u in data["verification"]["units"]} == {"numpy", "jax"}
