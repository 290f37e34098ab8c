"""`phiml-rewrite verify`: rewrite (or take a rewritten tree), run both versions everywhere, judge.

The steps: mirror the current directory twice; rewrite the files under PATH in one mirror (or copy
the `--rewritten` tree there); find the units that differ; run the command (or the pytest suite)
per backend, original and rewritten, eager and jitted, recording those units; replay the recorded
inputs on the rewritten units; compare everything with the original's eager result; where a rewrite
disagrees, run that reference (and, if need be, replay) again, to tell a wrong rewrite from unseeded
random numbers. The recorded inputs are also kept for a later verify without a program
(`synthesis.recorded`).
"""
from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import files as _files
from .. import runner
from ..config import Config
from ..engine import Settings
from ..findings import FileResult
from . import report, session, workspace
from .synthesis import recorded, store
from .progress import Lines, Progress


@dataclass(frozen=True)
class Options:
    """What `verify` was asked to do: the path, the programs and tests to run, the backends."""
    path: str
    runs: tuple[str, ...] = ()  # commands, run in order in each run
    pytest_args: tuple[str, ...] = ()
    rewritten: str | None = None  # compare mode: an existing rewritten tree for PATH
    backends: tuple[str, ...] | None = None
    unsafe_fixes: bool = False
    jobs: int = 2
    timeout: float = 900.0
    replay: bool = True
    keep: bool = False  # keep the temporary trees (their path is printed)
    inputs_store: str | None = None  # where recorded inputs are kept for synthesis (None: neither read nor written)


@dataclass
class Outcome:
    """What `verify` found, or why nothing was verified."""
    verification: report.Verification | None
    rewrite_results: list[FileResult] = field(default_factory=list)
    workspace: str = ""  # kept trees, with --keep
    message: str = ""  # why nothing was verified


def notebook_command(path: str) -> str:
    """The command that runs a notebook in each tree: its cells in a Jupyter kernel (notebook_runner.py)."""
    import shlex

    return f"python -m {workspace.NOTEBOOK_RUNNER} {shlex.quote(path)}"


class VerifyError(Exception):
    """Verification could not start: the reason names what to change."""


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except ValueError:
        return False


def _state(result: session.RunResult) -> str:
    if result.exit_code is None:
        return "cut short by --timeout"
    return "ok" if result.ok else f"exit {result.exit_code}"


def _tree(spec: session.RunSpec) -> str:
    return spec.version


def _part(spec: session.RunSpec) -> str:
    return ("eager" if spec.eager else "jit") + (" repeat" if spec.repeat else "")


def _reporting(progress: Progress) -> dict:
    """`run_all`'s callbacks, telling `progress` about each run."""
    return {"on_start": lambda spec: progress.start(spec.backend, _tree(spec), _part(spec)),
            "on_done": lambda r: progress.finish(r.spec.backend, _tree(r.spec), _part(r.spec), _state(r), r.seconds)}


def _replay(ws: workspace.Workspace, run: session.RunResult, options: Options, progress: Progress,
            again: bool = False) -> tuple[dict, str]:
    part = "replay again" if again else "replay"
    progress.start(run.spec.backend, "rewritten", part)
    start = time.perf_counter()
    replayed, problem = session.replay(ws, run, Path("."), options.timeout, again=again)
    state = problem or (f"{sum(len(v) for v in replayed.values())} calls" if not again else "done")
    progress.finish(run.spec.backend, "rewritten", part, state, time.perf_counter() - start)
    return replayed, problem


def _rewrite_into(ws: workspace.Workspace, options: Options, config: Config) -> list[FileResult]:
    """The rewriter's output for the files under PATH, written into the rewritten mirror only."""
    found = _files.discover([options.path], exclude=config.exclude, extend_exclude=config.extend_exclude, base=config.root,
                             extend_include=config.extend_include)
    unsafe = options.unsafe_fixes or config.unsafe_fixes
    index = runner.project_index(config, found.files) if found.files else None
    world = runner.world_reader(config, index)

    def settings(path: str) -> Settings:
        return Settings(codemods=config.codemods_for(path), unsafe_fixes=unsafe, project=runner.project_facts(index, path),
                        world=world(path, config.project_root))

    results = runner.process_files(found.files, settings)
    for result in results:
        if result.new_source is not None and not result.error:
            rel = Path(os.path.abspath(result.path)).resolve().relative_to(ws.real_root)
            (ws.rewritten / rel).write_bytes(result.new_source)
    return results + [FileResult(path=p, error=reason) for p, reason in found.errors]


def verify(options: Options, config: Config, on_event: Callable[[str], None] = lambda message: None,
           progress: Progress | None = None) -> Outcome:
    """`progress` is told about every run (default: a line per finished run, through `on_event`)."""
    progress = progress or Lines(on_event)
    real_root = Path.cwd().resolve()
    if not Path(options.path).exists():
        raise VerifyError(f"{options.path}: no such file or directory")
    if not _inside(Path(options.path), real_root):
        raise VerifyError(f"{options.path} is outside the current directory: run verify from the project that contains it")
    if options.rewritten and not Path(options.rewritten).exists():
        raise VerifyError(f"{options.rewritten}: no such file or directory")
    if not options.runs and not options.pytest_args:
        raise VerifyError("say what to run: --run 'python script.py' or --pytest TESTS")
    try:
        argvs = session.command_argvs(options.runs, options.pytest_args)
    except ValueError as e:  # shlex: unbalanced quotes
        raise VerifyError(f"cannot split the command: {e}") from None
    try:
        ws = workspace.create(real_root)
    except workspace.WorkspaceError as e:
        raise VerifyError(str(e)) from None
    try:
        results: list[FileResult] = []
        if options.rewritten:
            workspace.replace_rewritten(ws, Path(options.rewritten), Path(options.path))
        else:
            results = _rewrite_into(ws, options, config)
        try:
            workspace.compare_trees(ws)
        except workspace.WorkspaceError as e:
            raise VerifyError(str(e)) from None
        if not ws.changed:
            return Outcome(None, results, message="nothing to verify: the rewritten tree is identical to the original")
        specs, skipped = session.plan(ws, options.backends)
        specs = session.ordered(specs)
        progress.note(f"{len(specs)} runs on {', '.join(sorted({s.backend for s in specs})) or 'no backend'}, "
                      f"{options.jobs} at a time")
        lines: dict[tuple[str, str], list[str]] = {}
        for spec in specs:
            lines.setdefault((spec.backend, _tree(spec)), []).append(_part(spec))
        for spec in specs:
            if options.replay and spec.records_inputs:
                lines[(spec.backend, "rewritten")].append("replay")
        progress.plan(lines)
        replays: dict[str, dict] = {}
        kept: list[tuple[int, str]] = []
        keeping = recorded.preferred([s.backend for s in specs if s.records_inputs]) if options.inputs_store else None
        with session.Jobs(options.jobs) as jobs:
            reporting = _reporting(progress)

            def done(result: session.RunResult) -> None:  # replay starts as soon as its inputs are recorded
                reporting["on_done"](result)
                if result.spec.records_inputs and result.spec.backend == keeping:
                    jobs.submit(lambda: kept.append(_keep_inputs(ws, result, options, config)))
                if options.replay and result.spec.records_inputs:
                    if result.ok:
                        jobs.submit(lambda: replays.__setitem__(result.spec.backend, _replay(ws, result, options, progress)[0]))
                    else:
                        progress.finish(result.spec.backend, "rewritten", "replay", "no inputs: the reference failed", 0.0)

            runs = session.run_all(ws, specs, argvs, Path("."), timeout=options.timeout, jobs=jobs,
                                   on_start=reporting["on_start"], on_done=done)
        if kept and kept[0][1]:
            progress.note(kept[0][1])
        changed = [(c.rel, c.units) for c in ws.changed]
        program_level = [f"{c.rel}:{u}" for c in ws.changed for u in c.program_level]
        judge = functools.partial(report.verdicts, runs, changed, skipped, program_level, replays)
        verification = judge()
        repeats = _repeat_references(ws, runs, verification, argvs, options, progress)
        if repeats:
            verification = judge(repeats)
            replays_again = _replay_again(ws, runs, verification, options, progress)
            if replays_again:
                verification = judge(repeats, replays_again)
        return Outcome(verification, results, workspace=str(ws.root) if options.keep else "")
    finally:
        if not options.keep:
            ws.cleanup()


def _keep_inputs(ws: workspace.Workspace, run: session.RunResult, options: Options, config: Config) -> tuple[int, str]:
    """The inputs `run` recorded, into the store synthesis reads: (functions kept, problem). The store
    failing is no failure of the verification."""
    try:
        return recorded.save(run.calls, ws.original, store.Store(options.inputs_store),
                             run.spec.backend if run.spec.phiml else None, min(options.timeout, 300.0),
                             key=lambda rel: store.project_path(config.root, ws.real_root, rel))
    except Exception as e:
        return 0, f"recorded inputs not kept: {type(e).__name__}: {e}"


def _repeat_references(ws: workspace.Workspace, runs: list[session.RunResult], verification: report.Verification,
                       argvs: list[list[str]], options: Options, progress: Progress) -> dict[str, session.RunResult]:
    """Where a rewrite disagrees, the reference once more: does the original reproduce itself?
    (backend of the reference -> its repeat; see `report` on unseeded random numbers)."""
    specs = report.references_to_repeat(runs, verification)
    if not specs:
        return {}
    progress.note(f"{len(specs)} reference runs repeated, to tell differences from unseeded random numbers")
    progress.plan({(s.backend, _tree(s)): [_part(s)] for s in specs})
    repeated = session.run_all(ws, specs, argvs, Path("."), timeout=options.timeout, jobs=options.jobs,
                               **_reporting(progress))
    return {r.spec.backend: r for r in repeated}


def _replay_again(ws: workspace.Workspace, runs: list[session.RunResult], verification: report.Verification,
                  options: Options, progress: Progress) -> dict[str, dict]:
    """Where a replayed call differs from a reference that does not reproduce itself, replay once
    more: a rewrite giving other numbers from the same inputs and generator states draws unseeded
    ones; one that reproduces itself really differs (the randomness came in with its inputs)."""
    backends = report.replays_to_repeat(verification)
    wanted = [run for run in runs if run.spec.backend in backends and run.spec.records_inputs and run.ok]
    if not wanted:
        return {}
    progress.plan({(run.spec.backend, "rewritten"): ["replay again"] for run in wanted})
    out = {}
    with session.Jobs(options.jobs) as jobs:
        futures = {run.spec.backend: jobs.submit(_replay, ws, run, options, progress, True) for run in wanted}
        jobs.wait()
    for backend, future in futures.items():
        replayed, problem = future.result()
        if not problem:
            out[backend] = replayed
    return out


def apply_verified(options: Options, config: Config, verification: report.Verification) -> list[FileResult]:
    """`--in-place --verify`: every safe fix, and the unsafe ones in units verified on every backend
    that ran; no fix in a unit whose rewrite was seen to fail or differ."""
    return apply_units(options, config, verification.verified_units(),
                       {(u.file, u.unit) for u in verification.units if u.bad})


def apply_units(options: Options, config: Config, verified: set[tuple[str, str]],
                bad: set[tuple[str, str]], proven: set[tuple[str, str]] = frozenset()) -> list[FileResult]:
    """Write every safe fix and the unsafe ones in the `verified` (file, unit)s; none in the `bad` ones;
    in the `proven` ones, the unsafe fixes an abstract proof of shapes and dtypes settles (`report(provable=)`).
    Files are named relative to the current directory, as verify's workspace names them."""
    found = _files.discover([options.path], exclude=config.exclude, extend_exclude=config.extend_exclude, base=config.root,
                             extend_include=config.extend_include)
    root = Path.cwd().resolve()
    index = runner.project_index(config, found.files) if found.files else None  # the same facts as the rewrite verified
    world = runner.world_reader(config, index)

    def settings(path: str) -> Settings:
        rel = str(Path(os.path.abspath(path)).resolve().relative_to(root))
        return Settings(
            codemods=config.codemods_for(path),
            unsafe_fixes=True,
            unsafe_units=frozenset(unit for file, unit in verified if file == rel),
            withheld_units=frozenset(unit for file, unit in bad if file == rel),
            proven_units=frozenset(unit for file, unit in proven if file == rel),
            project=runner.project_facts(index, path),
            world=world(path, config.project_root),
        )

    results = runner.process_files(found.files, settings)
    for result in results:
        runner.write_result(result)
    return runner.conclude(results + [FileResult(path=p, error=r) for p, r in found.errors], written=True).results
