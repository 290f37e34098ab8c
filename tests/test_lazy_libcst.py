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

# Runs the CLI; any of its processes (the workers are forked from it) that imports libcst writes its pid
# to the file $LIBCST_MARK.
PROBE = ("import os, sys, runpy\n"
         "class Mark:\n"
         "    def find_spec(self, name, path=None, target=None):\n"
         "        if name == 'libcst':\n"
         "            with open(os.environ['LIBCST_MARK'], 'a') as f: f.write(f'{os.getpid()}\\n')\n"
         "        return None\n"
         "sys.meta_path.insert(0, Mark())\n"
         "sys.argv = ['phiml-rewrite', *sys.argv[1:]]\n"
         "runpy.run_module('rewriter.cli', run_name='__main__')\n")


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, bool]:
    """The run, and whether any of its processes imported libcst."""
    mark = tmp_path / "libcst-imported"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LIBCST_MARK": str(mark)}  # this checkout's code
    proc = subprocess.run([sys.executable, "-c", PROBE, "--no-progress", "--no-cache", *args],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, mark.exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_check_that_parses_nothing_with_libcst_never_imports_it(tmp_path, jobs):
    project = tmp_path / "project"
    project.mkdir()
    (project / "sim.py").write_text(SOURCE)
    (project / "other.py").write_text("import jax\n\n\ndef f(x):\n    return x\n")
    proc, loaded = _run(tmp_path, "--check", "--jobs", jobs, "--output-format", "json", str(project))
    codes = sorted(f["code"] for f in json.loads(proc.stdout)["findings"])
    assert codes == ["PML101", "PML302", "PML501"], proc.stderr
    assert not loaded


def test_a_diff_imports_libcst_where_it_writes_the_fix(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "sim.py").write_text(SOURCE)
    proc, loaded = _run(tmp_path, "--diff", "--jobs", "1", str(project))
    assert "+def _solve_operator(" in proc.stdout, proc.stdout + proc.stderr
    assert loaded


def _module(tmp_path: Path, monkeypatch, name: str) -> None:
    (tmp_path / f"{name}.py").write_text("VALUE = 42\n")
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


def test_a_name_the_module_lacks_is_an_attribute_error_on_the_first_read_too(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "lazy_probe_two")
    lazy = _OnFirstUse("lazy_probe_two")
    assert not hasattr(lazy, "missing")
    assert lazy.VALUE == 42


def test_threads_that_read_it_first_all_see_the_module(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "lazy_probe_three")
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
