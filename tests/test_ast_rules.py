"""Rules decided on `ast` (rewriter/ast_rule.py): a file whose rules are all of this kind is never parsed by
libcst, and its findings, errors and notes are what the same rules give beside rules on libcst."""
from __future__ import annotations

import pytest

from rewriter import engine, newer_syntax
from rewriter.ast_rule import AstRule, decided_on_ast
from rewriter.engine import process_source
from rewriter.findings import Safety
from rewriter.registry import all_codemods, by_code
from rewriter.settings import Settings
from tests.harness.snippets import UNROLLED_LOOP

TAPE_INSIDE = b'''from phiml import math


@math.jit_compile
def solve(y):
    with math.SolveTape() as tape:
        x = math.solve_linear(math.laplace, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x, tape[0].iterations
'''


def _settings(*codes: str, **kwargs) -> Settings:
    return Settings(codemods=tuple(by_code(code) for code in codes), original_positions=True, rewrite=False, **kwargs)


def _seen(findings) -> list[tuple]:
    return sorted((f.code, f.span, f.message, f.hint, f.note, f.related) for f in findings)


def test_the_report_only_rules_are_decided_on_ast():
    """Every rule without a fix (PML501 was the last to move), and the rules whose fixes are planned on
    `ast` (PML301 first)."""
    on_ast = {rule.CODE for rule in all_codemods() if decided_on_ast(rule)}
    assert {rule.CODE for rule in all_codemods() if rule.SAFETY is Safety.DISPLAY} - {"PML501"} <= on_ast
    assert on_ast >= {"PML301", "PML303", "PML304", "PML503", "PML504", "PML505", "PML506", "PML507",
                      "PML205", "PML601", "PML602", "PML603", "PML604", "PML605"}
    assert all(issubclass(by_code(code), AstRule) for code in on_ast)


VMAP_OF_JIT = b"""import jax
import jax.numpy as jnp


@jax.vmap
@jax.jit  # compiled
def step(x):
    return jnp.sin(x) * 2


batched = jax.vmap(jax.jit(step, static_argnums=()), in_axes=0)
"""


def test_check_says_a_planned_fix_would_apply_without_libcst(monkeypatch):
    """--check: the finding says its fix would be applied, decided on `ast` alone; the fix itself is written
    on libcst only when a rewrite is asked for, and then it is applied."""
    checked = process_source(VMAP_OF_JIT, "vmap.py", _settings("PML301"))
    assert not checked.libcst_parsed and checked.would_change
    assert [(f.span.line, f.span.column, f.applied, f.fix.safety) for f in checked.findings] == \
        [(5, 0, True, Safety.SAFE), (11, 10, True, Safety.SAFE)]
    fixed = process_source(VMAP_OF_JIT, "vmap.py", Settings(codemods=(by_code("PML301"),)))
    assert fixed.libcst_parsed and all(f.applied for f in fixed.findings)
    assert fixed.new_source == b"""import jax
import jax.numpy as jnp


@jax.jit  # compiled
@jax.vmap
def step(x):
    return jnp.sin(x) * 2


batched = jax.jit(jax.vmap(step, in_axes=0), static_argnums=())
"""


def test_an_unsafe_plan_is_applied_only_on_request():
    source = VMAP_OF_JIT
    checked = process_source(source, "vmap.py", _settings("PML301", unsafe_fixes=False))
    assert all(f.applied for f in checked.findings)  # (safe fixes: applied without --unsafe-fixes)
    reported = process_source(source, "vmap.py", Settings(codemods=(by_code("PML301"),), apply_fixes=False))
    assert not reported.libcst_parsed and reported.new_source is None and not any(f.applied for f in reported.findings)


def test_a_file_whose_rules_are_all_on_ast_is_not_parsed_by_libcst(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("libcst parsed the file")

    monkeypatch.setattr(engine.cst, "parse_module", refuse)
    result = process_source(TAPE_INSIDE, "tape.py", _settings("PML505"))
    assert result.error is None and not result.libcst_parsed
    assert [(f.code, f.span.line) for f in result.findings] == [("PML505", 6)]


@pytest.mark.parametrize("rewrite", [False, True], ids=["check", "fix"])
def test_beside_a_fix_written_on_libcst_the_findings_are_the_same(rewrite):
    """The same file, with another rule that fires and whose fix is written on libcst when a rewrite is asked
    for: PML505's findings are those it gives alone, and libcst parses the file only to write that fix."""
    source = TAPE_INSIDE + UNROLLED_LOOP.encode()
    alone = process_source(source, "tape.py", _settings("PML505"))
    mixed = process_source(source, "tape.py", Settings(codemods=(by_code("PML206"), by_code("PML505")),
                                                       original_positions=not rewrite, rewrite=rewrite))
    assert mixed.libcst_parsed is rewrite and not alone.libcst_parsed
    assert _seen(f for f in mixed.findings if f.code == "PML505") == _seen(alone.findings)
    assert any(f.code == "PML206" for f in mixed.findings)


def test_a_syntax_error_is_named_as_before():
    broken = TAPE_INSIDE + b"def (:\n"
    alone = process_source(broken, "broken.py", _settings("PML505"))
    mixed = process_source(broken, "broken.py", _settings("PML206", "PML505"))
    assert alone.error is not None and alone.error == mixed.error
    assert alone.error.startswith("syntax error at line 9")


def test_an_undecodable_file_is_named_as_before():
    source = b"\xff\xfe" + TAPE_INSIDE
    result = process_source(source, "odd.py", _settings("PML505"))
    assert result.error is not None and result.error.startswith("cannot decode")


def test_a_newer_grammar_is_read_lowered_with_its_note():
    """A PEP 701 f-string (Python 3.12) beside the hazard: libcst parses it to say so, and the rule reads the
    lowered module, at the file's own places."""
    source = TAPE_INSIDE.replace(b"    return x, tape[0].iterations\n",
                                 b'    label = f"{"it"}"\n    return x, tape[0].iterations\n')
    result = process_source(source, "newer.py", _settings("PML505"))
    assert result.error is None, result.error
    assert [(f.code, f.span.line) for f in result.findings] == [("PML505", 6)]
    assert result.notes == [newer_syntax.note("PEP 701 f-string at line 8")]


def test_a_suppressed_finding_is_not_reported():
    source = TAPE_INSIDE.replace(b"math.SolveTape() as tape:", b"math.SolveTape() as tape:  # phiml-rewrite: ignore[PML505]")
    assert process_source(source, "tape.py", _settings("PML505")).findings == []


def test_a_notebook_places_its_findings_in_cells():
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from rewriter.notebooks import process_notebook

    nb = new_notebook()
    body = TAPE_INSIDE.decode().split("\n", 2)[2]
    nb.cells = [new_code_cell("from phiml import math"), new_code_cell("x = 1"), new_code_cell(body)]
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i}"
    source = nbformat.writes(nb).encode()
    result = process_notebook(source, "nb.ipynb", _settings("PML505"))
    assert result.error is None, result.error
    [finding] = result.findings
    assert (finding.code, finding.cell, finding.span.line) == ("PML505", 3, 4)
    beside = process_notebook(source, "nb.ipynb", _settings("PML206", "PML505", ast_prefilter=False))  # (PML206 not gated)
    assert [(f.cell, f.span) for f in beside.findings if f.code == "PML505"] == [(finding.cell, finding.span)]


TREE_MAP = b"""import jax
from jax import tree_leaves, numpy as jnp

doubled = jax.tree_map(lambda x: 2 * x, [1, 2])
flat = tree_leaves(doubled)
"""


def test_a_migration_is_checked_on_ast_and_written_on_libcst(monkeypatch):
    """--check: PML603's findings and whether each fix applies, without libcst; --in-place: the same fixes,
    written at the libcst twins of the nodes they planned to edit (a reference, an import moved to its own line)."""
    checked = process_source(TREE_MAP, "tree.py", _settings("PML603"))
    assert not checked.libcst_parsed
    assert [(f.span.line, f.span.column, f.applied, f.fix.description) for f in checked.findings] == [
        (2, 16, True, "import `leaves as tree_leaves` from `jax.tree`"), (4, 10, True, "use `jax.tree.map`")]
    fixed = process_source(TREE_MAP, "tree.py", Settings(codemods=(by_code("PML603"),)))
    assert fixed.new_source == b"""import jax
from jax import numpy as jnp
from jax.tree import leaves as tree_leaves

doubled = jax.tree.map(lambda x: 2 * x, [1, 2])
flat = tree_leaves(doubled)
"""


def test_a_planned_fix_whose_twin_is_missing_is_not_written():
    """A plan names nodes of the `ast`; where libcst has no twin at that place, nothing is written, and the
    finding stays, not applied (rather than an edit at the wrong node)."""
    from rewriter.ast_rule import AstFile, PlannedFix, written

    class _Context:
        class analysis:  # noqa: N801 (stands for FileContext.analysis)
            class locator:  # noqa: N801
                @staticmethod
                def cst_of(node):
                    return None

    file = AstFile.__new__(AstFile)
    file.python = file.reading = object()
    file.planned = [(object(), PlannedFix("t", (object(),), lambda context, twin: [twin]))]
    assert written(file, _Context()) == []
