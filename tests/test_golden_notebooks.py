"""Golden notebooks (golden/notebooks/): one per rule family, and one that must not change.

A case is `<name>.ipynb` with `<name>.expected.ipynb` (absent: the notebook must stay byte-identical);
what to check is in the notebook's metadata under `phiml_rewrite_golden` (or `<name>.golden.json` for an
empty file), as in golden .py cases (tests/harness/golden_cases.py), with findings as `CODE:cell N:line` and
`notes` the notes the run must give (substrings). The rewrite is the CLI's: a notebook paired by jupytext
with a file beside it is held back (rewriter/notebooks/pairs.py). Each case is checked for its exact
output, for idempotence, and executed with nbclient in a real kernel on each backend it names: the
original and the rewrite, jitted and eager, compared with the original's eager result.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from rewriter.notebooks import process_notebook
from rewriter.notebooks.pairs import hold_pairs
from rewriter.verify.values import compare
from tests.harness.golden_cases import notebook_paths, notebook_settings, notebook_spec
from tests.harness.golden_checks import check_runs
from tests.harness.notebook_kernel import NotebookRun, run_notebooks

ROOT = Path(__file__).resolve().parent.parent
DIRECTORY = ROOT / "golden" / "notebooks"
FAMILIES = ("lift", "control_flow", "hoist", "retracing", "migration", "must_not_change", "lenient", "empty", "paired")


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    spec: dict = field(hash=False)

    @property
    def expected_path(self) -> Path:
        return self.path.with_name(self.name + ".expected.ipynb")

    @property
    def expected(self) -> bytes:
        return (self.expected_path if self.expected_path.exists() else self.path).read_bytes()

    @property
    def framework(self) -> str:
        return self.spec.get("framework", "phiml")

    def __str__(self) -> str:
        return self.name


def _cases() -> list[Case]:
    out = []
    for path in notebook_paths(DIRECTORY):
        out.append(Case(path.stem, path, notebook_spec(path)))
    return out


CASES = _cases()


def _rewrite(case: Case, source: bytes | None = None):
    settings = notebook_settings(case.path, case.spec, DIRECTORY)
    result = process_notebook(case.path.read_bytes() if source is None else source, case.path.name, settings)
    named = replace(result, path=str(case.path))  # the pair's twin is found beside the file
    hold_pairs([named])
    return replace(named, path=result.path)


def test_every_family_has_a_case():
    for family in FAMILIES:
        assert any(c.name.startswith(family) for c in CASES), f"no golden notebook for {family}"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_rewrite(case: Case):
    result = _rewrite(case)
    assert result.error is None, result.error
    produced = result.new_source if result.new_source is not None else case.path.read_bytes()
    assert produced.decode() == case.expected.decode()
    found = sorted(f"{f.code}:cell {f.cell}:{f.span.line}" for f in result.findings)
    assert found == sorted(case.spec["findings"]), [f.message for f in result.findings]
    for note in case.spec.get("notes", ()):
        assert any(note in n for n in result.notes), result.notes
    if not case.expected_path.exists():
        assert result.new_source is None, "a must-not-change notebook was rewritten"


@pytest.mark.parametrize("case", [c for c in CASES if c.expected_path.exists()], ids=str)
def test_idempotent(case: Case):
    again = _rewrite(case, case.expected)
    assert again.error is None, again.error
    assert again.new_source is None, "a second run changed the rewritten notebook"


def _batched(backend: str, framework: str, runs: dict[str, list[NotebookRun]]) -> dict[str, dict]:
    """case name -> {label: record}: every case's runs in one kernel (a kernel, PhiML and the backend
    cost seconds to start); if that kernel fails as a whole, each case again in a kernel of its own,
    so that one case can only fail its own tests."""
    flat = [NotebookRun(f"{name}::{run.label}", run.source, run.eager) for name, case_runs in runs.items() for run in case_runs]
    try:
        records = run_notebooks(backend, framework, flat)
        return {name: {run.label: records[f"{name}::{run.label}"] for run in case_runs} for name, case_runs in runs.items()}
    except Exception:  # noqa: BLE001 - the kernel died or timed out: find the case
        if len(runs) == 1:
            raise
        return {name: _batched(backend, framework, {name: case_runs})[name] for name, case_runs in runs.items()}


@functools.lru_cache(maxsize=None)
def _references(framework: str) -> dict[str, dict]:
    """The originals, eagerly: PhiML on numpy (jit is a no-op there), raw jax under disable_jit."""
    backend = "numpy" if framework == "phiml" else "jax"
    runs = {c.name: [NotebookRun("reference", c.path.read_bytes(), eager=True)] for c, _ in RUNNABLE if c.framework == framework}
    return _batched(backend, framework, runs)


@functools.lru_cache(maxsize=None)
def _runs(backend: str, framework: str) -> dict[str, dict]:
    """Every case of this backend and framework: the original, the rewrite, and the rewrite eagerly."""
    runs = {c.name: [NotebookRun("original", c.path.read_bytes()), NotebookRun("rewritten", c.expected),
                     NotebookRun("rewritten_eager", c.expected, eager=True)]
            for c, b in RUNNABLE if b == backend and c.framework == framework}
    return _batched(backend, framework, runs)


RUNNABLE = [(c, b) for c in CASES for b in c.spec.get("backends", ())]
MIGRATIONS = [(c, b) for c in CASES if "migration" in c.spec for b in c.spec["migration"]["backends"]]


@pytest.mark.backends
@pytest.mark.parametrize("case,backend", [pytest.param(c, b, marks=pytest.mark.xdist_group(f"notebooks-{c.framework}-{b}"))
                                          for c, b in RUNNABLE], ids=lambda v: str(v))
def test_execute(case: Case, backend: str):
    records = _runs(backend, case.framework)[case.name]
    check_runs(case.spec, case.framework, backend, _references(case.framework)[case.name]["reference"], records)


@pytest.mark.backends
@pytest.mark.parametrize("case,backend", MIGRATIONS, ids=lambda v: str(v))
def test_migration_executes(case: Case, backend: str):
    """Legacy code fails on the installed libraries; its migration gives what the author expected."""
    migration = case.spec["migration"]
    records = run_notebooks(backend, migration["framework"], [
        NotebookRun("original", case.path.read_bytes()), NotebookRun("rewritten", case.expected)], expected=True)
    assert records["original"].get("error", "").startswith(migration["original_error"]), records["original"]
    assert "error" not in records["rewritten"], records["rewritten"]["error"]
    verdict = compare(records["rewritten"]["expected"], records["rewritten"]["value"])
    assert verdict.equal, verdict.reason
