"""PML206 unrolled-loop: trace size and compile time of a Python loop unrolled into a jit trace,
before and after the fix, on the golden cases themselves.

  jax    golden/unrolled-loop/jax_trajectory.py (200 steps, states stacked) against its
         .expected.py (`jax.lax.scan`): jaxpr equations, lower+compile time, then time per call.
  PhiML  golden/unrolled-loop/phiml_long_loop.py (`jit_compile` over 80 steps, on jax) against what
         the finding advises by hand (the step jit-compiled alone, looped outside): first call
         (trace + compile) and time per call.

Everything runs in one worker process (OMP_NUM_THREADS=1, JAX_PLATFORMS=cpu); figures are reported as
ratios original / rewrite measured in that process (> 1: the rewrite is cheaper), never as absolute
thresholds. Results of both variants are compared. Run alone: python -m benchmarks unrolled
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ._common import fmt_table, quiet_env

NAME = "unrolled"
ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden" / "unrolled-loop"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _equations(jaxpr) -> int:
    """Equations of a jaxpr, nested ones (a scan's body) counted once."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for param in eqn.params.values():
            inner = getattr(param, "jaxpr", None)
            if inner is not None and hasattr(inner, "eqns"):
                total += _equations(inner)
    return total


def _per_call(fn, args, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        first = out[0] if isinstance(out, tuple) else out
        if hasattr(first, "native"):  # a PhiML tensor: wait for its backend array
            first = first.native(first.shape)
        getattr(first, "block_until_ready", lambda: None)()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _jax(repeats: int) -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np

    out = {}
    args = (jnp.ones(8), jnp.zeros(8))
    results = {}
    for label, path in (("original", GOLDEN / "jax_trajectory.py"), ("rewrite", GOLDEN / "jax_trajectory.expected.py")):
        module = _load(path, f"bench_{label}")
        fn = module.trajectory
        jaxpr = jax.make_jaxpr(fn.__wrapped__)(*args).jaxpr
        t0 = time.perf_counter()
        fn.lower(*args).compile()
        compile_s = time.perf_counter() - t0
        fn(*args)
        results[label] = [np.asarray(v) for v in fn(*args)]
        out[label] = {"equations": _equations(jaxpr), "compile_s": compile_s, "call_s": _per_call(fn, args, repeats * 20)}
    out["same_result"] = all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(results["original"], results["rewrite"]))
    return out


def _phiml(repeats: int) -> dict:
    import numpy as np
    from phiml import math
    from phiml.math import spatial

    math.use("jax")
    module = _load(GOLDEN / "phiml_long_loop.py", "bench_phiml_original")
    def step_once(u):
        return u + 0.1 * (math.shift(u, (-1, 1), padding=0)[0] - u)

    step = math.jit_compile(step_once)

    def looped(u):
        for _ in range(80):
            u = step(u)
        for _ in range(3):
            u = u * 0.5
        return u

    u = math.tensor(np.sin(np.linspace(0, 3, 16)).astype(np.float32), spatial("x"))
    out = {}
    for label, fn in (("original", module.relax), ("rewrite", looped)):
        t0 = time.perf_counter()
        first = fn(u)
        out[label] = {"first_call_s": time.perf_counter() - t0, "call_s": _per_call(fn, (u,), repeats * 3)}
        out[label]["value"] = first.numpy("x").tolist()
    out["same_result"] = bool(np.allclose(out["original"].pop("value"), out["rewrite"].pop("value"), rtol=1e-5, atol=1e-6))
    return out


def worker(repeats: int) -> dict:
    return {"jax": _jax(repeats), "phiml": _phiml(repeats)}


def run(repeats: int = 7) -> dict:
    proc = subprocess.run([sys.executable, "-m", "benchmarks.unrolled", "--worker", "--repeats", str(repeats)],
                          capture_output=True, text=True, cwd=ROOT, env=quiet_env(OMP_NUM_THREADS="1", JAX_PLATFORMS="cpu"))
    if proc.returncode != 0:
        return {"ok": False, "error": proc.stderr[-2000:]}
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    j, p = data["jax"], data["phiml"]
    data["ratios"] = {
        "jax equations": j["original"]["equations"] / j["rewrite"]["equations"],
        "jax compile": j["original"]["compile_s"] / j["rewrite"]["compile_s"],
        "jax per call": j["original"]["call_s"] / j["rewrite"]["call_s"],
        "phiml first call": p["original"]["first_call_s"] / p["rewrite"]["first_call_s"],
        "phiml per call": p["original"]["call_s"] / p["rewrite"]["call_s"],
    }
    data["ok"] = j["same_result"] and p["same_result"]
    return data


def report(res: dict) -> str:
    if "error" in res:
        return f"worker failed:\n{res['error']}"
    j, p = res["jax"], res["phiml"]
    rows = [
        ["jax: jaxpr equations", j["original"]["equations"], j["rewrite"]["equations"], f"{res['ratios']['jax equations']:.0f}x"],
        ["jax: lower + compile", f"{j['original']['compile_s'] * 1000:.0f} ms", f"{j['rewrite']['compile_s'] * 1000:.0f} ms",
         f"{res['ratios']['jax compile']:.1f}x"],
        ["jax: per call", f"{j['original']['call_s'] * 1e6:.0f} us", f"{j['rewrite']['call_s'] * 1e6:.0f} us",
         f"{res['ratios']['jax per call']:.1f}x"],
        ["PhiML: first call (trace+compile)", f"{p['original']['first_call_s'] * 1000:.0f} ms",
         f"{p['rewrite']['first_call_s'] * 1000:.0f} ms", f"{res['ratios']['phiml first call']:.1f}x"],
        ["PhiML: per call", f"{p['original']['call_s'] * 1000:.2f} ms", f"{p['rewrite']['call_s'] * 1000:.2f} ms",
         f"{res['ratios']['phiml per call']:.2f}x"],
    ]
    table = fmt_table(rows, ["measure", "unrolled (original)", "rewrite / advised form", "original / rewrite"])
    same = "same results" if res["ok"] else "RESULTS DIFFER"
    return (f"{table}\n{same}. jax: the golden rewrite (`lax.scan`); PhiML: the step jit-compiled alone and looped "
            "outside, as the finding advises (< 1 per call: the unrolled loop is faster once compiled)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.unrolled", description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.repeats)))
        return 0
    res = run(a.repeats)
    print(report(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
