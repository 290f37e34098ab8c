"""Run the benchmarks: python -m benchmarks [throughput] [real_code] [jit_order] [golden_verify] [precision] [retracing] [lsp_latency] [unrolled] [notebooks] [project_index] [--jobs N] [--quick]

With no names all ten run (about 12-20 minutes on 2 cores; Fixit over the dense corpus alone takes 1.5). Prints a readable report per benchmark and
writes everything to bench-out/results.json (or --out). Exits 1 if a benchmark fails its checks.
precision: no PML201-PML203 fix (a rewrite of static control flow) over the installed phiml, phi, jax,
equinox and diffrax code, read-only; per source and rule, findings / safe and unsafe fixes / refusals /
notes, with the reviewed verdicts (correct / false positive) on the installed packages, and the same counts
over fetched repositories kept outside the project ($PHIML_REWRITE_CORPUS, colon-separated).
retracing: a @math.jit_compile function re-traced every call (jax, torch) before and after the PML401 fix
(forget_traces=True) and the hand-written stable key: traces, len(f.traces), wall time, RSS.
lsp_latency: the language server on ~1,000-line files through a real client: didChange -> diagnostics,
codeAction, fix-all resolve.
unrolled: PML206 on its golden cases: jaxpr equations, compile time and time per call of a loop unrolled
into a jit trace against `lax.scan` (jax) and against the step jitted alone (PhiML).
notebooks: checking and fixing a 50-cell notebook against the same code as one .py module, in one process.
project_index: the cross-module project index over jax, jaxlib, phiml, phi, equinox and diffrax (~1,000 files):
cold build CPU against a cold `--check` (target < 1/5), warm build, and `update` after one edit (target < 100 ms).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from . import (domain, golden_verify, jit_order, lsp_latency, notebooks, precision, project_index, real_code, retracing, throughput,
               unrolled)
from ._common import cli_status

BENCHMARKS = {"throughput": throughput, "real_code": real_code, "jit_order": jit_order, "golden_verify": golden_verify,
              "precision": precision, "retracing": retracing, "lsp_latency": lsp_latency, "unrolled": unrolled,
              "notebooks": notebooks, "project_index": project_index, "domain": domain}


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "cpus": os.cpu_count()}
    for dist in ("phiml-rewrite", "libcst", "jax", "phiml", "phiflow"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}")
    ap.add_argument("--jobs", type=int, default=None, help="jobs for both tools (default: CPU count)")
    ap.add_argument("--quick", action="store_true", help="a subset: 150 files per package, 3 repeats")
    ap.add_argument("--out", type=Path, default=Path("bench-out/results.json"))
    a = ap.parse_args(argv)
    unknown = [n for n in a.names if n not in BENCHMARKS]
    if unknown:
        ap.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    names = a.names or list(BENCHMARKS)
    limit = 150 if a.quick else None

    cli_ok, why = cli_status()
    print(f"phiml-rewrite: {'available' if cli_ok else 'NOT AVAILABLE - ' + why}\n")
    results: dict = {"versions": _versions(), "started": time.strftime("%Y-%m-%dT%H:%M:%S"), "benchmarks": {}}
    failed = []
    for name in names:
        mod = BENCHMARKS[name]
        t0 = time.perf_counter()
        print(f"=== {name} " + "=" * (70 - len(name)), flush=True)
        if name in ("throughput", "domain"):
            res = mod.run(jobs=a.jobs) if name == "domain" else mod.run(jobs=a.jobs, limit=limit)
        elif name in ("real_code", "precision", "project_index"):
            res = mod.run(jobs=a.jobs, limit=limit)
        elif name == "golden_verify":
            res = mod.run(jobs=a.jobs)
        else:  # jit_order, retracing
            res = mod.run(repeats=3 if a.quick else 7)
        res["elapsed_s"] = round(time.perf_counter() - t0, 1)
        results["benchmarks"][name] = res
        print(mod.report(res))
        print(f"({name}: {res['elapsed_s']} s, {'ok' if res['ok'] else 'FAILED'})\n", flush=True)
        if not res["ok"]:
            failed.append(name)

    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(results, indent=2, default=str))
    print(f"results written to {a.out}")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
