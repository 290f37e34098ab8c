"""Input source 1 of verify-by-synthesis: the store of inputs recorded by `verify --run` runs
(rewriter/verify/synthesis/store.py, recorded.py), and the round trip through the command line."""
from __future__ import annotations

import json
import os
import pickle
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from rewriter.cli import main
from rewriter.verify.synthesis import plan as _plan, recorded, store
from rewriter.verify.synthesis.store import Store

SOURCE = textwrap.dedent("""\
    import numpy as np


    def scale(x, factor=2.0):
        return np.where(x > 0, x * factor, -x)


    def other(y):
        return y
""")


def _call(x, **more) -> dict:
    return {"x": store.portable(x), **{k: store.portable(v) for k, v in more.items()}}


def test_write_and_read_back_exactly(tmp_path):
    s = Store(tmp_path / "inputs")
    x = np.array([[-1.5, 0.0, np.nan], [2.0, 1e-8, -0.0]], np.float32)
    assert s.write("pkg/m.py", "scale", SOURCE, [_call(x, factor=0.5), _call(np.arange(3))]) == 2
    calls, stale = s.read("pkg/m.py", "scale", SOURCE)
    assert not stale and len(calls) == 2
    got = store.decode(calls[0]["x"])
    assert got.dtype == np.float32 and got.shape == (2, 3)
    np.testing.assert_array_equal(got, x)  # NaN and -0.0 kept, bit for bit
    assert calls[0]["factor"] == {"kind": "scalar", "type": "float", "value": 0.5}
    assert store.decode(calls[1]["x"]).dtype == np.int64
    assert s.read("pkg/m.py", "other", SOURCE) == ([], False)  # nothing recorded for it
    assert s.read("pkg/other.py", "scale", SOURCE) == ([], False)  # another file's function of that name


def test_a_function_edited_since_is_stale_other_edits_are_not(tmp_path):
    s = Store(tmp_path)
    s.write("m.py", "scale", SOURCE, [_call(np.ones(2))])
    elsewhere = SOURCE.replace("def other(y):\n        return y", "def other(y):\n\n        return  y + 1  # edited") \
        .replace("import numpy as np", "import numpy as np\nimport os")
    reformatted = SOURCE.replace("x * factor, -x)", "x*factor,\n                    -x)  # same code")
    assert len(s.read("m.py", "scale", elsewhere)[0]) == 1
    assert len(s.read("m.py", "scale", reformatted)[0]) == 1
    edited = SOURCE.replace("-x)", "x)")
    assert s.read("m.py", "scale", edited) == ([], True)
    assert s.read("m.py", "scale", "x = 1\n") == ([], True)  # the function is gone
    s.write("m.py", "scale", edited, [_call(np.zeros(3))])  # a new definition's calls replace the stale ones
    [call], stale = s.read("m.py", "scale", edited)
    assert not stale and store.decode(call["x"]).shape == (3,)


def test_bounds_per_function_per_call_and_in_total(tmp_path):
    s = Store(tmp_path)
    for i in range(store.MAX_CALLS + 2):
        s.write("m.py", "scale", SOURCE, [_call(np.full(2, float(i)))])
    s.write("m.py", "scale", SOURCE, [_call(np.full(2, 5.0))])  # already kept: not twice
    calls = s.read("m.py", "scale", SOURCE)[0]
    assert [store.decode(c["x"])[0] for c in calls] == [2.0, 3.0, 4.0, 5.0]  # the newest MAX_CALLS
    big = np.zeros(store.MAX_CALL_BYTES // 8 + 1)
    assert s.write("m.py", "other", SOURCE.replace("(y)", "(x)"), [_call(big)]) == 0
    # the store over its total: the functions written longest ago go first, the one just written stays
    names = [f"f{i}" for i in range(4)]
    many = "\n".join(f"def {n}(x):\n    return x\n" for n in names)
    for i, n in enumerate(names):
        s.write("many.py", n, many, [_call(np.zeros(1000))])
        os.utime(s._path("many.py", n), (1000 + i, 1000 + i))
    total = sum(p.stat().st_size for p in tmp_path.glob("*.json"))
    s.prune(limit=total - s._path("many.py", "f1").stat().st_size, keep=s._path("many.py", "f0"))
    assert [bool(s.read("many.py", n, many)[0]) for n in names] == [True, False, True, True]


def test_a_damaged_store_is_ignored_and_replaced(tmp_path):
    s = Store(tmp_path)
    s.write("m.py", "scale", SOURCE, [_call(np.ones(2))])
    path = s._path("m.py", "scale")
    for damage in (b"{not json", b"\xff\xfe", b"[]", json.dumps({"schema": 99}).encode()):
        path.write_bytes(damage)
        assert s.read("m.py", "scale", SOURCE) == ([], False)
    entry = {"schema": store.SCHEMA, "file": "m.py", "function": "scale", "source": store.source_key(SOURCE, "scale"),
             "calls": [{"x": {**_call(np.ones(2))["x"], "stored": "object"}},  # never a pickled object array
                       {"x": {**_call(np.ones(2))["x"], "data": "AAAA"}},  # bytes that do not fill the shape
                       {"x": {**_call(np.ones(2))["x"], "framework": "phiml"}},  # a PhiML tensor without dims
                       {"x": {"kind": "scalar", "type": "str", "value": "rm -rf"}},
                       _call(np.ones(2))]}
    path.write_text(json.dumps(entry))
    assert len(s.read("m.py", "scale", SOURCE)[0]) == 1  # the good call only
    path.write_bytes(b"garbage")
    assert s.write("m.py", "scale", SOURCE, [_call(np.zeros(2))]) == 1
    assert len(s.read("m.py", "scale", SOURCE)[0]) == 1
    (tmp_path / "unrelated.json").write_text("{")  # pruning steps over what it cannot read
    s.prune(limit=0)


def test_what_is_not_portable_is_not_kept():
    assert store.portable("text") is None and store.portable([1.0, 2.0]) is None and store.portable(None) is None
    assert store.portable(object()) is None and store.portable(np.array(["a"])) is None
    assert store.portable(np.array([1 + 2j])) is None and store.portable(2 ** 60) is None
    assert store.portable(np.float32(2.5))["shape"] == [] and store.portable(True)["type"] == "bool"


def test_recorded_calls_are_bound_to_parameters(tmp_path):
    node = store.definition(SOURCE, "scale")
    assert recorded.bind(node, (1.0,), {"factor": 2.0}) == {"x": 1.0, "factor": 2.0}
    assert recorded.bind(node, (1.0, 2.0, 3.0), {}) is None  # more than its parameters
    assert recorded.bind(node, (), {"y": 1.0}) is None
    assert recorded.bind(store.definition("def f(x, /):\n    return x\n", "f"), (1.0,), {}) is None  # not by name
    pickled = tmp_path / "0.pkl"
    with open(pickled, "wb") as f:
        pickle.dump(((np.ones(2),), {"factor": 3.0}), f)
        pickle.dump({"generators": "..."}, f)
    assert recorded.convert(str(pickled), node)["factor"]["value"] == 3.0
    with open(pickled, "wb") as f:
        pickle.dump(((np.ones(2), "text"), {}), f)
    assert recorded.convert(str(pickled), node) is None  # one argument that cannot be kept: the call is not kept
    pickled.write_bytes(b"not a pickle")
    assert recorded.convert(str(pickled), node) is None
    calls = {"t::m.py:scale": [{"index": 0, "inputs": "a.pkl", "value": 1}, {"index": 1, "inputs": "b.pkl", "error": "E"}],
             "m.py:scale/returned": [{"index": 0, "inputs": "c.pkl", "value": 1}], "nb.ipynb:f": [{"inputs": "d.pkl", "value": 1}],
             "m.py:other": [{"index": 0, "inputs": "!PicklingError", "value": 1}]}
    assert recorded.items(calls, tmp_path) == [{"file": "m.py", "source": str(tmp_path / "m.py"), "unit": "scale",
                                                "inputs": ["a.pkl"]}]
    assert recorded.preferred(["tensorflow", "numpy", "jax"]) == "numpy" and recorded.preferred([]) is None


def test_a_run_keeps_its_recordings_once(tmp_path, monkeypatch):
    """`save` converts the pickles in a process of its own; the same recordings again start none."""
    (tmp_path / "m.py").write_text(SOURCE)
    pickled = tmp_path / "0.pkl"
    with open(pickled, "wb") as f:
        pickle.dump(((np.arange(3.0),), {}), f)
    calls = {"m.py:scale": [{"index": 0, "inputs": str(pickled), "value": 1}]}
    s = Store(tmp_path / "store")
    assert recorded.save(calls, tmp_path, s, None, 60) == (1, "")
    [call], _ = s.read("m.py", "scale", SOURCE)
    np.testing.assert_array_equal(store.decode(call["x"]), np.arange(3.0))

    def no_process(*args, **kwargs):
        raise AssertionError("converted again")

    monkeypatch.setattr(recorded.subprocess, "run", no_process)
    assert recorded.save(calls, tmp_path, s, None, 60) == (0, "")
    (tmp_path / "m.py").write_text(SOURCE.replace("-x)", "x)"))  # an edited function: its recordings are new again
    with pytest.raises(AssertionError, match="converted again"):
        recorded.save(calls, tmp_path, s, None, 60)


def test_the_plan_tries_recorded_calls_first():
    call = _call(np.ones((2, 3), np.float32))
    source = SOURCE + "\n\nscale(np.zeros((4,)))\n"
    planned = _plan.plan(source, "scale", [source], [call, {"y": call["x"]}])  # a call of other parameters: ignored
    assert planned.sources == ["recorded calls", "call sites"] and not planned.reason
    assert planned.examples[0]["x"]["recorded"] and len(planned.examples) == 1
    assert planned.signatures[0]["x"]["symbols"] == ["#2", "#3"] and "data" not in planned.signatures[0]["x"]
    unknown = _plan.plan(SOURCE, "scale", [SOURCE], [], stale=True)
    assert "recorded by an earlier run are of an earlier version" in unknown.reason


# -- end to end --------------------------------------------------------------------------------

PROGRAM = textwrap.dedent("""\
    import jax.numpy as jnp


    def make():
        return jnp.linspace(-1.0, 1.0, 5)


    def scale(x, factor=2.0):
        return jnp.where(x > 0, x * factor, -x)


    def halve(x):
        return jnp.where(x > 0, x / 2, x)


    if __name__ == "__main__":
        print(scale(make()), scale(make() * 3, factor=0.5), halve(make()))
""")
REWRITTEN = PROGRAM.replace("jnp.where(x > 0, x * factor, -x)", "jnp.abs(x) * jnp.where(x > 0, factor, 1.0)") \
    .replace("jnp.where(x > 0, x / 2, x)", "x / 2")  # wrong for negative x


def _verify(*args: str) -> dict:
    result = CliRunner().invoke(main, ["verify", "original.py", "--rewritten", "rewritten.py", "--output-format", "json",
                                       *args], catch_exceptions=False)
    return json.loads(result.output)


@pytest.mark.backends
def test_verify_without_a_program_replays_what_verify_run_recorded(tmp_path, monkeypatch):
    """No call site says what `x` is (it comes from `make()`): not synthesizable, until a `verify
    --run` records its calls; then it is verified on them, and on inputs drawn like them."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "original.py").write_text(PROGRAM)
    (tmp_path / "rewritten.py").write_text(REWRITTEN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PHIML_REWRITE_CACHE_DIR", raising=False)
    before = _verify("--max-examples", "10")["synthesis"]["results"]
    assert [r["status"] for r in before] == ["unsynthesizable"] * 2
    assert "argument `x` of unknown type" in before[0]["reason"]

    ran = _verify("--run", "python original.py")
    assert ran["verification"]["exit_code"] == 1  # halve differs
    assert len(list((tmp_path / ".phiml-rewrite-cache" / "inputs").glob("*.json"))) == 2

    scale, halve = _verify("--max-examples", "10")["synthesis"]["results"]
    assert scale["status"] == "verified" and scale["recorded"] == 2 and scale["examples"] > 2, scale
    assert halve["status"] == "falsified" and halve["recorded"] == 1, halve  # on the call the program made
    assert halve["inputs"].startswith("x=float32[5] [-1. , -0.5,"), halve
    ignored = _verify("--max-examples", "10", "--no-cache")["synthesis"]["results"]
    assert [r["status"] for r in ignored] == ["unsynthesizable"] * 2

    (tmp_path / "original.py").write_text(PROGRAM.replace("-x)", "-1 * x)"))  # scale edited since the recording
    stale, halve = _verify("--max-examples", "10")["synthesis"]["results"]
    assert stale["status"] == "unsynthesizable" and "earlier version of it" in stale["reason"]
    assert halve["status"] == "falsified"  # its recorded calls still hold


@pytest.mark.backends
def test_a_recorded_phiml_tensor_keeps_its_dimensions(tmp_path):
    """PhiML dims, their types and item names survive the store; the worker rebuilds the tensor."""
    from phiml import math

    v = math.tensor(np.arange(6, dtype=np.float32).reshape(3, 2), math.spatial("x"), math.channel(vector="a,b"))
    desc = store.portable(v)
    assert desc["dims"] == [["x", "spatial"], ["vector", "channel"]] and desc["items"] == [None, ["a", "b"]]
    s = Store(tmp_path)
    s.write("m.py", "scale", SOURCE, [{"x": desc}])
    [call], _ = s.read("m.py", "scale", SOURCE)
    from rewriter.verify.synthesis.worker import _native

    rebuilt = _native(call["x"], store.decode(call["x"]), "numpy")
    assert rebuilt.shape == v.shape and rebuilt.shape.item_names == v.shape.item_names
    assert math.equal(rebuilt, v)
