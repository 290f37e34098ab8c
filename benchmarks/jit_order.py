"""Runtime effect of the PML301 / PML302 / PML303 / PML304 rewrites on small programs.

Each case is a tiny module (kept as a string here, so running phiml-rewrite over this repository cannot
"fix" the benchmark itself) defining `setup() -> args` and `call(*args)`. Three variants are timed:
  original  - the anti-pattern as written,
  cli       - what `phiml-rewrite --in-place --unsafe-fixes` makes of it (if the CLI runs),
  expected  - the hand-written rewrite the rule is meant to produce.
All variants of a case run interleaved in one worker process (OMP_NUM_THREADS=1, JAX_PLATFORMS=cpu),
after warm-up calls; the figure is the median over repeats of the mean per-call time, reported as a
speedup ratio original / variant (> 1: the rewrite is faster). jax trace and compile events are counted
per call (jax.monitoring), which also covers PhiML on jax. Results of the variants are compared.

Run alone: python -m benchmarks jit_order [--cases NAME ...] [--repeats R]
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

NAME = "jit_order"


@dataclass
class Case:
    name: str
    code: str  # the rule whose fix is measured
    what: str
    original: str
    expected: str


_JAX_HEAD = """\
import jax
import jax.numpy as jnp

W = jnp.linspace(-1.0, 1.0, 32 * 32).reshape(32, 32)


def f(x):
    h = jnp.tanh(x @ W)
    return jnp.sum(jnp.sin(h) ** 2) + jnp.mean(h * x)


def setup():
    return (jnp.linspace(0.0, 1.0, 64 * 32).reshape(64, 32),)
"""

_PHIML_HEAD = """\
from phiml import math
from phiml.math import batch, spatial


def f(x):
    return x + 0.1 * math.laplace(x, padding=0) - 0.01 * x ** 3


def setup():
    math.use("jax")
    return (math.sin(math.linspace(0, 6, spatial(x=64)) * math.range(batch(b=16))),)
"""

CASES = [
    Case("jax_vmap_of_jit", "PML301", "jax.vmap(jax.jit(f)) over 64 rows -> jax.jit(jax.vmap(f))",
         _JAX_HEAD + """

batched = jax.vmap(jax.jit(f))


def call(x):
    return batched(x)
""", _JAX_HEAD + """

batched = jax.jit(jax.vmap(f))


def call(x):
    return batched(x)
"""),
    Case("jax_vmap_over_jit_decorators", "PML301", "@jax.vmap stacked over @jax.jit -> @jax.jit outermost",
         _JAX_HEAD + """

@jax.vmap
@jax.jit
def g(x):
    return f(x) * 2.0


def call(x):
    return g(x)
""", _JAX_HEAD + """

@jax.jit
@jax.vmap
def g(x):
    return f(x) * 2.0


def call(x):
    return g(x)
"""),
    Case("jax_jit_lambda_in_loop", "PML302", "jax.jit(lambda) built in a 5-step loop -> built once",
         _JAX_HEAD + """

def call(x):
    for _ in range(5):
        x = jax.jit(lambda v: jnp.tanh(v @ W) * 0.5 + v * 0.5)(x)
    return x
""", _JAX_HEAD + """

_step = jax.jit(lambda v: jnp.tanh(v @ W) * 0.5 + v * 0.5)


def call(x):
    for _ in range(5):
        x = _step(x)
    return x
"""),
    Case("jax_jit_per_call", "PML302", "jax.jit(f) of a module-level f built per call -> module level",
         _JAX_HEAD + """

def call(x):
    return jax.jit(f)(x)
""", _JAX_HEAD + """

f_jit = jax.jit(f)


def call(x):
    return f_jit(x)
"""),
    Case("jax_redundant_jit", "PML303", "jax.jit(jax.jit(f)) and jit inside a jitted body -> one jit",
         _JAX_HEAD + """

@jax.jit
def outer(x):
    return jax.jit(f)(x) + 1.0


twice = jax.jit(outer)


def call(x):
    return twice(x)
""", _JAX_HEAD + """

@jax.jit
def outer(x):
    return f(x) + 1.0


twice = outer


def call(x):
    return twice(x)
"""),
    Case("phiml_jit_per_call", "PML302", "math.jit_compile(f) built per call (PhiML on jax) -> module level",
         _PHIML_HEAD + """

def call(x):
    return math.jit_compile(f)(x)
""", _PHIML_HEAD + """

f_jit = math.jit_compile(f)


def call(x):
    return f_jit(x)
"""),
    Case("phiml_jit_in_loop", "PML302", "math.jit_compile(f) inside a 4-step loop (PhiML on jax) -> hoisted",
         _PHIML_HEAD + """

def call(x):
    for _ in range(4):
        x = math.jit_compile(f)(x)
    return x
""", _PHIML_HEAD + """

f_jit = math.jit_compile(f)


def call(x):
    for _ in range(4):
        x = f_jit(x)
    return x
"""),
    Case("phiml_map_of_jit", "PML304", "math.map(jit_f, x, dims=batch) over b=16 (PhiML on jax) -> jit_f(x)",
         _PHIML_HEAD + """

jit_f = math.jit_compile(f)


def call(x):
    return math.map(jit_f, x, dims=batch)
""", _PHIML_HEAD + """

jit_f = math.jit_compile(f)


def call(x):
    return jit_f(x)
"""),
    Case("phiml_solve_temporary_operator", "PML101",
         "solve_linear in a jitted step with the operator passed as a nested def (PhiML on jax) -> lifted",
         _PHIML_HEAD + """

@math.jit_compile
def implicit_step(y, operator):
    return math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=0 * y))


def call(x):
    def operator(v):
        return 3. * v

    return implicit_step(x, operator)
""", _PHIML_HEAD + """

@math.jit_compile
def implicit_step(y, operator):
    return math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=0 * y))


def _call_operator(v):
    return 3. * v


def call(x):
    return implicit_step(x, _call_operator)
"""),
    Case("phiml_linear_lambda_per_call", "PML101",
         "solve_linear(jit_compile_linear(lambda capturing dt)) per call (PhiML on jax) -> lifted, dt as f_arg",
         _PHIML_HEAD + """

def call(x):
    dt = 0.1
    return math.solve_linear(math.jit_compile_linear(lambda v: v - dt * math.laplace(v, padding=0)), x,
                             math.Solve('CG', 1e-5, 1e-5, x0=x))
""", _PHIML_HEAD + """

@math.jit_compile_linear
def _call_operator(v, dt):
    return v - dt * math.laplace(v, padding=0)


def call(x):
    dt = 0.1
    return math.solve_linear(_call_operator, x,
                             math.Solve('CG', 1e-5, 1e-5, x0=x), dt)
"""),
    Case("phiml_nested_jit_def", "PML102", "@math.jit_compile def nested in the called function (PhiML on jax) -> module level",
         _PHIML_HEAD + """

def call(x):
    @math.jit_compile
    def step(v):
        return f(v)

    return step(x)
""", _PHIML_HEAD + """

@math.jit_compile
def _call_step(v):
    return f(v)


def call(x):
    return _call_step(x)
"""),
]
CASES_BY_NAME = {c.name: c for c in CASES}


# ----------------------------------------------------------------------------------------------------
# worker side (runs in a fresh process per case)

def _load(path: Path, modname: str):
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _native(value):
    """The backend array behind a PhiML Tensor, dims in sorted order so variants compare element-wise.

    (PhiML's Tensor.__getattr__ raises TypeError, not AttributeError, so hasattr() cannot be used on it.)
    """
    if "phiml" in sys.modules:
        from phiml.math import Tensor
        if isinstance(value, Tensor):
            return value.native(sorted(value.shape.names))
    return value


def _to_numpy(value):
    import numpy as np
    return np.asarray(_native(value))


def _block(value):
    native = _native(value)
    if hasattr(native, "block_until_ready"):
        native.block_until_ready()
    return value


def worker(case_dir: Path, repeats: int, min_batch_s: float) -> dict:
    import jax.monitoring
    import numpy as np

    counts = {"trace": 0, "compile": 0}

    def listener(event, duration, **kw):
        if event == "/jax/core/compile/jaxpr_trace_duration":
            counts["trace"] += 1
        elif event == "/jax/core/compile/backend_compile_duration":
            counts["compile"] += 1

    jax.monitoring.register_event_duration_secs_listener(listener)

    variants = {}
    for v in ("original", "cli", "expected"):
        p = case_dir / f"{v}.py"
        if p.exists():
            mod = _load(p, f"bench_case_{case_dir.name}_{v}")
            variants[v] = {"mod": mod, "args": mod.setup()}
    out: dict = {}
    # warm-up: first calls (compilation of the cached forms) are not measured
    for v, d in variants.items():
        t0 = time.perf_counter()
        d["result"] = _to_numpy(_block(d["mod"].call(*d["args"])))
        t_first = time.perf_counter() - t0
        t0 = time.perf_counter()
        _block(d["mod"].call(*d["args"]))
        t_second = time.perf_counter() - t0
        d["n"] = max(1, min(2000, int(min_batch_s / max(t_second, 1e-6))))
        d["samples"] = []
        d["traces"] = d["compiles"] = d["calls"] = 0
        out[v] = {"first_call_ms": round(t_first * 1e3, 3)}
    for _ in range(repeats):
        for d in variants.values():
            call, args, n = d["mod"].call, d["args"], d["n"]
            c0 = dict(counts)
            t0 = time.perf_counter()
            for _ in range(n):
                _block(call(*args))
            d["samples"].append((time.perf_counter() - t0) / n)
            d["traces"] += counts["trace"] - c0["trace"]
            d["compiles"] += counts["compile"] - c0["compile"]
            d["calls"] += n
    ref = variants["original"]["result"]
    for v, d in variants.items():
        out[v].update({
            "ms_per_call": round(statistics.median(d["samples"]) * 1e3, 4),
            "min_ms_per_call": round(min(d["samples"]) * 1e3, 4),
            "samples_ms": [round(s * 1e3, 4) for s in d["samples"]],
            "calls_per_sample": d["n"],
            "traces_per_call": round(d["traces"] / d["calls"], 3),
            "compiles_per_call": round(d["compiles"] / d["calls"], 3),
            "same_result": bool(np.allclose(d["result"], ref, rtol=1e-5, atol=1e-6)),
        })
    return out


# ----------------------------------------------------------------------------------------------------
# driver side


def run(cases: list[str] | None = None, repeats: int = 7, min_batch_s: float = 0.1, use_cli: bool = True) -> dict:
    selected = [CASES_BY_NAME[n] for n in cases] if cases else CASES
    res: dict = {"name": NAME, "repeats": repeats, "ok": False, "problems": [], "cases": {}}
    cli_ok, why = cli_status() if use_cli else (False, "disabled")
    with tempfile.TemporaryDirectory(prefix="bench-jit-order-") as tmp:
        tmp = Path(tmp)
        cli_info: dict = {}
        if cli_ok:
            cli_info, err = rewrite_with_cli(selected, tmp)
            if err:
                res["problems"].append(f"phiml-rewrite failed on the cases: {err}")
        else:
            res["problems"].append(f"cli variant not measured: {why}")
        env = quiet_env(OMP_NUM_THREADS="1", JAX_PLATFORMS="cpu", XLA_FLAGS="--xla_cpu_multi_thread_eigen=false")
        for c in selected:
            d = tmp / c.name
            d.mkdir()
            (d / "original.py").write_text(textwrap.dedent(c.original))
            (d / "expected.py").write_text(textwrap.dedent(c.expected))
            info = cli_info.get(c.name)
            if info:
                (d / "cli.py").write_text(info["source"])
            out_json = d / "result.json"
            proc = subprocess.run(
                [sys.executable, "-m", "benchmarks.jit_order", "--worker", str(d), "--repeats", str(repeats),
                 "--min-batch-s", str(min_batch_s), "--out", str(out_json)],
                cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True, timeout=900)
            entry: dict = {"code": c.code, "what": c.what}
            if proc.returncode != 0 or not out_json.exists():
                entry["error"] = proc.stderr.strip()[-1500:]
                res["problems"].append(f"{c.name}: worker failed: {proc.stderr.strip().splitlines()[-1:]}")
                res["cases"][c.name] = entry
                continue
            timings = json.loads(out_json.read_text())
            entry["variants"] = timings
            orig = timings["original"]["ms_per_call"]
            for v in ("cli", "expected"):
                if v in timings:
                    entry[f"speedup_{v}"] = round(orig / timings[v]["ms_per_call"], 3)
                    entry[f"first_call_speedup_{v}"] = round(
                        timings["original"]["first_call_ms"] / timings[v]["first_call_ms"], 3)
                    if not timings[v]["same_result"]:
                        res["problems"].append(f"{c.name}: the {v} variant computes a different result")
            if info:
                entry["cli_changed"] = info["changed"]
                entry["cli_codes_found"] = info["codes_found"]
                entry["cli_codes_applied"] = info["codes_applied"]
                entry["cli_source"] = info["source"]
                if not info["changed"]:
                    res["problems"].append(f"{c.name}: phiml-rewrite did not rewrite it (found: {info['codes_found'] or 'nothing'})")
                elif c.code not in info["codes_applied"]:
                    res["problems"].append(f"{c.name}: rewritten, but {c.code} not among applied codes {info['codes_applied']}")
            res["cases"][c.name] = entry
    res["ok"] = not any("worker failed" in p or "different result" in p for p in res["problems"])
    return res


def report(res: dict) -> str:
    rows = []
    for name, e in res["cases"].items():
        v = e.get("variants")
        if not v:
            rows.append([name, e["code"], "ERROR", "", "", "", "", ""])
            continue
        o, x, c = v["original"], v["expected"], v.get("cli")
        rows.append([
            name, e["code"],
            f"{o['ms_per_call']:.3f}", f"{o['traces_per_call']:.2f}",
            f"{x['ms_per_call']:.3f} ({e['speedup_expected']:.2f}x)",
            f"{c['ms_per_call']:.3f} ({e['speedup_cli']:.2f}x)" if c else "-",
            f"{c['traces_per_call']:.2f}" if c else f"{x['traces_per_call']:.2f}*",
            ("yes" if e.get("cli_changed") else "NO") if "cli_changed" in e else "-",
        ])
    out = [f"jit_order: ms per call, median of {res['repeats']} repeats (speedup = original / variant; traces = jax traces per call)",
           fmt_table(rows, ["case", "rule", "original ms", "traces", "expected ms", "cli ms", "traces", "cli rewrote"])]
    out.append("(* = traces of the expected variant: no cli variant)")
    out += [f"PROBLEM: {p}" for p in res["problems"]]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.jit_order", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", choices=sorted(CASES_BY_NAME), default=None)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-batch-s", type=float, default=0.1, help="time at least this long per sample")
    ap.add_argument("--no-cli", action="store_true", help="only original vs hand-written rewrite")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        a.out.write_text(json.dumps(worker(a.worker, a.repeats, a.min_batch_s)))
        return 0
    res = run(a.cases, a.repeats, a.min_batch_s, use_cli=not a.no_cli)
    print(json.dumps(res, indent=2) if a.json else report(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
