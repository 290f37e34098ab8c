"""From run records to verdicts: per unit and backend, the original and the rewrite against the reference.

The reference on a backend is the original run eagerly on that backend (jit disabled): what its
author meant. PhiML code whose eager run fails on a backend falls back to the eager numpy run.

Randomness. Every run starts from the same seeds and replay restores each call's generator states
(`runtime.generators`), so a function drawing from the global generators is compared like any
other. Numbers drawn from a source no seed reaches (`np.random.default_rng()`, `os.urandom`, a
generator seeded from the clock) differ from run to run, and a comparison with them means nothing.
Such a function is told apart by running the reference once more, the same way
(`references_to_repeat`): where the original disagrees with itself, a difference is reported as
"draws unseeded random numbers", never as "differs". Replay gets that verdict only if a second
replay, from the same inputs and generator states, disagrees with the first (`replays_to_repeat`):
when the randomness came in with the inputs, replay is still a fair check.

Why run again rather than catch draws from unseeded sources: they cannot all be caught (numpy's
entropy and SystemRandom's `os.urandom` are read in C or bound at import; a framework's kernels draw
in C++), a caught draw need not change the result, and a second run observes exactly what matters:
the same program from the same seeds giving other numbers. It costs one run (and one replay), made
only on backends where a rewrite would otherwise be reported as differing. Nondeterminism that is
not a draw (the clock, thread timing) gets the same verdict: no seed pins it either.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .session import RunResult, RunSpec
from .values import compare

ONLY_FUNCTIONS = "returns a function"  # every call returned functions only: nothing else to compare
CUT_SHORT = "cut short by --timeout"  # a run killed at the timeout proves nothing either way
RETURNED = "/returned"  # the calls of the functions a unit returns: "m.py:f/returned" (runtime.recording)

# Check statuses, worst last: what "the rewrite disagrees" means is `BAD`.
EQUAL, NOT_EXERCISED, NOT_COMPARABLE, UNSEEDED, DIFFERS, CALLS_DIFFER, FAILS = (
    "equal", "not exercised", "not comparable", "draws unseeded random numbers", "differs", "calls differ", "fails")
ORDER = (EQUAL, NOT_EXERCISED, NOT_COMPARABLE, UNSEEDED, DIFFERS, CALLS_DIFFER, FAILS)
BAD = (DIFFERS, CALLS_DIFFER, FAILS)
DISAGREES = (DIFFERS, CALLS_DIFFER)  # what unseeded randomness alone can cause


@dataclass
class Check:
    """One comparison of calls recorded in two runs: agree, differ or fail, and by how much."""
    status: str
    detail: str = ""
    max_abs: float = 0.0
    max_rel: float = 0.0
    calls: int = 0  # calls compared
    as_before: bool = False  # fails exactly as the original does (the rewrite did not cause it)
    functions: bool = False  # returns functions: compared through their calls (`with_returned`)
    outcome: bool = False  # a test function, judged by its pytest outcome (`calls`: tests)

    @property
    def bad(self) -> bool:
        return self.status in BAD

    def to_dict(self) -> dict:
        return {"status": self.status, "detail": self.detail, "max_abs": self.max_abs, "max_rel": self.max_rel,
                "calls": self.calls, "as_before": self.as_before, "returns_functions": self.functions,
                "by_outcome": self.outcome}


def compare_calls(reference: list[dict] | None, actual: list[dict] | None, ref_count: int, count: int,
                  traced: int = 0) -> Check:
    """Call i of the version against call i of the reference, for the recorded calls.

    `traced`: calls made while being traced, by either run. Under jit a function called from traced
    code (a jitted caller, `lax.scan`) runs once per trace with symbolic values: its calls cannot be
    lined up with the eager run's, and only replay can check it. A call returning a function counts
    as compared only for the data beside it (`Check.functions`: its calls decide, `with_returned`);
    one returning a generator or an object without a value is not comparable.
    """
    reference, actual = reference or [], actual or []
    if not reference and not actual and not ref_count and not count:
        if traced:
            return Check(NOT_COMPARABLE, f"only called while being traced ({traced} times)")
        return Check(NOT_EXERCISED, "never called")
    if traced and ref_count != count:
        return Check(NOT_COMPARABLE, f"called {count} times with values and {traced} times while being traced; "
                                     f"the reference {ref_count} times")
    by_index = {c["index"]: c for c in actual}
    worst = Check(NOT_COMPARABLE, "values are symbolic or not recordable")
    compared = 0
    uncomparable = ""
    functions = False
    for ref in reference:  # in call order: the first failure or difference is the one to report
        got = by_index.get(ref["index"])
        if got is None:
            break
        if "error" in got and "error" not in ref:
            return Check(FAILS, got["error"], calls=compared)
        if "error" in ref:
            if "error" in got and got["error"].split(":")[0] == ref["error"].split(":")[0]:
                compared += 1
                continue
            return Check(DIFFERS, f"the reference raises {ref['error']}", calls=compared)
        if "value" not in ref or "value" not in got:
            continue
        verdict = compare(ref["value"], got["value"])
        functions = functions or bool(verdict.functions)
        if verdict.uncomparable:
            uncomparable = uncomparable or verdict.uncomparable
            continue
        if not verdict.equal:
            return Check(DIFFERS, verdict.reason, verdict.max_abs, verdict.max_rel, compared + 1)
        if verdict.data:
            compared += 1
        worst.max_abs, worst.max_rel = max(worst.max_abs, verdict.max_abs), max(worst.max_rel, verdict.max_rel)
    if ref_count != count:
        return Check(CALLS_DIFFER, f"called {count} times, the reference {ref_count} times", calls=compared)
    if uncomparable:
        return Check(NOT_COMPARABLE, uncomparable, calls=compared, functions=functions)
    if compared:
        return Check(EQUAL, "", worst.max_abs, worst.max_rel, compared, functions=functions)
    if functions:
        return Check(NOT_COMPARABLE, ONLY_FUNCTIONS, functions=True)
    return worst


def with_returned(own: Check, returned: list[Check]) -> Check:
    """A unit that returns functions, judged with what they returned when the program called them."""
    if not own.functions or own.bad or own.status == UNSEEDED:
        return own
    called = [c for c in returned if c.status != NOT_EXERCISED]
    if not called:
        if own.status == NOT_COMPARABLE and own.detail != ONLY_FUNCTIONS:
            return own
        return Check(NOT_COMPARABLE, "returns a function that the program never calls", calls=own.calls, functions=True)
    parts = [] if own.status == NOT_COMPARABLE and own.detail == ONLY_FUNCTIONS else [own]
    worst = _combine(parts + called)
    worst = replace(worst, functions=True)
    if worst.status == EQUAL:
        worst.detail = f"through {sum(c.calls for c in called)} calls of the functions it returns"
    return worst


@dataclass
class UnitVerdict:
    """What verify concluded of one changed unit on one backend, from its checks against the reference."""
    file: str
    unit: str
    backend: str
    original: Check  # the original under jit against the reference: the bug the rewrite is for
    rewritten: Check  # the rewrite under jit
    rewritten_eager: Check
    replay: Check | None = None  # the rewrite called on the reference's recorded inputs
    unpinned: bool = False  # the reference, run once more, disagreed with itself here

    @property
    def bad(self) -> bool:
        return any(c is not None and c.bad for c in (self.rewritten, self.rewritten_eager, self.replay))

    @property
    def verified(self) -> bool:
        """Equal somewhere and bad nowhere; never with unseeded draws, whose agreement proves nothing."""
        checks = [c for c in (self.rewritten, self.rewritten_eager, self.replay) if c is not None]
        return not self.bad and all(c.status != UNSEEDED for c in checks) and any(c.status == EQUAL for c in checks)

    def to_dict(self) -> dict:
        return {"file": self.file, "unit": self.unit, "backend": self.backend, "original": self.original.to_dict(),
                "rewritten": self.rewritten.to_dict(), "rewritten_eager": self.rewritten_eager.to_dict(),
                "replay": self.replay.to_dict() if self.replay else None, "verified": self.verified}


@dataclass
class BackendVerdict:
    """How the whole program ran on one backend: each run's exit, its traces and compiles."""
    backend: str
    reference: str  # which run is the reference
    runs: dict[str, dict]  # label -> {"exit_code", "seconds", "output"}
    program: dict[str, str]  # original_jit / rewritten_jit / rewritten_eager -> ok | "fails (exit 1)"
    traces: tuple[int, int]  # PhiML traces, original -> rewritten, jitted runs
    compiles: tuple[int, int]  # jax compiles of the program's functions
    tf_traces: tuple[int, int] = (0, 0)  # tf.function traces of the program's functions
    regressions: list[str] = field(default_factory=list)  # tests passing before, failing after
    fixed_tests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # cannot verify: reference fails, leaked imports
    notes: list[str] = field(default_factory=list)
    by_function: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # kind -> function -> [before, after]

    @property
    def bad(self) -> bool:
        return bool(self.regressions) or any(v.startswith("fails") for k, v in self.program.items() if k.startswith("rewritten"))

    def to_dict(self) -> dict:
        return {"backend": self.backend, "reference": self.reference, "program": self.program,
                "phiml_traces": list(self.traces), "jax_compiles": list(self.compiles), "tf_traces": list(self.tf_traces),
                "test_regressions": self.regressions, "tests_fixed": self.fixed_tests, "problems": self.problems,
                "notes": self.notes, "by_function": self.by_function,
                "runs": self.runs}


@dataclass
class Verification:
    """Everything `verify` concluded: per unit, per backend, and what it could not check."""
    units: list[UnitVerdict]
    backends: list[BackendVerdict]
    skipped: dict[str, str]  # backend -> why it did not run
    program_level: list[str]  # changed code that no unit records (classes, loose module code)
    files: list[str]

    @property
    def exit_code(self) -> int:
        """1: the rewrite fails or disagrees somewhere; 2: nothing could be verified; 3: it agrees
        wherever it was compared, but some changed function was not compared (`not_compared`);
        0: every changed function agrees on every backend that ran."""
        if any(u.bad for u in self.units) or any(b.bad for b in self.backends):
            return 1
        if not self.backends or any(b.problems for b in self.backends):
            return 2
        if self.not_compared() or self.cut_short():
            return 3
        return 0

    def cut_short(self) -> list[str]:
        """The runs the timeout killed (labels): what they would have shown is unknown."""
        return [label for b in self.backends for label, run in b.runs.items() if run["exit_code"] is None]

    def not_compared(self) -> dict[tuple[str, str], str]:
        """(file, unit) -> why it was not compared on some backend that ran: never called, only called
        while traced, values that cannot be compared, unseeded random numbers. Its agreement elsewhere
        proves nothing there, so no verdict may claim it."""
        out: dict[tuple[str, str], str] = {}
        by_unit: dict[tuple[str, str], list[UnitVerdict]] = {}
        for u in self.units:
            by_unit.setdefault((u.file, u.unit), []).append(u)
        for key, verdicts in by_unit.items():
            missing = [v for v in verdicts if not v.verified and not v.bad]
            if not missing:
                continue
            reasons: dict[str, list[str]] = {}
            for v in missing:
                reasons.setdefault(_why_not(v), []).append(v.backend)
            ran = {v.backend for v in verdicts}
            out[key] = "; ".join(reason + ("" if set(backends) == ran else f" (on {', '.join(backends)})")
                                 for reason, backends in reasons.items())
        return out

    def verified_units(self) -> set[tuple[str, str]]:
        """(file, unit) equal to the reference on every backend that ran."""
        by_unit: dict[tuple[str, str], list[UnitVerdict]] = {}
        for u in self.units:
            by_unit.setdefault((u.file, u.unit), []).append(u)
        clean = not any(b.bad or b.problems for b in self.backends)
        return {key for key, vs in by_unit.items() if clean and vs and all(v.verified for v in vs)}

    def to_dict(self) -> dict:
        return {"exit_code": self.exit_code, "files": self.files, "skipped_backends": self.skipped,
                "program_level_changes": self.program_level,
                "not_compared": [{"file": f, "unit": u, "why": why} for (f, u), why in sorted(self.not_compared().items())],
                "cut_short": self.cut_short(),
                "backends": [b.to_dict() for b in self.backends], "units": [u.to_dict() for u in self.units]}


def _why_not(v: UnitVerdict) -> str:
    """The reason a unit verdict verified nothing, from its most telling check."""
    checks = [c for c in (v.rewritten, v.rewritten_eager, v.replay) if c is not None]
    for status in (UNSEEDED, NOT_COMPARABLE, NOT_EXERCISED):
        check = next((c for c in checks if c.status == status), None)
        if check is None:
            continue
        if status == NOT_EXERCISED:
            return "not called by the command" if check.detail in ("never called", "did not run") else check.detail
        return f"{status}: {check.detail}" if check.detail else status
    return "not compared"


def all_runs_of(reference: RunResult | None, runs: dict) -> list[RunResult]:
    return [r for r in (reference, *runs.values()) if r is not None]


def _per_function(before: RunResult | None, after: RunResult | None, kind: str) -> dict[str, list[int]]:
    counts = [getattr(r, kind) if r else {} for r in (before, after)]
    return {name: [counts[0].get(name, 0), counts[1].get(name, 0)] for name in sorted({*counts[0], *counts[1]})}


def _program(result: RunResult | None) -> str:
    if result is None:
        return "did not run"
    if result.exit_code is None:
        return CUT_SHORT
    return "ok" if result.ok else f"fails (exit {result.exit_code})"


def _calls(result: RunResult | None, key: str) -> tuple[list[dict], int, int]:
    if result is None:
        return [], 0, 0
    return result.calls.get(key, []), result.counts.get(key, 0), result.traced.get(key, 0)


def _keys(results: list[RunResult], unit: str) -> list[str]:
    """The record keys of a unit: the unit itself, or `test::unit` per test in test mode, in the
    order the runs first met them (so the first failure reported is the first that happened)."""
    keys = {k: None for r in results for k in (*r.counts, *r.traced, *r.calls) if k == unit or k.endswith("::" + unit)}
    return list(keys) or [unit]


def _combine(checks: list[Check]) -> Check:
    """Many keys (tests) of one unit: the worst check, with calls summed over the equal ones."""
    present = [c for c in checks if c.status != NOT_EXERCISED] or checks
    worst = max(present, key=lambda c: ORDER.index(c.status))
    if worst.status == EQUAL:
        return Check(EQUAL, "", max(c.max_abs for c in present), max(c.max_rel for c in present), sum(c.calls for c in present))
    return worst


def _by_spec(results: list[RunResult]) -> dict[tuple[str, str, bool], RunResult]:
    return {(r.spec.backend, r.spec.version, r.spec.eager): r for r in results if not r.spec.repeat}


def _reference(by_spec: dict[tuple[str, str, bool], RunResult], backend: str) -> tuple[RunResult | None, str]:
    """The run a backend's results are held to, and how the report names it."""
    own = by_spec.get((backend, "original", True))
    numpy_reference = by_spec.get(("numpy", "original", True))
    if own is not None and not own.ok and numpy_reference is not None and numpy_reference.ok and own.spec.phiml:
        return numpy_reference, f"original on numpy (the eager run on {backend} fails)"
    return own, f"original, eager, on {backend}"


def references_to_repeat(results: list[RunResult], verification: Verification) -> list[RunSpec]:
    """The reference runs to make once more: those of backends where a rewrite disagrees, which
    unseeded randomness in the original alone could explain (see the module's docstring)."""
    by_spec = _by_spec(results)
    backends = {u.backend for u in verification.units
                if any(c is not None and c.status in DISAGREES for c in (u.rewritten, u.rewritten_eager, u.replay))}
    specs = {}
    for backend in sorted(backends):
        reference, _ = _reference(by_spec, backend)
        if reference is not None and reference.ok:
            specs[replace(reference.spec, repeat=True)] = None
    return list(specs)


def replays_to_repeat(verification: Verification) -> set[str]:
    """Backends to replay once more: a replayed call differs from a reference that does not
    reproduce itself, and only a second replay can tell whether the rewrite draws unseeded numbers."""
    return {u.backend for u in verification.units if u.unpinned and u.replay is not None and u.replay.status in DISAGREES}


def _self_disagreement(reference: RunResult, repeat: RunResult | None, key: str) -> Check | None:
    """How the repeated reference disagrees with the reference on `key` (None: it agrees, or was not
    run to the end: a repeat cut short by a timeout proves nothing about randomness)."""
    if repeat is None or not repeat.ok:
        return None
    ref_calls, ref_count, ref_traced = _calls(reference, key)
    calls, count, traced = _calls(repeat, key)
    check = compare_calls(ref_calls, calls, ref_count, count, ref_traced + traced)
    return check if check.bad else None


def _unseeded(check: Check, self_disagreement: Check | None) -> Check:
    """A disagreement with a reference that does not reproduce itself proves nothing: say why."""
    if self_disagreement is None or check.status not in DISAGREES:
        return check
    return Check(UNSEEDED, f"the original, run twice from the same seeds, disagrees with itself: "
                           f"{describe(self_disagreement)} ({self_disagreement.detail})", check.max_abs, check.max_rel, check.calls)


def verdicts(
    results: list[RunResult], changed: list[tuple[str, list[str]]], skipped: dict[str, str],
    program_level: list[str], replays: dict[str, dict[str, list[dict]]] | None = None,
    repeats: dict[str, RunResult] | None = None, replays_again: dict[str, dict[str, list[dict]]] | None = None,
) -> Verification:
    """`changed`: (file, units) pairs; `replays`: backend -> key -> replayed calls of the rewrite;
    `repeats`: backend of a reference -> that reference run once more (`references_to_repeat`);
    `replays_again`: like `replays`, a second time (`replays_to_repeat`)."""
    by_spec = _by_spec(results)
    backends = sorted({r.spec.backend for r in results}, key=lambda b: ("numpy", "jax", "torch", "tensorflow").index(b)
                      if b in ("numpy", "jax", "torch", "tensorflow") else 9)
    unit_verdicts: list[UnitVerdict] = []
    backend_verdicts: list[BackendVerdict] = []
    for backend in backends:
        own = by_spec.get((backend, "original", True))
        reference, ref_label = _reference(by_spec, backend)
        repeat = (repeats or {}).get(reference.spec.backend) if reference is not None else None
        problems = []
        if reference is None or not reference.ok:
            problems.append(f"the original, run eagerly, {_program(reference)}: nothing to compare with on {backend}")
        runs = {k: by_spec.get((backend, *k)) for k in (("original", False), ("rewritten", False), ("rewritten", True))}
        original_jit, rewritten_jit, rewritten_eager = runs.values()
        for r in (reference, *runs.values()):
            if r is not None and r.leaked:
                problems.append(f"{r.spec.label} imported files from the real tree, not the copy: {', '.join(r.leaked[:3])}")
        requested = sorted({b for r in all_runs_of(reference, runs) for b in r.backend_requests})
        notes = [f"the program selects {', '.join(requested)} itself: each column ran on its own backend instead"] if requested else []
        regressions, fixed = [], []
        for before, after in ((own, rewritten_eager), (original_jit, rewritten_jit)):
            if before is None or after is None:
                continue
            for test, outcome in after.tests.items():
                was = before.tests.get(test)
                if was == "passed" and outcome != "passed" and test not in regressions:
                    regressions.append(test)
                if was == "failed" and outcome == "passed" and test not in fixed and after is rewritten_jit:
                    fixed.append(test)
        traces = tuple(sum((r.phiml_traces if r else {}).values()) for r in (original_jit, rewritten_jit))
        compiles = tuple(sum((r.jax_compiles if r else {}).values()) for r in (original_jit, rewritten_jit))
        tf_traces = tuple(sum((r.tf_traces if r else {}).values()) for r in (original_jit, rewritten_jit))
        by_function = {kind: _per_function(original_jit, rewritten_jit, kind) for kind in ("phiml_traces", "jax_compiles", "tf_traces")}
        program = {"original_jit": _program(original_jit), "rewritten_jit": _program(rewritten_jit),
                   "rewritten_eager": _program(rewritten_eager)}
        if program["rewritten_jit"].startswith("fails") and program["original_jit"] == program["rewritten_jit"]:
            program["rewritten_jit"] += ", as before"
        if reference is not None and not reference.ok:
            program = {k: v for k, v in program.items() if k == "original_jit"}  # nothing to hold the rewrite to
        all_runs = [r for r in (own, *runs.values(), repeat) if r is not None]
        backend_verdicts.append(BackendVerdict(
            backend, ref_label,
            {r.spec.label: {"exit_code": r.exit_code, "seconds": round(r.seconds, 2), "output": r.output} for r in all_runs},
            program, traces, compiles, tf_traces, sorted(regressions), sorted(fixed), problems, notes, by_function,
        ))
        if problems and (reference is None or not reference.ok):
            continue
        for file, units in changed:
            for unit in units:
                tests = _tests_of([reference, *all_runs], f"{file}:{unit}")
                if tests:  # a test function: its outcome is what it returns
                    found, unpinned_keys = _outcome_checks(tests, reference, runs), 0
                else:
                    found, unpinned_keys = _unit_checks(f"{file}:{unit}", backend, reference, repeat, runs, all_runs,
                                                        replays, replays_again)
                none = Check(NOT_EXERCISED, "did not run")
                verdict = UnitVerdict(
                    file, unit, backend, found["original"] or none, found["rewritten"] or none, found["eager"] or none,
                    found["replay"], unpinned=bool(unpinned_keys),
                )
                if verdict.rewritten.status == verdict.original.status == FAILS and \
                        verdict.rewritten.detail.split(":")[0] == verdict.original.detail.split(":")[0]:
                    verdict.rewritten.as_before = True  # still a failure: nothing was verified
                unit_verdicts.append(verdict)
    files = sorted({f for f, _ in changed})
    return Verification(unit_verdicts, backend_verdicts, skipped, program_level, files)


def _unit_checks(name: str, backend: str, reference: RunResult | None, repeat: RunResult | None,
                 runs: dict[tuple[str, bool], RunResult | None], all_runs: list[RunResult],
                 replays: dict | None, replays_again: dict | None) -> tuple[dict[str, Check | None], int]:
    """A unit's checks (original / rewritten / eager / replay, None where nothing ran), over its keys
    (one per test in test mode), with the functions it returns (`RETURNED` keys) judged as part of it;
    and how many of its keys the reference, run again, disagreed with itself on."""
    original_jit, rewritten_jit, rewritten_eager = (runs[k] for k in (("original", False), ("rewritten", False), ("rewritten", True)))
    checks: dict[str, list[Check]] = {"original": [], "rewritten": [], "eager": [], "replay": []}
    unpinned_keys = 0
    for key in _keys(all_runs, name):
        ref_calls, ref_count, ref_traced = _calls(reference, key)
        unpinned = _self_disagreement(reference, repeat, key)
        unpinned_keys += unpinned is not None
        for label, run in (("original", original_jit), ("rewritten", rewritten_jit), ("eager", rewritten_eager)):
            calls, count, traced = _calls(run, key)
            if run is None:
                continue
            if run.exit_code is None:
                checks[label].append(Check(NOT_COMPARABLE, f"its run was {CUT_SHORT}"))
                continue
            checks[label].append(_unseeded(compare_calls(ref_calls, calls, ref_count, count, ref_traced + traced), unpinned))
        replayed = (replays or {}).get(backend, {}).get(key)
        if replayed is not None:
            by_index = {c["index"]: c for c in ref_calls}
            wanted = [by_index[c["index"]] for c in replayed if c["index"] in by_index]
            again = (replays_again or {}).get(backend, {}).get(key)
            draws = again is not None and compare_calls(replayed, again, len(replayed), len(again)).bad
            checks["replay"].append(_unseeded(compare_calls(wanted, replayed, len(wanted), len(replayed)),
                                              unpinned if draws else None))
    found = {label: _combine(c) if c else None for label, c in checks.items()}
    returned = []
    for child in _returned_names(all_runs, name):
        sub, n = _unit_checks(child, backend, reference, repeat, runs, all_runs, replays, replays_again)
        returned.append(sub)
        unpinned_keys += n
    for label, check in found.items():
        if check is not None:
            judged = with_returned(check, [sub[label] for sub in returned if sub[label] is not None])
            found[label] = None if label == "replay" and judged.status == NOT_COMPARABLE and not judged.calls \
                and judged.functions else judged  # replay calls no returned function: it adds nothing
    return found, unpinned_keys


def _tests_of(results: list[RunResult | None], name: str) -> list[str]:
    """The pytest node ids that run the test function `name` ("tests/test_x.py:TestA.test_b")."""
    return sorted({test for r in results if r is not None for test, function in r.test_functions.items() if function == name})


def _outcome_checks(tests: list[str], reference: RunResult | None,
                    runs: dict[tuple[str, bool], RunResult | None]) -> dict[str, Check | None]:
    """A changed test function, judged by its outcomes against the reference's: it passed there and
    passes here (verified by its outcome), or passed there and fails here (named by test id)."""
    found: dict[str, Check | None] = {"replay": None}
    for label, key in (("original", ("original", False)), ("rewritten", ("rewritten", False)), ("eager", ("rewritten", True))):
        run = runs[key]
        if run is None:
            found[label] = None
            continue
        if run.exit_code is None:
            found[label] = Check(NOT_COMPARABLE, f"its run was {CUT_SHORT}")
            continue
        checks = []
        for test in tests:
            was, now = (reference.tests.get(test) if reference else None), run.tests.get(test)
            if was is None or now is None:
                checks.append(Check(NOT_EXERCISED, f"{test} did not run"))
            elif was == "passed" and now == "passed":
                checks.append(Check(EQUAL, "passes, as with the original", calls=1, outcome=True))
            elif was == "passed":
                checks.append(Check(FAILS, f"{test} passed with the original, {now} here", outcome=True))
            elif was == "skipped" or now == "skipped":
                checks.append(Check(NOT_EXERCISED, f"{test} skipped"))
            else:
                checks.append(Check(NOT_COMPARABLE, f"{test} {was} with the original too", outcome=True))
        found[label] = _combine(checks)
        if found[label].status == EQUAL:
            found[label].outcome = True
            found[label].detail = f"passes, as with the original ({found[label].calls} test{'s' if found[label].calls != 1 else ''})"
    return found


def _returned_names(results: list[RunResult], name: str) -> list[str]:
    """"m.py:f/returned", "m.py:f/returned[0]"...: the functions `name` returned that were called."""
    prefix = name + RETURNED
    names = {k.rsplit("::", 1)[-1] for r in results for k in (*r.counts, *r.traced, *r.calls)}
    return sorted(n for n in names if n.startswith(prefix) and RETURNED not in n[len(prefix):])


def describe(check: Check) -> str:
    """One short cell: `equal`, `differs (max abs 2.1)`, `fails: TracerBoolConversionError`."""
    if check.status == DIFFERS and (check.max_abs or check.max_rel):
        return f"differs (max abs {check.max_abs:.3g}, rel {check.max_rel:.3g})"
    if check.outcome:
        return "passes" if check.status == EQUAL else f"{check.status}: {check.detail}"
    if check.status == FAILS:
        return "fails: " + check.detail.split(":")[0] + (", as before" if check.as_before else "")
    if check.status == CALLS_DIFFER:
        return f"calls differ ({check.detail})"
    if check.status == EQUAL and check.functions:
        return "equal (via returned functions)"
    if check.status == NOT_COMPARABLE and check.functions:
        return f"not comparable ({check.detail})"
    return check.status
