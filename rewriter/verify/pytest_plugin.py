"""pytest plugin for verify's test mode: choose PhiML's backend, key records by test, save outcomes.

Standalone use: `PHIML_REWRITE_BACKEND=torch pytest -p rewriter.verify.pytest_plugin` runs a suite
with PhiML's default backend set to torch. Under `phiml-rewrite verify --pytest`, the copy of this
file next to the runtime also writes each test's outcome (passed / failed / skipped) to the run's
output directory, and the runtime files each recorded call under the test that made it.
"""
from __future__ import annotations

import json
import os
import sys

import pytest

OUTCOMES: dict[str, str] = {}


def _state():
    """The runtime's state when verify installed it in this process (else None)."""
    runtime = sys.modules.get("_phiml_rewrite_verify.state")
    return runtime.state if runtime is not None else None


def pytest_configure(config) -> None:
    backend = os.environ.get("PHIML_REWRITE_BACKEND")
    if backend and backend != "numpy":
        try:
            from phiml import math
        except ImportError:
            return
        math.use(backend)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    state = _state()
    recorder = state.recorder if state is not None else None
    if recorder is not None:
        recorder.context = item.nodeid
    try:
        yield
    finally:
        if recorder is not None:
            recorder.context = ""


def pytest_runtest_logreport(report) -> None:
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        OUTCOMES[report.nodeid] = report.outcome


def pytest_sessionfinish(session, exitstatus) -> None:
    state = _state()
    out = state.config.get("out") if state is not None else None
    if out:
        path = os.path.join(out, f"tests-{os.getpid()}.json")
        with open(path, "w") as f:
            json.dump(OUTCOMES, f)
