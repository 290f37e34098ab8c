"""What verify says while it runs: one line per backend and tree, or one printed line per finished run.

A run is a part of a line: `eager` and `jit` of a tree, `replay` (the rewritten functions on the
recorded inputs, shown on the rewritten tree's line), the reference's `repeat`. Lines know their
parts in advance, so a line stops its clock when its last part ends.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import Progress as RichProgress
from rich.progress import ProgressColumn, SpinnerColumn, TextColumn
from rich.text import Text


PARTS = ("eager", "jit", "replay", "eager repeat", "replay again")  # the order on a line


class Progress:
    """The silent base: `verify` calls these from its worker threads."""

    def plan(self, lines: dict[tuple[str, str], list[str]]) -> None:
        """(backend, tree) -> the parts expected on that line."""

    def start(self, backend: str, tree: str, part: str) -> None:
        pass

    def finish(self, backend: str, tree: str, part: str, state: str, seconds: float) -> None:
        """`state`: "ok", "exit 1", "cut short after 900 s", "12 calls"..."""

    def note(self, message: str) -> None:
        pass

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        pass


class Lines(Progress):
    """A line per finished run and per note: for logs and terminals that are not interactive."""

    def __init__(self, say) -> None:
        self.say = say

    def finish(self, backend: str, tree: str, part: str, state: str, seconds: float) -> None:
        self.say(f"{backend}/{tree}/{part}: {state} ({seconds:.1f} s)")

    def note(self, message: str) -> None:
        self.say(message)


@dataclass
class _Line:
    """One line of the progress display: its parts, which run and how each ended."""
    parts: list[str]
    started: float | None = None
    ended: float | None = None
    running: dict[str, float] = field(default_factory=dict)  # part -> start time
    states: dict[str, str] = field(default_factory=dict)  # part -> final state

    def elapsed(self) -> float:
        if self.started is None:
            return 0.0
        return (self.ended or time.perf_counter()) - self.started

    def text(self) -> Text:
        out = Text()
        for i, part in enumerate(self.parts):
            if i:
                out.append(" · ", style="dim")
            if part in self.states:
                state = self.states[part]
                good = state.split()[0] in ("ok", "done") or " calls" in state
                out.append(f"{part} {state}", style="green" if good else "bold yellow")
            elif part in self.running:
                out.append(f"{part} {time.perf_counter() - self.running[part]:.0f} s", style="cyan")
            else:
                out.append(f"{part} waiting", style="dim")
        return out


class _Elapsed(ProgressColumn):
    def render(self, task) -> Text:
        return Text(f"{task.fields['line'].elapsed():6.1f} s", style="dim")


class _State(ProgressColumn):
    def render(self, task) -> Text:
        return task.fields["line"].text()


class Live(Progress):
    """rich's live display on a terminal: a line per backend and tree, with its elapsed time."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = RichProgress(SpinnerColumn(finished_text="[green]✓[/green]"), TextColumn("{task.description}"),
                                     _Elapsed(), _State(), console=console, transient=False, refresh_per_second=4)
        self.lines: dict[tuple[str, str], _Line] = {}
        self.tasks: dict[tuple[str, str], int] = {}
        self.lock = threading.RLock()  # plan() is also called with it held

    def plan(self, lines: dict[tuple[str, str], list[str]]) -> None:
        width = max((len(f"{b} {t}") for b, t in lines), default=0)
        with self.lock:
            for (backend, tree), parts in lines.items():
                line = self.lines.setdefault((backend, tree), _Line(list(parts)))
                for part in parts:
                    if part not in line.parts:
                        line.parts.append(part)
                line.parts.sort(key=lambda p: PARTS.index(p) if p in PARTS else len(PARTS))
                if (backend, tree) not in self.tasks:
                    self.tasks[(backend, tree)] = self.progress.add_task(f"{backend} {tree}".ljust(width), total=1, line=line)

    def start(self, backend: str, tree: str, part: str) -> None:
        with self.lock:
            line = self._line(backend, tree, part)
            now = time.perf_counter()
            if line.started is None or line.ended is not None:
                line.started = line.started if line.started is not None else now
                line.ended = None
                self.progress.reset(self.tasks[(backend, tree)], total=1, completed=0, line=line)
            line.running[part] = now

    def finish(self, backend: str, tree: str, part: str, state: str, seconds: float) -> None:
        with self.lock:
            line = self._line(backend, tree, part)
            line.running.pop(part, None)
            line.states[part] = f"{state} {seconds:.1f} s" if seconds else state
            if all(p in line.states for p in line.parts):
                line.ended = time.perf_counter()
                self.progress.update(self.tasks[(backend, tree)], completed=1)

    def note(self, message: str) -> None:
        self.progress.console.print(Text(message, style="dim"))

    def _line(self, backend: str, tree: str, part: str) -> _Line:
        if (backend, tree) not in self.lines:
            self.plan({(backend, tree): [part]})
        line = self.lines[(backend, tree)]
        if part not in line.parts:
            line.parts.append(part)
        return line

    def __enter__(self) -> Live:
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()
