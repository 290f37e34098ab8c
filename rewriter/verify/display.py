"""The verify report on a terminal: one table, functions down, backends across, before → after."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .report import (CUT_SHORT, CALLS_DIFFER, DIFFERS, EQUAL, FAILS, NOT_COMPARABLE, NOT_EXERCISED, UNSEEDED, Check, Verification,
                     describe)

STYLE = {EQUAL: "green", DIFFERS: "bold red", CALLS_DIFFER: "bold red", FAILS: "bold red",
         NOT_EXERCISED: "yellow", NOT_COMPARABLE: "yellow", UNSEEDED: "yellow"}
MARK = {EQUAL: "✓", DIFFERS: "✗", CALLS_DIFFER: "✗", FAILS: "✗", NOT_EXERCISED: "·", NOT_COMPARABLE: "·", UNSEEDED: "·"}


def _check(check: Check, original: bool = False) -> Text:
    # Before the rewrite a difference is the bug being fixed: shown, but not as the tool's failure.
    style = "magenta" if original and check.bad else STYLE[check.status]
    return Text(f"{MARK[check.status]} {describe(check)}", style=style)


def _cell(original: Check, rewritten: Check, eager: Check, replay: Check | None) -> Text:
    text = Text("before ") + _check(original, original=True) + Text("\nafter  ") + _check(rewritten)
    if eager.status not in (EQUAL, NOT_EXERCISED):
        text += Text("\neager  ") + _check(eager)
    if replay is not None and (replay.status != EQUAL or rewritten.status != EQUAL):
        text += Text("\nreplay ") + _check(replay)
    return text


def render(verification: Verification, console: Console) -> None:
    backends = [b.backend for b in verification.backends]
    console.print("[bold]phiml-rewrite verify[/bold]: each changed function, before and after the rewrite, "
                  "against the original's eager result")
    table = Table(show_lines=True, expand=False)
    table.add_column("changed", style="bold", no_wrap=True)
    for b in backends:
        table.add_column(b)
    for backend in verification.skipped:
        table.add_column(Text(backend, style="dim"))
    skipped_cells = [Text(f"skipped: {reason}", style="dim") for reason in verification.skipped.values()]
    rows: dict[tuple[str, str], dict[str, Text]] = {}
    for u in verification.units:
        rows.setdefault((u.file, u.unit), {})[u.backend] = _cell(u.original, u.rewritten, u.rewritten_eager, u.replay)
    idle = {key for key in rows if all(u.original.status == u.rewritten.status == NOT_EXERCISED and u.replay is None
                                       for u in verification.units if (u.file, u.unit) == key)}
    for (file, unit), cells in rows.items():
        if (file, unit) in idle:
            continue
        table.add_row(f"{unit}\n[dim]{file}[/dim]", *(cells.get(b, Text("-", style="dim")) for b in backends), *skipped_cells)
    by_backend = {b.backend: b for b in verification.backends}

    def program(b) -> Text:
        if b.problems:
            return Text("\n".join(b.problems), style="bold yellow")
        original = b.program.get("original_jit", "")
        after = "ok" if all(v == "ok" for k, v in b.program.items() if k.startswith("rewritten")) else \
            next(v for k, v in b.program.items() if k.startswith("rewritten") and v != "ok")
        return Text(f"before {original}\nafter  {after}", style="green" if after == "ok" else "bold red")

    table.add_row("program", *(program(by_backend[b]) for b in backends), *skipped_cells)
    if any(b.traces != (0, 0) for b in verification.backends):
        table.add_row("PhiML traces", *(Text(f"{by_backend[b].traces[0]} → {by_backend[b].traces[1]}") for b in backends), *skipped_cells)
    if any(b.compiles != (0, 0) for b in verification.backends):
        table.add_row("jax compiles", *(Text(f"{by_backend[b].compiles[0]} → {by_backend[b].compiles[1]}") for b in backends), *skipped_cells)
    if any(b.tf_traces != (0, 0) for b in verification.backends):
        table.add_row("tf traces", *(Text(f"{by_backend[b].tf_traces[0]} → {by_backend[b].tf_traces[1]}") for b in backends), *skipped_cells)
    if any(b.regressions or b.fixed_tests for b in verification.backends):
        def tests(b) -> Text:
            text = Text(f"{len(b.regressions)} pass before, fail after", style="bold red" if b.regressions else "green")
            for t in b.regressions[:5]:
                text += Text(f"\n  {t}", style="red")
            if b.fixed_tests:
                text += Text(f"\n{len(b.fixed_tests)} fixed", style="green")
            return text
        table.add_row("tests", *(tests(by_backend[b]) for b in backends), *skipped_cells)
    console.print(table)
    cut = verification.cut_short()
    if cut:
        console.print(f"[yellow]·[/yellow] {CUT_SHORT}, so what they would have shown is not known: {', '.join(cut)}")
    not_compared = verification.not_compared()
    if not_compared:
        console.print("[yellow]·[/yellow] not compared, so not verified:")
        for (file, unit), why in sorted(not_compared.items()):
            console.print(Text(f"    {unit} ({file}): {why}", style="yellow"))
    shown = set()
    for b in verification.backends:  # why the reference failed: the end of its output, once per distinct output
        failed = [run for label, run in b.runs.items() if label.endswith("original/eager") and run["exit_code"] not in (0, None)]
        for run in failed:
            tail = "\n".join(run["output"].strip().splitlines()[-8:])
            if tail not in shown:
                shown.add(tail)
                console.print(f"[bold yellow]the original, run eagerly on {b.backend}, fails:[/bold yellow]")
                console.print(Text(tail or "(no output)", style="dim"))
    for note in sorted({n for b in verification.backends for n in b.notes}):
        console.print(f"[yellow]·[/yellow] {note}")
    for change in verification.program_level:
        console.print(f"[yellow]·[/yellow] {change}: changed code outside functions, checked through the program's result only")
    console.print(_summary(verification))


def _summary(v: Verification) -> Text:
    ran = ", ".join(b.backend for b in v.backends) or "no backend"
    skipped = f" (skipped: {', '.join(v.skipped)})" if v.skipped else ""
    if v.exit_code == 1:
        bad = sorted({f"{u.unit} on {u.backend}" for u in v.units if u.bad} |
                     {f"the program on {b.backend}" for b in v.backends if b.bad})
        return Text(f"✗ the rewrite fails or differs from the original's eager result: {', '.join(bad)}", style="bold red")
    if v.exit_code == 2:
        return Text(f"! nothing could be verified on {ran}{skipped}", style="bold yellow")
    if v.exit_code == 3:  # never a ✓ over what was not compared
        n, cut = len(v.not_compared()), len(v.cut_short())
        missing = [f"{n} changed function{'s were' if n != 1 else ' was'} not compared" if n else "",
                   f"{cut} run{'s were' if cut != 1 else ' was'} {CUT_SHORT}" if cut else ""]
        return Text(f"· the rewrite agrees with the original's eager result where it was compared, on {ran}{skipped}; "
                    f"{' and '.join(m for m in missing if m)} (listed above)", style="bold yellow")
    broken = sorted({u.backend for u in v.units if u.original.bad} | {b.backend for b in v.backends if b.program.get("original_jit", "ok") != "ok"})
    text = Text(f"✓ the rewrite agrees with the original's eager result on {ran}{skipped}", style="bold green")
    if broken:
        text += Text(f"; the original (jitted) was wrong or failing on {', '.join(broken)}", style="magenta")
    return text
