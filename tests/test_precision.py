"""The precision benchmark on a bounded subset of library code that runs under jit: no PML201-PML203 fix.

phiml/math and jax/_src/numpy + jax/_src/lax are tested under jit by their authors, so their `if`, `for` and
`while` statements are static; a PML201 (traced-if), PML202 (traced-for) or PML203 (traced-while) fix there
rewrites working code. Read-only (check mode over the installed files); about 80k lines.
"""
from __future__ import annotations

import pytest

from benchmarks import precision
from benchmarks._common import cli_status, package_dir

SUBSET_LIMIT = 30  # files per directory; today each of the three has fewer, so all of them are scanned


@pytest.mark.slow
def test_no_static_control_flow_rewritten_in_jitted_library_code():
    cli_ok, why = cli_status()
    if not cli_ok:
        pytest.skip(why)
    jax, phiml = package_dir("jax"), package_dir("phiml")
    sources = [phiml / "math", jax / "_src" / "numpy", jax / "_src" / "lax"]
    res = precision.run(sources=sources, limit=SUBSET_LIMIT, jobs=2)
    if res["skipped"]:
        pytest.skip(res["skipped"])
    assert res["files"] > 40 and res["summary"]["files"] == res["files"], precision.report(res)
    assert res["control_flow_fixes"] == [], precision.report(res)
    assert res["ok"], precision.report(res)


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
