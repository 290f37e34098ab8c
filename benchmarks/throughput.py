"""Throughput: phiml-rewrite --check, cold and warm, against libcst's no-op codemod and `fixit lint`.

Three corpora of the code our users write and read (.py files only, copied to a temporary folder):
- dense: every file of the installed phiml, phi (PhiFlow), equinox and diffrax, and of our examples/
  and golden/: most of it reaches the analysis;
- whole: the same plus the installed jax, where the pre-filter skips most files;
- small: our examples/ alone (its notebook too), as a project (a pyproject.toml with `[project]` and
  dependencies): what a pre-commit hook or a run over a few files costs, mostly start-up. No targets: the report says how much of each run
  start-up (`--version`) is.

Every tool runs as a subprocess over the same copy; libcst and phiml-rewrite with the same number of
jobs, Fixit (in its own venv, `make bench` makes it) with its own default parallelism, on the dense
corpus only (it takes minutes). CPU time is the getrusage(RUSAGE_CHILDREN) delta of each run
(children and their pool workers). Figures of merit, ratios measured in one run:
- libcst_cpu / ours_cpu, ours being `phiml-rewrite --check --no-cache` (the command issue 21 names):
  target >= 10 on both corpora (issue 45);
- fixit_cpu / ours_cpu: target >= 100;
- ours_cold / ours_warm: a run that fills an empty result cache, then the same tree again with it
  filled: target >= 30 (CPU), on both corpora. The cold run starts once the copy is older than
  rewriter.file_digests.SETTLED_NS, as a user's files are: a file written just before a run is read
  again by the next one (its stat cannot yet stand for its bytes);
- lines per CPU second, and the CPU of `phiml-rewrite --version` (start-up);
- ours / CPython's `ast.parse` of the same files (a process that only parses them: the floor for a
  Python tool), and the most that each target against another tool lets ours cost as a multiple of it.
A ratio below its target is reported as a problem. No absolute timing thresholds.
"Ours" is the package as users install it: the wheel `make bench` builds into .venv-wheel (its hot
modules compiled, rewriter/_build.py), and the checkout's Python where there is none (the report says
which).

Run alone: python -m benchmarks throughput [--jobs N] [--rounds R] [--corpus dense|whole ...]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rewriter.file_digests import SETTLED_NS

from ._common import (REPO, cli_command, cli_status, copy_sources, count_lines, fmt_table, package_dir, parse_command, quiet_env,
                      run_child)

NAME = "throughput"
CORPORA = {
    "dense": ("phiml", "phi", "equinox", "diffrax"),
    "whole": ("phiml", "phi", "equinox", "diffrax", "jax"),
    "small": (),
}
OWN_FOLDERS = {"dense": ("examples", "golden"), "whole": ("examples", "golden"), "small": ("examples",)}  # of this repository
# Issue 45's targets (issue 21's were 3 and 5 against libcst, 30 against Fixit, 20 warm).
LIBCST_TARGET = {"dense": 10.0, "whole": 10.0}
FIXIT_TARGET = 100.0
FIXIT_CORPORA = ("dense",)
WARM_OVER_COLD_TARGET = 30.0
WARM_TARGET_CORPORA = ("dense", "whole")


def libcst_command(target: Path, jobs: int) -> list[str]:
    # noop.NOOPCommand is found through libcst.tool's default `modules: [libcst.codemod.commands]`.
    # --no-format: the default formatter is black (not installed, and not what we measure);
    # --include-generated: we process @generated files too, so libcst must not skip them.
    return [
        sys.executable, "-m", "libcst.tool", "codemod", "noop.NOOPCommand",
        "--no-format", "--hide-progress", "--include-generated", "-j", str(jobs), str(target),
    ]


WHEEL_CLI = REPO / ".venv-wheel" / "bin" / "phiml-rewrite"


def ours_cli() -> list[str] | None:
    """The installed wheel's console script (`make bench` builds it), else the checkout's."""
    return [str(WHEEL_CLI)] if WHEEL_CLI.exists() else cli_command()


def ours_build() -> str:
    if not WHEEL_CLI.exists():
        return "the checkout (Python)"
    compiled = list((WHEEL_CLI.parent.parent / "lib").glob("python3*/site-packages/rewriter/**/*.so"))
    return f"the wheel in .venv-wheel ({len(compiled)} modules compiled)"


def ours_command(target: Path, jobs: int, cache_dir: Path | None = None) -> list[str] | None:
    cmd = ours_cli()
    cache = ["--no-cache"] if cache_dir is None else ["--cache-dir", str(cache_dir)]
    return None if cmd is None else [*cmd, "--check", "--no-progress", *cache, "--jobs", str(jobs), str(target)]


def fixit_command(target: Path) -> list[str] | None:
    """`fixit lint` from the venv `make bench` gives it (.venv-fixit), or next to this interpreter."""
    for exe in (REPO / ".venv-fixit" / "bin" / "fixit", Path(sys.executable).parent / "fixit"):
        if exe.exists():
            return [str(exe), "--quiet", "lint", str(target)]
    return None


def build_corpus(name: str, dest: Path, limit: int | None = None) -> list[Path]:
    """Copy the corpus's .py files to `dest` (`limit`: the first N files of each package, for quick runs)."""
    files: list[Path] = []
    for package in CORPORA[name]:
        files += copy_sources(package_dir(package), dest / package, limit=limit)
    for folder in OWN_FOLDERS[name]:
        files += copy_sources(REPO / folder, dest / folder, limit=limit)
    if not CORPORA[name]:  # (the small corpus: a project of its own, as a user's is, with its notebook)
        (dest / "pyproject.toml").write_text('[project]\nname = "small"\nversion = "0"\n'
                                             'dependencies = ["phiml>=1.10", "jax>=0.4.25", "torch"]\n')
        for notebook in sorted((REPO / "examples").glob("*.ipynb")):
            shutil.copy2(notebook, dest / "examples" / notebook.name)  # (not in the files and lines counted)
    return files


def _summary(runs, lines: int) -> dict | None:
    if not runs:
        return None
    cpu = statistics.median(c.cpu for c in runs)
    wall = statistics.median(c.wall for c in runs)
    return {
        "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
        "cpu_samples": [round(c.cpu, 3) for c in runs], "wall_samples": [round(c.wall, 3) for c in runs],
        "lines_per_cpu_s": round(lines / cpu) if cpu else None,
        "cpu_over_wall": round(cpu / wall, 2) if wall else None,
        "exit_codes": [c.returncode for c in runs],
        "command": " ".join(runs[0].cmd),
    }


def measure_corpus(name: str, tmp: Path, jobs: int, rounds: int, limit: int | None, problems: list[str]) -> dict:
    target = tmp / name
    files = build_corpus(name, target, limit)
    copied = time.time_ns()
    out: dict = {"files": len(files), "lines": count_lines(files), "packages": list(CORPORA[name]) + list(OWN_FOLDERS[name])}
    env = quiet_env()
    samples: dict[str, list] = {"libcst": [], "fixit": [], "ours": [], "ours_cold": [], "ours_warm": [], "parse": []}
    cli_ok = ours_cli() is not None
    for r in range(rounds):
        order = ["parse", "ours", "libcst", "fixit"] if r % 2 == 0 else ["fixit", "libcst", "ours", "parse"]
        for tool in order:
            if tool == "parse":
                child = run_child(parse_command(files), cwd=tmp, env=env)
                if child.returncode != 0:
                    problems.append(f"{name}: ast.parse {child.brief()}: {child.stderr.strip()[-800:]}")
                samples["parse"].append(child)
            elif tool == "ours":
                if not cli_ok:
                    continue
                uncached = run_child(ours_command(target, jobs), cwd=tmp, env=env)
                _check_ours(uncached, problems)
                cache_dir = tmp / f"cache-{name}-{r}"  # empty: a cold run, which also fills the cache
                time.sleep(max(0, copied + SETTLED_NS - time.time_ns()) / 1e9)
                cold = run_child(ours_command(target, jobs, cache_dir), cwd=tmp, env=env)
                _check_ours(cold, problems)
                warm = run_child(ours_command(target, jobs, cache_dir), cwd=tmp, env=env)
                _check_ours(warm, problems)
                if not warm.stdout == cold.stdout == uncached.stdout:
                    problems.append(f"{name}: the reports of the runs without, filling and with a cache differ")
                samples["ours"].append(uncached)
                samples["ours_cold"].append(cold)
                samples["ours_warm"].append(warm)
            elif tool == "fixit":
                cmd = fixit_command(target)
                if cmd is None or name not in FIXIT_CORPORA:
                    continue
                child = run_child(cmd, cwd=tmp, env=env, timeout=3600)
                # Fixit's exit code is a bit set: 1 = lint errors, 2 = files it could not process (the
                # golden cases of bad input or of a newer grammar); anything else is a failed run.
                if child.returncode not in (0, 1, 2, 3):
                    problems.append(f"fixit lint {child.brief()}: {child.stderr.strip()[-800:]}")
                elif child.returncode & 2:
                    out["fixit_note"] = "fixit could not process some files (exit bit 2): they cost it less, not more"
                samples["fixit"].append(child)
            else:
                child = run_child(libcst_command(target, jobs), cwd=tmp, env=env)
                m = re.search(r"Transformed (\d+) files successfully", child.stderr)
                done = int(m.group(1)) if m else -1
                if child.returncode != 0 or done != len(files):
                    problems.append(f"{name}: libcst noop {child.brief()}, transformed {done}/{len(files)}: "
                                    f"{child.stderr.strip()[-800:]}")
                samples["libcst"].append(child)
    for tool, runs in samples.items():
        out[tool] = _summary(runs, out["lines"])
    ours, cold, warm, libcst, fixit, parse = (out[k] for k in ("ours", "ours_cold", "ours_warm", "libcst", "fixit", "parse"))
    if ours and parse:
        # The floor: what ours costs as a multiple of CPython's parse of the same files, and the most a
        # target against another tool lets it cost (libcst / (target x parse)).
        out["ratio_ours_cpu_over_parse_cpu"] = round(ours["cpu_s"] / parse["cpu_s"], 2)
        if libcst and name in LIBCST_TARGET:
            out["parse_multiple_for_libcst_target"] = round(libcst["cpu_s"] / (LIBCST_TARGET[name] * parse["cpu_s"]), 2)
        if fixit:
            out["parse_multiple_for_fixit_target"] = round(fixit["cpu_s"] / (FIXIT_TARGET * parse["cpu_s"]), 2)
    if ours and libcst:
        out["ratio_libcst_cpu_over_ours_cpu"] = ratio = round(libcst["cpu_s"] / ours["cpu_s"], 2)
        if name in LIBCST_TARGET and ratio < LIBCST_TARGET[name]:
            problems.append(f"{name}: libcst no-op / phiml-rewrite CPU = {ratio}, target >= {LIBCST_TARGET[name]}")
        if jobs > 1 and ours["cpu_over_wall"] is not None and ours["cpu_over_wall"] < 0.5:
            problems.append(f"{name}: phiml-rewrite CPU/wall = {ours['cpu_over_wall']} with {jobs} jobs: worker CPU may be "
                            "missing from RUSAGE_CHILDREN (workers not joined?) - the ratio would be flattering")
    if ours and fixit:
        out["ratio_fixit_cpu_over_ours_cpu"] = ratio = round(fixit["cpu_s"] / ours["cpu_s"], 1)
        if ratio < FIXIT_TARGET:
            problems.append(f"{name}: Fixit / phiml-rewrite CPU = {ratio}, target >= {FIXIT_TARGET:g}")
    if cold and warm:
        out["ratio_cold_over_warm_cpu"] = ratio = round(cold["cpu_s"] / warm["cpu_s"], 1)
        out["ratio_cold_over_warm_wall"] = round(cold["wall_s"] / warm["wall_s"], 1)
        if name in WARM_TARGET_CORPORA and ratio < WARM_OVER_COLD_TARGET:
            problems.append(f"{name}: a warm run costs 1/{ratio} of a cold one, target 1/{WARM_OVER_COLD_TARGET:g} or less")
    return out


def startup(rounds: int = 5) -> dict | None:
    """CPU of `phiml-rewrite --version`: what every run pays before it reads a file."""
    cmd = ours_cli()
    if cmd is None:
        return None
    runs = [run_child([*cmd, "--version"], env=quiet_env()) for _ in range(rounds)]
    return {"cpu_s": round(statistics.median(r.cpu for r in runs), 3), "wall_s": round(statistics.median(r.wall for r in runs), 3)}


def run(jobs: int | None = None, rounds: int = 1, corpora=tuple(CORPORA), limit: int | None = None) -> dict:
    jobs = jobs or os.cpu_count() or 1
    result: dict = {"name": NAME, "jobs": jobs, "rounds": rounds, "ok": False, "problems": [], "corpora": {},
                    "ours": ours_build()}
    cli_ok, why = cli_status()
    if not cli_ok:
        result["problems"].append(f"phiml-rewrite not measured: {why}")
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        tmp = Path(tmp)
        # Warm-up (imports, .pyc of the tools themselves) on one small file; not measured. Our own modules
        # get their bytecode written explicitly, as an installed package has it: with PYTHONDONTWRITEBYTECODE
        # set (as on these machines) every measured run of an editable checkout would compile each module
        # again, which libcst's installed modules never do.
        _compile_ours()
        warm = tmp / "warmup"
        warm.mkdir()
        (warm / "w.py").write_text("import jax\n\nf = jax.jit(lambda x: x + 1)\n")
        run_child(libcst_command(warm / "w.py", 1), cwd=tmp, env=quiet_env())
        if cli_ok:
            run_child(ours_command(warm, 1), cwd=tmp, env=quiet_env())
        for name in corpora:
            result["corpora"][name] = measure_corpus(name, tmp, jobs, rounds, limit, result["problems"])
            shutil.rmtree(tmp / name, ignore_errors=True)
    result["startup"] = startup() if cli_ok else None
    result["ok"] = not result["problems"]
    return result


def _compile_ours() -> None:
    import compileall

    for package in ("rewriter", "codemods"):
        compileall.compile_dir(REPO / package, quiet=1)


def _check_ours(child, problems: list[str]) -> None:
    if child.returncode not in (0, 1):
        errs = [ln for ln in child.stderr.splitlines() if ": error: " in ln]
        detail = (f"{len(errs)} file error(s), e.g. " + " | ".join(errs[:3])) if errs else child.stderr.strip()[-800:]
        problems.append(f"phiml-rewrite {child.brief()}: {detail}")


def report(res: dict) -> str:
    lines = [f"throughput: jobs={res['jobs']}, rounds={res['rounds']}; phiml-rewrite: {res.get('ours', '?')}"]
    for name, c in res["corpora"].items():
        lines.append(f"\n{name} corpus ({', '.join(c['packages'])}): {c['files']} files, {c['lines']} lines")
        rows = []
        for tool, label in (("libcst", "libcst noop codemod"), ("fixit", "fixit lint (default rules)"),
                            ("ours", "phiml-rewrite --check --no-cache"), ("ours_cold", "phiml-rewrite --check, cold (fills the cache)"),
                            ("ours_warm", "phiml-rewrite --check, warm"), ("parse", "CPython ast.parse (the floor)")):
            s = c.get(tool)
            rows.append([label, f"{s['cpu_s']:.2f}", f"{s['wall_s']:.2f}", f"{s['lines_per_cpu_s']}", f"{s['cpu_over_wall']}"]
                        if s else [label, "-", "-", "-", "-"])
        lines.append(fmt_table(rows, ["tool", "CPU s", "wall s", "lines/CPU-s", "CPU/wall"]))
        if "ratio_libcst_cpu_over_ours_cpu" in c:
            lines.append(f"libcst no-op / phiml-rewrite CPU = {c['ratio_libcst_cpu_over_ours_cpu']}"
                         + (f"  (target >= {LIBCST_TARGET[name]:g})" if name in LIBCST_TARGET else ""))
        if "ratio_fixit_cpu_over_ours_cpu" in c:
            lines.append(f"Fixit / phiml-rewrite CPU = {c['ratio_fixit_cpu_over_ours_cpu']}  (target >= {FIXIT_TARGET:g})")
        if "ratio_ours_cpu_over_parse_cpu" in c:
            allowed = [f"{c[key]}x for the {tool} target" for key, tool in (("parse_multiple_for_libcst_target", "libcst"),
                                                                            ("parse_multiple_for_fixit_target", "Fixit")) if key in c]
            lines.append(f"phiml-rewrite / ast.parse CPU = {c['ratio_ours_cpu_over_parse_cpu']}"
                         + (f"  (at most {', '.join(allowed)})" if allowed else ""))
        if "fixit_note" in c:
            lines.append(c["fixit_note"])
        if "ratio_cold_over_warm_cpu" in c:
            lines.append(f"cold / warm (result cache): CPU {c['ratio_cold_over_warm_cpu']}x, wall {c['ratio_cold_over_warm_wall']}x"
                         + (f"  (target >= {WARM_OVER_COLD_TARGET:g}x)" if name in WARM_TARGET_CORPORA else ""))
        if res.get("startup") and not CORPORA[name] and c.get("ours_cold") and c.get("ours_warm"):
            up = res["startup"]["cpu_s"]
            lines.append(f"start-up (`--version`, {up} s CPU) is {up / c['ours_cold']['cpu_s']:.0%} of the cold run, "
                         f"{up / c['ours_warm']['cpu_s']:.0%} of the warm one")
    if res.get("startup"):
        lines.append(f"\nstart-up (`phiml-rewrite --version`): {res['startup']['cpu_s']} s CPU, {res['startup']['wall_s']} s wall")
    for p in res["problems"]:
        lines.append(f"PROBLEM: {p}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--corpus", action="append", choices=list(CORPORA), help="dense, whole, small (default: all)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N files of each package (sorted)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    a = ap.parse_args(argv)
    res = run(a.jobs, a.rounds, tuple(a.corpus or CORPORA), a.limit)
    print(json.dumps(res, indent=2) if a.json else report(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
