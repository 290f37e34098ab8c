"""The CLI's side of verify-by-synthesis: run it, print the table (or JSON), return the exit code."""
from __future__ import annotations

import json
import os
import sys

import click
from rich.console import Console

from ...config import Config
from .. import command as _verify
from . import display
from .apply import apply_proven, summary
from .command import Budget, synthesize


def console() -> Console:
    """The terminal's width; piped, the COLUMNS asked for or a width that keeps each verdict on a few lines."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(width=int(os.environ.get("COLUMNS", "120")), no_color=True, highlight=False)


def run(options: _verify.Options, config: Config, budget: Budget, output_format: str, in_place: bool = False) -> int:
    """Synthesize, show the verdicts; with `in_place`, then write the fixes the verdicts allow (apply.py)."""
    err = Console(stderr=True, highlight=False)
    show = output_format == "text"
    try:
        outcome = synthesize(options, config, budget, on_event=(lambda m: err.print(f"[dim]{m}[/dim]")) if show else
                             (lambda m: None))
    except _verify.VerifyError as e:
        click.echo(f"error: {e}", err=True)
        return 2
    errors = [r for r in outcome.rewrite_results if r.error]
    for r in errors:
        click.echo(f"{r.path}: error: {r.error}", err=True)
    synthesis = outcome.synthesis
    written, counts = apply_proven(options, config, synthesis) if in_place and synthesis is not None else ([], {})
    if output_format == "json":
        data = {"synthesis": synthesis.to_dict() if synthesis else None, "message": outcome.message}
        if in_place:
            data["written"] = [{"path": r.path, "applied": r.applied_codes()} for r in written if r.changed]
            data["unsafe_fixes"] = counts
        click.echo(json.dumps(data, indent=2))
    elif synthesis is None:
        click.echo(outcome.message)
    else:
        out = console()
        display.render(synthesis, out)
        for r in written:
            if r.changed:
                out.print(r.wrote(), soft_wrap=True)
        if in_place:  # one line whatever the width: scripts read it
            out.print(summary(counts), soft_wrap=True)
    code = synthesis.exit_code if synthesis is not None else 0
    return 2 if code == 0 and errors else code
