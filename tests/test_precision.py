"""The precision benchmark's tally (benchmarks/precision.py, `python -m benchmarks precision`).

Its claim, no PML201-PML203 fix in library code that runs under jit, is checked on every installed
package by the real-code check (tests/harness/real_code.py `run_problems`), which analyses those files anyway.
"""
from __future__ import annotations


from benchmarks import precision


def _finding(code: str, fix: str | None, path: str = "/site/jax/_src/lax/lax.py", line: int = 7) -> dict:
    return {"code": code, "name": "n", "message": f"{code} message", "path": path,
            "span": {"line": line, "column": 4, "end_line": line, "end_column": 9}, "severity": "error",
            "fix": None if fix is None else {"safety": fix, "description": "rewrite"}, "applied": False}


def test_tally_counts_every_control_flow_fix_and_only_lists_the_others():
    from pathlib import Path

    data = {"findings": [_finding("PML201", "unsafe"), _finding("PML202", "display", line=3),
                         _finding("PML203", None), _finding("PML204", "safe"), _finding("PML205", None)],
            "errors": [], "changed_files": ["/site/jax/_src/lax/lax.py"], "summary": {}}
    t = precision.tally(data, [Path("/site/jax")])
    assert [(f["code"], f["line"], f["safety"]) for f in t["control_flow_fixes"]] == [("PML202", 3, "display"),
                                                                                     ("PML201", 7, "unsafe")]
    assert t["control_flow_fixes"][0]["path"] == "jax/_src/lax/lax.py"
    assert [f["code"] for f in t["informational_fixes"]] == ["PML204"]
    assert t["findings_per_code"] == {"PML201": 1, "PML202": 1, "PML203": 1, "PML204": 1, "PML205": 1}
    assert t["fixes_per_code"] == {"PML201": 1, "PML202": 1, "PML204": 1}
