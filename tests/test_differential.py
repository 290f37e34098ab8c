"""The differential harness of issue 45 (tests/harness/differential.py) sees what a move changes."""
from __future__ import annotations

from pathlib import Path

from tests.harness import differential
from tests.harness.differential import Outcome

JITTED_LOOP = b"""import jax


def run(xs):
    out = []
    for x in xs:
        f = jax.jit(lambda v: v * 2)
        out.append(f(x))
    return out
"""


def test_the_same_outcome_has_no_difference_and_each_kind_of_change_is_named():
    finding = ("check", "a.py", 0, 7, 12, "PML302", "safe: hoist", True, "`jax.jit` built in a loop", "")
    fixed = ("in-place", *finding[1:])
    base = Outcome((finding, fixed), {"a.py": b"x = 1\n"}, ())
    assert differential.compare("t", base, base) == []
    moved = Outcome(((*finding[:3], 8, *finding[4:]), fixed[:7] + (False,) + fixed[8:]), {"a.py": b"x = 2\n"},
                    ("b.py: syntax error",))
    found = differential.compare("t", base, moved)
    assert any(line.startswith("t: - a.py:7:12 PML302 [safe: hoist, applied]") for line in found)
    assert any(line.startswith("t: + a.py:8:12 PML302") for line in found)
    assert any(line.startswith("t: - a.py:7:12 (in place) PML302 [safe: hoist, applied]") for line in found)
    assert any("+ error b.py: syntax error" in line for line in found)
    assert any("the rewrite of a.py differs" in line and "-x = 1" in line and "+x = 2" in line for line in found)


def test_a_revision_is_run_on_a_copy_for_its_findings_and_its_rewrite(tmp_path: Path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "loop.py").write_bytes(JITTED_LOOP)
    (tree / "plain.py").write_bytes(b"x = 1\n")
    work = tmp_path / "work"
    work.mkdir()
    outcome = differential.run(differential.ROOT, tree, work)
    assert [(f[0], f[5]) for f in outcome.findings] == [("check", "PML302"), ("in-place", "PML302")]
    assert list(outcome.rewritten) == ["loop.py"] and b"jax.jit" in outcome.rewritten["loop.py"]
    assert (tree / "loop.py").read_bytes() == JITTED_LOOP  # the input itself is never written
