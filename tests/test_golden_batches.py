"""The batched golden harness: a case that takes its interpreter down fails only its own tests, and
programs that configure their framework for the whole process run alone."""
from __future__ import annotations

from pathlib import Path

import pytest

from rewriter.verify.run import HarnessError, Run
from tests.golden_batches import Batcher, Key, Request, changes_global_state

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


def test_a_reference_batch_runs_once_for_all_workers(tmp_path):
    """The first batcher (worker) runs the reference batch; another of the same session reads its records,
    a harness failure included, and never plans or runs anything."""
    reference = Key("numpy", "phiml", role="reference")
    plan = [Request("a", reference, (_program(tmp_path, "a", "return 1"),)),
            Request("dies", reference, (_program(tmp_path, "dies", "os._exit(3)"),))]
    shared = tmp_path / "shared"
    shared.mkdir()
    first = Batcher(lambda: plan, shared=shared)
    assert first.records(reference, "a")["original"]["value"] == {"__array__": 1, "shape": []}

    def never():
        raise AssertionError("the second worker ran the reference batch again")

    second = Batcher(never, shared=shared)
    assert second.records(reference, "a") == first.records(reference, "a")
    with pytest.raises(HarnessError, match="exit 3"):
        second.records(reference, "dies")
