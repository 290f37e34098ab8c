"""The rule still on libcst (PML206, unrolled loops) says on the `ast` reading when it cannot report
(`Codemod.may_report`): such a file is read on `ast` alone and libcst does not parse it to show findings
(issue 45). The proof must hold wherever the rule reports: over every golden input, a rule that says
it cannot report finds nothing when libcst reads the file."""
from __future__ import annotations

from pathlib import Path

import pytest

from rewriter import engine
from rewriter.engine import process_source
from rewriter.registry import by_code
from rewriter.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
INPUTS = sorted(p for p in (ROOT / "golden").rglob("*.py") if not p.name.endswith(".expected.py"))
RULES = (by_code("PML206"),)
ON_AST = tuple(by_code(code) for code in ("PML201", "PML202", "PML203"))  # decided on `ast`: never need libcst to report
CHECK = Settings(codemods=RULES, original_positions=True, rewrite=False)

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


@pytest.mark.parametrize("path", INPUTS, ids=[str(p.relative_to(ROOT / "golden")) for p in INPUTS])
def test_a_rule_that_cannot_report_finds_nothing(path: Path):
    source = path.read_bytes()
    try:
        file, _ = engine._read_on_ast(source, str(path), [], CHECK)
    except engine.ProcessingError:
        return  # (no reading: nothing to prove)
    try:
        absent = {rule.CODE for rule in RULES if rule.may_report(file) is False}
    finally:
        file.release()
    if absent:
        context = engine._run_codemods(engine.parse(source), str(path), RULES, CHECK, source)
        assert [f.code for f in context.findings if f.code in absent] == []


def test_the_proof_is_not_vacuous():
    """Most golden inputs hold a finding of some rule; half or more prove this one absent."""
    proven = 0
    for path in INPUTS:
        source = path.read_bytes()
        try:
            file, _ = engine._read_on_ast(source, str(path), [], CHECK)
        except engine.ProcessingError:
            continue
        proven += all(rule.may_report(file) is False for rule in RULES)
        file.release()
    assert proven >= len(INPUTS) // 2


def test_a_condition_left_to_pml204_is_decided_without_libcst(monkeypatch):
    """`if flip:` on a flag the call passes as a Python value is PML204's; the loop is short: nothing for
    the control-flow rules, and libcst never parses the file."""
    def refuse(*args, **kwargs):
        raise AssertionError("libcst parsed the file")

    monkeypatch.setattr(engine.cst, "parse_module", refuse)
    result = process_source(DEFERRED_FLAG, "flag.py", Settings(codemods=(*ON_AST, *RULES, by_code("PML204")),
                                                               original_positions=True, rewrite=False))
    assert result.error is None and not result.libcst_parsed
    assert [f.code for f in result.findings] == ["PML204"]


def test_a_traced_if_is_reported_without_libcst():
    """PML201 decides on `ast`; PML206 proves on `ast` that the short loop is not its."""
    source = DEFERRED_FLAG.replace(b"y = scale(1.0, True)\n", b"")
    result = process_source(source, "traced.py", Settings(codemods=(*ON_AST, *RULES), original_positions=True, rewrite=False))
    assert not result.libcst_parsed and [f.code for f in result.findings] == ["PML201"]


def test_a_traced_loop_is_reported_without_libcst():
    """PML202 decides on `ast` too: a trip count from a traced sum is reported, and libcst parses nothing."""
    source = DEFERRED_FLAG.replace(b"y = scale(1.0, True)\n", b"").replace(b"range(3)", b"range(x.shape[0] + x.sum())")
    result = process_source(source, "traced.py", Settings(codemods=(*ON_AST, *RULES), original_positions=True, rewrite=False))
    assert not result.libcst_parsed and "PML202" in [f.code for f in result.findings]


def test_an_unrolled_loop_is_still_read_on_libcst():
    source = b"import jax\n\nSTEPS = 100\n\n\n@jax.jit\ndef f(x):\n    for _ in range(STEPS):\n        x = x * 2.0 + 1.0\n    return x\n"
    result = process_source(source, "unrolled.py", CHECK)
    assert result.libcst_parsed and [f.code for f in result.findings] == ["PML206"]


# PML206's proof reads the loop as the rule counts it: a count that is a parameter without a long literal
# default, rows of a parameter nothing shows to be an array, or a zip of two sequences that are no
# consecutive pairs cannot be long (`unrolled_loop._may_count_long`); each long form is still read on libcst.
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
def test_an_unrolled_loop_is_proven_absent_only_where_it_cannot_be_long(name: str):
    code, may = LOOPS[name]
    source = f"from functools import partial\n\nimport jax\n\n\n{code}".encode()
    rule = by_code("PML206")
    file, _ = engine._read_on_ast(source, "loops.py", [], CHECK)
    try:
        assert rule.may_report(file) is may
    finally:
        file.release()
    context = engine._run_codemods(engine.parse(source), "loops.py", [rule], CHECK, source)
    assert bool([f for f in context.findings if f.code == "PML206"]) is may
