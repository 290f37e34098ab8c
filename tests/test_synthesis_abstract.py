"""The abstract proof of verify-by-synthesis: the branch-forcing transform (`branches`, run on stand-in
values, no framework), the description and comparison of results, how a proof and the draws combine
(`report`), and `jax.eval_shape` proofs and disproofs on small modules (backends: imports jax)."""
from __future__ import annotations

import textwrap

import pytest

from rewriter.verify.synthesis import abstract, branches
from rewriter.verify.synthesis.report import FALSIFIED, PROVEN, UNSYNTHESIZABLE, VERIFIED, Result, Synthesis


class Traced:
    """A stand-in for a tracer: no truth value of its own."""

    def __init__(self, name: str = "t"):
        self.name = name

    def __gt__(self, other):
        return self

    __lt__ = __gt__



@pytest.fixture(autouse=True)
def _jax_default_precision():
    """A worker proves in a fresh process, at jax's default precision; an earlier test in this process
    may have let PhiML's jax backend switch x64 on (float64 where the worker sees float32)."""
    import jax

    with jax.enable_x64(False):
        yield

def _decide(value):
    return None if isinstance(value, Traced) else bool(value)


def _paths(source: str, name: str = "f", **args):
    forced = branches.forced(textwrap.dedent(source), name, "<test>", {})
    return forced, branches.paths(lambda probe: forced.make(probe)(**args), decide=_decide)


def test_one_traced_if_gives_both_branches():
    forced, paths = _paths("""
        def f(x):
            if x > 0:
                y = "pos"
            else:
                y = "neg"
            return y
    """, x=Traced())
    assert forced.lines == [3]
    assert sorted(paths) == [(((3, False),), "neg"), (((3, True),), "pos")]


def test_nested_if_is_a_decision_only_on_the_paths_that_reach_it():
    _, paths = _paths("""
        def f(x, z):
            if x > 0:
                if z > 0:
                    return "both"
                return "x only"
            return "neither"
    """, x=Traced(), z=Traced())
    assert sorted(paths) == [(((3, False),), "neither"), (((3, True), (4, False)), "x only"),
                             (((3, True), (4, True)), "both")]


def test_elif_chain_and_conditional_expression():
    _, paths = _paths("""
        def f(x):
            if x > 2:
                return "big"
            elif x > 1:
                return "mid" if x > 1.5 else "low-mid"
            else:
                return "small"
    """, x=Traced())
    assert sorted(r for _, r in paths) == ["big", "low-mid", "mid", "small"]
    assert [line for line, _ in max(paths, key=lambda p: len(p[0]))[0]] == [3, 5, 6]


def test_early_return_ends_a_path():
    _, paths = _paths("""
        def f(x):
            if x > 0:
                return "early"
            if x < 0:
                return "second"
            return "late"
    """, x=Traced())
    assert sorted(r for _, r in paths) == ["early", "late", "second"]
    assert [taken for taken, r in paths if r == "early"] == [((3, True),)]


def test_each_operand_of_and_or_not_is_a_condition_of_its_own():
    _, paths = _paths("""
        def f(x, y, n):
            if x > 0 and not y > 0 or n > 5:
                return "yes"
            return "no"
    """, x=Traced(), y=Traced(), n=3)
    assert sorted(paths) == [(((3, False),), "no"), (((3, True), (3, False)), "yes"), (((3, True), (3, True)), "no")]


def test_an_if_on_a_static_value_is_left_alone():
    _, paths = _paths("""
        def f(x, n):
            if n > 2:
                out = "many"
            else:
                out = "few"
            if x > 0:
                out += "+"
            return out
    """, x=Traced(), n=3)
    assert sorted(paths) == [(((7, False),), "many"), (((7, True),), "many+")]


def test_an_if_in_a_loop_is_a_decision_each_time_and_paths_are_bounded():
    source = """
        def f(x):
            out = ""
            for _ in range(6):
                if x > 0:
                    out += "1"
            return out
    """
    forced = branches.forced(textwrap.dedent(source), "f", "<test>", {})
    with pytest.raises(branches.TooManyPaths):
        branches.paths(lambda probe: forced.make(probe)(x=Traced()), decide=_decide, limit=32)
    assert len(branches.paths(lambda probe: forced.make(probe)(x=Traced()), decide=_decide, limit=64)) == 64


def test_the_copy_keeps_the_module_untouched_and_drops_jit_and_annotations():
    module = {"jax": None, "SCALE": 3}
    source = textwrap.dedent("""
        @jax.jit
        def f(x: Undefined) -> Undefined:
            return SCALE if x > 0 else -SCALE
    """)
    forced = branches.forced(source, "f", "<test>", module)
    assert set(module) - {"__builtins__"} == {"jax", "SCALE"}
    assert sorted(r for _, r in branches.paths(lambda p: forced.make(p)(Traced()), decide=_decide)) == [-3, 3]


@pytest.mark.parametrize("decorator", ["functools.lru_cache", "my_decorator(3)"])
def test_another_decorator_means_no_proof(decorator):
    with pytest.raises(branches.NotForcible, match="a decorator other than jit"):
        branches.forced(f"@{decorator}\ndef f(x):\n    return x if x > 0 else -x\n", "f", "<test>", {})


def test_partial_jit_and_phiml_jit_are_removed():
    for decorator in ("functools.partial(jax.jit, static_argnames='n')", "math.jit_compile", "jit_compile(auxiliary_args='n')"):
        forced = branches.forced(f"@{decorator}\ndef f(x, n):\n    return x if n else -x\n", "f", "<test>", {})
        assert forced.make(branches.Probe((), _decide))(1, True) == 1


def test_labels():
    assert branches.label(((12, True),)) == "branch True"
    assert branches.label(((12, True), (15, False))) == "line 12 True, line 15 False"
    assert branches.label(((12, True), (12, False), (15, True))) == "line 12 True/False, line 15 True"
    assert branches.label(()) == "the path without a traced branch"


# -- descriptions and agreement ------------------------------------------------------------------

def test_a_python_number_agrees_with_a_zero_d_value_of_its_kind():
    f32, i32 = ("array", (), "float32"), ("array", (), "int32")
    assert abstract.agree(("number", "float"), f32) and abstract.agree(("number", "int"), f32)
    assert not abstract.agree(("number", "float"), i32)
    assert not abstract.agree(("number", "float"), ("array", (3,), "float32"))
    assert not abstract.agree(("array", (3,), "float32"), ("array", (3,), "int32"))
    assert abstract.show(("tuple", (("array", (4096, 2), "float32"), ("number", "int")))) == "(float32[4096,2], a Python int)"


def test_sizes_vary_every_axis_together():
    sig = {"x": {"kind": "array", "framework": "jax", "dtype": "float32", "shape": [4096, 3], "symbols": ["#4096", "#3"]}}
    assert abstract._sizes(sig) == [{"#4096": 4096, "#3": 3}, {"#4096": 4097, "#3": 4}, {"#4096": 1, "#3": 1},
                                    {"#4096": 0, "#3": 0}]


# -- how a proof and the draws combine ------------------------------------------------------------

def _synthesis(*results: Result) -> Synthesis:
    return Synthesis(results=list(results), backends=["jax"])


def test_a_proof_promotes_a_function_whose_draws_were_cut_short():
    s = _synthesis(Result("m.py", "f", "jax", VERIFIED, 3, cut_short=True, proof="shapes agree on 4 signatures",
                          proof_verdict=abstract.PROVEN))
    assert s.proven_units() == {("m.py", "f")} and not s.verified_units()
    assert s.counts()[PROVEN] == 1 and s.exit_code == 0


def test_a_disproof_withdraws_even_when_the_draws_agreed():
    s = _synthesis(Result("m.py", "f", "jax", VERIFIED, 30, proof="at x=int32[2]: ...", proof_verdict=abstract.DISPROVEN))
    assert s.falsified_units() == {("m.py", "f")} and s.exit_code == 1 and s.counts()[FALSIFIED] == 1


def test_a_falsification_outweighs_a_proof():
    s = _synthesis(Result("m.py", "f", "jax", FALSIFIED, proof="shapes agree", proof_verdict=abstract.PROVEN))
    assert not s.proven_units() and s.falsified_units() == {("m.py", "f")}


def test_no_promotion_when_the_original_failed_on_every_draw():
    s = _synthesis(Result("m.py", "f", "jax", UNSYNTHESIZABLE, reason="the original fails on every input drawn (...)",
                          proof="shapes agree", proof_verdict=abstract.PROVEN))
    assert not s.proven_units() and s.exit_code == 2


def test_a_proof_on_jax_covers_the_other_phiml_backends_unless_they_falsify():
    proof = dict(proof="shapes agree on 4 signatures", proof_verdict=abstract.PROVEN)
    s = Synthesis(results=[Result("m.py", "f", "jax", VERIFIED, 3, cut_short=True, **proof),
                           Result("m.py", "f", "torch", UNSYNTHESIZABLE, reason="cut short by the time budget")],
                  backends=["jax", "torch"])
    assert s.proven_units() == {("m.py", "f")}
    s.results.append(Result("m.py", "f", "numpy", FALSIFIED))
    assert not s.proven_units()


def test_the_table_has_a_proof_column_when_a_proof_was_attempted():
    from rich.console import Console

    from rewriter.verify.synthesis import display

    console = Console(width=100, record=True, no_color=True)
    display.render(_synthesis(Result("m.py", "f", "jax", VERIFIED, 3, cut_short=True, proof="shapes agree on 4 signatures",
                                     proof_verdict=abstract.PROVEN),
                              Result("m.py", "g", "jax", VERIFIED, 30, proof="at x=int32[2]: branch True gives float32[2], "
                                     "branch False gives int32[2]; the rewrite gives float32[2]",
                                     proof_verdict=abstract.DISPROVEN)), console)
    text = console.export_text()
    assert "abstract proof" in text and "✓ shapes agree on 4" in text and "✗ at x=int32[2]" in text
    assert "1 proven abstractly, 1 falsified" in text


# -- jax.eval_shape ----------------------------------------------------------------------------------

def _prove(source: str, name: str, rewritten: str, signature: dict, framework: str = "jax"):
    import time

    source = textwrap.dedent(source)
    module: dict = {}
    exec(compile(source, "<original>", "exec"), module)
    other: dict = {}
    exec(compile(textwrap.dedent(rewritten), "<rewritten>", "exec"), other)
    return abstract.prove(source, "<original>", name, module, other[name], {"signatures": [signature]},
                          time.monotonic() + 30)


def _array(shape, dtype="float32"):
    return {"kind": "array", "framework": "jax", "dtype": dtype, "shape": list(shape), "symbols": [f"#{n}" for n in shape]}


@pytest.mark.backends
def test_eval_shape_proves_a_merge_at_a_size_no_draw_builds():
    proof = _prove("""
        import jax.numpy as jnp
        def f(x):
            if jnp.any(x > 0):
                return x - x.mean(axis=0)
            return x
    """, "f", """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return jnp.where(jnp.any(x > 0), x - x.mean(axis=0), x)
    """, {"x": _array([100_000, 100_000])})
    assert proof == {"verdict": abstract.PROVEN, "reason": "shapes agree on 4 signatures"}


@pytest.mark.backends
def test_eval_shape_disproves_a_dtype_difference_and_says_how():
    proof = _prove("""
        import jax.numpy as jnp
        def f(x):
            if jnp.any(x > 2):
                y = x * 0.5
            else:
                y = x
            return y
    """, "f", """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return jnp.where(jnp.any(x > 2), x * 0.5, x)
    """, {"x": _array([3], "int32")})
    assert proof["verdict"] == abstract.DISPROVEN
    assert proof["reason"] == ("at x=int32[3]: branch True gives float32[3], branch False gives int32[3]; "
                               "the rewrite gives float32[3]")


@pytest.mark.backends
def test_an_error_only_one_branch_raises_is_no_proof():
    proof = _prove("""
        import jax.numpy as jnp
        def f(x):
            if jnp.all(x > 0):
                return jnp.sum(x, axis=0)
            return x[0]
    """, "f", """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return jnp.where(jnp.all(x > 0), jnp.sum(x, axis=0), x[0])
    """, {"x": _array([2, 3])})
    assert proof["verdict"] == abstract.INCONCLUSIVE and "branch False fails abstractly at x=float32[0,0]" in proof["reason"]


@pytest.mark.backends
def test_phiml_tensors_are_built_from_the_abstract_arrays():
    from rewriter import runtime

    runtime.install({"backend": "jax", "eager": False, "instrument": {}})
    signature = {"x": {"kind": "array", "framework": "phiml", "dtype": "float32", "shape": [4096], "symbols": ["#4096"],
                       "dims": [["x", "spatial"]]}}
    proof = _prove("""
        from phiml import math
        def f(x):
            return x * 0.5 if (x < 0).any and math.sum(x) > 0 else math.sum(x)
    """, "f", """
        from phiml import math
        @math.jit_compile
        def f(x):
            return math.where((x < 0).any & (math.sum(x) > 0), x * 0.5, math.sum(x))
    """, signature)
    assert proof["verdict"] == abstract.DISPROVEN
    assert proof["reason"] == ("at x=float32[x=4096]: branch True/True gives float32[x=4096], branch False gives float32[], "
                               "branch True/False gives float32[]; the rewrite gives float32[x=4096]")


@pytest.mark.backends
def test_no_proof_is_attempted_when_every_if_is_static():
    assert _prove("""
        def f(x, w):
            if w > 0.5:
                return x * w
            return x
    """, "f", """
        def f(x, w):
            return x * w if w > 0.5 else x
    """, {"x": _array([3]), "w": {"kind": "scalar", "type": "float", "value": None}}) is None
