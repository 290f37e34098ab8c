"""Every golden case: exact rewrite, idempotence, findings, and — where runnable — execution of the
original and the rewrite on each backend, compared with the original's eager result."""
from __future__ import annotations

from pathlib import Path

import pytest

from rewriter.engine import Settings, process_source
from rewriter.findings import Safety, format_text
from rewriter.registry import all_codemods, by_code
from tests.harness.golden_cases import GoldenCase, discover
from rewriter.verify.run import Run
from tests.harness.golden_batches import Batcher, Key, Request, grouped, rewritten_file, shared_folder
from tests.harness.golden_checks import check_runs

ROOT = Path(__file__).resolve().parent.parent
CASES = discover(ROOT / "golden")
RUNNABLE = [(case, backend) for case in CASES for backend in case.backends]


def _settings(case: GoldenCase) -> Settings:
    return Settings(all_codemods(), unsafe_fixes=bool(case.spec.get("unsafe_fixes")))


def _rewrite(case: GoldenCase):
    return process_source(case.path.read_bytes(), str(case.path.relative_to(ROOT)), _settings(case))


def test_every_codemod_has_golden_cases():
    names = {c.codemod for c in CASES}
    for codemod in all_codemods():
        assert codemod.NAME in names, f"{codemod.CODE} {codemod.NAME} has no golden cases"
        own = [c for c in CASES if c.codemod == codemod.NAME]
        assert len(own) >= 6, f"{codemod.NAME}: {len(own)} golden cases, want at least 6"
        if codemod.SAFETY is Safety.DISPLAY:  # a diagnostic: positives are reported, negatives must not be
            assert any(c.spec["findings"] for c in own), f"{codemod.NAME}: no case it reports"
            assert any(not c.spec["findings"] for c in own), f"{codemod.NAME}: no case it must not report"
            continue
        assert any(c.expected_path.exists() for c in own), f"{codemod.NAME}: no positive case"
        assert any(not c.expected_path.exists() for c in own), f"{codemod.NAME}: no must-not-change case"


# The backends each framework's code runs on: a branch merge written as safe must run on all of them.
FRAMEWORK_BACKENDS = {"phiml": {"numpy", "jax", "torch", "tensorflow"}, "jax": {"jax"}, "torch": {"torch"},
                      "tensorflow": {"tensorflow"}}
MERGES = frozenset({"PML201", "PML202", "PML203"})  # where/cond selections and loop primitives: values merged


def test_every_branch_merge_called_safe_runs_on_every_backend_it_applies_to():
    """No proof of agreement that execution has not checked: a case whose rewrite merges branches or
    loop carries with a fix applied is executed on each backend its framework runs on (equal values,
    shapes and dtypes: verify.values.compare)."""
    checked = 0
    for case in CASES:
        if not case.expected_path.exists():
            continue
        merged = [f for f in _rewrite(case).findings if f.code in MERGES and f.fix is not None and f.applied]
        if not merged:
            continue
        checked += 1
        missing = FRAMEWORK_BACKENDS[case.framework] - set(case.backends)
        assert not missing, f"{case.id}: a merge is written but never run on {sorted(missing)}"
    assert checked >= 20


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rewrite(case: GoldenCase):
    by_code(case.codemod)  # the directory names a real codemod
    result = _rewrite(case)
    assert result.error is None, result.error
    produced = result.new_source if result.new_source is not None else case.path.read_bytes()
    assert produced.decode() == case.expected.decode()
    found = sorted(f"{f.code}:{f.span.line}" for f in result.findings)
    assert found == sorted(case.spec["findings"]), [str(f.message) for f in result.findings]
    for where, text in case.spec.get("messages", {}).items():  # report-only cases: what the finding must say
        messages = [format_text(f) for f in result.findings if f"{f.code}:{f.span.line}" == where]
        assert any(text in m for m in messages), f"{where}: no message containing {text!r} in {messages}"
    if not case.expected_path.exists():
        assert result.new_source is None, "a must-not-change case was rewritten"


@pytest.mark.parametrize("case", [c for c in CASES if c.expected_path.exists()], ids=lambda c: c.id)
def test_idempotent(case: GoldenCase):
    again = process_source(case.expected, "expected.py", _settings(case))
    assert again.error is None, again.error
    assert again.new_source is None, "a second run changed the rewritten code"
    assert not [f for f in again.findings if f.applied]


def _reference_key(case: GoldenCase) -> Key:
    """The original run eagerly: PhiML on numpy (jit is a no-op there), raw jax under disable_jit."""
    return Key("numpy", "phiml", role="reference") if case.framework == "phiml" else Key("jax", "jax", eager=True, role="reference")


def _plan(directory: Path) -> list[Request]:
    """Every golden run: the eager references, and original, rewritten and rewritten-eager per backend."""
    out = []
    for case in dict.fromkeys(c for c, _ in RUNNABLE):
        rewritten, isolated = rewritten_file(case, directory)
        out.append(Request(case.id, _reference_key(case), (Run("reference", str(case.path), case.entry),), isolated))
        for backend in case.backends:
            runs = [Run("original", str(case.path), case.entry), Run("rewritten_eager", str(rewritten), case.entry, eager=True)]
            if case.expected_path.exists():  # a must-not-change case's rewrite is its original: run once
                runs.insert(1, Run("rewritten", str(rewritten), case.entry))
            out.append(Request(case.id, Key(backend, case.framework), tuple(runs), isolated))
    return out


@pytest.fixture(scope="session")
def golden_runs(tmp_path_factory) -> Batcher:
    return Batcher(lambda: _plan(tmp_path_factory.mktemp("golden-rewritten")), shared=shared_folder(tmp_path_factory, "golden"))


@pytest.mark.parametrize("case,backend", [grouped(Key(b, c.framework), c, b) for c, b in RUNNABLE],
                         ids=lambda v: v.id if isinstance(v, GoldenCase) else v)
def test_execute(case: GoldenCase, backend: str, golden_runs: Batcher):
    records = golden_runs.records(Key(backend, case.framework), case.id)
    records.setdefault("rewritten", records["original"])  # a must-not-change case: the same program
    reference = golden_runs.records(_reference_key(case), case.id)["reference"]
    check_runs(case.spec, case.framework, backend, reference, records)
