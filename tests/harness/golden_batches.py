"""Golden executions in batches: one interpreter for many cases of one backend.

Each interpreter that runs golden programs imports PhiML and a backend first, which costs seconds;
one per case and backend made those imports most of the test suite's CPU time. The child
(rewriter.verify.child) already runs several programs in turn and resets what it records between
them, so a batch gives it the runs of many cases at once, and each test reads its own case's
records. Cases run in the order they are planned; a case that changes process-wide configuration
(`jax.config.update`, PhiML's `set_global_*`, torch's `set_default_*`) runs alone, and a batch whose
interpreter fails as a whole (a crash, a time-out) is run again case by case, so that one case can
only ever fail its own tests.

With pytest-xdist, `xdist_group` sends every test of one batch key to the same worker
(`--dist loadgroup`, in the Makefile), so no batch is run twice.
"""
from __future__ import annotations

import ast
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pytest

from rewriter.verify.run import HarnessError, Run, run_backend

# PhiML's own functions are not converted by tensorflow's autograph in golden runs (the programs' are):
# on the 163 tensorflow runs of the golden cases the records are the same either way (results, errors,
# trace counts), and the batch costs 12 CPU s instead of 64 (test_golden_batches checks a sample).
CONVERT_PHIML = False
# XLA compiles the golden programs without most optimizations: a fifth less CPU for a jax batch, results
# equal up to rounding, which the comparison with the eager reference tolerates.
OPTIMIZE_JAX = False
CHUNK = 70  # cases per interpreter (every key is one batch today): a crash costs these cases a second run, one by one
SECONDS_PER_CASE = 120

# Calls that change what later programs in the same interpreter compute.
_GLOBAL_CONFIG = ("config.update", "set_global_", "set_default_", "enable_x64", "config.experimental")


@dataclass(frozen=True)
class Key:
    backend: str
    framework: str
    eager: bool = False  # for the whole interpreter (jax's reference: JAX_DISABLE_JIT before import)
    role: str = "runs"  # "reference": the original's eager result, a batch of its own

    @property
    def group(self) -> str:
        return f"{self.role}-{self.framework}-{self.backend}{'-eager' if self.eager else ''}"


@dataclass(frozen=True)
class Request:
    case: str  # the case's id, unique within a batcher
    key: Key
    runs: tuple[Run, ...]
    isolated: bool = False


def rewritten_file(case, directory: Path) -> tuple[Path, bool]:
    """A golden case's expected rewrite as a program of its own in `directory`, and whether the case
    must run alone (`changes_global_state` of the original or its rewrite)."""
    rewritten = directory / f"{case.codemod}__{case.name}_rewritten.py"
    if not rewritten.exists():
        rewritten.write_bytes(case.expected)
    return rewritten, changes_global_state(case.path, rewritten)


def changes_global_state(*paths: Path) -> bool:
    """Whether a program calls something that configures its framework for the whole process."""
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                if any(part in name for part in _GLOBAL_CONFIG):
                    return True
    return False


class Batcher:
    """The records of every planned case, run in batches the first time a case of its key is asked for.

    `shared`: a folder every xdist worker of the session sees. The eager references are needed by the
    tests of every batch, which loadgroup spreads over the workers: the first worker that asks runs a
    batch and leaves its records there, the others wait for them and read them. Every batch goes
    through it, not only the references: a test that lands on another worker than its batch's
    (loadgroup is a scheduling wish that some pytest versions ignore) reads it, never runs it again."""

    def __init__(self, plan: Callable[[], Iterable[Request]], shared: Path | None = None) -> None:
        self._plan = plan
        self._shared = shared
        self._requests: dict[Key, list[Request]] | None = None
        self._records: dict[tuple[Key, str], dict | HarnessError] = {}

    def records(self, key: Key, case: str) -> dict:
        if (key, case) not in self._records:
            self._run(key)
        found = self._records[(key, case)]
        if isinstance(found, HarnessError):
            raise found
        return found

    def _run(self, key: Key) -> None:
        if self._shared is None:
            self._compute(key)
            return
        stored = self._shared / f"{key.group}.json"
        with open(self._shared / f"{key.group}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not stored.exists():
                self._compute(key)
                mine = {case: (str(r) if isinstance(r, HarnessError) else r, isinstance(r, HarnessError))
                        for (k, case), r in self._records.items() if k == key}
                stored.write_text(json.dumps(mine))
            for case, (record, failed) in json.loads(stored.read_text()).items():
                self._records[(key, case)] = HarnessError(record) if failed else record

    def _compute(self, key: Key) -> None:
        if self._requests is None:
            self._requests = {}
            for request in self._plan():
                self._requests.setdefault(request.key, []).append(request)
        requests = self._requests.get(key, [])
        shared = [r for r in requests if not r.isolated]
        for start in range(0, len(shared), CHUNK):
            self._run_together(key, shared[start:start + CHUNK])
        for request in requests:
            if request.isolated:
                self._run_together(key, [request])

    def _run_together(self, key: Key, requests: list[Request]) -> None:
        runs = [Run(f"{r.case}::{run.label}", run.path, run.entry, run.eager, run.project) for r in requests for run in r.runs]
        try:
            out = run_backend(key.backend, key.framework, runs, timeout=SECONDS_PER_CASE * len(requests), eager=key.eager,
                              convert_phiml=CONVERT_PHIML, optimize_jax=OPTIMIZE_JAX)
        except HarnessError as e:
            if len(requests) > 1:  # one case took the interpreter down: find it
                for request in requests:
                    self._run_together(key, [request])
                return
            self._records[(key, requests[0].case)] = e
            return
        for request in requests:
            self._records[(key, request.case)] = {run.label: out[f"{request.case}::{run.label}"] for run in request.runs}


def shared_folder(tmp_path_factory, name: str) -> Path:
    """A folder of this session that every xdist worker sees (the parent of the workers' own), one per batcher."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / f"shared-{name}"
    folder.mkdir(exist_ok=True)
    return folder


def grouped(key: Key, *values) -> "pytest.ParameterSet":
    """A test parameter that runs a program on a backend, on the worker of its batch key."""
    return pytest.param(*values, marks=[pytest.mark.xdist_group(key.group), pytest.mark.backends])

