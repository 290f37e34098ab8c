"""`phiml-rewrite verify PATH` with neither --run nor --pytest: plan, draw and compare each changed function.

The trees are prepared as for a program's verify (`verify.command`): a mirror of the current
directory, rewritten under PATH (or replaced by --rewritten). Then every changed module-level
function of a PhiML or jax module is planned from the calls earlier runs recorded (`store`), the
calls in the files under PATH and its annotations, and run in a worker per backend: PhiML's
installed backends for PhiML code, jax for jax.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...config import Config
from ...findings import FileResult
from ...units import MODULE
from .. import command as _verify, session, workspace
from . import plan as _plan, store, testcases
from .report import UNSYNTHESIZABLE, Result, Synthesis
from .run import Job, run_all


@dataclass(frozen=True)
class Budget:
    """How much input synthesis may try: examples and seconds per function and backend, and the seed."""
    seed: int = 0
    max_examples: int = 100
    seconds: float = 20.0  # per function and backend


@dataclass
class Outcome:
    """What verification by synthesized inputs found, or why it could not run."""
    synthesis: Synthesis | None
    rewrite_results: list[FileResult]
    message: str = ""


def _framework(frameworks: set[str]) -> str | None:
    return "phiml" if "phiml" in frameworks else "jax" if frameworks & {"jax"} == {"jax"} and \
        not frameworks & {"torch", "tensorflow"} else None


def _backends(framework: str, wanted: tuple[str, ...] | None) -> tuple[list[str], dict[str, str]]:
    if framework != "phiml":  # jax code, or the tests of torch and tensorflow code (testcases.py)
        if wanted and framework not in wanted:
            return [], {framework: "not selected by --backend"}
        return ([framework], {}) if importlib.util.find_spec(framework) else ([], {framework: "not installed"})
    installed = session.available_backends()
    chosen = [b for b in session.PHIML_BACKENDS if (not wanted or b in wanted) and installed[b]]
    return chosen, {b: "not installed" for b in session.PHIML_BACKENDS if (not wanted or b in wanted) and not installed[b]}


def _sources(ws: workspace.Workspace, path: str, changed_rel: str) -> list[str]:
    """The original modules whose calls are read: the files under PATH (and the changed one)."""
    under = ws.original / Path(path).resolve().relative_to(ws.real_root)
    files = [under] if under.is_file() else sorted(under.rglob("*.py")) if under.is_dir() else []
    files = list(dict.fromkeys(files + [ws.original / changed_rel]))
    out = []
    for f in files:
        try:
            out.append(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def synthesize(options: _verify.Options, config: Config, budget: Budget,
               on_event: Callable[[str], None] = lambda message: None) -> Outcome:
    real_root = Path.cwd().resolve()
    if not Path(options.path).exists():
        raise _verify.VerifyError(f"{options.path}: no such file or directory")
    if not _verify._inside(Path(options.path), real_root):
        raise _verify.VerifyError(f"{options.path} is outside the current directory: run verify from the project that contains it")
    if options.rewritten and not Path(options.rewritten).exists():
        raise _verify.VerifyError(f"{options.rewritten}: no such file or directory")
    try:
        ws = workspace.create(real_root)
    except workspace.WorkspaceError as e:
        raise _verify.VerifyError(str(e)) from None
    try:
        results: list[FileResult] = []
        if options.rewritten:
            workspace.replace_rewritten(ws, Path(options.rewritten), Path(options.path))
        else:
            results = _verify._rewrite_into(ws, options, config)
        try:
            workspace.compare_trees(ws)
        except workspace.WorkspaceError as e:
            raise _verify.VerifyError(str(e)) from None
        if not ws.changed:
            return Outcome(None, results, "nothing to verify: the rewritten tree is identical to the original")
        synthesis = Synthesis(seed=budget.seed)
        inputs = store.Store(options.inputs_store) if options.inputs_store else None
        jobs: dict[str, list[Job]] = {}
        for changed in ws.changed:
            notebook = changed.rel.endswith(".ipynb")
            framework = None if notebook else _framework(changed.frameworks)
            source = (ws.original / changed.rel).read_text(encoding="utf-8")
            # the modules whose calls are read, once for every unit of the file
            sources = [] if notebook else _sources(ws, options.path, changed.rel)
            for unit in changed.program_level:  # no function to call: only the program runs it
                why = "module-level code: only the program runs it (verify with --run or --pytest)" \
                    if unit == MODULE else "a class body: only the program runs it (verify with --run or --pytest)"
                synthesis.results.append(Result(changed.rel, unit, "", UNSYNTHESIZABLE, reason=why))
            for unit in changed.units:
                recorded, stale = inputs.read(store.project_path(config.root, ws.real_root, changed.rel), unit, source) \
                    if inputs is not None and "." not in unit and not notebook else ([], False)
                planned = None if notebook else \
                    _plan.plan(source, unit, sources, recorded, stale)
                unit_framework = framework
                if framework is None and planned is not None and planned.test:  # a test runs as written, in any framework
                    unit_framework = next((f for f in ("jax", "torch", "tensorflow") if f in changed.frameworks), None)
                if unit_framework is None or planned is None:
                    why = "a notebook: synthesis runs modules only" if notebook else planned.reason \
                        if planned.reason in (testcases.ASYNC, testcases.WITH_PYTEST) else \
                        "synthesis covers PhiML and jax modules so far"
                    synthesis.results.append(Result(changed.rel, unit, "", UNSYNTHESIZABLE, reason=why))
                    continue
                if planned.reason:
                    synthesis.results.append(Result(changed.rel, unit, "", UNSYNTHESIZABLE, reason=planned.reason))
                    continue
                jobs.setdefault(unit_framework, []).append(Job(
                    f"{changed.rel}:{unit}", unit, str(ws.original / changed.rel), str(ws.rewritten / changed.rel),
                    str(ws.original), str(ws.rewritten), planned.to_dict()))
        for framework, framework_jobs in jobs.items():
            backends, skipped = _backends(framework, options.backends)
            synthesis.skipped.update(skipped)
            synthesis.backends += [b for b in backends if b not in synthesis.backends]
            on_event(f"{len(framework_jobs)} function{'s' if len(framework_jobs) != 1 else ''} on {', '.join(backends) or 'no backend'}")
            done = run_all(backends, framework, framework_jobs, budget.seed, budget.max_examples, budget.seconds,
                           options.jobs, on_done=lambda b: on_event(f"{b}: done"))
            for backend, per_job in done.items():
                for job in framework_jobs:
                    r = per_job[job.id]
                    rel = job.id.rsplit(":", 1)[0]
                    synthesis.results.append(Result.from_worker(rel, job.name, backend, r))
        order = {key: i for i, key in enumerate((c.rel, u) for c in ws.changed for u in c.program_level + c.units)}
        backend_order = {b: i for i, b in enumerate(synthesis.backends)}
        synthesis.results.sort(key=lambda r: (order.get(r.key, 0), backend_order.get(r.backend, -1)))
        return Outcome(synthesis, results)
    finally:
        if not options.keep:
            ws.cleanup()
        else:
            on_event(f"kept the trees in {ws.root}")
