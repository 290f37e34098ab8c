"""pytest plugin for verify's test mode: choose PhiML's backend, key records by test, save outcomes.

Standalone use: `PHIML_REWRITE_BACKEND=torch pytest -p rewriter.verify.pytest_plugin` runs a suite
with PhiML's default backend set to torch. Under `phiml-rewrite verify --pytest`, the copy of this
file next to the runtime also writes each test's outcome (passed / failed / skipped) and the
function it runs (file and qualified name: a changed test function is verified by its outcome) to
the run's output directory, records the values of changed fixtures, and the runtime files each
recorded call under the test that made it.
"""
from __future__ import annotations

import json
import os
import sys

import pytest

OUTCOMES: dict[str, str] = {}
FUNCTIONS: dict[str, list[str]] = {}  # node id -> [absolute file, "Class.test_name" or "test_name"]


def _state():
    """The runtime's state when verify installed it in this process (else None)."""
    runtime = sys.modules.get("_phiml_rewrite_verify.state")
    return runtime.state if runtime is not None else None


def _instrument_before_assertion_rewriting() -> None:
    """pytest's assertion rewriting imports test files through its own finder, put first on
    `sys.meta_path`: the changed functions of a test file would never be recorded. The runtime's
    finder goes first again; it claims only the changed files (which then lose pytest's detailed
    assertion messages, not their outcomes)."""
    instrument = sys.modules.get("_phiml_rewrite_verify.instrument")
    if instrument is None:
        return
    ours = [f for f in sys.meta_path if isinstance(f, instrument.Finder)]
    for finder in ours:
        sys.meta_path.remove(finder)
    sys.meta_path[:0] = ours


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args) -> None:
    if _state() is not None:  # before the first conftest.py is imported
        _instrument_before_assertion_rewriting()


def pytest_configure(config) -> None:
    if _state() is not None:
        _instrument_before_assertion_rewriting()
    backend = os.environ.get("PHIML_REWRITE_BACKEND")
    if backend and backend != "numpy":
        try:
            from phiml import math
        except ImportError:
            return
        math.use(backend)


def pytest_collection_modifyitems(session, config, items) -> None:
    for item in items:
        name = getattr(item, "originalname", None)
        path = getattr(item, "path", None)
        if name and path is not None:
            cls = getattr(item, "cls", None)
            FUNCTIONS[item.nodeid] = [str(path), f"{cls.__qualname__}.{name}" if cls is not None else name]


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


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """A changed fixture is not wrapped (pytest must still see a fixture): its value, as pytest
    made it for the test (or module, or session) that asked, is recorded as a call of it."""
    outcome = yield
    state = _state()
    function = getattr(fixturedef, "func", None)
    code = getattr(function, "__code__", None)
    if state is None or state.recorder is None or code is None:
        return
    excinfo = outcome.excinfo
    node = getattr(request, "node", None)
    state.recorder.record_result(code.co_filename, function.__qualname__, getattr(node, "nodeid", ""),
                                 value=None if excinfo else outcome.get_result(), error=excinfo[1] if excinfo else None)


def pytest_runtest_logreport(report) -> None:
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        OUTCOMES[report.nodeid] = report.outcome


def pytest_sessionfinish(session, exitstatus) -> None:
    state = _state()
    out = state.config.get("out") if state is not None else None
    if out:
        path = os.path.join(out, f"tests-{os.getpid()}.json")
        with open(path, "w") as f:
            json.dump({"outcomes": OUTCOMES, "functions": FUNCTIONS}, f)
