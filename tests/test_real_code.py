"""The real-code check (tests/harness/real_code.py) and the pieces it is made of.

test_real_code_matches_the_reviewed_findings is the check itself: minutes of work, marked slow, part
of `make test`. The rest show that each of its parts can fail: a new, vanished, moved or unreviewed
finding; a module that no longer imports; a function that is gone.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.harness import real_code
from tests.harness.real_code_expectations import Entry, Expectations, accept, differences, pair
from tests.harness.real_code_imports import FAILED, NOT_A_MODULE, NOT_IN_ORIGINAL, OK, AppliedFix, check_imports, \
    enclosing_unit, module_name

VERSIONS = {"jax": "0.10.2"}


@pytest.mark.slow
def test_real_code_matches_the_reviewed_findings(tmp_path):
    result = real_code.run(tmp_path)
    expected = Expectations.load(real_code.EXPECTATIONS)
    problems = result.problems(expected)
    print(result.summary(expected))  # shown with -rP; the wall time is in its first line
    assert not problems, (f"{len(problems)} problem(s); once each new finding is reviewed, "
                          f"`make accept-real-code` rewrites the file:\n" + "\n".join(problems)
                          + "\n\n" + result.summary(expected))


def _entry(line=10, text="if x > 0:", code="PML201", fix=None, applied=False, verdict="correct", **kw) -> Entry:
    return Entry(code, kw.pop("file", "jax/_src/a.py"), line, text, fix, applied, kw.pop("message", "m"), verdict,
                 kw.pop("note", ""))


def test_the_same_findings_reviewed_are_no_difference():
    entries = [_entry(), _entry(line=20, code="PML302", verdict="false-positive (accepted: static shape)")]
    assert differences(Expectations(VERSIONS, entries), [_entry(verdict="unreviewed"), entries[1]], VERSIONS) == []


def test_new_vanished_moved_changed_and_unreviewed_findings_are_differences():
    expected = Expectations(VERSIONS, [_entry(line=10), _entry(line=30, text="while y:"),
                                       _entry(line=50, text="for i in r:", verdict="unreviewed"),
                                       _entry(line=70, text="z = f(z)", fix="safe", applied=True)])
    observed = [_entry(line=12), _entry(line=40, text="new()"), _entry(line=50, text="for i in r:"),
                _entry(line=70, text="z = f(z)", fix="unsafe", applied=True)]
    found = differences(expected, observed, VERSIONS)
    assert [d.split(":")[0] for d in found] == ["new finding, not reviewed", "finding gone", "moved from line 10",
                                                "changed", "unreviewed"]
    assert "while y:" in found[1] and "new()" in found[0] and found[3].endswith("fix safe -> unsafe")


def test_verdicts_must_be_correct_or_an_accepted_false_positive_and_versions_must_match():
    entries = [_entry(verdict="false-positive"), _entry(line=11, verdict="wrong")]
    found = differences(Expectations(VERSIONS, entries), entries, {"jax": "0.10.3"})
    assert len(found) == 3 and "reviewed on" in found[0] and all("neither" in d for d in found[1:])


def test_a_pure_line_shift_is_recognised_in_line_order_and_repeated_anchors_pair_up():
    expected = [_entry(line=5), _entry(line=9), _entry(line=40)]
    observed = [_entry(line=6), _entry(line=10), _entry(line=40), _entry(line=90)]
    p = pair(expected, observed)
    assert [(e.line, o.line) for e, o in p.exact] == [(40, 40)]
    assert [(e.line, o.line) for e, o in p.moved] == [(5, 6), (9, 10)]
    assert [o.line for o in p.new] == [90] and p.vanished == []


def test_accept_keeps_verdicts_of_findings_still_there_and_asks_again_when_the_fix_changed():
    expected = Expectations({}, [_entry(line=10, verdict="correct", note="n1"),
                                 _entry(line=30, text="g()", fix="display", verdict="correct", note="n2"),
                                 _entry(line=60, text="gone()")])
    observed = [_entry(line=11, verdict="unreviewed", message="reworded"),
                _entry(line=30, text="g()", fix="unsafe", applied=True, verdict="unreviewed"),
                _entry(line=80, text="h()", verdict="unreviewed")]
    accepted, counts = accept(expected, observed, VERSIONS)
    by_line = {e.line: e for e in accepted.entries}
    assert (by_line[11].verdict, by_line[11].note, by_line[11].message) == ("correct", "n1", "reworded")
    assert by_line[30].verdict == "unreviewed" and "was 'correct' with fix=display" in by_line[30].note
    assert by_line[80].verdict == "unreviewed" and 60 not in by_line
    assert counts == {"kept": 1, "to review again": 1, "new": 1, "gone": 1, "moved": 1}
    assert accepted.packages == VERSIONS


def test_the_file_is_sorted_one_finding_a_line_and_reads_back(tmp_path):
    path = tmp_path / "e.json"
    entries = [_entry(line=30, file="phi/b.py"), _entry(line=2, file="phi/b.py", text="é"), _entry(file="jax/a.py")]
    Expectations(VERSIONS, entries).save(path)
    finding_lines = [line for line in path.read_text().splitlines() if '"code"' in line]
    assert [json.loads(line.strip().rstrip(","))["line"] for line in finding_lines] == [10, 2, 30]
    back = Expectations.load(path)
    assert [(e.file, e.line) for e in back.entries] == [("jax/a.py", 10), ("phi/b.py", 2), ("phi/b.py", 30)]
    assert set(back.entries) == set(entries) and back.packages == VERSIONS


SOURCE = textwrap.dedent("""\
    import functools
    X = 1

    def top(a):
        def inner(b):
            return b
        return inner(a)

    class Model:
        @functools.cache
        def forward(self, x):
            return x

        def __private(self):
            pass

        class Config:
            def get(self):
                return 1

    if X:
        def conditional():
            pass
""")


@pytest.mark.parametrize("line, unit", [(2, None), (4, "top"), (6, "top"), (9, "Model"), (10, "Model.forward"),
                                        (12, "Model.forward"), (15, "Model._Model__private"),
                                        (19, "Model.Config.get"), (22, "conditional")])
def test_a_line_belongs_to_the_unit_getattr_reaches(line, unit):
    assert enclosing_unit(SOURCE, line) == unit


def test_module_names_of_files():
    assert module_name("phi/field/__init__.py") == "phi.field"
    assert module_name("jax/_src/numpy/einsum.py") == "jax._src.numpy.einsum"
    assert module_name("jax/numpy/__init__.pyi") is None


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / name).write_text(textwrap.dedent(text))
    return root


def test_imports_fail_for_a_broken_module_or_a_lost_function_but_not_for_what_never_imported(tmp_path):
    original = _package(tmp_path / "original", {
        "__init__.py": "", "good.py": "def f(): pass\n", "broken.py": "def g(): pass\n",
        "lost.py": "class C:\n    def m(self): pass\n", "needs.py": "import not_installed_anywhere\n"})
    copy = _package(tmp_path / "copy", {
        "__init__.py": "", "good.py": "def f(): pass\n", "broken.py": "def g(): pass\nraise ImportError('rewrite')\n",
        "lost.py": "class C:\n    pass\n", "needs.py": "import not_installed_anywhere\n", "stub.pyi": "x: int\n"})
    fixes = [AppliedFix("PML1", "safe", "pkg/good.py", 1, "f"), AppliedFix("PML2", "unsafe", "pkg/broken.py", 1, "g"),
             AppliedFix("PML3", "safe", "pkg/lost.py", 2, "C.m"), AppliedFix("PML4", "safe", "pkg/needs.py", 1, None),
             AppliedFix("PML5", "safe", "pkg/stub.pyi", 1, None)]
    results = {r.fix.code: r for r in check_imports(fixes, copy, original)}
    assert {code: r.status for code, r in results.items()} == {
        "PML1": OK, "PML2": FAILED, "PML3": FAILED, "PML4": NOT_IN_ORIGINAL, "PML5": NOT_A_MODULE}
    assert "rewrite" in results["PML2"].detail and "C.m" in results["PML3"].detail
    assert "not_installed_anywhere" in results["PML4"].detail


def test_an_import_that_does_not_come_from_the_copy_fails(tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    result, = check_imports([AppliedFix("PML1", "safe", "json/__init__.py", 1, "dumps")], copy)
    assert result.status == FAILED and "not the rewritten copy" in result.detail


def test_a_control_flow_fix_in_library_code_is_a_problem_whatever_the_review_says():
    entries = [_entry(code="PML201", fix="unsafe"), _entry(line=20, code="PML202"), _entry(line=30, code="PML302", fix="safe")]
    run = real_code.RealCodeRun({}, {"failures": []}, entries, [], (1, 1), 0.0)
    assert run.run_problems() == ["control flow rewritten in library code: PML201 at jax/_src/a.py:10 (unsafe fix)"]
