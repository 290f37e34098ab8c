"""libcst is imported where it is first used (rewriter/lazy_libcst.py): a `--check` whose files need no
libcst parse never imports it, though every rule's file names it; a fix still finds it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from rewriter.lazy_libcst import _OnFirstUse
from rewriter.runner import POOL_MIN_FILES

ROOT = Path(__file__).resolve().parent.parent

# Three rules decided on `ast`, two of them with a fix: a `--check` reports all three without parsing
# the file with libcst.
SOURCE = '''import jax
import jax.numpy as jnp
from phiml import math


def step(x, steps):
    for _ in range(steps):
        x = jax.jit(lambda v: v * 2.0)(x)
    return x


def solve(b, scale):
    return math.solve_linear(lambda x: scale * x, b, math.Solve(x0=b))


@jax.jit
def loss(x):
    print("tracing", x)
    return jnp.sum(x ** 2)
'''

# Runs the CLI. Any of its processes that executes libcst's package (not merely looks for it: the cache
# asks where it is installed) writes its pid to $LIBCST_MARK; each forked worker writes its pid to $FORKS.
PROBE = """\
import importlib.machinery, os, sys, runpy

def mark(variable):
    with open(os.environ[variable], "a") as f:
        f.write(f"{os.getpid()}\\n")

class Mark:
    def find_spec(self, name, path=None, target=None):
        if name != "libcst":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        execute = spec.loader.exec_module

        def marked(module):
            mark("LIBCST_MARK")
            execute(module)

        spec.loader.exec_module = marked
        return spec

sys.meta_path.insert(0, Mark())
os.register_at_fork(after_in_child=lambda: mark("FORKS"))
sys.argv = ["phiml-rewrite", *sys.argv[1:]]
runpy.run_module("rewriter.cli", run_name="__main__")
"""


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, bool, int]:
    """The run, whether any of its processes imported libcst, and how many processes it forked."""
    mark, forks = tmp_path / "libcst-imported", tmp_path / "forks"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LIBCST_MARK": str(mark), "FORKS": str(forks)}  # this checkout's code
    proc = subprocess.run([sys.executable, "-c", PROBE, "--no-progress", "--no-cache", *args],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, mark.exists(), len(forks.read_text().split()) if forks.exists() else 0


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_check_that_parses_nothing_with_libcst_never_imports_it(tmp_path, jobs):
    project = tmp_path / "project"
    project.mkdir()
    copies = POOL_MIN_FILES + 2  # enough files for the run's worker processes to start (runner.POOL_MIN_FILES)
    for i in range(copies):
        (project / f"sim{i}.py").write_text(SOURCE)
    (project / "other.py").write_text("import jax\n\n\ndef f(x):\n    return x\n")
    proc, loaded, forked = _run(tmp_path, "--check", "--jobs", str(jobs), "--output-format", "json", str(project))
    codes = sorted(f["code"] for f in json.loads(proc.stdout)["findings"])
    assert codes == sorted(["PML101", "PML302", "PML501"] * copies), proc.stderr
    assert forked == jobs - 1  # (the run's own process is one of its workers)
    assert not loaded


def test_a_diff_imports_libcst_where_it_writes_the_fix(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "sim.py").write_text(SOURCE)
    proc, loaded, _ = _run(tmp_path, "--diff", "--jobs", "1", str(project))
    assert "+def _solve_operator(" in proc.stdout, proc.stdout + proc.stderr
    assert loaded


def _module(tmp_path: Path, monkeypatch, name: str, slow: bool = False) -> None:
    """A module `name` whose VALUE is 42; `slow`: binding it takes a while, after other names are bound."""
    body = "import time\nOTHER = 1\ntime.sleep(0.2)\nVALUE = 42\n" if slow else "VALUE = 42\n"
    (tmp_path / f"{name}.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_the_module_is_imported_on_the_first_read_and_is_then_a_plain_module(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "lazy_probe_one")
    lazy = _OnFirstUse("lazy_probe_one")
    assert "lazy_probe_one" not in sys.modules
    assert lazy.VALUE == 42
    assert "lazy_probe_one" in sys.modules and type(lazy) is types.ModuleType
    assert lazy.__dict__["VALUE"] is sys.modules["lazy_probe_one"].VALUE
    with pytest.raises(AttributeError):
        lazy.missing  # noqa: B018 (a name the module lacks is an AttributeError, as of the module itself)
    sys.modules["lazy_probe_one"].LATER = "bound after the first read"  # (as a submodule imported later is)
    assert lazy.LATER == "bound after the first read"


def test_a_name_the_module_lacks_is_an_attribute_error_on_the_first_read_too(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "lazy_probe_two")
    lazy = _OnFirstUse("lazy_probe_two")
    assert not hasattr(lazy, "missing")
    assert lazy.VALUE == 42


def test_threads_that_read_it_while_it_is_imported_all_see_the_whole_module(tmp_path, monkeypatch):
    """The first reader imports the module; the others, arriving while it runs, wait for the import and
    never see a module half run."""
    _module(tmp_path, monkeypatch, "lazy_probe_three", slow=True)
    lazy = _OnFirstUse("lazy_probe_three")
    seen: list[int] = []
    start = threading.Barrier(8)

    def read() -> None:
        start.wait()
        seen.append(lazy.VALUE)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [42] * 8
