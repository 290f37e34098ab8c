"""How long the four-backend verification of every runnable golden case takes, against simply running it.

verify: what tests/test_golden.py does per case and backend (a fresh interpreter running the
  original jitted, the rewrite jitted and the rewrite eagerly), plus the eager reference per case.
reference: one fresh interpreter per case and backend running only the original, jitted.
Both with the same number of parallel workers, in this process; the figure is the ratio
verify / reference (the price of checking a rewrite, relative to running its program once).

Run alone: python -m benchmarks golden_verify [--jobs N]
"""
from __future__ import annotations

import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.harness.golden_cases import discover
from rewriter.verify.run import Run, run_backend

from ._common import fmt_table

NAME = "golden_verify"
ROOT = Path(__file__).resolve().parent.parent


def _timed(jobs: int, tasks: list) -> tuple[float, dict[str, float]]:
    per_backend: dict[str, float] = {}

    def one(task):
        backend, work = task
        t0 = time.perf_counter()
        work()
        per_backend[backend] = per_backend.get(backend, 0.0) + time.perf_counter() - t0

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, tasks))
    return time.perf_counter() - t0, per_backend


def run(jobs: int | None = None) -> dict:
    jobs = jobs or os.cpu_count() or 1
    cases = [c for c in discover(ROOT / "golden") if c.backends]
    tmp = Path(tempfile.mkdtemp(prefix="golden-verify-"))
    verify_tasks, reference_tasks = [], []
    for case in cases:
        rewritten = tmp / f"{case.codemod}-{case.name}.py"
        rewritten.write_bytes(case.expected)
        reference_backend = "numpy" if case.framework == "phiml" else "jax"
        verify_tasks.append(("reference", lambda c=case, b=reference_backend: run_backend(
            b, c.framework, [Run("reference", str(c.path), c.entry)], eager=c.framework != "phiml")))
        for backend in case.backends:
            runs = [Run("original", str(case.path), case.entry), Run("rewritten", str(rewritten), case.entry),
                    Run("rewritten_eager", str(rewritten), case.entry, eager=True)]
            verify_tasks.append((backend, lambda c=case, b=backend, r=runs: run_backend(b, c.framework, r)))
            reference_tasks.append((backend, lambda c=case, b=backend: run_backend(
                b, c.framework, [Run("original", str(c.path), c.entry)])))
    reference_s, reference_by = _timed(jobs, reference_tasks)
    verify_s, verify_by = _timed(jobs, verify_tasks)
    return {
        "ok": True, "cases": len(cases), "jobs": jobs,
        "verify_s": round(verify_s, 1), "reference_s": round(reference_s, 1),
        "ratio": round(verify_s / reference_s, 2),
        "verify_by_backend_s": {k: round(v, 1) for k, v in sorted(verify_by.items())},
        "reference_by_backend_s": {k: round(v, 1) for k, v in sorted(reference_by.items())},
    }


def report(res: dict) -> str:
    rows = [[b, res["reference_by_backend_s"].get(b, 0.0), s] for b, s in res["verify_by_backend_s"].items()]
    table = fmt_table(rows, ["backend", "run originals (s, summed)", "verify (s, summed)"])
    return (f"{res['cases']} runnable golden cases, {res['jobs']} workers\n{table}\n"
            f"wall: verify {res['verify_s']} s vs running the originals {res['reference_s']} s: ratio {res['ratio']}")
