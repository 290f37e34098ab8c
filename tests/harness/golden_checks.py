"""What a golden case's runs must show, for .py cases (test_golden) and notebooks (test_golden_notebooks):
the original broken as stated (or equal), the rewrite equal to the original's eager result, jitted
and eager, and the trace, cache and compile counts the case declares."""
from __future__ import annotations

from rewriter.verify.values import compare


def check_runs(spec: dict, framework: str, backend: str, reference: dict, records: dict) -> None:
    assert "error" not in reference, f"the eager reference fails: {reference['error']}"
    broken = spec.get("original_broken", {}).get(backend)  # the bug the rewrite fixes
    for label in ("original", "rewritten", "rewritten_eager"):
        record = records[label]
        if label == "rewritten" and broken is not None and record is records["original"]:
            continue  # a report-only case: its jitted run is the original's, broken as stated above
        if label == "original" and broken is not None:
            if broken == "differs":
                assert "error" not in record, f"original fails on {backend} instead of silently differing: {record['error']}"
                assert not compare(reference["value"], record["value"]).equal, f"original no longer differs on {backend}"
            else:
                assert record.get("error", "").startswith(broken), f"original on {backend}: want {broken}, got {record.get('error', 'success')}"
            continue
        assert "error" not in record, f"{label} fails on {backend}: {record['error']}\n{record.get('traceback', '')}"
        verdict = compare(reference["value"], record["value"])
        assert verdict.equal, f"{label} differs from the eager reference on {backend}: {verdict.reason} (max abs {verdict.max_abs:.3g})"
    jitting = backend != "numpy"
    if "traces" in spec and framework == "phiml" and jitting:
        traces = spec["traces"]
        before, after = traces[backend] if isinstance(traces, dict) else traces
        measured = (records["original"]["phiml_traces"], records["rewritten"]["phiml_traces"])
        assert measured == (before, after), f"PhiML traces before -> after on {backend}: {measured}, want {(before, after)}"
    if "cache" in spec and framework == "phiml" and jitting:
        before, after = spec["cache"]
        measured = (records["original"]["phiml_cache"], records["rewritten"]["phiml_cache"])
        assert measured == (before, after), f"PhiML trace cache (most traces held) before -> after on {backend}: {measured}, want {(before, after)}"
    if "compiles" in spec and backend == "jax":
        before, after = spec["compiles"]
        measured = (records["original"]["jax_compiles"], records["rewritten"]["jax_compiles"])
        assert measured == (before, after), f"jax compiles before -> after: {measured}, want {(before, after)}"
