"""The batched golden harness: a case that takes its interpreter down fails only its own tests, and
programs that configure their framework for the whole process run alone."""
from __future__ import annotations

from pathlib import Path

import pytest

from rewriter.verify.run import HarnessError, Run
from tests.harness.golden_batches import Batcher, Key, Request, changes_global_state

pytestmark = pytest.mark.backends

KEY = Key("numpy", "phiml")


def _program(tmp_path: Path, name: str, body: str) -> Run:
    path = tmp_path / f"{name}.py"
    path.write_text(f"import os\n\ndef golden_run():\n    {body}\n")
    return Run("original", str(path), "golden_run")


def test_a_case_that_kills_the_interpreter_fails_alone(tmp_path):
    plan = [Request("a", KEY, (_program(tmp_path, "a", "return 1"),)),
            Request("dies", KEY, (_program(tmp_path, "dies", "os._exit(3)"),)),
            Request("b", KEY, (_program(tmp_path, "b", "return [2, 3]"),))]
    batcher = Batcher(lambda: plan)
    assert batcher.records(KEY, "a")["original"]["value"] == {"__array__": 1, "shape": []}
    assert "error" not in batcher.records(KEY, "b")["original"]
    with pytest.raises(HarnessError, match="exit 3"):
        batcher.records(KEY, "dies")


def test_programs_that_configure_their_framework_for_the_process_run_alone(tmp_path):
    configures = tmp_path / "configures.py"
    configures.write_text("import jax\njax.config.update('jax_enable_x64', True)\n")
    plain = tmp_path / "plain.py"
    plain.write_text("import jax\nconfig = {'update': 1}\nprint(config['update'])\n")
    assert changes_global_state(configures) and not changes_global_state(plain)
    phiml = tmp_path / "phiml.py"
    phiml.write_text("from phiml import math\nmath.set_global_precision(64)\n")
    assert changes_global_state(plain, phiml)


@pytest.mark.parametrize("role", ["reference", "runs"])
def test_a_batch_runs_once_for_all_workers(tmp_path, role):
    """The first batcher (worker) runs a batch; another of the same session reads its records, a harness
    failure included, and never plans or runs anything (whether or not xdist kept the tests together)."""
    reference = Key("numpy", "phiml", role=role)
    plan = [Request("a", reference, (_program(tmp_path, "a", "return 1"),)),
            Request("dies", reference, (_program(tmp_path, "dies", "os._exit(3)"),))]
    shared = tmp_path / "shared"
    shared.mkdir()
    first = Batcher(lambda: plan, shared=shared)
    assert first.records(reference, "a")["original"]["value"] == {"__array__": 1, "shape": []}

    def never():
        raise AssertionError("the second worker ran the batch again")

    second = Batcher(never, shared=shared)
    assert second.records(reference, "a") == first.records(reference, "a")
    with pytest.raises(HarnessError, match="exit 3"):
        second.records(reference, "dies")


def test_leaving_phiml_unconverted_by_autograph_changes_no_record():
    """The golden batches on tensorflow leave PhiML's internals unconverted (CONVERT_PHIML): on a case whose
    original fails under tf.function, and on its rewrite, every record is the same. (All 163 tensorflow
    runs of the golden cases agreed when this was introduced; a sample keeps the claim checked.)"""
    from rewriter.verify.run import run_backend
    from tests.harness.golden_cases import discover

    root = Path(__file__).resolve().parent.parent / "golden"
    cases = {c.id: c for c in discover(root)}
    runs = []
    for case_id in ("traced-if/phiml_helper",):
        case = cases.get(case_id)
        if case is None or "tensorflow" not in case.backends:
            continue
        runs.append(Run(f"{case_id}::original", str(case.path), case.entry))
        runs.append(Run(f"{case_id}::rewritten", str(case.expected_path), case.entry))
    assert len(runs) == 2, "the sample case moved: pick another"

    def without_tracebacks(out: dict) -> dict:
        return {label: {k: v for k, v in record.items() if k != "traceback"} for label, record in out.items()}

    converted = run_backend("tensorflow", "phiml", runs, convert_phiml=True)
    unconverted = run_backend("tensorflow", "phiml", runs, convert_phiml=False)
    assert without_tracebacks(converted) == without_tracebacks(unconverted)
    assert any("error" in record for record in converted.values())  # an original that fails on tensorflow
