"""Parent side of `worker`: one process per backend, --jobs at a time, results per function."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

from ... import runtime
from . import testcases

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@dataclass(frozen=True)
class Job:
    """One function to compare with its rewrite over synthesized inputs, with the trees it lives in."""
    id: str  # "file.py:function"
    name: str
    original: str
    rewritten: str
    original_root: str
    rewritten_root: str
    plan: dict


def _spawn(spec: dict, backend: str, framework: str, timeout: float) -> tuple[dict, str]:
    """One worker process on `spec`: (its results by job id, what went wrong with the process, if anything)."""
    with tempfile.TemporaryDirectory(prefix="phiml-rewrite-synthesis-") as tmp:
        spec_path, out_path = os.path.join(tmp, "spec.json"), os.path.join(tmp, "out.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        env = runtime.select_environment(backend if framework == "phiml" else None, False)
        # the worker imports the rewriter this process runs (a checkout may differ from an installed copy)
        env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, *filter(None, [env.get("PYTHONPATH")])])
        problem = ""
        try:
            proc = subprocess.run([sys.executable, "-m", "rewriter.verify.synthesis.worker", spec_path, out_path],
                                  capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp)
            if proc.returncode:
                problem = f"the worker failed (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:] or ''}"
        except subprocess.TimeoutExpired:
            problem = f"the worker was cut short after {timeout:.0f} s"
        out = {}
        if os.path.exists(out_path):
            with open(out_path) as f:
                out = json.load(f)
    return out, problem


def run_backend(backend: str, framework: str, jobs: list[Job], seed: int, max_examples: int, budget: float,
                timeout: float) -> dict[str, dict]:
    """Results per job id; a job the process never reached is reported as an error. Functions run in one
    process, both versions side by side. Tests run as a test suite does, each version's tests in a process
    of their own: a test that changes global state (a logging level, a config flag) must not meet the
    other version's tests."""
    base = {"backend": backend, "framework": framework, "seed": seed, "max_examples": max_examples, "budget": budget}
    functions = [j for j in jobs if not j.plan.get("test")]
    tests = [j for j in jobs if j.plan.get("test")]
    results: dict[str, dict] = {}
    if functions:
        out, problem = _spawn({**base, "functions": [j.__dict__ for j in functions]}, backend, framework, timeout)
        results.update({j.id: out.get(j.id) or {"status": "error", "reason": problem or "not reached"} for j in functions})
    if tests:
        outcomes = [_spawn({**base, "version": version, "functions": [j.__dict__ for j in tests]}, backend, framework, timeout)
                    for version in ("original", "rewritten")]
        for j in tests:
            ran = [out.get(j.id) or {} for out, _ in outcomes]
            if all("outcome" in r for r in ran):
                results[j.id] = testcases.compare(*(tuple(r["outcome"]) for r in ran))
            else:
                problem = next((r["reason"] for r in ran if "reason" in r), "") or \
                    next((p for _, p in outcomes if p), "") or "not reached"
                results[j.id] = {"status": "error", "reason": problem}
    return results


def run_all(backends: list[str], framework: str, jobs: list[Job], seed: int, max_examples: int, budget: float,
            parallel: int, on_done: Callable[[str], None] = lambda backend: None) -> dict[str, dict[str, dict]]:
    """backend -> job id -> result. A worker's timeout leaves each function its budget and a margin for imports."""
    timeout = 120 + len(jobs) * budget * 3

    def one(backend: str) -> tuple[str, dict]:
        result = run_backend(backend, framework, jobs, seed, max_examples, budget, timeout)
        on_done(backend)
        return backend, result

    with ThreadPoolExecutor(max(1, parallel)) as pool:
        return dict(pool.map(one, backends))
