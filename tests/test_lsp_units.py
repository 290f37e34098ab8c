"""The language server's parts without a client: minimal edits, suppression comments, single fixes,
and the provisional (edited-function) analysis against the exact one."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewriter.config import Config
from rewriter.engine import Settings, process_source
from rewriter.lsp import incremental
from rewriter.lsp.document import DocumentAnalysis
from rewriter.lsp.textedits import apply_edits, minimal_edits
from rewriter.registry import all_codemods

from tests.harness.snippets import TRACED_IF as _TRACED_IF

ROOT = Path(__file__).resolve().parent.parent
CONFIG = Config(root=str(ROOT))

# -- minimal edits -------------------------------------------------------------------------------

_lines = st.lists(st.sampled_from(["a = 1\n", "b = 2\r\n", "    c()\n", "\n", "x", "é = 'ü'\n", "\r"]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(_lines, _lines)
def test_minimal_edits_turn_the_old_text_into_the_new(old, new):
    old, new = "".join(old), "".join(new)
    edits = minimal_edits(old, new)
    assert apply_edits(old, edits) == new
    assert all(a.end <= b.start for a, b in zip(edits, edits[1:]))  # ordered, not overlapping


def test_minimal_edits_touch_only_what_changed():
    old = "".join(f"line_{i} = {i}\n" for i in range(1000))
    new = old.replace("line_500 = 500", "line_500 = 5000").replace("line_10 = 10\n", "")
    edits = minimal_edits(old, new)
    assert [e.text for e in edits] == ["", "0"]
    assert sum(e.end - e.start for e in edits) == len("line_10 = 10\n")


# -- suppression comments ------------------------------------------------------------------------


def _finding(source: str, code: str):
    (finding,) = [f for f in DocumentAnalysis.of(source, str(ROOT / "x.py"), CONFIG).findings if f.code == code]
    return finding



TRACED_IF = _TRACED_IF.replace("if x.mean > 1:", "if x.mean > 1:{comment}")


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("", "  # phiml-rewrite: ignore[PML201]"),
        ("  # noqa: E501", "  # noqa: E501  # phiml-rewrite: ignore[PML201]"),
        ("  # phiml-rewrite: ignore[PML999]", "  # phiml-rewrite: ignore[PML999, PML201]"),
    ],
)
def test_suppression_comment_is_added_or_extended(comment, expected):
    source = TRACED_IF.format(comment=comment)
    analysis = DocumentAnalysis.of(source, str(ROOT / "x.py"), CONFIG)
    (finding,) = [f for f in analysis.findings if f.code == "PML201"]
    edit = analysis.suppression_edit(finding)
    fixed = apply_edits(source, [edit])
    assert f"    if x.mean > 1:{expected}\n" in fixed
    assert not [f for f in DocumentAnalysis.of(fixed, str(ROOT / "x.py"), CONFIG).findings if f.code == "PML201"]


def test_suppression_goes_to_the_last_line_when_the_first_ends_in_a_string():
    source = textwrap.dedent(
        '''\
        from phiml import math


        @math.jit_compile
        def clamp(x):
            if x.mean > len("""
        """):
                x = x / 2
            return x
        '''
    )
    analysis = DocumentAnalysis.of(source, str(ROOT / "x.py"), CONFIG)
    (finding,) = [f for f in analysis.findings if f.code == "PML201"]
    assert finding.span.line != finding.span.end_line
    fixed = apply_edits(source, [analysis.suppression_edit(finding)])
    assert '"""):  # phiml-rewrite: ignore[PML201]\n' in fixed
    assert compile(fixed, "x.py", "exec")
    assert not [f for f in DocumentAnalysis.of(fixed, str(ROOT / "x.py"), CONFIG).findings if f.code == "PML201"]


# -- one fix at a time ---------------------------------------------------------------------------


GOLDEN_WITH_FIXES = [p for p in sorted((ROOT / "golden").glob("*/*.py"))
                     if not p.name.endswith(".expected.py") and p.with_name(p.stem + ".expected.py").exists()]


@pytest.mark.parametrize("case", GOLDEN_WITH_FIXES[::3], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_fix_alone_is_a_step_of_the_cli_rewrite(case):
    """Applying one finding's fix, then the CLI, gives the CLI's rewrite: the fix is the CLI's own.

    With one fixable finding that is the CLI's output itself. With several, definitions two fixes
    hoist before the same statement may come in the other order (the CLI inserts them together).
    """
    source = case.read_text()
    settings = Settings(all_codemods(), unsafe_fixes=True)
    want = process_source(source.encode(), str(case), settings).new_source.decode()
    analysis = DocumentAnalysis.of(source, str(case), CONFIG)
    fixable = [f for f in analysis.findings if analysis.has_fix(f)]
    assert fixable
    for finding in fixable:
        one = apply_edits(source, analysis.fix_edits(finding))
        assert one != source
        rest = process_source(one.encode(), str(case), settings)
        got = rest.new_source.decode() if rest.new_source else one
        if len(fixable) == 1:
            assert got == want, finding.code
        else:
            assert sorted(got.splitlines()) == sorted(want.splitlines()), finding.code
            assert ast.dump(ast.parse(got)).count("FunctionDef") == ast.dump(ast.parse(want)).count("FunctionDef")


def test_fix_all_is_the_cli_rewrite():
    source = (ROOT / "examples" / "phiml_diffusion.py").read_text()
    analysis = DocumentAnalysis.of(source, str(ROOT / "examples" / "x.py"), CONFIG)
    want = process_source(source.encode(), "x.py", Settings(all_codemods())).new_source.decode()
    assert apply_edits(source, analysis.fix_all_edits()) == want


# -- provisional findings of an edited function --------------------------------------------------


def _key(findings):
    """What a diagnostic shows: code, place, message and note, and the related places (which move with
    the edit: the provisional path shifts them, the exact one finds them anew)."""
    return sorted((f.code, f.span, f.message, f.note, tuple((r.path, r.span, r.message) for r in f.related))
                  for f in findings)


def _edits(source: str):
    """One edit per def, the kinds in turn (over the corpus, each kind meets every shape of def): a
    comment line at the top of its body, its last statement removed, or a line appended after it."""
    tree, lines = ast.parse(source), incremental.lines_of(source)
    defs = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.append(stmt)
        elif isinstance(stmt, ast.ClassDef):
            defs += [s for s in stmt.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for i, node in enumerate(defs):
        first = node.body[0]
        if first.lineno <= node.lineno:
            continue
        indent = lines[first.lineno - 1][: len(lines[first.lineno - 1]) - len(lines[first.lineno - 1].lstrip())]
        last = node.body[-1]
        kind = (i + len(source)) % 3
        if kind == 0:
            yield node, "".join(lines[: first.lineno - 1] + [indent + "# edited\n"] + lines[first.lineno - 1:])
        elif kind == 1 and len(node.body) > 1:
            yield node, "".join(lines[: last.lineno - 1] + lines[last.end_lineno:])
        else:  # a line typed after the last statement, where the blank lines before the next def are
            yield node, "".join(lines[: last.end_lineno] + [indent + "_typed = 1\n"] + lines[last.end_lineno:])


SOURCES = sorted(p for p in (ROOT / "golden").glob("*/*.py") if not p.name.endswith(".expected.py"))[::2] + sorted(
    (ROOT / "examples").glob("*.py"))


@pytest.mark.slow
def test_provisional_findings_agree_with_the_exact_analysis():
    """The edited function's own findings always; the rest of the file, all but rare cross-function cases."""
    path = str(ROOT / "x.py")

    agreed = differed = declined = 0
    for source_path in SOURCES:
        source = source_path.read_text()
        base = DocumentAnalysis.of(source, path, CONFIG)
        if base.error:
            continue

        def analyse(text):  # as the server does: the roles of the whole buffer's analysis
            piece = DocumentAnalysis.of(text, path, CONFIG, base.facts)
            return None if piece.error else piece.findings

        for node, edited in _edits(source):
            try:
                ast.parse(edited)
            except SyntaxError:
                continue
            provisional = incremental.provisional_findings(source, base.findings, edited, analyse)
            if provisional is None:
                declined += 1
                continue
            exact = DocumentAnalysis.of(edited, path, CONFIG).findings
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            own_provisional = [f for f in provisional if _in_def(edited, f, start)]
            own_exact = [f for f in exact if _in_def(edited, f, start)]
            assert _key(own_provisional) == _key(own_exact), (source_path, node.name)
            if _key(provisional) == _key(exact):
                agreed += 1
            else:
                differed += 1
    assert agreed >= 150
    assert differed <= agreed // 50, (agreed, differed)
    assert declined <= (agreed + differed) // 20, declined


def _in_def(text: str, finding, start: int) -> bool:
    """Whether the finding lies in the def that starts at line `start` (in the edited text)."""
    for stmt in ast.walk(ast.parse(text)):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([d.lineno for d in stmt.decorator_list] + [stmt.lineno])
            if first == start:
                return first <= finding.span.line and finding.span.end_line <= stmt.end_lineno
    return False


@pytest.mark.parametrize(
    "before, after",
    [
        ("def clamp(x):", "def clamp(x, y=1):"),  # a signature: callers' findings may change
        ("@math.jit_compile\n", ""),  # a decorator
        ("from phiml import math\n", "from phiml import math\nimport numpy\n"),  # module level
    ],
)
def test_edits_outside_a_body_take_the_exact_path(before, after):
    source = TRACED_IF.format(comment="")
    edited = source.replace(before, after)
    base = DocumentAnalysis.of(source, str(ROOT / "x.py"), CONFIG)
    assert incremental.provisional_findings(source, base.findings, edited, lambda text: []) is None


def test_an_edit_inside_a_body_analyses_a_slice_with_outlines():
    source = (ROOT / "examples" / "phiml_diffusion.py").read_text()
    lines = incremental.lines_of(source)
    tree = ast.parse(source)
    (node,) = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "simulate_heated"]
    unit = incremental.edited_unit(tree, lines, node.body[0].lineno, node.body[0].lineno)
    piece = incremental.build_slice(tree, lines, unit)
    assert "def simulate_heated(u, dt, steps):" in piece.text
    assert "def heated_step(u, dt, t):" in piece.text  # named by the edited function: kept
    assert len(piece.text.splitlines()) < len(lines) // 2
    compile(piece.text, "slice.py", "exec")


def test_slice_keeps_a_def_that_rebinds_the_edited_name():
    """`jax.jit(step)` reads the last `def step`: a slice of the first one must keep the second's
    outline, or the provisional analysis jits the wrong function (golden/traced-if/rebound_def.py)."""
    source = (ROOT / "golden" / "traced-if" / "rebound_def.py").read_text()
    path = str(ROOT / "x.py")
    base = DocumentAnalysis.of(source, path, CONFIG)
    edited = source.replace("    if n > 2:\n", "    # edited\n    if n > 2:\n", 1)

    def analyse(text):
        piece = DocumentAnalysis.of(text, path, CONFIG, base.facts)
        return None if piece.error else piece.findings

    provisional = incremental.provisional_findings(source, base.findings, edited, analyse)
    assert provisional == [] == DocumentAnalysis.of(edited, path, CONFIG).findings


def test_slice_keeps_the_defs_that_reassign_a_global_the_edited_one_reads():
    """PML101's note on a per-call operator depends on a global some def reassigns (`global SCALE`), read
    through a def the edited one names: the slice keeps both whole (golden/temporary-function/wrapper_not_hoisted.py)."""
    source = (ROOT / "golden" / "temporary-function" / "wrapper_not_hoisted.py").read_text()
    lines = incremental.lines_of(source)
    tree = ast.parse(source)
    (node,) = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "reads_global"]
    unit = incremental.edited_unit(tree, lines, node.body[0].lineno, node.body[0].lineno)
    piece = incremental.build_slice(tree, lines, unit)
    assert "    global SCALE\n" in piece.text and "    return SCALE * x\n" in piece.text
    assert "def twice(x)" not in piece.text  # (named nowhere: left out)
