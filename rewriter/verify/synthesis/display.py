"""The synthesis report on a terminal: functions down, backends across, fitted to the console's width."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .testcases import PASSES
from .report import ERROR, FALSIFIED, UNSYNTHESIZABLE, VERIFIED, Result, Synthesis


def cell(r: Result) -> Text:
    if r.status == VERIFIED and r.reason == PASSES:  # a test run as written
        return Text(f"✓ verified: {r.reason}", style="green")
    if r.status == VERIFIED:
        cut = " (time budget reached)" if r.cut_short else ""
        recorded = f", {r.recorded} recorded" if r.recorded else ""
        how = f"; {r.reason}" if r.reason else ""
        return Text(f"✓ verified on {r.examples} input{'s' if r.examples != 1 else ''}{recorded}{cut}{how}",
                    style="yellow" if cut else "green")
    if r.status == FALSIFIED:
        where = " on a recorded call" if r.recorded else " at sizes no call passes" if r.beyond_calls else ""
        return Text(f"✗ falsified{where}: {r.inputs}\n", style="bold red") + Text(r.reason, style="red")
    return Text(f"· {'not synthesizable' if r.status == UNSYNTHESIZABLE else 'not checked'}: {r.reason}", style="yellow")


def render(synthesis: Synthesis, console: Console) -> None:
    console.print("[bold]phiml-rewrite verify[/bold]: each changed function on synthesized inputs, "
                  f"the rewrite (jitted) against the original (eager); seed {synthesis.seed}")
    backends = synthesis.backends
    by_key: dict[tuple[str, str], dict[str, Result]] = {}
    unsynthesizable: list[Result] = []
    for r in synthesis.results:
        if r.backend:
            by_key.setdefault(r.key, {})[r.backend] = r
        else:
            unsynthesizable.append(r)
    if by_key:
        table = Table(show_lines=True, expand=False)
        table.add_column("changed", style="bold", overflow="fold", ratio=1)
        for b in backends:
            table.add_column(b, overflow="fold", ratio=2)
        for (file, function), cells in by_key.items():
            table.add_row(f"{function}\n[dim]{file}[/dim]", *(cell(cells[b]) if b in cells else Text("-", style="dim")
                                                               for b in backends))
        console.print(table)
    for r in unsynthesizable:
        console.print(Text(f"· {r.function} ({r.file}): not synthesizable: {r.reason}", style="yellow"))
    for backend, why in synthesis.skipped.items():
        console.print(Text(f"· {backend} skipped: {why}", style="dim"))
    counts = synthesis.counts()
    summary = (f"{counts[VERIFIED]} verified, {counts[FALSIFIED]} falsified, "
               f"{counts[UNSYNTHESIZABLE] + counts[ERROR]} not synthesizable or not checked")
    style = {1: "bold red", 0: "bold green"}.get(synthesis.exit_code, "bold yellow")
    mark = {1: "✗", 0: "✓"}.get(synthesis.exit_code, "·")
    console.print(Text(f"{mark} {summary} (changed functions, over {', '.join(backends) or 'no backend'})", style=style))
