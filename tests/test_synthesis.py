"""Verify-by-synthesis without running anything: what the sources describe, the plans, the draws,
the verdicts and the table. The runs themselves are in test_synthesis_cases.py (backends)."""
from __future__ import annotations

import ast
import math

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis.errors import NoSuchExample
from rich.console import Console

from rewriter.verify.synthesis import annotations, display, strategies, values
from rewriter.verify.synthesis.callsites import call_sites
from rewriter.verify.synthesis.plan import plan
from rewriter.verify.synthesis.report import FALSIFIED, UNSYNTHESIZABLE, VERIFIED, Result, Synthesis


def _describe(expr: str, env: str = "") -> dict | None:
    scope = {t.id: s.value for s in ast.parse(env).body if isinstance(s, ast.Assign) for t in s.targets}
    return values.describe(ast.parse(expr, mode="eval").body, scope)


@pytest.mark.parametrize("expr, framework, dtype, shape", [
    ("jnp.array([1, 2])", "jax", "int32", [2]),
    ("jnp.array([[1., 2.], [3., 4.]])", "jax", "float32", [2, 2]),
    ("jnp.array([0.5, -0.25], dtype=jnp.float16)", "jax", "float16", [2]),
    ("jnp.zeros((3,))", "jax", "float32", [3]),
    ("jnp.ones(4, dtype='int32')", "jax", "int32", [4]),
    ("jnp.float32(0.3)", "jax", "float32", []),
    ("np.array([1., 2.])", "numpy", "float64", [2]),
    ("jax.numpy.arange(5)", "jax", "int32", [5]),
    ("math.tensor([1., 2.], spatial('x'))", "phiml", "float32", [2]),
    ("math.zeros(spatial(x=3) & batch(b=2))", "phiml", "float32", [3, 2]),
])
def test_array_constructors_with_literal_shapes(expr, framework, dtype, shape):
    d = _describe(expr)
    assert (d["kind"], d["framework"], d["dtype"], d["shape"]) == ("array", framework, dtype, shape)


def test_phiml_dimensions_and_literal_values_are_kept():
    d = _describe("math.tensor([[1., 2.]], batch('b'), spatial('x'))")
    assert d["dims"] == [["b", "batch"], ["x", "spatial"]] and d["shape"] == [1, 2]
    assert _describe("math.tensor([[1., 2.]], spatial('x'))") is None  # a rank the dimensions do not match
    d = _describe("math.tensor([1., 2.], spatial('x'))")
    assert d["dims"] == [["x", "spatial"]] and d["value"] == [1.0, 2.0]
    assert _describe("jnp.float32(-0.3)")["value"] == -0.3


@pytest.mark.parametrize("expr", ["jnp.array(data)", "jnp.zeros(n)", "load()", "x.mean()", "jnp.array([1, 'a'])",
                                  "math.tensor([1., 2.], spatial(x))", "jnp.array([[1], [2, 3]])"])
def test_what_the_source_does_not_say_is_unknown(expr):
    assert _describe(expr) is None


def test_names_and_scaling_by_python_numbers_keep_dtype_and_shape():
    env = "f = jnp.array([1., 2., 3.])\ni = jnp.array([1, 2])"
    assert _describe("f * 0.1", env)["shape"] == [3]
    assert _describe("f * 0.1", env)["value"] is None  # scaled: no longer the literal
    assert _describe("2 * i", env)["dtype"] == "int32"
    assert _describe("i * 0.5", env)["dtype"] == "float32"  # jax: an int array times a weak float
    assert _describe("math.tensor([1, 2], spatial('x')) * 0.5") is None  # PhiML gives float64 there: not assumed
    assert _describe("3", env) == values.scalar("int", 3)
    assert _describe("-2.5", env) == values.scalar("float", -2.5)


def test_call_sites_map_positional_and_keyword_arguments():
    source = """
import jax.numpy as jnp
import mod

def main():
    x = jnp.zeros((3,))
    f(x, 2.0)
    mod.f(jnp.ones(2), k=1)
    f(*args)
    g(x, 1.0)
"""
    sites = call_sites([source], "f", ["x", "k"])
    assert [(s["x"]["shape"], s["k"]) for s in sites] == [([3], values.scalar("float", 2.0)), ([2], values.scalar("int", 1))]


@pytest.mark.parametrize("annotation, expected", [
    ("float", ("scalar", "float")), ("int", ("scalar", "int")), ("bool", ("scalar", "bool")),
    ('Float[Array, "n m"]', ("array", "float32", ["n", "m"])),
    ('Int[jax.Array, "3"]', ("array", "int32", [None])),
    ('Bool[Array, ""]', ("array", "bool", [])),
])
def test_annotations(annotation, expected):
    d = annotations.describe(ast.parse(annotation, mode="eval").body)
    got = (d["kind"], d["type"]) if d["kind"] == "scalar" else (d["kind"], d["dtype"], d["symbols"])
    assert got == expected


@pytest.mark.parametrize("annotation", ['Float[Array, "... n"]', 'Float[Array, "*batch"]', "jax.Array", "Tensor", "list[float]"])
def test_annotations_that_give_no_rank_or_dtype_are_unknown(annotation):
    assert annotations.describe(ast.parse(annotation, mode="eval").body) is None


SOURCE = '''
import jax
import jax.numpy as jnp

@jax.jit
def limit(flux, cap, scale=2.0):
    return flux

def helper(a: Float[Array, "n"], b: Float[Array, "n"], w: float):
    return a

def apply(f, x):
    return f(x)

class Model:
    def step(self, x):
        return x

def main(data):
    f = jnp.array([1., 2., 3.])
    limit(f, 3.0)
    limit(f * 0.1, 10.0)
    limit(jnp.zeros((3,)), cap=1.0)
    apply(jnp.sin, data)
'''


def test_plan_from_call_sites_keeps_defaults_and_takes_literal_calls_as_examples():
    p = plan(SOURCE, "limit", [SOURCE])
    assert p.reason == "" and p.sources == ["call sites"]
    assert p.params == ["flux", "cap", "scale"]
    assert len(p.signatures) == 1  # three calls, one shape and dtype: one signature
    sig = p.signatures[0]
    assert set(sig) == {"flux", "cap"}  # `scale` keeps its default
    assert sig["flux"]["symbols"] == ["#3"]
    assert [e["cap"]["value"] for e in p.examples] == [3.0]  # `f * 0.1` and `zeros` have no literal value


def test_plan_from_annotations_shares_named_axes():
    p = plan(SOURCE, "helper", [SOURCE])
    assert p.sources == ["annotations"]
    sig = p.signatures[0]
    assert sig["a"]["symbols"] == sig["b"]["symbols"] == ["n"] and sig["w"]["type"] == "float"


@pytest.mark.parametrize("name, reason", [
    ("apply", "argument `f` of unknown type"),
    ("Model.step", "a method"),
    ("missing", "not a function defined at module level"),
])
def test_plan_says_why_it_cannot_synthesize(name, reason):
    assert reason in plan(SOURCE, name, [SOURCE]).reason


def _signature(source: str, name: str) -> dict:
    return plan(source, name, [source]).signatures[0]


def test_draws_keep_dtype_and_rank_and_shared_sizes():
    sig = _signature("def f(x, y): pass\nf(jnp.zeros((3,)), jnp.ones((3, 2), dtype=jnp.int32))", "f")

    @settings(max_examples=60, database=None, derandomize=True)
    @given(strategies.inputs([sig]))
    def draws(drawn):
        _, raw = drawn
        assert raw["x"].dtype == np.float32 and raw["y"].dtype == np.int32
        assert raw["x"].ndim == 1 and raw["y"].ndim == 2
        assert raw["x"].shape[0] == raw["y"].shape[0]  # both axes of size 3 at the call: one size per draw

    draws()


def test_draws_reach_the_edges():
    sig = _signature("def f(x, k): pass\nf(jnp.zeros((3,)), 2.0)", "f")
    kw = dict(settings=settings(database=None, derandomize=True, max_examples=500))
    assert find(strategies.inputs([sig]), lambda d: d[1]["x"].shape == (0,), **kw)
    assert find(strategies.inputs([sig]), lambda d: d[1]["x"].shape == (1,), **kw)
    assert find(strategies.inputs([sig]), lambda d: np.isnan(d[1]["x"]).any(), **kw)
    assert find(strategies.inputs([sig]), lambda d: (d[1]["x"] < 0).any(), **kw)
    assert find(strategies.inputs([sig]), lambda d: math.isnan(d[1]["k"]), **kw)


def test_without_edges_the_sizes_are_the_calls():
    sig = _signature("def f(x): pass\nf(jnp.zeros((3,)))", "f")
    with pytest.raises(NoSuchExample):
        find(strategies.inputs([sig], edges=False), lambda d: d[1]["x"].shape != (3,),
             settings=settings(database=None, derandomize=True, max_examples=200))
    assert strategies.sizes("#3") == [3, 1, 0, 4] and strategies.sizes("#1") == [1, 0, 2]


def test_draws_never_change_a_dtype_the_sources_give():
    sig = _signature("def f(x): pass\nf(jnp.array([1, 2]))", "f")
    with pytest.raises(NoSuchExample):
        find(strategies.inputs([sig]), lambda d: d[1]["x"].dtype != np.int32,
             settings=settings(database=None, derandomize=True, max_examples=200))


def test_an_example_is_the_literal_call():
    sig = _signature("def f(x, k): pass\nf(jnp.array([1.5, -2.0]), 3)", "f")
    _, raw = strategies.example(sig)
    assert raw["x"].tolist() == [1.5, -2.0] and raw["x"].dtype == np.float32 and raw["k"] == 3
    assert strategies.show(sig, raw) == "x=float32[2] [ 1.5, -2. ], k=3"


def _synthesis(*statuses: str) -> Synthesis:
    return Synthesis([Result("m.py", f"f{i}", "" if s == UNSYNTHESIZABLE else "jax", s) for i, s in enumerate(statuses)],
                     backends=["jax"])


@pytest.mark.parametrize("statuses, code", [
    ((VERIFIED, VERIFIED), 0), ((VERIFIED, FALSIFIED), 1), ((VERIFIED, UNSYNTHESIZABLE), 3),
    ((UNSYNTHESIZABLE,), 2), ((FALSIFIED, UNSYNTHESIZABLE), 1),
])
def test_exit_codes(statuses, code):
    assert _synthesis(*statuses).exit_code == code


def test_a_verdict_cut_short_by_the_budget_is_not_a_pass():
    s = Synthesis([Result("m.py", "f", "jax", VERIFIED, examples=3, cut_short=True)], backends=["jax"])
    assert s.exit_code == 3


def test_the_table_fits_the_terminal():
    backends = ["numpy", "jax", "torch", "tensorflow"]
    results = [Result("pkg/module_with_a_long_name.py", "normalise_the_field", b, FALSIFIED,
                      inputs="x=float32[x=2] [-1.,  1.], norm=float32[x=2] [0., 0.]", reason="result: values differ")
               for b in backends]
    results.append(Result("pkg/m.py", "apply", "", UNSYNTHESIZABLE, reason="argument `f` of unknown type"))
    console = Console(width=70, record=True, no_color=True)
    display.render(Synthesis(results, backends=backends), console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 70
    assert "falsified" in text and "not synthesizable: argument `f` of unknown type" in text
    assert "0 verified, 1 falsified, 1 not synthesizable" in text


# values that flow in: constructors, arithmetic, indexing, names followed through the flow

def _short(d: dict | None):
    if d is None:
        return None
    if d["kind"] == "scalar":
        return ("scalar", d["type"])
    out = (d["framework"], d["dtype"], d["shape"])
    if d.get("dims"):
        out += (d["dims"],)
    if d.get("items"):
        out += (d["items"],)
    return out


X = [["x", "spatial"]]


@pytest.mark.parametrize("expr, env, expected", [
    # PhiML constructors with dimensions
    ("math.linspace(0, 1, spatial(x=64))", "", ("phiml", "float32", [64], X)),
    ("math.random_normal(batch(b=4), spatial(x=8))", "", ("phiml", "float32", [4, 8], [["b", "batch"], ["x", "spatial"]])),
    ("math.zeros(spatial(x=8), channel(vector='x,y'))", "",
     ("phiml", "float32", [8, 2], [["x", "spatial"], ["vector", "channel"]], [None, ["x", "y"]])),
    ("math.zeros(spatial(x=3), dtype=int)", "", ("phiml", "int32", [3], X)),
    ("math.random_uniform(spatial(x=3), low=0, high=2)", "", ("phiml", "float32", [3], X)),
    ("math.ones_like(u)", "u = math.zeros(spatial(x=8), channel(vector='x,y'))",
     ("phiml", "float32", [8, 2], [["x", "spatial"], ["vector", "channel"]], [None, ["x", "y"]])),
    ("math.tensor(np.array([1., 2.]), spatial('x'))", "", ("phiml", "float64", [2], X)),  # numpy's dtype is kept
    ("math.tensor([1, 2], spatial('x'))", "", ("phiml", "int64", [2], X)),
    ("math.stack([u, u, u], batch(rod=3))", "u = math.linspace(0, 1, spatial(x=4))",
     ("phiml", "float32", [3, 4], [["rod", "batch"], ["x", "spatial"]])),
    ("math.stack([u, u], channel('vector'))", "u = math.linspace(0, 1, spatial(x=4))",
     ("phiml", "float32", [4, 2], [["x", "spatial"], ["vector", "channel"]])),
    ("math.stack({'a': u, 'b': u}, channel('v'))", "u = math.linspace(0, 1, spatial(x=4))",
     ("phiml", "float32", [4, 2], [["x", "spatial"], ["v", "channel"]], [None, ["a", "b"]])),
    ("math.stack([u, u], spatial('y'))", "u = math.linspace(0, 1, spatial(x=4))",
     ("phiml", "float32", [2, 4], [["y", "spatial"], ["x", "spatial"]])),
    ("math.stack([t, t], batch('b'))", "t = math.tensor(np.array([1., 2.]), spatial('x'))",
     ("phiml", "float32", [2, 2], [["b", "batch"], ["x", "spatial"]])),  # stack casts floats to float32
    ("math.concat([u, u], 'x')", "u = math.linspace(0, 1, spatial(x=4))", ("phiml", "float32", [8], X)),
    ("math.stack([math.exp(-((x - c) / 0.05) ** 2) for c in (0.3, 0.5, 0.7)], batch(rod=3))",
     "x = math.linspace(0, 1, spatial(x=64))", ("phiml", "float32", [3, 64], [["rod", "batch"], ["x", "spatial"]])),
    ("rods.rod[0]", "rods = math.zeros(batch(rod=3), spatial(x=5))", ("phiml", "float32", [5], X)),
    ("rods.rod[1:]", "rods = math.zeros(batch(rod=3), spatial(x=5))",
     ("phiml", "float32", [2, 5], [["rod", "batch"], ["x", "spatial"]])),
    ("v.vector['x']", "v = math.zeros(spatial(x=8), channel(vector='x,y'))", ("phiml", "float32", [8], X)),
    ("u + v", "u = math.zeros(spatial(x=4))\nv = math.zeros(channel(c=2))",
     ("phiml", "float32", [4, 2], [["x", "spatial"], ["c", "channel"]])),
    ("u * 0.5", "u = math.zeros(batch(rod=3), spatial(x=5))",
     ("phiml", "float32", [3, 5], [["rod", "batch"], ["x", "spatial"]])),
    # numpy and jax
    ("jnp.linspace(-1.0, 1.0, 128)", "", ("jax", "float32", [128])),
    ("np.linspace(0, 1, 5)", "", ("numpy", "float64", [5])),
    ("jnp.linspace(-1.0, 1.0, 128).reshape(-1, 1)", "", ("jax", "float32", [128, 1])),
    ("jax.random.normal(key, (3, 4))", "", ("jax", "float32", [3, 4])),
    ("jax.random.uniform(key, shape)", "shape = (2, 5)", ("jax", "float32", [2, 5])),
    ("np.random.rand(3, 4)", "", ("numpy", "float64", [3, 4])),
    ("np.random.randn(2)", "", ("numpy", "float64", [2])),
    ("np.random.normal(0, 1, (3,))", "", ("numpy", "float64", [3])),
    ("jnp.eye(3)", "", ("jax", "float32", [3, 3])),
    ("jnp.ones_like(x)", "x = jnp.zeros((2, 3), dtype='int32')", ("jax", "int32", [2, 3])),
    ("x.reshape((3, 2))", "x = jnp.zeros((2, 3))", ("jax", "float32", [3, 2])),
    ("x.T", "x = jnp.zeros((2, 3))", ("jax", "float32", [3, 2])),
    ("x + y", "x = jnp.zeros((2, 1))\ny = jnp.ones((3,))", ("jax", "float32", [2, 3])),
    ("x + y", "x = jnp.zeros((3,), dtype=jnp.int32)\ny = jnp.ones((3,))", ("jax", "float32", [3])),
    ("x / 2", "x = jnp.zeros((3,), dtype=jnp.int32)", ("jax", "float32", [3])),
    ("x @ w", "x = jnp.zeros((5, 2))\nw = jnp.ones((2, 4))", ("jax", "float32", [5, 4])),
    ("y[:, 0]", "y = jnp.zeros((128, 1))", ("jax", "float32", [128])),
    ("y[None, 1:3, ...]", "y = jnp.zeros((4, 5))", ("jax", "float32", [1, 2, 5])),
    ("jnp.sin(3.0 * x)", "x = jnp.zeros((4,))", ("jax", "float32", [4])),
    ("jnp.stack([y[:, 0], 2.0 * y[:, 0] + 1.0])", "y = jnp.zeros((128, 1))", ("jax", "float32", [2, 128])),
    ("jnp.concatenate([a, a], axis=1)", "a = jnp.zeros((2, 3))", ("jax", "float32", [2, 6])),
    ("np.sin(i)", "i = np.zeros(3, dtype='float32')", ("numpy", "float32", [3])),
])
def test_values_that_flow_in(expr, env, expected):
    assert _short(_describe(expr, env)) == expected


@pytest.mark.parametrize("expr, env", [
    ("x + y", "x = jnp.zeros((2,))\ny = jnp.ones((3,))"),  # shapes that do not broadcast
    ("x + y", "x = np.zeros(3, dtype='int64')\ny = np.zeros(3, dtype='float32')"),  # numpy: float64, not assumed
    ("u + v", "u = math.zeros(spatial(x=4))\nv = math.zeros(spatial(x=5))"),
    ("x.reshape(4, 2)", "x = jnp.zeros((2, 3))"),
    ("y[i]", "y = jnp.zeros((3,))"),  # an index the source does not state
    ("y[5]", "y = jnp.zeros((3,))"),
    ("jnp.sin(i)", "i = jnp.zeros(3, dtype='int32')"),
    ("math.stack([u, v], batch('b'))", "u = math.zeros(spatial(x=4))\nv = math.zeros(spatial(x=5))"),
    ("math.stack([u, u], batch(b=3))", "u = math.zeros(spatial(x=4))"),
    ("math.linspace(0, 1, spatial('x'))", ""),  # no size
    ("math.stack([1., 2.], channel('vector'))", ""),  # PhiML gives Python floats float64: not assumed
    ("CenteredGrid(0, x=32, y=32)", ""),
    ("u.mean()", "u = jnp.zeros(3)"),
])
def test_values_the_source_does_not_pin_down_stay_unknown(expr, env):
    assert _describe(expr, env) is None


def test_unknown_values_say_why():
    ctx = values.Context({})
    assert values.describe(ast.parse("CenteredGrid(0, x=32)", mode="eval").body, {}, context=ctx) is None
    assert "PhiFlow field" in ctx.why[0]


FLOW = '''
from phiml import math
from phiml.math import batch, spatial

SHAPE = spatial(x=8)
GRID = math.linspace(0, 1, spatial(x=16))


def step(u, dt):
    return u


def make():
    return math.zeros(batch(b=2), spatial(x=4))


def simulate(u, dt, steps):
    t = 0.0
    for _ in range(steps):
        u = step(u, t)
        t += dt
    return u


def outer(v):
    return simulate(v, 0.1, 3)


def main():
    x = math.linspace(0, 1, spatial(x=64))
    rods = math.stack([x, x * 2], batch(rod=2))
    step(rods.rod[0], 0.2)
    outer(rods)
    step(make(), 0.3)
    step(GRID, 0.4)
    y = load()
    step(y, 0.5)
    if rods is None:
        z = rods
    else:
        z = x
    step(z, 0.6)
    z = x
    for k in range(3):
        z = step(z, 0.7)
    step(z, 0.8)
'''


def test_flowing_values_reach_call_sites():
    sites = call_sites([FLOW], "step", ["u", "dt"])
    by_dt = {s["dt"]["value"]: s for s in sites if s["dt"]["value"] is not None}
    assert _short(by_dt[0.2]["u"]) == ("phiml", "float32", [64], X)  # rods.rod[0]
    assert _short(by_dt[0.3]["u"])[2] == [2, 4]  # a function returning a constructor
    assert _short(by_dt[0.4]["u"])[2] == [16]  # a module-level name bound once
    assert by_dt[0.5]["u"] is None and "`load(...)`" in by_dt[0.5].why["u"]
    assert by_dt[0.6]["u"] is None and "assigned in a branch" in by_dt[0.6].why["u"]
    assert _short(by_dt[0.7]["u"])[2] == [64]  # the first iteration: z before the loop
    assert any("before the loop" in n for n in by_dt[0.7].notes)
    assert by_dt[0.8]["u"] is None and "rebound in a loop" in by_dt[0.8].why["u"]
    # through two callers: main -> outer(rods) -> simulate(v, 0.1, 3) -> step(u, t) in a loop
    loop = [s for s in sites if s["dt"]["type"] == "float" and s["dt"]["value"] == 0.0]
    assert [_short(s["u"])[2] for s in loop] == [[2, 64]]
    assert any("before the loop" in n for n in loop[0].notes)


def test_plan_reports_the_reason_a_flowing_value_is_unknown():
    source = "from phiml import math\ndef f(u): return u\ndef main():\n    f(load())\n"
    p = plan(source, "f", [source])
    assert "argument `u` of unknown type (`load(...)`" in p.reason


def test_item_names_keep_their_size_when_drawn():
    source = "from phiml import math\nfrom phiml.math import spatial, channel\ndef f(v): return v\n" \
             "f(math.zeros(spatial(x=3), channel(vector='x,y')))\n"
    sig = plan(source, "f", [source]).signatures[0]
    assert sig["v"]["symbols"] == ["#3", "=2"] and strategies.sizes("=2") == [2]


def test_a_loop_over_literal_rows_binds_the_first_row():
    source = "from phiml import math\nfrom phiml.math import spatial\ndef f(x): return x\n" \
             "def main():\n    return [f(math.tensor(v, spatial('x'))) for v in ([1., 20.], [-1., 2.])]\n"
    [site] = call_sites([source], "f", ["x"])
    assert _short(site["x"]) == ("phiml", "float32", [2], X) and site["x"]["value"] == [1., 20.]
    assert call_sites([source.replace("[-1., 2.]", "[-1., 2., 3.]")], "f", ["x"])[0]["x"] is None  # rows differ


def test_plan_says_when_a_description_is_a_loops_first_call():
    p = plan(FLOW, "step", [FLOW])
    assert p.reason == "" and any("before the loop" in n and "simulate" in n for n in p.notes)
    assert {tuple(s["u"]["shape"]) for s in p.signatures} >= {(64,), (2, 64), (2, 4), (16,)}
