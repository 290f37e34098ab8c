"""The command line: argument handling and output only; the work happens in runner.py.

    phiml-rewrite [OPTIONS] [PATHS]...      findings + the diff of what would change (writes nothing)
    phiml-rewrite --in-place src/           write the fixes
    phiml-rewrite rules | explain PML201    what the rules are and why

Exit codes: 0 nothing left to report; 1 findings or pending changes (with --in-place: findings
left unfixed); 2 usage error, or some file could not be processed (all others still are).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Sequence

import click

from . import __version__, registry, runner
from .cache import ResultCache
from .cache import default_directory as default_cache_directory
from .config import Config, ConfigError, load
from .findings import FileResult, Finding, format_github, format_json, format_sarif, format_text

OUTPUT_FORMATS = ("text", "json", "github", "sarif")


class DefaultGroup(click.Group):
    """A group that runs `default_command` when the first argument is not a subcommand name.

    So `phiml-rewrite src/` and `phiml-rewrite --check src/` work next to `phiml-rewrite rules`;
    a path that is spelled like a subcommand goes through the default command's own name:
    `phiml-rewrite check rules/`. New subcommands are added the usual way (`@main.command()`).
    """

    def __init__(self, *args, default_command: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.default_command = default_command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        own_options = {opt for p in self.get_params(ctx) for opt in (*p.opts, *p.secondary_opts)}
        if not args or (args[0] not in self.commands and args[0] not in own_options):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


@click.group(
    cls=DefaultGroup,
    default_command="check",
    epilog="Without a command, `check` runs: `phiml-rewrite [OPTIONS] PATHS...` (see `phiml-rewrite check --help`).",
)
@click.version_option(__version__, prog_name="phiml-rewrite")
def main() -> None:
    """Make PhiML, JAX, PyTorch and TensorFlow code correct and fast under jit."""


# -- check (the default command) ----------------------------------------------------------------


def _selectors(values: Sequence[str], option: str) -> tuple[str, ...] | None:
    """`--select A,B --select C` -> ("A", "B", "C"); unknown rules are a usage error."""
    if not values:
        return None
    out = tuple(s.strip() for v in values for s in v.split(",") if s.strip())
    try:
        registry.check_selectors(out)
    except registry.UnknownRule as e:
        raise click.BadParameter(str(e), param_hint=f"'{option}'") from None
    return out


class ConfigFileError(click.ClickException):
    exit_code = 2


def _check_interpreter(config) -> None:
    """`--python PATH` / `python = ...` must run: its packages are read from it (ConfigError if not)."""
    if config.python:
        from .project.targets import TargetError, interpreter_targets

        try:
            interpreter_targets(config.python)
        except TargetError as e:
            raise ConfigError(str(e)) from None


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--in-place", "in_place", is_flag=True, help="Write the fixes into the files.")
@click.option("--diff", "diff_only", is_flag=True, help="Print only the diff of what would change.")
@click.option("--check", "check_only", is_flag=True, help="Print findings only; exit 1 if anything would change.")
@click.option("--select", multiple=True, metavar="RULES", help="Rules to enable: codes, code prefixes or names (comma-separated or repeated).")
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to disable (wins over --select).")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply fixes that may change behaviour in edge cases.")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default="text", show_default=True, help="How findings are printed; json, github and sarif print no diff.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes to run in, this one among them (default: one per CPU).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="Where results are cached (default: .phiml-rewrite-cache/ at the project root; env PHIML_REWRITE_CACHE_DIR).")
@click.option("--stdin-filename", metavar="NAME", help="Read the source from standard input as if it were NAME; the result goes to standard output, findings to standard error.")
@click.option("--exclude", multiple=True, metavar="PATTERN", help="Gitignore-style patterns to skip, replacing the default excludes.")
@click.option("--extend-exclude", multiple=True, metavar="PATTERN", help="Gitignore-style patterns to skip, in addition to the excludes.")
@click.option("--extend-include", multiple=True, metavar="PATTERN", help="Gitignore-style patterns of more files to check, besides *.py, *.pyi and *.ipynb.")
@click.option("--force-exclude", is_flag=True, help="Apply the excludes to files named explicitly too (for pre-commit).")
@click.option("--no-progress", is_flag=True, help="Never show a progress bar.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings and errors only: no summary, no progress bar.")
@click.option("--verify", "verify_run", metavar="COMMAND", help="With --in-place: run COMMAND on every backend first (see `verify`); unsafe fixes are written only where it agrees. `auto`: call each changed function on synthesized inputs instead.")
@click.option("--target-version", "target_versions", multiple=True, metavar="LIBRARY=VERSION",
              help="The version of a library the project runs (e.g. phiflow=3.4), over what its files declare; repeatable.")
@click.option("--python", "python", metavar="PATH", help="The project's interpreter: the library versions installed for it are the project's.")
@click.pass_context
def check(
    ctx: click.Context,
    paths: tuple[str, ...],
    in_place: bool,
    diff_only: bool,
    check_only: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    unsafe_fixes: bool | None,
    output_format: str,
    jobs: int | None,
    stdin_filename: str | None,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    extend_include: tuple[str, ...],
    force_exclude: bool,
    no_progress: bool,
    quiet: bool,
    verify_run: str | None,
    no_cache: bool,
    cache_dir: str | None,
    target_versions: tuple[str, ...] = (),
    python: str | None = None,
) -> None:
    """Report (and with --in-place, fix) jit problems in PATHS (default: the current directory)."""
    if in_place + diff_only + check_only > 1:
        raise click.UsageError("--in-place, --diff and --check are mutually exclusive")
    if verify_run is not None:
        if not in_place or len(paths) != 1 or stdin_filename is not None:
            raise click.UsageError("--verify COMMAND goes with --in-place and one PATH")
        ctx.invoke(verify_command, path=paths[0], run_commands=() if verify_run == "auto" else (verify_run,),
                   select=select, ignore=ignore, in_place=True, jobs=jobs, no_cache=no_cache)
    if stdin_filename is not None and paths:
        raise click.UsageError("--stdin-filename reads standard input: give no PATHS with it")
    try:
        config = load([stdin_filename] if stdin_filename is not None else list(paths)).override(
            select=_selectors(select, "--select"),
            ignore=_selectors(ignore, "--ignore"),
            exclude=exclude or None,
            extend_exclude=extend_exclude or None,
            extend_include=extend_include or None,
            unsafe_fixes=unsafe_fixes,
            target_versions=target_versions,
            python=python,
        )
        _check_interpreter(config)
    except ConfigError as e:
        raise ConfigFileError(str(e)) from None

    if stdin_filename is not None:
        ctx.exit(_check_stdin(stdin_filename, config, diff_only, check_only, output_format, force_exclude))

    cache = None if no_cache else ResultCache.at(cache_dir or default_cache_directory(config.root))
    try:
        report = runner.run(
            list(paths) or ["."],
            config,
            write=in_place,
            jobs=jobs,
            progress=not (no_progress or quiet),
            force_exclude=force_exclude,
            cache=cache,
            # Only a diff shows the new code: --check and the machine formats need to know what would change, not how.
            rewrite=diff_only or (not check_only and output_format == "text"),
        )
    finally:
        if cache is not None:
            cache.close()
    if cache is not None and cache.broken and not quiet:
        click.echo(f"warning: {cache.broken}", err=True)
    _print_errors(report.results)
    if diff_only:
        _print_diffs(report.results)
    else:
        click.echo(_format_findings(report, output_format), nl=False)
        if not check_only and not in_place and output_format == "text":
            _print_diffs(report.results)
    if not quiet and (output_format == "text" or diff_only):
        if report.summary.files == 0 and not report.summary.errors:
            click.echo("warning: no Python files found", err=True)
        click.echo(str(report.summary), err=True)
    ctx.exit(report.exit_code)


def _check_stdin(name: str, config: Config, diff_only: bool, check_only: bool, output_format: str, force_exclude: bool) -> int:
    """For editors: the fixed buffer (or its diff) on stdout, findings on stderr."""
    source = sys.stdin.buffer.read()
    write = not (diff_only or check_only)
    report = runner.run_stdin(source, name, config, write=write, force_exclude=force_exclude, rewrite=diff_only)
    result = report.results[0]
    if diff_only:
        _print_diffs(report.results)
    elif write:
        out = sys.stdout.buffer
        out.write(result.new_source if result.changed and not result.error else source)
        out.flush()
    click.echo(_format_findings(report, output_format), nl=False, err=True)
    if output_format == "text":  # machine formats on stderr must stay parseable; json carries errors
        _print_errors(report.results)
    return report.exit_code


# -- output -------------------------------------------------------------------------------------


def _remaining(results: Sequence[FileResult]) -> list[Finding]:
    return [f for r in results for f in sorted(r.remaining, key=lambda f: (f.cell or 0, f.span, f.code))]


def _format_findings(report: runner.Report, output_format: str) -> str:
    if output_format == "json":
        return format_json(report.results, report.summary.to_dict()) + "\n"
    if output_format == "sarif":
        return format_sarif(report.results, registry.all_codemods()) + "\n"
    fmt = format_github if output_format == "github" else format_text
    return "".join(fmt(f) + "\n" for f in _remaining(report.results))


def _print_errors(results: Sequence[FileResult]) -> None:
    for r in results:
        for note in r.notes:
            click.echo(f"{r.path}: note: {note}", err=True)
        if r.error:
            reason = " ".join(r.error.splitlines())  # one line per file, whatever the message
            click.echo(f"{r.path}: error: {reason}", err=True)


def _print_diffs(results: Sequence[FileResult]) -> None:
    if not sys.stdout.isatty():
        for diff in runner.iter_diffs(results):
            click.echo(diff, nl=False)
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)
    styles = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))
    for diff in runner.iter_diffs(results):
        for line in diff.splitlines():
            style = next((s for prefix, s in styles if line.startswith(prefix)), "")
            console.print(Text(line, style=style))


# -- rules and explain --------------------------------------------------------------------------


@main.command("rules")
@click.option("--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--docs", "docs_dir", type=click.Path(file_okay=False), default=None,
              help="Write one Markdown page per rule, and their index, into this folder (docs/rules).")
def rules(output_format: str, docs_dir: str | None) -> None:
    """List every rule: code, name, fix safety and summary."""
    if docs_dir is not None:
        from . import rule_docs

        for name in rule_docs.write(Path(docs_dir)):
            click.echo(f"wrote {Path(docs_dir) / name}")
        return
    rules = registry.rule_index()  # no rule is imported to list them
    if output_format == "json":
        rows = [{"code": r.code, "name": r.name, "safety": r.safety, "severity": r.severity, "summary": r.summary}
                for r in rules]
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("code", "name", "safety", "summary", box=None, header_style="bold")
    for r in rules:
        table.add_row(r.code, r.name, r.safety, r.summary)
    # A pipe gets one line per rule (grep-able), a terminal gets wrapping at its width.
    console = Console() if sys.stdout.isatty() else Console(width=10_000, no_color=True)
    console.print(table)


@main.command("explain")
@click.argument("rule", metavar="CODE_OR_NAME")
def explain(rule: str) -> None:
    """Why a rule exists, when its fix is safe, and examples."""
    try:
        codemod = registry.by_code(rule)
    except registry.UnknownRule as e:
        raise click.BadParameter(str(e), param_hint="'CODE_OR_NAME'") from None
    text = codemod.explain()
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(text))
    else:
        click.echo(text, nl=False)


@main.command("explain-trace")
@click.argument("location", metavar="FILE:LINE")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain_trace_command(location: str, output_format: str) -> None:
    """Why each condition or trip count on a line is considered traced, static or unknown.

    In a notebook the line is a cell's: `phiml-rewrite explain-trace "nb.ipynb:cell 7:3"`."""
    from dataclasses import asdict, replace

    from .explain_trace import explain_trace
    from .project.world import World, file_package

    from . import notebooks

    path, _, line = location.rpartition(":")
    path, _, cell_part = path.rpartition(":cell ") if notebooks.is_notebook(path.rpartition(":cell ")[0]) else (path, "", "")
    if not path or not line.isdigit() or (cell_part and not cell_part.isdigit()):
        raise click.BadParameter("expected FILE:LINE (src/model.py:42), or NOTEBOOK:cell N:LINE (nb.ipynb:cell 7:3)",
                                 param_hint="'FILE:LINE'")
    try:
        raw = Path(path).read_bytes()
        source = None if notebooks.is_notebook(path) else raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise click.ClickException(f"{path}: cannot read: {e}") from None
    at, label, cell = int(line), None, int(cell_part) if cell_part else None
    if source is None:  # a notebook: its analysed cells as one module, the line is the cell's
        if cell is None:
            raise click.BadParameter("a notebook's line is in a cell: NOTEBOOK:cell N:LINE (nb.ipynb:cell 7:3)",
                                     param_hint="'FILE:LINE'")
        try:
            source, _ = notebooks.module_of(raw)
        except notebooks.NotebookError as e:
            raise click.ClickException(f"{path}: {e}") from None
        positions = notebooks.LineMap(source)
        at, label = positions.line_of(cell, int(line)), positions.label
        if at is None:
            raise click.ClickException(f"{path}: cell {cell} is not analysed (not a code cell, not Python, or it does not parse)")
    try:
        explanations, note = explain_trace(source, at, label, World(package=file_package(path)))
    except Exception as e:  # libcst's ParserSyntaxError and friends: name the file
        raise click.ClickException(f"{path}: cannot parse: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    if label is not None:  # back to the cell's own lines
        explanations = [replace(e, line=int(line)) for e in explanations]
        note = note.replace(f"line {at} ", f"cell {cell}, line {line} ") if note else note
    where = f"{path}:cell {cell}:" if cell is not None else f"{path}:"
    if output_format == "json":
        click.echo(json.dumps({"path": path, "cell": cell, "line": int(line), "explanations": [asdict(e) for e in explanations],
                               "note": note}, indent=2))
        return
    for e in explanations:
        click.echo(f"{where}{e.text()}")
    if note:
        click.echo(f"{path}: {note}")



# -- verify -------------------------------------------------------------------------------------

BACKENDS = ("numpy", "jax", "torch", "tensorflow")


@main.command("verify")
@click.argument("path", type=click.Path(path_type=str))
@click.option("--run", "run_commands", multiple=True, metavar="COMMAND", help="The program to run, as you would type it here: 'python train.py --steps 10' (repeatable: run in order).")
@click.option("--pytest", "pytest_args", metavar="TESTS", help="Run your pytest suite instead: 'tests/ -k solver'.")
@click.option("--rewritten", metavar="OTHER_PATH", type=click.Path(path_type=str), help="Compare PATH with this already rewritten version instead of rewriting it.")
@click.option("--backend", "backends", multiple=True, type=click.Choice(BACKENDS), help="PhiML backends to run on (repeatable; default: every installed one).")
@click.option("--in-place", "in_place", is_flag=True, help="Then write the fixes: unsafe ones only in functions verified on every backend that ran.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Verify the unsafe fixes too (implied by --in-place).")
@click.option("--select", multiple=True, metavar="RULES", help="Rules to enable.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to disable.")
@click.option("--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Runs at a time: backends, trees, eager and jitted, replays (default: one per CPU).")
@click.option("--timeout", type=click.FloatRange(min=1), default=900, show_default=True, help="Seconds per run; a run cut short is reported as such, never as passed.")
@click.option("--no-replay", is_flag=True, help="Do not call the rewritten functions on the recorded inputs.")
@click.option("--keep", is_flag=True, help="Keep the temporary trees and run logs (their directory is printed).")
@click.option("--seed", type=int, default=0, show_default=True, help="Without --run/--pytest: the seed of the synthesized inputs.")
@click.option("--max-examples", type=click.IntRange(min=1), default=100, show_default=True, help="Without --run/--pytest: inputs drawn per function and backend.")
@click.option("--budget", type=click.FloatRange(min=1), default=20, show_default=True, help="Without --run/--pytest: seconds per function and backend; what it cuts short is reported.")
@click.option("--no-cache", is_flag=True, help="Neither keep the inputs a run records nor read those kept before (stored next to the result cache).")
@click.pass_context
def verify_command(
    ctx: click.Context, path: str, run_commands: tuple[str, ...], pytest_args: str | None, rewritten: str | None,
    backends: tuple[str, ...], in_place: bool, unsafe_fixes: bool | None, select: tuple[str, ...], ignore: tuple[str, ...],
    output_format: str, jobs: int | None, timeout: float, no_replay: bool, keep: bool, seed: int = 0,
    max_examples: int = 100, budget: float = 20, no_cache: bool = False,
) -> None:
    """Run the original and the rewritten code on every backend, eager and jitted, and compare.

    With neither --run nor --pytest, each changed function is called on synthesized inputs instead
    (from the calls an earlier --run or --pytest recorded, its call sites, its annotations, and
    Hypothesis over the shapes and dtypes they give; see docs/verify.md): the original eagerly, the
    rewrite jitted, on every backend its framework runs on; changed tests run as written. On jax, the
    branches of each traced `if` are also evaluated abstractly (`jax.eval_shape`, any size) to prove
    or disprove that a merge keeps shapes and dtypes. Exit 0: all verified or proven; 1: one
    falsified or disproven (the shrunk counterexample, or how the shapes differ, is shown); 3: some
    could not be synthesized or were cut short by --budget; 2: none could.

    A notebook PATH (`verify nb.ipynb`) runs itself: the original and the rewritten notebook are
    executed top to bottom in a Jupyter kernel (nbclient + ipykernel), and the functions its cells
    define are recorded and compared as a script's are.

    The current directory is mirrored twice into a temporary directory; the files under PATH are
    rewritten in one mirror (or replaced by --rewritten). The command runs in both, once per
    backend, and the functions the rewrite changed are recorded and compared with the original's
    eager result; a function that returns functions is compared through what those return when the
    program calls them, and a changed test function under --pytest by its outcome. Runs go --jobs
    at a time, each cut short after --timeout seconds. Exit 0: every changed function agrees on
    every backend that ran; 1: the rewrite fails or differs somewhere; 2: nothing could be verified
    (the reference run fails, or a usage error); 3: it agrees wherever it was compared, but some
    changed function was not (never called, values that cannot be compared, unseeded random
    numbers) or a run was cut short: they are listed, and nothing is claimed for them.
    """
    import shlex

    from .verify import command, display
    from .verify.synthesis.store import default_directory as recorded_inputs_directory

    from .notebooks import is_notebook

    if not run_commands and not pytest_args and is_notebook(path):  # the notebook itself, top to bottom
        run_commands = (command.notebook_command(path),)
    if run_commands and pytest_args:
        raise click.UsageError("give one of --run COMMAND and --pytest TESTS (or neither: synthesized inputs)")
    synthesized = not run_commands and not pytest_args
    if in_place and rewritten:
        raise click.UsageError("--in-place writes phiml-rewrite's own fixes: it cannot be used with --rewritten")
    try:
        config = load([path]).override(select=_selectors(select, "--select"), ignore=_selectors(ignore, "--ignore"),
                                       unsafe_fixes=unsafe_fixes)
    except ConfigError as e:
        raise ConfigFileError(str(e)) from None
    options = command.Options(
        path=path, runs=run_commands, pytest_args=tuple(shlex.split(pytest_args or "")), rewritten=rewritten,
        backends=backends or None, unsafe_fixes=in_place or bool(config.unsafe_fixes),
        jobs=jobs or os.cpu_count() or 1, timeout=timeout, replay=not no_replay, keep=keep,
        inputs_store=None if no_cache else str(recorded_inputs_directory(config.root)),
    )
    if synthesized:
        from .verify.synthesis import command as synthesis, entry

        ctx.exit(entry.run(options, config, synthesis.Budget(seed, max_examples, budget), output_format, in_place))
    from rich.console import Console

    from .verify.progress import Lines, Live, Progress

    err = Console(stderr=True, highlight=False)
    show = output_format == "text"
    progress = (Live(err) if err.is_terminal else Lines(lambda m: err.print(f"[dim]{m}[/dim]"))) if show else Progress()
    try:
        with progress:
            outcome = command.verify(options, config, progress=progress)
    except command.VerifyError as e:
        click.echo(f"error: {e}", err=True)
        ctx.exit(2)
    _print_errors(outcome.rewrite_results)
    verification = outcome.verification
    written: list[FileResult] = []
    if verification is not None and in_place:
        written = command.apply_verified(options, config, verification)
    if output_format == "json":
        data = {"verification": verification.to_dict() if verification else None, "message": outcome.message,
                "workspace": outcome.workspace or None,
                "written": [{"path": r.path, "applied": r.applied_codes()} for r in written if r.changed],
                "remaining": [f.to_dict() for f in _remaining(written)]}
        click.echo(json.dumps(data, indent=2))
    else:
        console = Console(highlight=False) if sys.stdout.isatty() else Console(width=160, no_color=True, highlight=False)
        if verification is None:
            console.print(outcome.message)
        else:
            display.render(verification, console)
        for r in written:
            if r.changed:
                console.print(r.wrote())
        for finding in _remaining(written):  # unverified unsafe fixes, and what has no fix
            click.echo(format_text(finding))
        if outcome.workspace:
            console.print(f"kept the trees and run logs in {outcome.workspace}")
    code = verification.exit_code if verification is not None else 0
    if code == 0 and any(r.error for r in outcome.rewrite_results):
        code = 2  # a file could not be rewritten: it was not verified either
    ctx.exit(code)


@main.command("profile", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="-- COMMAND...")
@click.option("--pytest", "pytest_args", metavar="TESTS", help="Profile your pytest suite instead: 'tests/ -k solver'.")
@click.option("--backend", "backends", multiple=True, type=click.Choice(("jax", "torch", "tensorflow")),
              help="PhiML backends to run on (repeatable; default: every installed one). Raw jax/tensorflow code runs once.")
@click.option("--fix", "fix", is_flag=True, help="Add `forget_traces=True` where a PhiML jit function kept tracing keys it never reused.")
@click.option("--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--json", "json_path", metavar="FILE", type=click.Path(dir_okay=False, path_type=str), help="Also write the profile as JSON to FILE.")
@click.option("--timeout", type=click.FloatRange(min=1), default=900, show_default=True, help="Seconds per run.")
@click.option("--show-output", is_flag=True, help="Let the program print to this terminal (default: shown only if it fails).")
@click.pass_context
def profile_command(ctx: click.Context, command: tuple[str, ...], pytest_args: str | None, backends: tuple[str, ...],
                    fix: bool, output_format: str, json_path: str | None, timeout: float, show_output: bool) -> None:
    """Run a program and report every jit-compiled or custom-gradient function that re-traces.

    `phiml-rewrite profile nb.ipynb` runs a notebook top to bottom in a Jupyter kernel instead; its
    functions are named by cell (`nb.ipynb:cell 3:2`), and --fix writes into the notebook's cells.

    `phiml-rewrite profile -- python train.py --steps 10` runs the program once per installed PhiML
    backend (jax, torch, tensorflow) and counts, per function of the program, calls, traces, the
    reason of each re-trace (PhiML's keys, jax's cache-miss explanations, tensorflow's signatures),
    the time spent in calls that traced, and the call sites. Exit 0: nothing re-traced; 1: some
    function re-traced; 2: the program could not be run on any backend, or a usage error.
    """
    from rich.console import Console

    from .profile import display, fix as profile_fix, report, run

    if command and command[0] == "--":
        command = command[1:]
    from .notebooks import is_notebook
    from .verify.workspace import NOTEBOOK_RUNNER

    if len(command) == 1 and is_notebook(command[0]):  # a notebook runs itself, in a Jupyter kernel
        command = ("python", "-m", NOTEBOOK_RUNNER, command[0])
    chosen, skipped = run.backends_to_run(backends)
    if not chosen:
        click.echo(f"error: none of the backends {', '.join(backends or run.JIT_BACKENDS)} is installed", err=True)
        ctx.exit(2)
    err = Console(stderr=True, highlight=False)
    show = output_format == "text"
    try:
        runs = run.profile_runs(command, pytest_args, chosen, timeout=timeout, echo=show_output,
                                on_done=lambda r: err.print(f"[dim]{r.backend}: exit {r.exit_code} ({r.seconds:.1f} s)[/dim]") if show else None)
    except run.ProfileError as e:
        click.echo(f"error: {e}", err=True)
        ctx.exit(2)
    functions = report.merge(runs)
    label = " ".join(command) if command else f"pytest {pytest_args}"
    data = report.to_json(label, runs, skipped, functions)
    written: list[FileResult] = []
    if fix:
        try:
            config = load(["."])
        except ConfigError as e:
            raise ConfigFileError(str(e)) from None
        written = profile_fix.apply(functions, config, os.getcwd())
        data["written"] = [{"path": r.path, "applied": r.applied_codes(), "error": r.error}
                           for r in written if r.changed or r.error]
    if json_path:
        Path(json_path).write_text(json.dumps(data, indent=2))
    if output_format == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        console = Console(highlight=False) if sys.stdout.isatty() else Console(width=160, no_color=True, highlight=False)
        display.render(runs, skipped, functions, console)
        for r in written:
            if r.error:
                console.print(f"{r.path}: {r.error}")
            elif r.changed:
                console.print(f"{r.wrote()} (forget_traces=True)")
    if not any(r.exit_code == 0 for r in runs):
        ctx.exit(2)
    ctx.exit(1 if report.retracing(functions) else 0)


@main.command("lsp")
@click.option("--tcp", "tcp_port", type=click.IntRange(1, 65535), metavar="PORT", help="Listen on a TCP port instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on with --tcp.")
def lsp_command(tcp_port: int | None, host: str) -> None:
    """Language server for editors: diagnostics as you type, quick fixes, fix-all (stdio by default)."""
    try:
        from .lsp.server import start
    except ImportError as e:  # pygls is a dependency; a broken install says what is missing
        raise click.ClickException(f"the language server needs pygls: {e}") from None
    start(tcp_port, host)


if __name__ == "__main__":
    main()
