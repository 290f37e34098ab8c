"""The command line: argument handling and output only; the work happens in runner.py.

    phiml-rewrite [OPTIONS] [PATHS]...      findings + the diff of what would change (writes nothing)
    phiml-rewrite --in-place src/           write the fixes
    phiml-rewrite rules | explain PML201    what the rules are and why

Exit codes: 0 nothing left to report; 1 findings or pending changes (with --in-place: findings
left unfixed); 2 usage error, or some file could not be processed (all others still are).
"""
from __future__ import annotations

import json
import sys
from typing import Sequence

import click

from . import __version__, registry, runner
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


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--in-place", "in_place", is_flag=True, help="Write the fixes into the files.")
@click.option("--diff", "diff_only", is_flag=True, help="Print only the diff of what would change.")
@click.option("--check", "check_only", is_flag=True, help="Print findings only; exit 1 if anything would change.")
@click.option("--select", multiple=True, metavar="RULES", help="Rules to enable: codes, code prefixes or names (comma-separated or repeated).")
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to disable (wins over --select).")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply fixes that may change behaviour in edge cases.")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default="text", show_default=True, help="How findings are printed; json, github and sarif print no diff.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes (default: one per CPU).")
@click.option("--stdin-filename", metavar="NAME", help="Read the source from standard input as if it were NAME; the result goes to standard output, findings to standard error.")
@click.option("--exclude", multiple=True, metavar="PATTERN", help="Gitignore-style patterns to skip, replacing the default excludes.")
@click.option("--extend-exclude", multiple=True, metavar="PATTERN", help="Gitignore-style patterns to skip, in addition to the excludes.")
@click.option("--force-exclude", is_flag=True, help="Apply the excludes to files named explicitly too (for pre-commit).")
@click.option("--no-progress", is_flag=True, help="Never show a progress bar.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings and errors only: no summary, no progress bar.")
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
    force_exclude: bool,
    no_progress: bool,
    quiet: bool,
) -> None:
    """Report (and with --in-place, fix) jit problems in PATHS (default: the current directory)."""
    if in_place + diff_only + check_only > 1:
        raise click.UsageError("--in-place, --diff and --check are mutually exclusive")
    if stdin_filename is not None and paths:
        raise click.UsageError("--stdin-filename reads standard input: give no PATHS with it")
    try:
        config = load([stdin_filename] if stdin_filename is not None else list(paths)).override(
            select=_selectors(select, "--select"),
            ignore=_selectors(ignore, "--ignore"),
            exclude=exclude or None,
            extend_exclude=extend_exclude or None,
            unsafe_fixes=unsafe_fixes,
        )
    except ConfigError as e:
        raise ConfigFileError(str(e)) from None

    if stdin_filename is not None:
        ctx.exit(_check_stdin(stdin_filename, config, diff_only, check_only, output_format, force_exclude))

    report = runner.run(
        list(paths) or ["."],
        config,
        write=in_place,
        jobs=jobs,
        progress=not (no_progress or quiet),
        force_exclude=force_exclude,
    )
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
    source = click.get_binary_stream("stdin").read()
    write = not (diff_only or check_only)
    report = runner.run_stdin(source, name, config, write=write, force_exclude=force_exclude)
    result = report.results[0]
    if diff_only:
        _print_diffs(report.results)
    elif write:
        out = click.get_binary_stream("stdout")
        out.write(result.new_source if result.changed and not result.error else source)
        out.flush()
    click.echo(_format_findings(report, output_format), nl=False, err=True)
    if output_format == "text":  # machine formats on stderr must stay parseable; json carries errors
        _print_errors(report.results)
    return report.exit_code


# -- output -------------------------------------------------------------------------------------


def _remaining(results: Sequence[FileResult]) -> list[Finding]:
    return [f for r in results for f in sorted(r.remaining, key=lambda f: (f.span, f.code))]


def _format_findings(report: runner.Report, output_format: str) -> str:
    if output_format == "json":
        return format_json(report.results, report.summary.to_dict()) + "\n"
    if output_format == "sarif":
        return format_sarif(report.results, registry.all_codemods()) + "\n"
    fmt = format_github if output_format == "github" else format_text
    return "".join(fmt(f) + "\n" for f in _remaining(report.results))


def _print_errors(results: Sequence[FileResult]) -> None:
    for r in results:
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
def rules(output_format: str) -> None:
    """List every rule: code, name, fix safety and summary."""
    codemods = registry.all_codemods()
    if output_format == "json":
        rows = [
            {"code": c.CODE, "name": c.NAME, "safety": c.SAFETY.value, "severity": c.SEVERITY.value, "summary": c.SUMMARY}
            for c in codemods
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("code", "name", "safety", "summary", box=None, header_style="bold")
    for c in codemods:
        table.add_row(c.CODE, c.NAME, c.SAFETY.value, c.SUMMARY)
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


if __name__ == "__main__":
    main()
