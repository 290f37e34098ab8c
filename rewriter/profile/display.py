"""The profile on a terminal: the re-tracing functions, costliest first, with the reason and the cure."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .report import FunctionProfile, retracing
from .run import BackendRun


def render(runs: list[BackendRun], skipped: dict[str, str], functions: list[FunctionProfile], console: Console) -> None:
    ran = ", ".join(f"{r.backend} ({r.seconds:.1f} s{'' if r.exit_code == 0 else f', exit {r.exit_code}'})" for r in runs)
    console.print(f"[bold]phiml-rewrite profile[/bold]: ran on {ran or 'no backend'}"
                  + "".join(f"; skipped {b}: {why}" for b, why in skipped.items()))
    found = retracing(functions)
    if not found:
        console.print(f"no function re-traced ({len(functions)} traced function{'s' if len(functions) != 1 else ''}, "
                      "each traced once per backend)")
        return
    table = Table(show_lines=True, expand=False)
    for column, justify in (("function", "left"), ("calls", "right"), ("traces", "right"), ("tracing s", "right"),
                            ("cache", "right"), ("why", "left"), ("what to do", "left")):
        table.add_column(column, justify=justify, overflow="fold")
    for f in found:
        traces = f"{f.traces}" + (f" +{f.hidden_traces} backend" if f.hidden_traces else "")
        sites = ", ".join(list(f.trace_sites)[:2])
        table.add_row(
            Text.assemble((f.name, "bold"), f"\n{f.location}\n", (f"{f.kind} · {'/'.join(f.backends)}", "dim"),
                          (f"\ncalled at {sites}" if sites else "", "dim")),
            *((str(f.calls), traces, f"{f.trace_seconds:.2f}", str(f.max_cache)) if f.kind != "jax.jit"
              else ("-", traces, "-", "-")),  # jax's cache-miss records give neither calls, times nor cache sizes
            f.reason, Text(f.advice, style="green" if f.forget_fix else ""),
        )
    console.print(table)
    others = len(functions) - len(found)
    if others:
        console.print(f"[dim]{others} other traced function{'s' if others != 1 else ''}: traced once per backend[/dim]")
    for r in runs:
        if r.exit_code != 0:
            console.print(f"[yellow]{r.backend}: the program exited with {r.exit_code}; its output ended with:[/yellow]\n{r.output[-1500:]}")
