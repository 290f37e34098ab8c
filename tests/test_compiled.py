"""The package as a wheel installs it (rewriter/_build.py: the hot modules compiled by Cython) says and
writes what the checkout's Python does.

`make test` builds that wheel into .venv-wheel first; without it (a bare `pytest`) these are skipped.
The corpus is the benchmark's whole corpus: every golden case, the examples and the installed phiml,
phi, equinox, diffrax and jax, whose findings cover every rule.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WHEEL_BIN = ROOT / ".venv-wheel" / "bin"
CHECKOUT_BIN = Path(sys.executable).parent

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (WHEEL_BIN / "phiml-rewrite").exists(), reason="no .venv-wheel (`make test` builds it)"),
]


def _compiled_modules() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return [m["name"] for m in config["tool"]["setuptools"]["ext-modules"]]


def _run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """The console script of `bin_dir`'s venv, from outside the checkout (whose `rewriter/` a working
    directory on the path would import instead of the installed one)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run([str(bin_dir / "phiml-rewrite"), *args], capture_output=True, text=True, env=env,
                          cwd=ROOT.parent, timeout=900)


def test_the_wheel_runs_its_listed_modules_compiled():
    """Each module pyproject.toml lists is an extension module in the wheel's install, and the checkout
    imports its Python source: the comparison below compares the two. (Without a C compiler the wheel
    keeps them as Python, as rewriter/_build.py means it to.)"""
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler: the wheel is pure Python")
    modules = _compiled_modules()
    assert len(modules) >= 10
    code = "import importlib.util, sys; print('\\n'.join(importlib.util.find_spec(m).origin for m in sys.argv[1:]))"
    origins = subprocess.run([str(WHEEL_BIN / "python"), "-I", "-c", code, *modules], capture_output=True, text=True,
                             check=True, cwd=ROOT).stdout.split()  # (-I: not the checkout's modules)
    assert [Path(o).suffix for o in origins] == [".so"] * len(modules), origins
    assert all(importlib.util.find_spec(m).origin.endswith(".py") for m in modules)


def _corpus() -> list[str]:
    paths = [str(ROOT / "golden"), str(ROOT / "examples")]
    for package in ("phiml", "phi", "equinox", "diffrax", "jax"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            paths.append(list(spec.submodule_search_locations)[0])
    return paths


def test_the_compiled_build_reports_what_the_checkout_reports():
    args = ["--check", "--no-cache", "--no-progress", "--output-format", "json", "--jobs", "2", *_corpus()]
    checkout, wheel = _run(CHECKOUT_BIN, *args), _run(WHEEL_BIN, *args)
    assert checkout.returncode == 1 and '"code": "PML201"' in checkout.stdout  # findings, of the rules that read traced values
    assert (wheel.returncode, wheel.stdout, wheel.stderr) == (checkout.returncode, checkout.stdout, checkout.stderr)


def test_the_compiled_build_writes_what_the_checkout_writes():
    args = ["--diff", "--unsafe-fixes", "--no-cache", "--no-progress", "--jobs", "2", str(ROOT / "golden"), str(ROOT / "examples")]
    checkout, wheel = _run(CHECKOUT_BIN, *args), _run(WHEEL_BIN, *args)
    assert checkout.returncode == 1 and "+++ " in checkout.stdout
    assert (wheel.returncode, wheel.stdout, wheel.stderr) == (checkout.returncode, checkout.stdout, checkout.stderr)
