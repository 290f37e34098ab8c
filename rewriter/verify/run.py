"""Parent side of `child`: run programs on one backend in a fresh interpreter, return the records."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from .. import runtime


class HarnessError(RuntimeError):
    """The child itself failed (not the program under test): crashed, timed out, printed no result."""


@dataclass(frozen=True)
class Run:
    """One program run in a workspace: which tree, which entry point, eager or jitted."""
    label: str
    path: str
    entry: str
    eager: bool = False  # this run only: PhiML jit_compile calls the function, jax under disable_jit
    project: bool = False  # the program imports modules beside it (a multi-module project): its folder goes on sys.path


def run_backend(backend: str, framework: str, runs: list[Run], timeout: float = 600, eager: bool = False,
                convert_phiml: bool = True, optimize_jax: bool = True) -> dict:
    """`eager`: jit disabled (PhiML jit_compile, jax.jit, torch.jit, tf.function): the author's intent.
    `convert_phiml=False`: tensorflow's autograph leaves PhiML's own functions as they are (see child.py).
    `optimize_jax=False`: XLA compiles without most optimizations (`jax_disable_most_optimizations`):
    the same programs, rounded differently, compiled in less time."""
    with tempfile.TemporaryDirectory(prefix="phiml-rewrite-verify-") as tmp:
        spec_path, out_path = os.path.join(tmp, "spec.json"), os.path.join(tmp, "out.json")
        with open(spec_path, "w") as f:
            json.dump({"backend": backend, "framework": framework, "eager": eager, "convert_phiml": convert_phiml,
                       "runs": [r.__dict__ for r in runs]}, f)
        env = runtime.select_environment(backend if framework == "phiml" else None, eager)
        if not optimize_jax:
            env["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "rewriter.verify.child", spec_path, out_path],
                capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp,
            )
        except subprocess.TimeoutExpired:
            raise HarnessError(f"{backend}: timed out after {timeout:.0f} s") from None
        if not os.path.exists(out_path):
            raise HarnessError(f"{backend}: the child process failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        with open(out_path) as f:
            return json.load(f)
