"""An editor's pass over a file whose rules are all decided on `ast` parses no libcst until a fix is asked
for (engine.report_pass, issue 45), and then offers the fixes the libcst pass would have offered."""
from __future__ import annotations

from pathlib import Path

import pytest

from rewriter.ast_rule import decided_on_ast
from rewriter.engine import Pass, _candidates, _finding_key, _run_codemods, parse, report_pass
from rewriter.lsp.document import DocumentAnalysis
from rewriter.registry import all_codemods
from rewriter.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = Settings(codemods=tuple(all_codemods()), unsafe_fixes=True)


def _on_ast_with_fixes() -> list[Path]:
    """The golden originals whose candidate rules are all on `ast` and that have a planned fix."""
    out = []
    for path in sorted((ROOT / "golden").glob("*/*.py")):
        if path.name.endswith(".expected.py") or path.parent.name in ("projects", "verify-synthesis"):
            continue
        source = path.read_bytes()
        codemods = _candidates(source, SETTINGS)
        if codemods and all(map(decided_on_ast, codemods)) and path.with_name(path.stem + ".expected.py").exists():
            out.append(path)
    return out


CASES = _on_ast_with_fixes()


def test_there_are_such_cases():
    assert len(CASES) >= 20


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixes_are_written_on_demand_as_the_libcst_pass_writes_them(path: Path):
    source = path.read_bytes()
    lazy = report_pass(source, str(path), SETTINGS)
    assert lazy.context is None  # findings shown, libcst not parsed
    planned = [f for f in lazy.findings if lazy.has_fix(f)]
    assert planned and lazy.context is None

    context = _run_codemods(parse(source), str(path), _candidates(source, SETTINGS), SETTINGS, source)
    eager = Pass(context.findings, {id(fix.finding): fix for fix in context.fixes}, context)
    assert [_finding_key(f) for f in lazy.findings] == [_finding_key(f) for f in eager.findings]
    by_key = {_finding_key(f): f for f in eager.findings}
    for finding in lazy.findings:
        fix = lazy.fix_for(finding)
        other = eager.fix_for(by_key[_finding_key(finding)])
        assert (fix is None) == (other is None) and lazy.has_fix(finding) == (fix is not None)
        if fix is not None:
            assert lazy.apply([fix]) == eager.apply([other])


def test_a_document_asks_libcst_only_for_a_quick_fix():
    path = CASES[0]
    analysis = DocumentAnalysis.of(path.read_text(encoding="utf-8"), str(path))
    assert analysis.findings and analysis._pass is not None and analysis._pass.context is None
    fixable = [f for f in analysis.findings if analysis.has_fix(f)]
    assert fixable and analysis._pass.context is None
    assert analysis.fix_edits(fixable[0]) and analysis._pass.context is not None
