"""verify on programs that draw random numbers: seeded runs, restored generator states, unseeded draws.

A rewrite that only swaps a function for its exact alias must be reported equal even where the
function draws random numbers (every run is seeded; replay restores each call's generator states),
and a function drawing from a source no seed reaches must be reported as such, never as "differs".
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from rewriter import runtime
from rewriter.verify import workspace
from rewriter.verify.report import (CALLS_DIFFER, DIFFERS, EQUAL, FAILS, UNSEEDED, references_to_repeat, replays_to_repeat,
                                    verdicts)
from rewriter.verify.session import RunResult, RunSpec
from tests.harness.projects import verify_json, write_files

pytestmark = pytest.mark.backends

ALL = ("numpy", "jax", "torch", "tensorflow")

# PML602 renames PhiFlow 2's `math.divide_no_nan` to `math.safe_div`: phiflow 3.4 defines one as the other.
NOISY = '''
from phi import math
from phi.math import spatial


def noisy_half(x):
    return math.divide_no_nan(x + math.random_normal(x.shape), x)


def program():
    math.random_normal(spatial(x=2))  # drawn before the first call: replay must restore the state
    x = math.tensor([1., 2., 3.], spatial("x"))
    return [noisy_half(x) for _ in range(2)]


if __name__ == "__main__":
    print(program())
'''

UNSEEDED_SOURCES = '''
import os

import numpy as np
from phi import math
from phi.math import spatial


def jitter(x):  # a generator of its own, seeded by the OS
    rng = np.random.default_rng()
    return math.divide_no_nan(x + math.tensor(rng.normal(size=3), spatial("x")), x)


def salt(x):  # the OS's entropy itself
    return math.divide_no_nan(x + int.from_bytes(os.urandom(4), "little") / 2 ** 32, x)


def shift(x):  # no randomness at all
    return math.divide_no_nan(x + 1, x)


def scale(x):  # no randomness of its own: it is given unseeded random numbers
    return math.divide_no_nan(2 * x, x + 10)


if __name__ == "__main__":
    x = math.tensor([1., 2., 3.], spatial("x"))
    noise = math.tensor(np.random.default_rng().normal(size=3), spatial("x"))
    print([f(x) for f in (jitter, salt, shift)], scale(x + noise))
'''
# The exact alias everywhere, and two real mistakes (in `shift` and `scale`), which must still be reported.
UNSEEDED_REWRITTEN = UNSEEDED_SOURCES.replace("math.divide_no_nan", "math.safe_div").replace("x + 1, x)", "x - 1, x)") \
    .replace("2 * x, x + 10", "3 * x, x + 10")

RAW_JAX = '''
import jax.numpy as jnp
import numpy as np


def perturb(w):
    return jnp.absolute(w + jnp.asarray(np.random.normal(size=w.shape), dtype=w.dtype))


if __name__ == "__main__":
    np.random.normal(size=5)  # drawn before the first call: replay must restore numpy's state
    w = jnp.ones(3)
    for _ in range(2):
        w = perturb(w)
    print(w)
'''
RAW_JAX_REWRITTEN = RAW_JAX.replace("jnp.absolute(", "jnp.abs(")  # jax.numpy defines abs = absolute


def _statuses(data: dict, unit: str) -> dict[str, tuple[str, ...]]:
    """backend -> (original, rewritten, rewritten eager, replay) statuses of one unit."""
    return {u["backend"]: tuple((u[k] or {}).get("status") for k in ("original", "rewritten", "rewritten_eager", "replay"))
            for u in data["verification"]["units"] if u["unit"] == unit}


# -- verdicts: a reference that does not reproduce itself -------------------------------------------

def _run(backend: str, version: str, eager: bool, values: dict[str, list[float]], exit_code: int = 0,
         repeat: bool = False) -> RunResult:
    calls = {f"m.py:{unit}": [{"index": i, "value": {"__array__": v, "shape": []}} for i, v in enumerate(vs)]
             for unit, vs in values.items()}
    return RunResult(RunSpec(backend, version, eager, True, repeat), exit_code, "", 1.0, calls,
                     {key: len(c) for key, c in calls.items()})


def test_only_disagreements_of_a_reference_with_itself_become_unseeded():
    """Four units whose rewrite disagrees or agrees; the repeated reference tells which disagreements
    unseeded draws explain (its own numbers change) and which are real (it reproduces itself)."""
    reference = {"drawn": [1.0], "wrong": [1.0], "loops": [1.0], "fine": [1.0]}
    rewritten = {"drawn": [2.0], "wrong": [2.0], "loops": [1.0, 1.0], "fine": [1.0]}
    runs = [_run("torch", "original", True, reference), _run("torch", "original", False, reference),
            _run("torch", "rewritten", False, rewritten), _run("torch", "rewritten", True, rewritten)]
    units = [("m.py", ["drawn", "wrong", "loops", "fine"])]
    verification = verdicts(runs, units, {}, [])
    assert [u.rewritten.status for u in verification.units] == [DIFFERS, DIFFERS, CALLS_DIFFER, EQUAL]
    assert references_to_repeat(runs, verification) == [RunSpec("torch", "original", True, True, repeat=True)]
    repeat = _run("torch", "original", True, {"drawn": [3.0], "wrong": [1.0], "loops": [1.0, 1.0], "fine": [1.0]}, repeat=True)
    found = {u.unit: u for u in verdicts(runs, units, {}, [], repeats={"torch": repeat}).units}
    assert (found["drawn"].rewritten.status, found["drawn"].verified) == (UNSEEDED, False)
    assert "disagrees with itself" in found["drawn"].rewritten.detail
    assert found["wrong"].rewritten.status == DIFFERS  # the original reproduces itself: a real difference
    assert found["loops"].rewritten.status == UNSEEDED  # a draw can change how often a function is called
    assert (found["fine"].rewritten.status, found["fine"].verified) == (EQUAL, True)


def test_a_replay_is_unseeded_only_if_it_does_not_reproduce_itself():
    """The reference disagrees with itself on both units; replayed from the same inputs and states,
    `drawn` gives other numbers a second time (its own draws), `given` the same (its inputs were random)."""
    reference, repeat = {"drawn": [1.0], "given": [1.0]}, {"drawn": [3.0], "given": [3.0]}
    runs = [_run("numpy", "original", True, reference), _run("numpy", "rewritten", False, reference),
            _run("numpy", "rewritten", True, reference)]
    replayed = {f"m.py:{u}": [{"index": 0, "value": {"__array__": 2.0, "shape": []}}] for u in ("drawn", "given")}
    again = {"m.py:drawn": [{"index": 0, "value": {"__array__": 5.0, "shape": []}}], "m.py:given": replayed["m.py:given"]}
    units = [("m.py", ["drawn", "given"])]
    repeats = {"numpy": _run("numpy", "original", True, repeat, repeat=True)}
    verification = verdicts(runs, units, {}, [], {"numpy": replayed}, repeats)
    assert replays_to_repeat(verification) == {"numpy"}
    assert [u.replay.status for u in verification.units] == [DIFFERS, DIFFERS]  # until replayed again
    found = {u.unit: u.replay.status for u in verdicts(runs, units, {}, [], {"numpy": replayed}, repeats, {"numpy": again}).units}
    assert found == {"drawn": UNSEEDED, "given": DIFFERS}


def test_the_reference_repeated_is_the_one_compared_with():
    """A backend whose eager original fails is held to numpy's: numpy's is the one to repeat; a
    failing rewrite is not a reason to repeat anything."""
    values = {"f": [1.0]}
    runs = [_run("numpy", "original", True, values), _run("torch", "original", True, {}, exit_code=1),
            _run("torch", "rewritten", False, {"f": [2.0]}), _run("torch", "rewritten", True, values)]
    assert references_to_repeat(runs, verdicts(runs, [("m.py", ["f"])], {}, [])) == [RunSpec("numpy", "original", True, True, repeat=True)]
    failing = [runs[0], RunResult(RunSpec("numpy", "rewritten", False, True), 0, "", 1.0,
                                  {"m.py:f": [{"index": 0, "error": "TypeError: no"}]}, {"m.py:f": 1})]
    verification = verdicts(failing, [("m.py", ["f"])], {}, [])
    assert verification.units[0].rewritten.status == FAILS
    assert references_to_repeat(failing, verification) == []


# -- the runtime's generator states, in one verified interpreter --------------------------------------

GENERATORS_PROBE = '''
import json
import random

import numpy as np

at_start = {"python": random.random(), "numpy": float(np.random.normal())}  # tensorflow's and jax's imports draw from both

import tensorflow as tf
import torch
from phiml import math

from _phiml_rewrite_verify import generators


def draws():
    return {"python": random.random(), "numpy": float(np.random.normal()), "torch": float(torch.randn(())),
            "tf_op": float(tf.random.normal(())), "tf_generator": float(tf.random.get_global_generator().normal(())),
            "phiml_jax": float(math.random_normal().native())}


first = draws()
states = generators.capture()
second = draws()
generators.restore(states)
again = draws()
tf.random.set_seed(0)
seeded = {"python": random.Random(0).random(), "numpy": float(np.random.RandomState(0).normal()),
          "torch": float(torch.randn((), generator=torch.Generator().manual_seed(0))),
          "tf_op": float(tf.random.normal(())), "tf_generator": float(tf.random.Generator.from_seed(0).normal(()))}
own = tf.random.Generator.from_non_deterministic_state()  # the program's own: left unseeded
print(json.dumps({"first": {**first, **at_start}, "second": second, "again": again, "seeded": seeded, "sources": sorted(states),
                  "own_differs": float(own.normal(())) != seeded["tf_generator"]}))
'''


def test_generators_are_seeded_at_start_and_restored_exactly(tmp_path):
    """Every source `generators` knows, in a process set up as verify sets up its runs (PhiML on jax)."""
    workspace.install_bootstrap(tmp_path / "bootstrap")
    (tmp_path / "config.json").write_text(json.dumps({"backend": "jax", "eager": True, "instrument": {}, "seed": 0}))
    (tmp_path / "probe.py").write_text(GENERATORS_PROBE)
    env = runtime.select_environment("jax", eager=True)
    env.update({runtime.CONFIG_ENV: str(tmp_path / "config.json"), "PYTHONPATH": str(tmp_path / "bootstrap")})
    proc = subprocess.run([sys.executable, str(tmp_path / "probe.py")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["sources"] == ["numpy", "phiml", "python", "tensorflow", "torch"]
    assert out["again"] == out["second"]  # restored: the same numbers again, from every source
    assert all(out["second"][k] != out["first"][k] for k in out["first"])  # and they were not the same anyway
    for source, value in out["seeded"].items():  # each started from seed 0 (tensorflow: op seeds and global generator)
        assert value == out["first"][source], source
    assert out["own_differs"]


# -- end to end ---------------------------------------------------------------------------------------

def test_exact_alias_of_code_drawing_random_numbers_is_equal_on_every_backend(tmp_path, monkeypatch):
    """PhiML's `random_normal` draws from numpy's, torch's and tensorflow's global generators and
    from the key PhiML's jax backend keeps: seeded, the runs agree; restored, replay agrees."""
    write_files(tmp_path, {"proj/model.py": NOISY})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["model.py", "--run", "python model.py"])
    assert code == 0, data
    statuses = _statuses(data, "noisy_half")
    assert set(statuses) == set(ALL)
    for backend, found in statuses.items():
        assert found == (EQUAL,) * 4, (backend, found)
    assert all(u["verified"] for u in data["verification"]["units"])
    assert (tmp_path / "proj" / "model.py").read_text() == textwrap.dedent(NOISY)  # verify writes nothing


def test_unseeded_random_numbers_are_reported_as_such_not_as_differences(tmp_path, monkeypatch):
    """An unseeded generator of its own and os.urandom: "draws unseeded random numbers"; a real
    mistake next to them still "differs", and so does the replay of one given unseeded numbers (the
    same inputs, so a fair check); raw jax with numpy's global generator is restored, equal."""
    write_files(tmp_path, {"proj/src/noisy.py": UNSEEDED_SOURCES, "proj/src/raw.py": RAW_JAX,
                      "rewrite/noisy.py": UNSEEDED_REWRITTEN, "rewrite/raw.py": RAW_JAX_REWRITTEN})
    monkeypatch.chdir(tmp_path / "proj")
    code, data = verify_json(["src", "--rewritten", "../rewrite", "--run", "python src/noisy.py", "--run", "python src/raw.py",
                          "--backend", "numpy"])
    assert code == 1, data  # `shift` and `scale` are wrong
    for unit in ("jitter", "salt"):
        [verdict] = [u for u in data["verification"]["units"] if u["unit"] == unit]
        assert _statuses(data, unit)["numpy"] == (UNSEEDED,) * 4, verdict
        assert "disagrees with itself" in verdict["rewritten"]["detail"]
        assert not verdict["verified"]
    assert _statuses(data, "shift")["numpy"] == (EQUAL, DIFFERS, DIFFERS, DIFFERS)
    assert _statuses(data, "scale")["numpy"] == (UNSEEDED, UNSEEDED, UNSEEDED, DIFFERS)
    assert _statuses(data, "perturb")["numpy"] == (EQUAL,) * 4
    [backend] = data["verification"]["backends"]
    assert "numpy/original/eager/repeat" in backend["runs"]  # the reference, run once more (and replay)
