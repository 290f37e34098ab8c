"""Verdicts of verify-by-synthesis: per changed function and backend; the exit code.

How an abstract proof (`abstract`) and the drawn inputs combine, per function:
- falsified by a draw, or disproven abstractly: no unsafe fix is written (a counterexample or a
  shape/dtype difference outweighs any agreement);
- verified by the draws on every backend, none cut short: every unsafe fix is written, as before;
- otherwise proven abstractly (the draws cut short by the budget, inputs too large to build, an
  error of the harness), unless the original failed on every input drawn (its abstract success then
  says nothing about the values it accepts): the unsafe merges whose only doubt is shape, dtype or
  structure are written. Their branches agree, so `where` selects exactly the value the original
  computes on that branch; NaN or inf in the branch not selected stays out of the value, and
  the fixes whose untaken branch may fail or divide stay unsafe (`report(provable=)`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import abstract

VERIFIED, FALSIFIED, UNSYNTHESIZABLE, ERROR = "verified", "falsified", "unsynthesizable", "error"
PROVEN = "proven"  # a function's count when only the abstract proof vouches for it
ORIGINAL_FAILS = "the original fails on every input drawn"


@dataclass(frozen=True)
class Result:
    """Whether one function agreed with its rewrite on one backend over synthesized inputs."""
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
    proof: str = ""  # the abstract proof: "shapes agree on N signatures", or how they differ, or why none
    proof_verdict: str = ""  # abstract.PROVEN, DISPROVEN, INCONCLUSIVE; "" when none was attempted

    @property
    def key(self) -> tuple[str, str]:
        return self.file, self.function

    @classmethod
    def from_worker(cls, file: str, function: str, backend: str, r: dict) -> "Result":
        """The verdict a worker wrote for one function on one backend (`worker.check`, `testcases`)."""
        proof = r.get("proof") or {}
        return cls(file, function, backend, r["status"], r.get("examples", 0), r.get("inputs", ""), r.get("reason", ""),
                   bool(r.get("cut_short")), bool(r.get("beyond_calls")), r.get("recorded", 0),
                   proof.get("reason", ""), proof.get("verdict", ""))


@dataclass
class Synthesis:
    """Every result of verification by synthesized inputs, and the backends it skipped."""
    results: list[Result] = field(default_factory=list)  # per backend; backend "" when not synthesizable at all
    backends: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # backend -> why it did not run
    seed: int = 0

    def functions(self) -> list[tuple[str, str]]:
        return list(dict.fromkeys(r.key for r in self.results))

    @property
    def exit_code(self) -> int:
        """1: falsified (or disproven) somewhere; 0: every changed function verified on every backend that
        ran, or proven abstractly; 3: some were not (not synthesizable, a budget cut the search short, a
        harness error); 2: none was."""
        if self.falsified_units():
            return 1
        settled = self.verified_units() | self.proven_units()
        if not settled and VERIFIED not in [r.status for r in self.results]:
            return 2
        return 0 if all(key in settled for key in self.functions()) else 3

    def proof(self, key: tuple[str, str]) -> Result | None:
        """The result that carries the function's abstract proof, if one was attempted."""
        return next((r for r in self.results if r.key == key and r.proof_verdict), None)

    def proven_units(self) -> set[tuple[str, str]]:
        """(file, function) proven abstractly, neither falsified nor verified by the draws alone, and
        whose original accepted some drawn input: their provable unsafe merges are written (see above)."""
        out = set()
        for key in self.functions():
            proof = self.proof(key)
            rs = [r for r in self.results if r.key == key]
            if proof is not None and proof.proof_verdict == abstract.PROVEN and \
                    not any(r.status == FALSIFIED or r.reason.startswith(ORIGINAL_FAILS) for r in rs):
                out.add(key)
        return out - self.verified_units()

    def verified_units(self) -> set[tuple[str, str]]:
        """(file, function) verified on every backend that ran, none cut short by the budget: the units
        whose unsafe fixes `--in-place` writes as proven."""
        by_key: dict[tuple[str, str], list[Result]] = {}
        for r in self.results:
            by_key.setdefault(r.key, []).append(r)
        return {key for key, rs in by_key.items()
                if all(r.status == VERIFIED and not r.cut_short for r in rs)}

    def falsified_units(self) -> set[tuple[str, str]]:
        """(file, function) falsified on some backend, or disproven abstractly: no fix is written there."""
        return {r.key for r in self.results if r.status == FALSIFIED or r.proof_verdict == abstract.DISPROVEN}

    def counts(self) -> dict[str, int]:
        """Functions by their worst verdict over the backends; a disproof counts as falsified, a proof
        as proven where the draws did not verify the function."""
        order = [FALSIFIED, ERROR, UNSYNTHESIZABLE, VERIFIED]
        worst: dict[tuple[str, str], str] = {}
        for r in self.results:
            current = worst.get(r.key)
            if current is None or order.index(r.status) < order.index(current):
                worst[r.key] = r.status
        for key in self.falsified_units():
            worst[key] = FALSIFIED
        for key in self.proven_units():
            worst[key] = PROVEN
        return {s: sum(1 for v in worst.values() if v == s) for s in [*order, PROVEN]}

    def to_dict(self) -> dict:
        return {"seed": self.seed, "backends": self.backends, "skipped": self.skipped, "exit_code": self.exit_code,
                "counts": self.counts(), "results": [r.__dict__ for r in self.results]}
