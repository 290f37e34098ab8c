"""Helpers shared by the benchmarks: locating the CLI, copying package sources, timing children."""
from __future__ import annotations

import collections
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# A process that only parses the files it is given with CPython's `ast`: the floor for a Python tool.
# A file CPython cannot parse (the golden cases of bad input) is skipped, as ours reports it and goes on.
PARSE_ALL = ("import ast, sys\nfor path in sys.argv[1:]:\n    try:\n        ast.parse(open(path, 'rb').read(), path)\n"
             "    except (SyntaxError, ValueError, MemoryError, RecursionError):\n        pass\n")


def parse_command(files) -> list[str]:
    """`PARSE_ALL` over the `.py` files among `files`, in this interpreter."""
    return [sys.executable, "-c", PARSE_ALL, *(str(f) for f in files if str(f).endswith(".py"))]


def cli_command() -> list[str] | None:
    """The phiml-rewrite console script next to this interpreter (the venv's), else on PATH."""
    local = Path(sys.executable).parent / "phiml-rewrite"
    exe = str(local) if local.exists() else shutil.which("phiml-rewrite")
    if exe is None:
        return None
    return [exe]


def cli_status() -> tuple[bool, str]:
    """Whether `phiml-rewrite --help` works, and why not."""
    cmd = cli_command()
    if cmd is None:
        return False, "phiml-rewrite is not installed (no console script next to the interpreter or on PATH)"
    proc = subprocess.run([*cmd, "--help"], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
        return False, f"`phiml-rewrite --help` exited {proc.returncode}: {tail[0]}"
    return True, "ok"


def package_dir(name: str) -> Path:
    """The installed source directory of an importable package, without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"package {name!r} is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def _ignore_non_python(directory: str, names: list[str]) -> list[str]:
    return [
        n for n in names
        if n == "__pycache__" or (not n.endswith(".py") and not os.path.isdir(os.path.join(directory, n)))
    ]


def copy_sources(src: Path, dest: Path, limit: int | None = None) -> list[Path]:
    """Copy the .py files of `src` (a directory or one file) to `dest`, keeping the layout.

    `limit` keeps only the first `limit` files in sorted order (for quick tests). Returns the copies.
    """
    src = Path(src)
    if src.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
        return [dest]
    if limit is None:
        shutil.copytree(src, dest, ignore=_ignore_non_python)
        return sorted(dest.rglob("*.py"))
    files = sorted(p for p in src.rglob("*.py") if "__pycache__" not in p.parts)[:limit]
    out = []
    for f in files:
        target = dest / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
        out.append(target)
    return out


def count_lines(files) -> int:
    total = 0
    for f in files:
        with open(f, "rb") as fh:
            total += fh.read().count(b"\n")
    return total


@dataclass
class ChildRun:
    cmd: list[str]
    returncode: int
    wall: float
    cpu: float  # user + system CPU seconds of the child and every descendant it waited for
    stdout: str
    stderr: str

    def brief(self) -> str:
        return f"exit {self.returncode}, {self.wall:.2f} s wall, {self.cpu:.2f} s CPU"


def run_child(cmd: list[str], cwd: Path | None = None, env: dict | None = None, timeout: float = 1800) -> ChildRun:
    """Run a subprocess and measure its CPU time via getrusage(RUSAGE_CHILDREN) deltas.

    RUSAGE_CHILDREN covers every terminated, waited-for descendant, so pool workers count as long as the
    child joins them (both ProcessPoolExecutor and multiprocessing.Pool do on shutdown).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return ChildRun(cmd, proc.returncode, wall, cpu, proc.stdout, proc.stderr)


def quiet_env(**extra: str) -> dict:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env.update(extra)
    return env


def fmt_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def file_errors(errors: list[dict]) -> str | None:
    """One failure line for the per-file `errors` of a JSON run (None: there are none)."""
    if not errors:
        return None
    kinds = collections.Counter(str(e.get("message"))[:160] for e in errors)
    return (f"{len(errors)} file error(s): " + "; ".join(f"{n}x {msg}" for msg, n in kinds.most_common(5))
            + f" (e.g. {errors[0].get('path')})")


def rewrite_with_cli(cases, root: Path) -> tuple[dict, str | None]:
    """Write every case's `original` source to root/cli/<name>.py, run `phiml-rewrite --in-place
    --unsafe-fixes` over them once; return case name -> what the CLI made of it, or an error."""
    src_dir = root / "cli"
    src_dir.mkdir()
    for c in cases:
        (src_dir / f"{c.name}.py").write_text(textwrap.dedent(c.original))
    cmd = [*cli_command(), "--in-place", "--unsafe-fixes", "--output-format", "json", "--no-progress", str(src_dir)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=quiet_env(), timeout=600)
    info: dict = {}
    if proc.returncode not in (0, 1):
        return info, f"exit {proc.returncode}: {proc.stderr.strip()[-600:]}"
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        return info, f"output is not JSON ({e})"
    for c in cases:
        p = src_dir / f"{c.name}.py"
        mine = [f for f in data.get("findings", []) if Path(f.get("path", "")).name == p.name]
        info[c.name] = {
            "source": p.read_text(),
            "changed": p.read_text() != textwrap.dedent(c.original),
            "codes_found": sorted({f["code"] for f in mine}),
            "codes_applied": sorted({f["code"] for f in mine if f.get("applied")}),
        }
    return info, None
