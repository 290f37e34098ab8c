"""Throughput: phiml-rewrite --check, cold and warm, versus libcst's no-op codemod and `fixit lint`.

Every tool runs as a subprocess over the same copy of `site-packages/jax` (.py files only); libcst
and phiml-rewrite with the same number of jobs, Fixit with its own default parallelism. CPU time is
the getrusage(RUSAGE_CHILDREN) delta of each run (children + their pool workers). Figures of merit,
all measured in the same run:
- libcst_cpu / ours_cpu (cold, empty cache): >= 1.0 means phiml-rewrite (parse + metadata + every
  codemod) costs no more CPU than libcst parsing and re-emitting every file;
- fixit_cpu / ours_cpu: the linter built on the same parser, with its default rules;
- ours_cold / ours_warm (the same tree again, result cache filled): at least 20x, wall and CPU.
No absolute timing thresholds.

Run alone: python -m benchmarks throughput [--jobs N] [--rounds R]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

from ._common import cli_command, cli_status, copy_sources, count_lines, fmt_table, package_dir, quiet_env, run_child

NAME = "throughput"


def libcst_command(target: Path, jobs: int) -> list[str]:
    # noop.NOOPCommand is found through libcst.tool's default `modules: [libcst.codemod.commands]`.
    # --no-format: the default formatter is black (not installed, and not what we measure);
    # --include-generated: we process @generated files too, so libcst must not skip them.
    return [
        sys.executable, "-m", "libcst.tool", "codemod", "noop.NOOPCommand",
        "--no-format", "--hide-progress", "--include-generated", "-j", str(jobs), str(target),
    ]


def ours_command(target: Path, jobs: int, cache_dir: Path | None = None) -> list[str] | None:
    cmd = cli_command()
    cache = ["--no-cache"] if cache_dir is None else ["--cache-dir", str(cache_dir)]
    return None if cmd is None else [*cmd, "--check", "--no-progress", *cache, "--jobs", str(jobs), str(target)]


def fixit_command(target: Path) -> list[str] | None:
    """`fixit lint` from the venv `make bench` gives it (.venv-fixit), or next to this interpreter."""
    from ._common import REPO

    for exe in (REPO / ".venv-fixit" / "bin" / "fixit", Path(sys.executable).parent / "fixit"):
        if exe.exists():
            return [str(exe), "--quiet", "lint", str(target)]
    return None


WARM_OVER_COLD_TARGET = 20


def run(jobs: int | None = None, rounds: int = 1, package: str = "jax", limit: int | None = None) -> dict:
    jobs = jobs or os.cpu_count() or 1
    result: dict = {"name": NAME, "package": package, "jobs": jobs, "rounds": rounds, "ok": False, "problems": []}
    cli_ok, why = cli_status()
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        tmp = Path(tmp)
        files = copy_sources(package_dir(package), tmp / package, limit=limit)
        result["files"] = len(files)
        result["lines"] = count_lines(files)
        # Warm-up (imports, .pyc of the tools themselves) on one small file; not measured.
        warm = tmp / "warmup"
        warm.mkdir()
        (warm / "w.py").write_text("import jax\n\nf = jax.jit(lambda x: x + 1)\n")
        env = quiet_env()
        run_child(libcst_command(warm / "w.py", 1), cwd=tmp, env=env)
        if cli_ok:
            run_child(ours_command(warm, 1), cwd=tmp, env=env)

        target = tmp / package
        samples: dict[str, list] = {"libcst": [], "fixit": [], "ours": [], "ours_warm": []}
        for r in range(rounds):
            order = ["ours", "libcst", "fixit"] if r % 2 == 0 else ["fixit", "libcst", "ours"]
            for tool in order:
                if tool == "ours":
                    if not cli_ok:
                        continue
                    cache_dir = tmp / f"cache-{r}"  # empty: a cold run, which also fills the cache
                    child = run_child(ours_command(target, jobs, cache_dir), cwd=tmp, env=env)
                    _check_ours(child, result)
                    warm = run_child(ours_command(target, jobs, cache_dir), cwd=tmp, env=env)
                    _check_ours(warm, result)
                    if warm.stdout != child.stdout:
                        result["problems"].append("the warm run's report differs from the cold run's")
                    samples["ours_warm"].append(warm)
                elif tool == "fixit":
                    cmd = fixit_command(target)
                    if cmd is None:
                        continue
                    child = run_child(cmd, cwd=tmp, env=env)
                    if child.returncode not in (0, 1):
                        result["problems"].append(f"fixit lint {child.brief()}: {child.stderr.strip()[-800:]}")
                else:
                    child = run_child(libcst_command(target, jobs), cwd=tmp, env=env)
                    m = re.search(r"Transformed (\d+) files successfully", child.stderr)
                    done = int(m.group(1)) if m else -1
                    if child.returncode != 0 or done != len(files):
                        result["problems"].append(
                            f"libcst noop {child.brief()}, transformed {done}/{len(files)}: {child.stderr.strip()[-800:]}")
                samples[tool].append(child)

    def summarize(runs) -> dict | None:
        if not runs:
            return None
        cpu = statistics.median(c.cpu for c in runs)
        wall = statistics.median(c.wall for c in runs)
        out = {
            "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "cpu_samples": [round(c.cpu, 3) for c in runs], "wall_samples": [round(c.wall, 3) for c in runs],
            "lines_per_cpu_s": round(result["lines"] / cpu) if cpu else None,
            "cpu_over_wall": round(cpu / wall, 2) if wall else None,
            "exit_codes": [c.returncode for c in runs],
            "command": " ".join(runs[0].cmd),
        }
        return out

    for tool in samples:
        result[tool] = summarize(samples[tool])
    if not cli_ok:
        result["problems"].append(f"phiml-rewrite not measured: {why}")
    if result["ours"] and result["fixit"]:
        result["ratio_fixit_cpu_over_ours_cpu"] = round(result["fixit"]["cpu_s"] / result["ours"]["cpu_s"], 3)
    if result["ours"] and result["ours_warm"]:
        cold, warm = result["ours"], result["ours_warm"]
        result["ratio_cold_over_warm_cpu"] = round(cold["cpu_s"] / warm["cpu_s"], 1)
        result["ratio_cold_over_warm_wall"] = round(cold["wall_s"] / warm["wall_s"], 1)
        if min(result["ratio_cold_over_warm_cpu"], result["ratio_cold_over_warm_wall"]) < WARM_OVER_COLD_TARGET:
            result["problems"].append(f"a warm run is less than {WARM_OVER_COLD_TARGET}x faster than a cold one")
    if result["ours"] and result["libcst"]:
        ratio = result["libcst"]["cpu_s"] / result["ours"]["cpu_s"]
        result["ratio_libcst_cpu_over_ours_cpu"] = round(ratio, 3)
        result["not_slower"] = ratio >= 1.0
        # Sanity: with jobs > 1 a child CPU far below its wall time hints that pool workers were not waited for.
        if jobs > 1 and result["ours"]["cpu_over_wall"] is not None and result["ours"]["cpu_over_wall"] < 0.5:
            result["problems"].append(
                f"phiml-rewrite CPU/wall = {result['ours']['cpu_over_wall']} with {jobs} jobs: worker CPU may be "
                "missing from RUSAGE_CHILDREN (workers not joined?) - the ratio would be flattering")
    result["ok"] = not result["problems"]
    return result


def _check_ours(child, result: dict) -> None:
    if child.returncode not in (0, 1):
        errs = [ln for ln in child.stderr.splitlines() if ": error: " in ln]
        detail = (f"{len(errs)} file error(s), e.g. " + " | ".join(errs[:3])) if errs else child.stderr.strip()[-800:]
        result["problems"].append(f"phiml-rewrite {child.brief()}: {detail}")


def report(res: dict) -> str:
    lines = [f"throughput: {res['package']} sources, {res['files']} files, {res['lines']} lines, "
             f"jobs={res['jobs']}, rounds={res['rounds']}"]
    rows = []
    for tool, label in (("libcst", "libcst noop codemod"), ("fixit", "fixit lint (default rules)"),
                        ("ours", "phiml-rewrite --check, cold"), ("ours_warm", "phiml-rewrite --check, warm")):
        s = res.get(tool)
        if s:
            rows.append([label, f"{s['cpu_s']:.2f}", f"{s['wall_s']:.2f}", f"{s['lines_per_cpu_s']}", f"{s['cpu_over_wall']}"])
        else:
            rows.append([label, "-", "-", "-", "-"])
    lines.append(fmt_table(rows, ["tool", "CPU s", "wall s", "lines/CPU-s", "CPU/wall"]))
    if "ratio_libcst_cpu_over_ours_cpu" in res:
        r = res["ratio_libcst_cpu_over_ours_cpu"]
        lines.append(f"ratio libcst_cpu / ours_cpu = {r:.2f}  ({'not slower' if r >= 1 else 'SLOWER than libcst noop'})")
    if "ratio_fixit_cpu_over_ours_cpu" in res:
        lines.append(f"ratio fixit_cpu / ours_cpu = {res['ratio_fixit_cpu_over_ours_cpu']:.2f}")
    if "ratio_cold_over_warm_cpu" in res:
        lines.append(f"cold / warm (result cache): CPU {res['ratio_cold_over_warm_cpu']}x, wall {res['ratio_cold_over_warm_wall']}x "
                     f"(target >= {WARM_OVER_COLD_TARGET}x)")
    for p in res["problems"]:
        lines.append(f"PROBLEM: {p}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--package", default="jax")
    ap.add_argument("--limit", type=int, default=None, help="only the first N files (sorted)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    a = ap.parse_args(argv)
    res = run(a.jobs, a.rounds, a.package, a.limit)
    print(json.dumps(res, indent=2) if a.json else report(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
