"""Every rule is decided on `ast` (issue 45): a `--check` that shows no fix never parses a file with libcst.
The control-flow rules, the last to move, report on `ast` alone: a traced condition, a traced trip count, an
unrolled loop; and a file they find nothing in is not parsed either."""
from __future__ import annotations

from pathlib import Path

import pytest

from rewriter import engine
from rewriter.ast_rule import decided_on_ast
from rewriter.engine import process_source
from rewriter.registry import all_codemods, by_code
from rewriter.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
INPUTS = sorted(p for p in (ROOT / "golden").rglob("*.py") if not p.name.endswith(".expected.py"))
CONTROL_FLOW = tuple(by_code(code) for code in ("PML201", "PML202", "PML203", "PML206"))
CHECK = Settings(codemods=CONTROL_FLOW, original_positions=True, rewrite=False)


def _no_libcst(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("libcst parsed the file")

    monkeypatch.setattr(engine.cst, "parse_module", refuse)


def test_every_rule_is_decided_on_ast():
    assert all(decided_on_ast(rule) for rule in all_codemods())


@pytest.mark.parametrize("path", INPUTS, ids=[str(p.relative_to(ROOT / "golden")) for p in INPUTS])
def test_a_check_of_a_golden_input_never_parses_libcst(path: Path, monkeypatch):
    _no_libcst(monkeypatch)
    result = process_source(path.read_bytes(), str(path), Settings(codemods=all_codemods(), original_positions=True, rewrite=False))
    assert not result.libcst_parsed
    assert result.error is None or not result.error.startswith("internal error"), result.error


DEFERRED_FLAG = b'''import jax


@jax.jit
def scale(x, flip):
    if flip:
        return -x
    for k in range(3):
        x = x + k
    return x


y = scale(1.0, True)
'''


def test_a_condition_left_to_pml204_is_decided_without_libcst(monkeypatch):
    """`if flip:` on a flag the call passes as a Python value is PML204's; the loop is short: nothing for
    the control-flow rules, and libcst never parses the file."""
    _no_libcst(monkeypatch)
    result = process_source(DEFERRED_FLAG, "flag.py", Settings(codemods=(*CONTROL_FLOW, by_code("PML204")),
                                                               original_positions=True, rewrite=False))
    assert result.error is None and not result.libcst_parsed
    assert [f.code for f in result.findings] == ["PML204"]


def test_a_traced_if_is_reported_without_libcst():
    """PML201 decides on `ast`; PML206 finds on `ast` that the short loop is not its."""
    source = DEFERRED_FLAG.replace(b"y = scale(1.0, True)\n", b"")
    result = process_source(source, "traced.py", CHECK)
    assert not result.libcst_parsed and [f.code for f in result.findings] == ["PML201"]


def test_a_traced_loop_is_reported_without_libcst():
    """PML202 decides on `ast` too: a trip count from a traced sum is reported, and libcst parses nothing."""
    source = DEFERRED_FLAG.replace(b"y = scale(1.0, True)\n", b"").replace(b"range(3)", b"range(x.shape[0] + x.sum())")
    result = process_source(source, "traced.py", CHECK)
    assert not result.libcst_parsed and "PML202" in [f.code for f in result.findings]


def test_an_unrolled_loop_is_reported_without_libcst(monkeypatch):
    _no_libcst(monkeypatch)
    source = b"import jax\n\nSTEPS = 100\n\n\n@jax.jit\ndef f(x):\n    for _ in range(STEPS):\n        x = x * 2.0 + 1.0\n    return x\n"
    result = process_source(source, "unrolled.py", CHECK)
    assert not result.libcst_parsed and [f.code for f in result.findings] == ["PML206"]


# PML206 counts a loop as long, or not: a count that is a parameter without a long literal default, rows of
# a parameter nothing shows to be an array, or a zip of two sequences that are no consecutive pairs is not.
STATIC_N = "@partial(jax.jit, static_argnames='n')\n"
LOOPS = {
    "a static count without default": (STATIC_N + """def f(x, n):
    for _ in range(n):
        x = x * 2.0 + 1.0
    return x
""", False),
    "a count long by default": (STATIC_N + """def f(x, n=100):
    for _ in range(n):
        x = x * 2.0 + 1.0
    return x
""", True),
    "a local count from a literal": (STATIC_N + """def f(x, n):
    k = 3
    for _ in range(k):
        x = x * 2.0 + 1.0
    return x
""", False),
    "a module constant": ("""STEPS = 100


@jax.jit
def f(x):
    for _ in range(STEPS):
        x = x * 2.0 + 1.0
    return x
""", True),
    "a length through a local": ("""@jax.jit
def f(x):
    m = x.shape[0] - 1
    y = x * 0.0
    for i in range(m):
        y = y.at[i].set(x[i + 1] * 2.0)
    return y
""", True),
    "rows of a parameter read as an array": ("""@jax.jit
def f(x):
    y = x[0] * 0.0
    for row in x:
        y = y + row * 2.0
    return y * x.ndim
""", True),
    "rows of a slice of a plain parameter": ("""@jax.jit
def f(x):
    y = 0.0
    for row in x[0]:
        y = y + row * 2.0
    return y
""", False),
    "a zip of two sequences": ("""@jax.jit
def f(x, z):
    y = 0.0
    for a, b in zip(x[1:], z[1:]):
        y = y + a * b
    return y
""", False),
    "consecutive pairs": ("""@jax.jit
def f(x):
    y = 0.0
    for a, b in zip(x, x[1:]):
        y = y + (b - a) * 2.0
    return y
""", True),
}


@pytest.mark.parametrize("name", LOOPS)
def test_an_unrolled_loop_is_reported_only_where_it_is_long(name: str, monkeypatch):
    _no_libcst(monkeypatch)
    code, long = LOOPS[name]
    source = f"from functools import partial\n\nimport jax\n\n\n{code}".encode()
    result = process_source(source, "loops.py", Settings(codemods=(by_code("PML206"),), original_positions=True, rewrite=False))
    assert not result.libcst_parsed
    assert bool([f for f in result.findings if f.code == "PML206"]) is long
