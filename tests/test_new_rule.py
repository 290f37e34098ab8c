"""`python -m rewriter.new_rule`: the skeleton it writes is a working rule whose golden cases hold."""
from __future__ import annotations

import ast
import importlib.util

import click
import pytest

from rewriter import new_rule
from rewriter.rule import Rule
from rewriter.engine import Settings, process_source


def _load(path):
    spec = importlib.util.spec_from_file_location("scaffolded_rule", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return next(v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Rule) and v.__module__ == module.__name__)


def _golden(path) -> list[str]:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "GOLDEN":
            return ast.literal_eval(node.value)["findings"]
    raise AssertionError(path)


def test_the_skeleton_reports_what_its_golden_cases_say(tmp_path):
    (tmp_path / "codemods").mkdir()
    written = new_rule.scaffold(tmp_path, "nonzero-in-jit", "PML598", "jax.numpy.nonzero", "a summary")
    rule = _load(written[0])
    assert (rule.CODE, rule.NAME, rule.SUMMARY) == ("PML598", "nonzero-in-jit", "a summary")
    cases = written[1:]
    assert len(cases) >= 6
    reported = 0
    for case in cases:
        result = process_source(case.read_bytes(), case.name, Settings((rule,)))
        assert result.error is None, case.name
        got = [f"{f.code}:{f.span.line}" for f in result.findings]
        assert got == _golden(case), case.name
        reported += bool(got)
    assert 0 < reported < len(cases)  # cases it reports and cases it must leave alone


@pytest.mark.parametrize("name, code, api", [
    ("Bad_Name", "PML598", "jax.numpy.nonzero"), ("nonzero", "PM598", "jax.numpy.nonzero"),
    ("nonzero", "PML598", "nonzero"), ("nonzero", "PML201", "jax.numpy.nonzero"), ("traced-if", "PML598", "jax.numpy.nonzero"),
])
def test_bad_arguments_are_refused_before_anything_is_written(tmp_path, name, code, api):
    (tmp_path / "codemods").mkdir()
    with pytest.raises(click.BadParameter):
        new_rule.scaffold(tmp_path, name, code, api, "s")
    assert not list((tmp_path / "codemods").iterdir()) and not (tmp_path / "golden").exists()
