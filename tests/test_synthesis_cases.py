"""Verify-by-synthesis, run: the cases under golden/verify-synthesis/ (`<case>/original.py` with its
`rewritten.py`; a `SYNTHESIS` literal in the original says the verdict per function, and what the
reason and the shrunk counterexample must contain, and whether it lies beyond the calls' sizes;
verdict "proven"/"disproven" is the abstract proof's, whose reason `proofs` says, the draws then
only not contradicting it), and the command line."""
from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rewriter.cli import main
from rewriter.config import load
from rewriter.verify import command
from rewriter.verify.synthesis import abstract, entry
from rewriter.verify.synthesis import command as synthesis
from rewriter.verify.synthesis.report import FALSIFIED, VERIFIED
from rewriter.verify.synthesis.testcases import PASSES

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(p.parent for p in (ROOT / "golden" / "verify-synthesis").glob("*/original.py"))
EXAMPLES = 30


def _spec(case: Path) -> dict:
    for node in ast.parse((case / "original.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SYNTHESIS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{case.name}: no SYNTHESIS literal")


def _run(folder: Path, monkeypatch, rewritten: str | None = "rewritten.py", path: str = "original.py",
         budget: synthesis.Budget = synthesis.Budget(max_examples=EXAMPLES), **options):
    monkeypatch.chdir(folder)
    opts = command.Options(path=path, rewritten=rewritten, jobs=2, **options)
    return synthesis.synthesize(opts, load([path]).override(unsafe_fixes=options.get("unsafe_fixes")), budget)


def test_every_case_states_a_verdict_for_each_function():
    assert len(CASES) >= 8
    for case in CASES:
        spec = _spec(case)
        assert (case / "rewritten.py").exists() and spec["verdicts"], case.name
        assert {FALSIFIED, VERIFIED, abstract.PROVEN, abstract.DISPROVEN} >= set(spec["verdicts"].values()) - \
            {"unsynthesizable"}, case.name


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Path, monkeypatch):
    spec = _spec(case)
    outcome = _run(case, monkeypatch)
    results = outcome.synthesis.results
    assert {r.function for r in results} == set(spec["verdicts"])
    synthesized = outcome.synthesis
    for function, expected in spec["verdicts"].items():
        key = ("original.py", function)
        if function in spec.get("proofs", {}):  # what the abstract proof says, whatever the draws found
            proof = synthesized.proof(key)
            assert proof is not None and spec["proofs"][function] in proof.proof, proof
        if expected in (abstract.PROVEN, abstract.DISPROVEN):
            assert synthesized.proof(key).proof_verdict == expected
            assert key in (synthesized.falsified_units() if expected == abstract.DISPROVEN else
                           synthesized.proven_units() | synthesized.verified_units())
    for r in results:
        if spec["verdicts"][r.function] in (abstract.PROVEN, abstract.DISPROVEN):
            assert r.status != FALSIFIED or spec["verdicts"][r.function] == abstract.DISPROVEN, r
            continue  # the draws, bounded by the budget, may stop anywhere short of a verdict
        assert r.status == spec["verdicts"][r.function], (r.function, r.backend, r.reason, r.inputs)
        if r.status == VERIFIED and r.reason != PASSES:  # a test runs once, as written
            assert r.examples >= EXAMPLES // 2 and not r.cut_short, r
        assert spec.get("reasons", {}).get(r.function, "") in r.reason, r
        assert spec.get("inputs", {}).get(r.function, "") in r.inputs, r
        if r.status == FALSIFIED:  # at the sizes the calls give, unless the case says the search had to go beyond
            assert r.beyond_calls == spec.get("beyond_calls", {}).get(r.function, False), r
    if "phiml" in (case / "original.py").read_text():  # on every installed PhiML backend
        assert len({r.backend for r in results}) == len(outcome.synthesis.backends) >= 2


def test_same_seed_same_counterexample_and_other_seeds_still_falsify(monkeypatch):
    case = ROOT / "golden" / "verify-synthesis" / "broadcast_shape"
    first, again = (_run(case, monkeypatch).synthesis.results[0] for _ in range(2))
    assert first.status == FALSIFIED and (first.inputs, first.reason) == (again.inputs, again.reason)
    other = _run(case, monkeypatch, budget=synthesis.Budget(seed=7, max_examples=EXAMPLES)).synthesis.results[0]
    assert other.status == FALSIFIED and "shape [1] != [2]" in other.reason


def test_the_rewriters_own_fix_is_verified(tmp_path, monkeypatch):
    """No --rewritten: the tree is rewritten by the rules, as `verify --run` does (traced-if's piecewise case)."""
    shutil.copyfile(ROOT / "golden" / "traced-if" / "jax_piecewise_scalar.py", tmp_path / "piecewise.py")
    outcome = _run(tmp_path, monkeypatch, rewritten=None, path="piecewise.py")
    [result] = outcome.synthesis.results
    assert (result.function, result.backend, result.status) == ("ease", "jax", VERIFIED)


def test_cli_prints_the_counterexample_and_exits_1(monkeypatch):
    monkeypatch.chdir(ROOT / "golden" / "verify-synthesis" / "negative_branch")
    result = CliRunner().invoke(main, ["verify", "original.py", "--rewritten", "rewritten.py", "--max-examples", "20"],
                                env={"COLUMNS": "72"})
    assert result.exit_code == 1, result.output
    assert "falsified: x=float32[] -" in result.output and "values differ" in result.output
    table = [line for line in result.output.splitlines() if line.startswith(("┃", "│", "┏", "└"))]
    assert table and max(len(line) for line in table) <= 72


def test_cli_json_and_unsynthesizable_exit_2(monkeypatch):
    monkeypatch.chdir(ROOT / "golden" / "verify-synthesis" / "unknown_argument")
    result = CliRunner().invoke(main, ["verify", "original.py", "--rewritten", "rewritten.py", "--output-format", "json"])
    assert result.exit_code == 2, result.output
    data = json.loads(result.output)["synthesis"]
    assert data["counts"]["unsynthesizable"] == 1 and "`f` of unknown type" in data["results"][0]["reason"]


def test_cli_json_carries_the_abstract_disproof(monkeypatch):
    monkeypatch.chdir(ROOT / "golden" / "verify-synthesis" / "broadcast_shape")
    result = CliRunner().invoke(main, ["verify", "original.py", "--rewritten", "rewritten.py", "--max-examples", "10",
                                       "--output-format", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)["synthesis"]
    [r] = data["results"]
    assert r["proof_verdict"] == "disproven" and "branch False gives float32[1]" in r["proof"]
    assert data["counts"]["falsified"] == 1 and data["counts"]["proven"] == 0


def test_verify_auto_writes_only_the_unsafe_fixes_synthesis_proves(tmp_path, monkeypatch):
    """`--in-place --verify auto`: of four unsafe branch merges, the piecewise scalar one that every input
    agrees on is written; the three the synthesis falsifies (a dtype, a shape, an empty axis) are not."""
    shutil.copyfile(ROOT / "golden" / "traced-if" / "unproven_dtypes.py", tmp_path / "dtypes.py")
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--in-place", "--verify", "auto", "dtypes.py"], catch_exceptions=False)
    assert result.exit_code == 1, result.output  # something was falsified
    assert "unsafe fixes: 1 written as proven, 3 skipped as falsified, 0 skipped as unverifiable" in result.output
    text = (tmp_path / "dtypes.py").read_text()
    assert "y = jnp.where(t < 0.5, 4 * t * t * t, 0.5 * (2 * t - 2) ** 3 + 1)" in text  # shared_ease
    assert text.count("jnp.where") == 1 and "if jnp.any(x > 2):" in text  # halve and the others untouched


def test_a_proof_alone_writes_the_merge_the_budget_kept_the_draws_from(tmp_path, monkeypatch, capsys):
    """`--verify auto` on a 4096x4096 call: the draws are cut short by a one-second budget; the abstract
    proof writes `centre`'s merge, and the disproof withholds `cap_rows`' (wrong only at 3000 rows and up)."""
    for name in ("large_proven", "large_disproven"):
        shutil.copyfile(ROOT / "golden" / "verify-synthesis" / name / "original.py", tmp_path / f"{name}.py")
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    options = command.Options(path=".", jobs=1, unsafe_fixes=True)
    code = entry.run(options, load(["."]).override(unsafe_fixes=True), synthesis.Budget(max_examples=EXAMPLES, seconds=1),
                     "text", in_place=True)
    output = capsys.readouterr().out
    assert code == 1, output  # cap_rows is disproven
    assert "unsafe fixes: 1 written as proven (1 by an abstract proof), 1 skipped as falsified, 0 skipped as " \
           "unverifiable" in output
    assert "y = jnp.where(jnp.any(x > 0), x - x.mean(axis=0), x)" in (tmp_path / "large_proven.py").read_text()
    assert "if jnp.any(x < 0):" in (tmp_path / "large_disproven.py").read_text()
    assert "✓ shapes agree on 4 signatures" in output and "✗ the rewrite fails at x=float32[4096,4096]" in output


def test_a_spent_budget_is_reported_not_passed(monkeypatch):
    case = ROOT / "golden" / "verify-synthesis" / "sqrt_sign"
    outcome = _run(case, monkeypatch, budget=synthesis.Budget(max_examples=EXAMPLES, seconds=0))
    [result] = outcome.synthesis.results
    assert result.status != VERIFIED and "cut short by the time budget" in result.reason
    assert outcome.synthesis.exit_code == 2


def test_changed_module_level_code_is_reported_not_dropped(tmp_path, monkeypatch):
    (tmp_path / "original.py").write_text("import jax.numpy as jnp\n\nfor i in range(2):\n    print(jnp.sqrt(4.0))\n")
    (tmp_path / "rewritten.py").write_text("import jax.numpy as jnp\n\nfor i in range(2):\n    print(jnp.sqrt(9.0))\n")
    results = _run(tmp_path, monkeypatch).synthesis.results
    assert [(r.function, r.status) for r in results] == [("<module>", "unsynthesizable")]
    assert "--run" in results[0].reason
