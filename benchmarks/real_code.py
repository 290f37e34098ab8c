"""Real code: phiml-rewrite --in-place --unsafe-fixes over copies of the installed jax, phiml, phi, equinox and diffrax.

Checks (each failure makes the benchmark fail):
  * no crash: exit code in {0, 1} and the JSON output parses, no per-file `errors`;
  * every .py file still parses (ast.parse);
  * every file not listed in `changed_files` is byte-identical to the original (and every listed one differs);
  * a second identical run changes nothing (idempotent): no changed_files, bytes unchanged. By default the
    second run covers the files the first run changed (files are processed independently, so an unchanged
    file is the same input again); `full_second_run=True` / --full-second-run re-runs the whole tree.
  * behaviour: smoke programs (SMOKE below: a PhiFlow simulation, a diffrax ODE solve, an equinox MLP with
    its gradient, jax transforms) print the same output importing the rewritten copies as importing the
    installed packages. None of these packages ships its test suite in its wheel or its sdist (checked for
    phiml 1.16.1, phiflow 3.4.0, equinox 0.13.8, diffrax 0.7.2, jax), so these programs stand in for them.
Reports wall time, lines per second, findings per code, and each changed file with the codes applied to it.

Importable: `run(sources=[Path(...)], limit=20, jobs=1)` checks a small subset (for tests);
`rewrite_and_check(sources, root)` does the same and leaves the rewritten tree and the first run's JSON to the
caller (the reviewed real-code check, tests/harness/real_code.py, imports what changed).
Run alone: python -m benchmarks real_code [--packages jax phiml phi] [--limit N] [--keep DIR]
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ._common import cli_command, cli_status, copy_sources, file_errors, fmt_table, package_dir, quiet_env, run_child

NAME = "real_code"
DEFAULT_PACKAGES = ("jax", "phiml", "phi", "equinox", "diffrax")  # those installed (the dev extra has all five)

# Programs run against the original and the rewritten packages; each prints numbers that must agree.
SMOKE = {
    "phiflow": (("phi", "phiml"), """
from phi.flow import *
math.seed(0)
smoke = CenteredGrid(Noise(scale=8, smoothness=1.2), 0, x=24, y=24, bounds=Box(x=24, y=24))
velocity = StaggeredGrid(0, 0, x=24, y=24, bounds=Box(x=24, y=24))
for _ in range(3):
    smoke = advect.mac_cormack(smoke, velocity, 1) + 0.1
    velocity = advect.semi_lagrangian(velocity, velocity, 1) + resample(smoke * (0, 0.1), to=velocity)
    velocity, _ = fluid.make_incompressible(velocity, (), Solve('CG', 1e-5, 1e-5))
print(f"{float(math.sum(smoke.values)):.4f} {float(math.max(abs(velocity.values))):.4f}")  # `round` is phi's here
"""),
    "diffrax": (("jax", "equinox", "diffrax"), """
import jax.numpy as jnp, diffrax
term = diffrax.ODETerm(lambda t, y, args: -args * y)
sol = diffrax.diffeqsolve(term, diffrax.Tsit5(), t0=0.0, t1=2.0, dt0=0.1, y0=jnp.array([1.0, 2.0]), args=0.7,
                          saveat=diffrax.SaveAt(ts=jnp.linspace(0, 2, 5)))
print(jnp.round(sol.ys, 5).tolist())
"""),
    "equinox": (("jax", "equinox"), """
import jax, jax.numpy as jnp, equinox as eqx
mlp = eqx.nn.MLP(3, 2, 8, 2, key=jax.random.PRNGKey(0))
x = jnp.linspace(-1, 1, 12).reshape(4, 3)
loss = lambda m: jnp.mean(jax.vmap(m)(x) ** 2)
value, grads = eqx.filter_jit(eqx.filter_value_and_grad(loss))(mlp)
print(round(float(value), 6), round(float(sum(jnp.sum(g) for g in jax.tree.leaves(eqx.filter(grads, eqx.is_array)))), 6))
"""),
    "jax": (("jax",), """
import jax, jax.numpy as jnp
f = jax.jit(jax.vmap(jax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2))))
print(jnp.round(f(jnp.arange(6.0).reshape(3, 2)), 5).tolist(), jax.lax.fori_loop(0, 5, lambda i, c: c + i, 0))
"""),
}


def _snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*.py"))}


def resolve_path(path: str, cwd: Path) -> Path:
    """A path of the CLI's JSON output (as the CLI was given it: relative to its cwd, or absolute)."""
    p = Path(path)
    return (p if p.is_absolute() else cwd / p).resolve()


def _invoke(targets, jobs: int, cwd: Path) -> tuple[dict | None, object, str | None]:
    targets = [targets] if isinstance(targets, (str, Path)) else list(targets)
    cmd = [*cli_command(), "--in-place", "--unsafe-fixes", "--output-format", "json", "--no-progress", "--no-cache",
           "--jobs", str(jobs), *map(str, targets)]
    child = run_child(cmd, cwd=cwd, env=quiet_env())
    problems = []
    if child.returncode not in (0, 1):
        problems.append(f"exit code {child.returncode} (stderr tail: {child.stderr.strip()[-600:]!r})")
    try:
        data = json.loads(child.stdout)
    except json.JSONDecodeError as e:
        problems.append(f"stdout is not one JSON document ({e}); first 300 chars: {child.stdout[:300]!r}")
        return None, child, "; ".join(problems)
    missing = {"findings", "errors", "changed_files", "summary"} - set(data)
    if missing:
        problems.append(f"JSON output lacks keys {sorted(missing)}")
    return data, child, "; ".join(problems) or None


def run(sources=None, limit: int | None = None, jobs: int | None = None, keep: Path | None = None,
        full_second_run: bool = False) -> dict:
    """`sources`: package names or directories/files to copy (default: those of DEFAULT_PACKAGES installed)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-real-code-"))
    try:
        res, _ = rewrite_and_check(sources, tmp, limit, jobs, full_second_run)
        return res
    finally:
        if keep is not None and work_dir(tmp).exists():
            keep = Path(keep)
            if keep.exists():
                shutil.rmtree(keep)
            shutil.copytree(work_dir(tmp), keep)
        shutil.rmtree(tmp, ignore_errors=True)


def work_dir(root: Path) -> Path:
    """Where `rewrite_and_check` puts the rewritten copies: root/src/<package>/..."""
    return root / "src"


def source_dir(source) -> Path:
    """A bare name ("phiml") is an installed package; a Path or a string with a separator is a path."""
    return package_dir(source) if isinstance(source, str) and os.sep not in source else Path(source)


def rewrite_and_check(sources, root: Path, limit: int | None = None, jobs: int | None = None,
                      full_second_run: bool = False) -> tuple[dict, dict | None]:
    """Copy `sources` to work_dir(root), rewrite them in place, and run every check of this benchmark.

    Returns the report and the first run's JSON document (None if there is none); the rewritten tree stays
    in work_dir(root), for callers that check more (tests/harness/real_code.py imports what changed).
    """
    jobs = jobs or os.cpu_count() or 1
    sources = list(sources or [p for p in DEFAULT_PACKAGES if _installed(p)])
    res: dict = {"name": NAME, "jobs": jobs, "ok": False, "failures": [], "sources": [str(s) for s in sources]}
    cli_ok, why = cli_status()
    if not cli_ok:
        res["failures"].append(f"phiml-rewrite not runnable: {why}")
        return res, None

    root = Path(root)
    work = work_dir(root)
    for s in sources:
        src = source_dir(s)
        if limit is None and src.is_dir():  # whole packages, data files too: the smoke programs import them
            shutil.copytree(src, work / src.name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            copy_sources(src, work / src.name, limit=limit)
    original = _snapshot(work)
    res["files"] = len(original)
    res["lines"] = sum(b.count(b"\n") for b in original.values())

    # --- run 1 ---------------------------------------------------------------------------------
    data, child, err = _invoke(work, jobs, root)
    res["wall_s"] = round(child.wall, 3)
    res["cpu_s"] = round(child.cpu, 3)
    res["exit_code"] = child.returncode
    res["lines_per_s"] = round(res["lines"] / child.wall) if child.wall else None
    if err:
        res["failures"].append(f"run 1: {err}")
    if data is None:
        return res, None
    res["summary"] = data.get("summary")
    res["errors"] = data.get("errors", [])
    if res["errors"]:
        res["failures"].append(f"run 1 reported {file_errors(res['errors'])}")

    findings = data.get("findings", [])
    per_code = collections.Counter(f.get("code") for f in findings)
    applied_per_code = collections.Counter(f.get("code") for f in findings if f.get("applied"))
    res["findings_per_code"] = dict(sorted(per_code.items()))
    res["applied_per_code"] = dict(sorted(applied_per_code.items()))

    changed = {resolve_path(p, root) for p in data.get("changed_files", [])}
    codes_by_file: dict[Path, set] = collections.defaultdict(set)
    for f in findings:
        if f.get("applied"):
            codes_by_file[resolve_path(f["path"], root)].add(f["code"])
    after = _snapshot(work)

    # --- checks --------------------------------------------------------------------------------
    unparsable = []
    for p, text in after.items():
        try:
            ast.parse(text, filename=str(p))
        except SyntaxError as e:
            unparsable.append(f"{p.relative_to(work)}: {e.msg} (line {e.lineno})")
    res["files_not_parsing"] = unparsable
    if unparsable:
        res["failures"].append(f"{len(unparsable)} file(s) no longer parse: {unparsable[:5]}")

    unlisted_modified = [str(p.relative_to(work)) for p in original if p not in changed and after[p] != original[p]]
    listed_unmodified = [str(p.relative_to(work)) for p in changed if p in original and after[p] == original[p]]
    listed_unknown = [str(p) for p in changed if p not in original]
    if unlisted_modified:
        res["failures"].append(f"{len(unlisted_modified)} file(s) modified but not in changed_files: {unlisted_modified[:5]}")
    if listed_unmodified:
        res["failures"].append(f"{len(listed_unmodified)} file(s) in changed_files are byte-identical: {listed_unmodified[:5]}")
    if listed_unknown:
        res["failures"].append(f"changed_files names files outside the tree: {listed_unknown[:5]}")
    no_codes = [str(p.relative_to(work)) for p in changed if p in original and not codes_by_file.get(p)]
    if no_codes:
        res["failures"].append(f"{len(no_codes)} changed file(s) have no applied finding: {no_codes[:5]}")

    res["changed_files"] = [
        {"path": str(p.relative_to(work)), "codes": sorted(codes_by_file.get(p, ())),
         "lines_delta": after[p].count(b"\n") - original[p].count(b"\n")}
        for p in sorted(changed) if p in original
    ]

    # --- run 2: idempotence --------------------------------------------------------------------
    second_targets = [work] if full_second_run else sorted(p for p in changed if p in original)
    res["second_run_scope"] = "all files" if full_second_run else f"{len(second_targets)} changed file(s)"
    if second_targets:
        data2, child2, err2 = _invoke(second_targets, jobs, root)
        res["second_run_wall_s"] = round(child2.wall, 3)
        if err2:
            res["failures"].append(f"run 2: {err2}")
        again = _snapshot(work)
        drift = [str(p.relative_to(work)) for p in after if again.get(p) != after[p]]
        if data2 is not None and data2.get("changed_files"):
            res["failures"].append(f"second run changed {len(data2['changed_files'])} file(s): {data2['changed_files'][:5]}")
        if drift:
            res["failures"].append(f"second run modified {len(drift)} file(s): {drift[:5]}")
        if data2 is not None:
            res["second_run_applied"] = sum(1 for f in data2.get("findings", []) if f.get("applied"))
            res["second_run_findings"] = len(data2.get("findings", []))
    # --- behaviour: the smoke programs, original packages vs rewritten copies ----------------------
    if limit is None:
        res["smoke"] = _smoke(work, {src.name if isinstance(src, Path) else src for src in sources}, res["failures"])
    res["ok"] = not res["failures"]
    return res, data


def _installed(package: str) -> bool:
    try:
        package_dir(package)
        return True
    except ModuleNotFoundError:
        return False


def _smoke(work: Path, packages: set[str], failures: list[str]) -> dict:
    """Each smoke program whose packages were all rewritten: its output, then and now."""
    import subprocess

    out = {}
    for name, (needs, program) in SMOKE.items():
        if not set(needs) <= packages:
            continue
        runs = []
        for path in ("", str(work)):  # the installed packages, then the rewritten copies first on the path
            env = quiet_env(PYTHONPATH=path, JAX_PLATFORMS="cpu")
            proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, cwd=work.parent,
                                  timeout=900)
            runs.append(proc.stdout.strip() if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
        out[name] = {"original": runs[0], "rewritten": runs[1], "same": runs[0] == runs[1] and not runs[0].startswith("exit ")}
        if not out[name]["same"]:
            failures.append(f"smoke program {name!r}: original {runs[0]!r}, rewritten {runs[1]!r}")
    return out


def report(res: dict) -> str:
    out = [f"real_code: {', '.join(res['sources'])} - {res.get('files', '?')} files, {res.get('lines', '?')} lines, jobs={res['jobs']}"]
    if "wall_s" in res:
        out.append(f"run 1: exit {res['exit_code']}, {res['wall_s']:.2f} s wall ({res['cpu_s']:.2f} s CPU), "
                   f"{res['lines_per_s']} lines/s")
        if "second_run_wall_s" in res:
            out.append(f"run 2 (idempotence, {res['second_run_scope']}): {res['second_run_wall_s']:.2f} s, "
                       f"{res.get('second_run_findings', '?')} findings, {res.get('second_run_applied', '?')} applied")
        elif "second_run_scope" in res:
            out.append("run 2 (idempotence): not needed, run 1 changed nothing")
    if res.get("findings_per_code"):
        rows = [[c, str(n), str(res["applied_per_code"].get(c, 0))] for c, n in res["findings_per_code"].items()]
        out.append(fmt_table(rows, ["code", "findings", "applied"]))
    elif "findings_per_code" in res:
        out.append("no findings")
    if res.get("changed_files"):
        out.append(f"changed files ({len(res['changed_files'])}):")
        out += [f"  {c['path']}  {','.join(c['codes'])}  ({c['lines_delta']:+d} lines)" for c in res["changed_files"]]
    for name, smoke in res.get("smoke", {}).items():
        out.append(f"smoke {name}: {'same output' if smoke['same'] else 'DIFFERS'} ({smoke['rewritten'][:90]})")
    out.append("checks: " + ("all passed (exit code, parse, byte-identical, idempotent, smoke programs)" if res["ok"] else "FAILED"))
    out += [f"FAILURE: {f}" for f in res["failures"]]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.real_code", description=__doc__.splitlines()[0])
    ap.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES), help="package names or paths")
    ap.add_argument("--limit", type=int, default=None, help="only the first N files of each source (sorted)")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--keep", type=Path, default=None, help="copy the rewritten tree here for inspection")
    ap.add_argument("--full-second-run", action="store_true", help="idempotence run over every file")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = run(a.packages, a.limit, a.jobs, a.keep, a.full_second_run)
    print(json.dumps(res, indent=2) if a.json else report(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
