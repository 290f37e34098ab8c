"""Runtime and memory effect of the PML401 fix (`forget_traces=True`) on PhiML programs that re-trace every call.

Each case is a tiny module (kept as a string here, so running phiml-rewrite over this repository cannot
"fix" the benchmark itself) defining a module-level `@math.jit_compile` function and `run(n) -> list[float]`,
which calls it n times in a loop with a signature key that changes every call. Variants:
  original       - the anti-pattern as written (one trace per call, the cache grows by one trace per call),
  forget_traces  - the decorator gets `forget_traces=True`, exactly what PML401's fix writes: the cache keeps
                   only the latest trace (memory bounded) but every call still re-traces,
  stable_key     - the real cure, written by hand: the key no longer changes (the varying scalar passed as a
                   Tensor instead of an auxiliary argument; the growing tensor padded to a fixed size + mask,
                   written into a preallocated buffer instead of concatenated),
  cli            - what `phiml-rewrite --in-place --unsafe-fixes` makes of the original (if it changes it;
                   otherwise the case records `cli: no change`, which is reported but not a failure).
All variants of a case run interleaved in one worker process per backend (OMP_NUM_THREADS=1,
JAX_PLATFORMS=cpu), after an untimed warm-up run of each (jax compiles eager ops once per shape); each
repeat loads a fresh copy of the module, so every run starts with an empty trace cache. Per run the worker
records: PhiML traces (calls of `JitFunction._jit_compile`, wrapped in the worker, so the tool's output is
run unmodified), executions of the Python body (torch traces it twice per trace), `len(f.traces)` after the
run (what forget_traces bounds), wall time of the n calls, PhiML's "was traced N times" warnings and, in a
separate non-interleaved phase before the timing (which also warms up), VmRSS growth per run with every
earlier module and its trace cache kept alive: what a run retains, as in a long program. Ratios are against
`original` in the same worker: speed-up = original / variant wall time, traces = variant / original.

Checks (each failure makes the benchmark fail): every variant returns the original's values (rtol 1e-5) and
finite ones; forget_traces keeps `len(f.traces)` <= 1; stable_key traces exactly once per run; a cli variant
to which PML401 was applied keeps `len(f.traces)` <= 1. Reported, not checked: cli trace counts differing
from forget_traces, a cli that changed nothing.

Run alone: python -m benchmarks retracing, or with options:
python -m benchmarks.retracing [--cases NAME ...] [--repeats R] [--calls N] [--backends jax torch] [--no-cli]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from ._common import cli_status, fmt_table, quiet_env, rewrite_with_cli

NAME = "retracing"
RULE = "PML401"
VARIANTS = ("original", "forget_traces", "stable_key", "cli")
DEFAULT_BACKENDS = ("jax", "torch")  # jax is required; torch is measured when installed (cheap: ~7 ms per trace)
DEFAULT_CALLS = 20
MEMORY_RUNS = 1  # runs per variant (after one warm-up run) whose VmRSS growth is measured
MAX_CALLS = 55  # growing_shape and concat pad to x=64 (concat reaches x=9+n)


@dataclass
class Case:
    name: str
    what: str
    original: str
    forget_traces: str
    stable_key: str


_HEAD = """\
from phiml import math
from phiml.math import spatial
"""

_AUX_BODY = """
def step(x, k):
    for _ in range(10):
        x = math.sin(x) * k + math.cos(x)
    return x
"""

_AUX_LOOP = """

def run(n):
    x = math.sin(math.range(spatial(x=64)) * 0.1)
    out = []
    for i in range(n):
        x = step(x, {k})
        out.append(float(math.sum(x, 'x')))
    return out
"""

_GROW_BODY = """
def energy(x):
    for _ in range(10):
        x = math.sin(x) * 0.9 + math.cos(x)
    return math.sum(x ** 2, 'x')
"""

_GROW_LOOP = """

def run(n):
    out = []
    for i in range(n):
        x = math.sin(math.range(spatial(x=8 + i)) * 0.37)
        out.append(float(energy(x)))
    return out
"""

_CONCAT_LOOP = """

def run(n):
    x = math.sin(math.range(spatial(x=8)) * 0.37)
    out = []
    for i in range(n):
        x = math.concat([x, math.sin(math.tensor([8 + i], spatial('x')) * 0.37)], 'x')
        out.append(float(energy(x)))
    return out
"""

# The stable key for a changing length: a fixed size and a mask of the valid cells.
_PADDED_ENERGY = """
SIZE = 64


@math.jit_compile
def energy(x, mask):
    for _ in range(10):
        x = math.sin(x) * 0.9 + math.cos(x)
    return math.sum(math.where(mask, x ** 2, 0), 'x')
"""

CASES = [
    Case("auxiliary", "@jit_compile(auxiliary_args='k'), k = 0.5 + 0.01 * i changes every call",
         _HEAD + "\n\n@math.jit_compile(auxiliary_args='k')" + _AUX_BODY + _AUX_LOOP.format(k="0.5 + 0.01 * i"),
         _HEAD + "\n\n@math.jit_compile(auxiliary_args='k', forget_traces=True)" + _AUX_BODY
         + _AUX_LOOP.format(k="0.5 + 0.01 * i"),
         _HEAD + "\n\n@math.jit_compile" + _AUX_BODY + _AUX_LOOP.format(k="math.tensor(0.5 + 0.01 * i)")),
    Case("growing_shape", "@jit_compile called with spatial(x=8 + i), a new shape every call",
         _HEAD + "\n\n@math.jit_compile" + _GROW_BODY + _GROW_LOOP,
         _HEAD + "\n\n@math.jit_compile(forget_traces=True)" + _GROW_BODY + _GROW_LOOP,
         _HEAD + _PADDED_ENERGY + """

def run(n):
    assert 8 + n <= SIZE
    out = []
    for i in range(n):
        x = math.sin(math.range(spatial(x=8 + i)) * 0.37)
        x = math.pad(x, {'x': (0, SIZE - 8 - i)}, 0)
        mask = math.range(spatial(x=SIZE)) < 8 + i
        out.append(float(energy(x, mask)))
    return out
"""),
    Case("concat", "@jit_compile called with x = math.concat([x, new], 'x'), one cell longer every call",
         _HEAD + "\n\n@math.jit_compile" + _GROW_BODY + _CONCAT_LOOP,
         _HEAD + "\n\n@math.jit_compile(forget_traces=True)" + _GROW_BODY + _CONCAT_LOOP,
         _HEAD + _PADDED_ENERGY + """

def run(n):
    assert 9 + n <= SIZE
    cells = math.range(spatial(x=SIZE))
    x = math.where(cells < 8, math.sin(cells * 0.37), 0)
    out = []
    for i in range(n):
        x = math.where(cells == 8 + i, math.sin(cells * 0.37), x)
        out.append(float(energy(x, cells < 9 + i)))
    return out
"""),
]
CASES_BY_NAME = {c.name: c for c in CASES}


# ----------------------------------------------------------------------------------------------------
# worker side (runs in a fresh process per case and backend)

def _load(path: Path, modname: str):
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def worker(case_dir: Path, backend: str, repeats: int, n_calls: int) -> dict:
    import functools
    import gc
    import types
    import warnings

    import numpy as np
    from phiml import math
    from phiml.math._functional import JitFunction

    counts = {"traces": 0, "body_runs": 0}
    jit_compile = JitFunction._jit_compile

    def counting_jit_compile(self, *args, **kwargs):
        """One call per PhiML trace (a new signature key); the body wrapper counts Python executions."""
        counts["traces"] += 1
        f = self.f
        if isinstance(f, types.FunctionType) and not getattr(f, "_bench_counted", False):
            @functools.wraps(f)
            def counted(*a, **kw):
                counts["body_runs"] += 1
                return f(*a, **kw)

            counted._bench_counted = True
            self.f = counted
        return jit_compile(self, *args, **kwargs)

    JitFunction._jit_compile = counting_jit_compile
    math.use(backend)

    paths = {v: case_dir / f"{v}.py" for v in VARIANTS if (case_dir / f"{v}.py").exists()}
    loads = [0]
    alive = []  # memory phase: every loaded module (and its trace cache) stays alive

    def one_run(v: str, keep: bool = False) -> dict:
        loads[0] += 1
        mod = _load(paths[v], f"bench_retrace_{case_dir.name}_{v}_{loads[0]}")
        jits = [o for o in vars(mod).values() if isinstance(o, JitFunction)]
        gc.collect()
        c0, rss0 = dict(counts), _rss_mb()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            values = mod.run(n_calls)
            wall = time.perf_counter() - t0
        gc.collect()
        run = {
            "wall_s": wall,
            "traces": counts["traces"] - c0["traces"],
            "body_runs": counts["body_runs"] - c0["body_runs"],
            "cache": sum(len(j.traces) for j in jits),
            "jit_functions": len(jits),
            "rss_mb": _rss_mb() - rss0,
            "retrace_warnings": sum("was traced" in str(w.message) for w in caught),
            "values": [float(x) for x in values],
        }
        if keep:
            alive.append(mod)
        return run

    # Phase 1, memory (and warm-up: jax compiles eager ops once per shape): one variant after the other, each
    # run's module kept alive, so VmRSS growth per run is what a run retains (the trace cache). Not interleaved:
    # memory freed by one variant would be reused by the next and blur the figures. The original goes first and
    # forget_traces (which frees a trace per call and reuses that memory itself) last.
    memory: dict = {}
    for v in sorted(paths, key=("original", "cli", "stable_key", "forget_traces").index):
        rs = [one_run(v, keep=True) for _ in range(1 + MEMORY_RUNS)]
        memory[v] = {"first_wall_s": rs[0]["wall_s"], "rss_mb": [r["rss_mb"] for r in rs[1:]]}
    alive.clear()
    gc.collect()
    gc.freeze()  # what survived so far (phiml, jax, torch) is no longer scanned: the collections below take ms, not 0.1 s
    # Phase 2, timing: variants interleaved (who goes first rotates), modules dropped after each run
    runs: dict = {v: [] for v in paths}
    for r in range(repeats):
        order = list(paths)[r % len(paths):] + list(paths)[:r % len(paths)]  # rotate who goes first
        for v in order:
            runs[v].append(one_run(v))
    ref = np.asarray(runs["original"][0]["values"])
    out: dict = {}
    for v, rs in runs.items():
        vals = np.asarray(rs[0]["values"])
        out[v] = {
            "wall_s": round(statistics.median(r["wall_s"] for r in rs), 4),
            "min_wall_s": round(min(r["wall_s"] for r in rs), 4),
            "walls_s": [round(r["wall_s"], 4) for r in rs],
            "first_wall_s": round(memory[v]["first_wall_s"], 4),
            "traces": rs[0]["traces"],
            "body_runs": rs[0]["body_runs"],
            "cache": rs[0]["cache"],
            "jit_functions": rs[0]["jit_functions"],
            "counts_stable": len({(r["traces"], r["body_runs"], r["cache"]) for r in rs}) == 1,
            "rss_mb": round(statistics.median(memory[v]["rss_mb"]), 1),
            "rss_mb_runs": [round(x, 1) for x in memory[v]["rss_mb"]],
            "retrace_warnings": rs[0]["retrace_warnings"],
            "values": [round(x, 6) for x in rs[0]["values"][-3:]],
            "finite": bool(np.all(np.isfinite(vals))),
            "same_result": bool(vals.shape == ref.shape and np.allclose(vals, ref, rtol=1e-5, atol=1e-6)),
            "deterministic": all(np.array_equal(np.asarray(r["values"]), vals) for r in rs),
        }
    return out


# ----------------------------------------------------------------------------------------------------
# driver side


def _backends(wanted) -> tuple[list[str], list[str]]:
    """The backends to measure and notes on skipped ones (jax is never skipped: its worker fails instead)."""
    chosen, notes = [], []
    for b in wanted:
        if b != "jax" and importlib.util.find_spec(b) is None:
            notes.append(f"{b} is not installed: skipped")
        else:
            chosen.append(b)
    return chosen, notes


def run(cases: list[str] | None = None, repeats: int = 7, n_calls: int = DEFAULT_CALLS,
        backends=DEFAULT_BACKENDS, use_cli: bool = True) -> dict:
    if not 1 <= n_calls <= MAX_CALLS:
        raise ValueError(f"n_calls must be in 1..{MAX_CALLS}")
    selected = [CASES_BY_NAME[n] for n in cases] if cases else CASES
    chosen, notes = _backends(backends)
    res: dict = {"name": NAME, "rule": RULE, "repeats": repeats, "calls": n_calls, "backends": chosen, "ok": False,
                 "problems": [], "notes": notes, "cases": {}}
    cli_ok, why = cli_status() if use_cli else (False, "disabled")
    with tempfile.TemporaryDirectory(prefix="bench-retracing-") as tmp:
        tmp = Path(tmp)
        cli_info: dict = {}
        if cli_ok:
            cli_info, err = rewrite_with_cli(selected, tmp)
            if err:
                res["problems"].append(f"phiml-rewrite failed on the cases: {err}")
        else:
            res["notes"].append(f"cli variant not measured: {why}")
        env = quiet_env(OMP_NUM_THREADS="1", JAX_PLATFORMS="cpu", XLA_FLAGS="--xla_cpu_multi_thread_eigen=false")
        for c in selected:
            d = tmp / c.name
            d.mkdir()
            for v in ("original", "forget_traces", "stable_key"):
                (d / f"{v}.py").write_text(textwrap.dedent(getattr(c, v)))
            entry: dict = {"what": c.what, "backends": {}}
            info = cli_info.get(c.name)
            if info:
                entry.update({"cli_changed": info["changed"], "cli_codes_found": info["codes_found"],
                              "cli_codes_applied": info["codes_applied"]})
                if info["changed"]:
                    (d / "cli.py").write_text(info["source"])
                    entry["cli_source"] = info["source"]
                    if RULE not in info["codes_applied"]:
                        res["notes"].append(f"{c.name}: rewritten, but {RULE} not among applied codes {info['codes_applied']}")
                else:
                    entry["cli"] = "no change"
                    res["notes"].append(f"{c.name}: cli: no change (found: {', '.join(info['codes_found']) or 'nothing'})")
            for b in chosen:
                out_json = d / f"result-{b}.json"
                t0 = time.perf_counter()
                proc = subprocess.run(
                    [sys.executable, "-m", "benchmarks.retracing", "--worker", str(d), "--backend", b,
                     "--repeats", str(repeats), "--calls", str(n_calls), "--out", str(out_json)],
                    cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True, timeout=900)
                entry.setdefault("worker_s", {})[b] = round(time.perf_counter() - t0, 1)
                if proc.returncode != 0 or not out_json.exists():
                    entry["backends"][b] = {"error": proc.stderr.strip()[-1500:]}
                    res["problems"].append(f"{c.name}/{b}: worker failed: {proc.stderr.strip().splitlines()[-1:]}")
                    continue
                variants = json.loads(out_json.read_text())
                _compare(c.name, b, variants, RULE in (info or {}).get("codes_applied", ()), res)
                entry["backends"][b] = variants
            res["cases"][c.name] = entry
    res["ok"] = not res["problems"]
    return res


def _compare(case: str, backend: str, variants: dict, pml401_applied: bool, res: dict) -> None:
    """Add ratios against `original` to every variant; append failures to res["problems"], the rest to notes."""
    o = variants["original"]
    where = f"{case}/{backend}"
    for v, x in variants.items():
        x["speedup"] = round(o["wall_s"] / x["wall_s"], 3) if x["wall_s"] > 0 else None
        x["traces_ratio"] = round(x["traces"] / o["traces"], 3) if o["traces"] else None
        if not x["finite"]:
            res["problems"].append(f"{where}: the {v} variant returns non-finite values")
        if not x["same_result"]:
            res["problems"].append(f"{where}: the {v} variant computes a different result (last values {x['values']} "
                                   f"vs {o['values']})")
        if not x["counts_stable"]:
            res["notes"].append(f"{where}: {v}: trace counts differ between repeats")
    if o["traces"] < 2:
        res["problems"].append(f"{where}: the original traced {o['traces']}x: the case does not re-trace")
    if "forget_traces" in variants and variants["forget_traces"]["cache"] > 1:
        res["problems"].append(f"{where}: forget_traces keeps {variants['forget_traces']['cache']} traces (expected <= 1)")
    if "stable_key" in variants and variants["stable_key"]["traces"] != 1:
        res["problems"].append(f"{where}: stable_key traced {variants['stable_key']['traces']}x (expected 1)")
    cli, forget = variants.get("cli"), variants.get("forget_traces")
    if cli is not None:
        if pml401_applied and cli["cache"] > 1:
            res["problems"].append(f"{where}: {RULE} was applied but the cli variant keeps {cli['cache']} traces")
        if forget is not None and (cli["traces"], cli["cache"]) != (forget["traces"], forget["cache"]):
            res["notes"].append(f"{where}: cli traces/cache {cli['traces']}/{cli['cache']} differ from forget_traces "
                                f"{forget['traces']}/{forget['cache']}")


def report(res: dict) -> str:
    header = ["case/backend", "variant", "traces", "body", "cache", "wall ms", "ms/call", "speed-up", "traces/orig",
              "rss MB", "warn", "same"]
    rows = []
    for name, e in res["cases"].items():
        for b, variants in e["backends"].items():
            if "error" in variants:
                rows.append([f"{name}/{b}", "ERROR", *[""] * (len(header) - 2)])
                continue
            for v in VARIANTS:
                x = variants.get(v)
                if x is None:
                    if v == "cli":
                        rows.append([f"{name}/{b}", "cli", e.get("cli", "not measured"), *[""] * (len(header) - 3)])
                    continue
                rows.append([
                    f"{name}/{b}", v,
                    f"{x['traces']}", f"{x['body_runs']}", f"{x['cache']}",
                    f"{x['wall_s'] * 1e3:.0f}", f"{x['wall_s'] * 1e3 / res['calls']:.2f}",
                    f"{x['speedup']:.2f}x" if x["speedup"] else "-",
                    f"{x['traces_ratio']:.2f}" if x["traces_ratio"] is not None else "-",
                    f"{x['rss_mb']:+.1f}", f"{x['retrace_warnings']}",
                    "yes" if x["same_result"] and x["finite"] else "NO",
                ])
    out = [f"retracing: {res['calls']} calls per run, wall time = median of {res['repeats']} repeats "
           f"(speed-up = original / variant; traces = PhiML traces, body = Python body executions,\n"
           f"cache = len(f.traces) after the run, rss = VmRSS retained per run, warn = PhiML 'was traced' warnings)",
           fmt_table(rows, header)]
    cli = []
    for name, e in res["cases"].items():
        if "cli_changed" in e:
            applied = ", ".join(e["cli_codes_applied"]) or "no code"
            cli.append(f"{name}: {'rewritten (' + applied + ')' if e['cli_changed'] else 'no change'}")
    if cli:
        out.append("cli: " + "; ".join(cli))
    out += [f"PROBLEM: {p}" for p in res["problems"]]
    out += [f"note: {n}" for n in res["notes"]]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.retracing", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", choices=sorted(CASES_BY_NAME), default=None)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--calls", type=int, default=DEFAULT_CALLS, help=f"calls per run (1..{MAX_CALLS})")
    ap.add_argument("--backends", nargs="+", choices=["jax", "torch", "tensorflow"], default=list(DEFAULT_BACKENDS))
    ap.add_argument("--no-cli", action="store_true", help="only the hand-written variants")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--backend", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        a.out.write_text(json.dumps(worker(a.worker, a.backend, a.repeats, a.calls)))
        return 0
    res = run(a.cases, a.repeats, a.calls, a.backends, use_cli=not a.no_cli)
    print(json.dumps(res, indent=2) if a.json else report(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
