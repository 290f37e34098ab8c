"""The rules still on libcst (control flow) say on the `ast` reading when they cannot report
(`Codemod.may_report`): such a file is read on `ast` alone and libcst does not parse it to show findings
(issue 45). The proof must hold wherever the rules report: over every golden input, a rule that says
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
RULES = tuple(by_code(code) for code in ("PML201", "PML202", "PML203", "PML206"))
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
    """Most golden inputs hold a finding of some rule; half or more prove these four absent."""
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
    result = process_source(DEFERRED_FLAG, "flag.py", Settings(codemods=(*RULES, by_code("PML204")),
                                                               original_positions=True, rewrite=False))
    assert result.error is None and not result.libcst_parsed
    assert [f.code for f in result.findings] == ["PML204"]


def test_a_traced_condition_is_still_read_on_libcst():
    source = DEFERRED_FLAG.replace(b"y = scale(1.0, True)\n", b"")
    result = process_source(source, "traced.py", CHECK)
    assert result.libcst_parsed and [f.code for f in result.findings] == ["PML201"]
