"""Verdicts of verify-by-synthesis: per changed function and backend; the exit code."""
from __future__ import annotations

from dataclasses import dataclass, field

VERIFIED, FALSIFIED, UNSYNTHESIZABLE, ERROR = "verified", "falsified", "unsynthesizable", "error"


@dataclass(frozen=True)
class Result:
    file: str
    function: str
    backend: str
    status: str
    examples: int = 0  # inputs compared (verified)
    inputs: str = ""  # the shrunk counterexample (falsified)
    reason: str = ""  # how it differs (falsified), why nothing was compared (unsynthesizable, error)
    cut_short: bool = False  # the time budget ended the search before --max-examples
    beyond_calls: bool = False  # falsified only at sizes no call site passes (an empty or length-1 axis...)
    recorded: int = 0  # of the inputs compared, calls recorded by an earlier run (verified); 1: the counterexample is one (falsified)

    @property
    def key(self) -> tuple[str, str]:
        return self.file, self.function


@dataclass
class Synthesis:
    results: list[Result] = field(default_factory=list)  # per backend; backend "" when not synthesizable at all
    backends: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # backend -> why it did not run
    seed: int = 0

    def functions(self) -> list[tuple[str, str]]:
        return list(dict.fromkeys(r.key for r in self.results))

    @property
    def exit_code(self) -> int:
        """1: falsified somewhere; 0: every changed function verified on every backend that ran;
        3: some were not (not synthesizable, a budget cut the search short, a harness error); 2: none was."""
        statuses = [r.status for r in self.results]
        if FALSIFIED in statuses:
            return 1
        if VERIFIED not in statuses:
            return 2
        return 0 if all(s == VERIFIED for s in statuses) and not any(r.cut_short for r in self.results) else 3

    def verified_units(self) -> set[tuple[str, str]]:
        """(file, function) verified on every backend that ran, none cut short by the budget: the units
        whose unsafe fixes `--in-place` writes as proven."""
        by_key: dict[tuple[str, str], list[Result]] = {}
        for r in self.results:
            by_key.setdefault(r.key, []).append(r)
        return {key for key, rs in by_key.items()
                if all(r.status == VERIFIED and not r.cut_short for r in rs)}

    def falsified_units(self) -> set[tuple[str, str]]:
        """(file, function) falsified on some backend: no fix is written there."""
        return {r.key for r in self.results if r.status == FALSIFIED}

    def counts(self) -> dict[str, int]:
        """Functions by their worst verdict over the backends."""
        order = [FALSIFIED, ERROR, UNSYNTHESIZABLE, VERIFIED]
        worst: dict[tuple[str, str], str] = {}
        for r in self.results:
            current = worst.get(r.key)
            if current is None or order.index(r.status) < order.index(current):
                worst[r.key] = r.status
        return {s: sum(1 for v in worst.values() if v == s) for s in order}

    def to_dict(self) -> dict:
        return {"seed": self.seed, "backends": self.backends, "skipped": self.skipped, "exit_code": self.exit_code,
                "counts": self.counts(), "results": [r.__dict__ for r in self.results]}
