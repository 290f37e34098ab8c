"""The synthesis report on a terminal: functions down, backends across (and the abstract proof, when one
was attempted), fitted to the console's width."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import abstract
from .report import ERROR, FALSIFIED, PROVEN, UNSYNTHESIZABLE, VERIFIED, Result, Synthesis
from .testcases import PASSES


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


def proof_cell(r: Result | None) -> Text:
    if r is None:
        return Text("-", style="dim")
    if r.proof_verdict == abstract.PROVEN:
        return Text(f"✓ {r.proof}", style="green")
    if r.proof_verdict == abstract.DISPROVEN:
        return Text(f"✗ {r.proof}", style="bold red")
    return Text(f"· {r.proof}", style="yellow")


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
        proofs = any(synthesis.proof(key) for key in by_key)
        if proofs:
            table.add_column("abstract proof", overflow="fold", ratio=1, max_width=max(20, console.width // 4))
        for (file, function), cells in by_key.items():
            row = [cell(cells[b]) if b in cells else Text("-", style="dim") for b in backends]
            if proofs:
                row.append(proof_cell(synthesis.proof((file, function))))
            table.add_row(f"{function}\n[dim]{file}[/dim]", *row)
        console.print(table)
    for r in unsynthesizable:
        console.print(Text(f"· {r.function} ({r.file}): not synthesizable: {r.reason}", style="yellow"))
    for backend, why in synthesis.skipped.items():
        console.print(Text(f"· {backend} skipped: {why}", style="dim"))
    counts = synthesis.counts()
    proven = f"{counts[PROVEN]} proven abstractly, " if counts[PROVEN] else ""
    summary = (f"{counts[VERIFIED]} verified, {proven}{counts[FALSIFIED]} falsified, "
               f"{counts[UNSYNTHESIZABLE] + counts[ERROR]} not synthesizable or not checked")
    style = {1: "bold red", 0: "bold green"}.get(synthesis.exit_code, "bold yellow")
    mark = {1: "✗", 0: "✓"}.get(synthesis.exit_code, "·")
    console.print(Text(f"{mark} {summary} (changed functions, over {', '.join(backends) or 'no backend'})", style=style))
