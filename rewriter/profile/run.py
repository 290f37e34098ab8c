"""Run a program (or a pytest suite) with trace profiling, once per backend, and collect the records.

The program runs where it is, as the user would run it: the runtime package reaches it through a
`sitecustomize` on PYTHONPATH (as for `verify`), pins PhiML's backend and records traces; each
Python process of the command writes its records when it exits.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import runtime
from ..verify.session import available_backends, command_argvs
from ..verify.workspace import install_bootstrap

JIT_BACKENDS = ("jax", "torch", "tensorflow")  # numpy has no jit: nothing is ever traced there
OUTPUT_TAIL = 4000


class ProfileError(Exception):
    """Profiling could not start: the message says what to change."""


@dataclass
class BackendRun:
    """One run of the user's program on one backend under `profile`, and the records it left."""
    backend: str
    exit_code: int | None  # None: timed out
    seconds: float
    output: str  # the tail of what the program printed
    processes: list[dict] = field(default_factory=list)  # the records of each Python process

    @property
    def phiml(self) -> bool:
        return any(p.get("phiml_imported") for p in self.processes)


def backends_to_run(wanted: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """The backends to profile on (installed ones, in a fixed order) and the skipped ones with the reason."""
    installed = available_backends()
    chosen = [b for b in JIT_BACKENDS if not wanted or b in wanted]
    skipped = {b: "not installed" for b in chosen if not installed.get(b)}
    return [b for b in chosen if b not in skipped], skipped


def profile_runs(command: tuple[str, ...], pytest_args: str | None, backends: list[str], *, timeout: float,
                 echo: bool = False, on_done: Callable[[BackendRun], None] = lambda run: None) -> list[BackendRun]:
    """One run per backend. If the first run never imports PhiML the program is raw framework code,
    whose behaviour does not depend on PhiML's backend: the other runs are skipped."""
    if not command and not pytest_args:
        raise ProfileError("say what to run: phiml-rewrite profile -- python script.py, or --pytest TESTS")
    if command and pytest_args:
        raise ProfileError("give a command or --pytest, not both")
    try:
        argvs = command_argvs(tuple([" ".join(_quote(a) for a in command)]) if command else (), tuple(_split(pytest_args)))
    except ValueError as e:
        raise ProfileError(f"cannot split the command: {e}") from None
    root = Path(tempfile.mkdtemp(prefix="phiml-rewrite-profile-"))
    try:
        install_bootstrap(root / "bootstrap")
        runs = []
        for backend in backends:
            run = _run_one(root, backend, argvs[0], timeout, echo)
            runs.append(run)
            on_done(run)
            if not run.phiml and run.processes:
                break
        return runs
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _split(pytest_args: str | None) -> list[str]:
    import shlex

    return shlex.split(pytest_args) if pytest_args else []


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


def _run_one(root: Path, backend: str, argv: list[str], timeout: float, echo: bool) -> BackendRun:
    out_dir = root / f"run-{backend}"
    out_dir.mkdir()
    config = {"backend": backend, "eager": False, "instrument": {}, "out": str(out_dir), "profile": True,
              "root": os.getcwd()}
    (out_dir / "config.json").write_text(json.dumps(config))
    env = runtime.select_environment(backend, eager=False)
    env[runtime.CONFIG_ENV] = str(out_dir / "config.json")
    env["PYTHONPATH"] = os.pathsep.join([str(root / "bootstrap"), *filter(None, [env.get("PYTHONPATH")])])
    start = time.perf_counter()
    try:
        if echo:
            proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, timeout=timeout)
            exit_code, output = proc.returncode, ""
        else:
            proc = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
            exit_code, output = proc.returncode, proc.stdout.decode(errors="replace")[-OUTPUT_TAIL:]
    except subprocess.TimeoutExpired as e:
        exit_code, output = None, (e.stdout or b"").decode(errors="replace")[-OUTPUT_TAIL:] + f"\n[timed out after {timeout:.0f} s]"
    except OSError as e:
        exit_code, output = 127, f"cannot run {argv[0]}: {e}"
    run = BackendRun(backend, exit_code, time.perf_counter() - start, output)
    for path in sorted(out_dir.glob("profile-*.json")):
        run.processes.append(json.loads(path.read_text()))
    return run
