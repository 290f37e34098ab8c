"""The compiler table (rewriter/analysis/compilers.py) describes every jit transform of the API table,
and docs/compilers.md names golden cases that exist: each row is backed by executed cases."""
from __future__ import annotations

import re
from pathlib import Path

from rewriter.analysis import compilers
from rewriter.analysis.apis import TABLE, Kind

ROOT = Path(__file__).resolve().parent.parent


def test_every_jit_transform_has_its_semantics():
    described = {c.api for c in compilers.table()}
    assert {a.name for a in TABLE.values() if a.kind is Kind.JIT} <= described


def test_the_table_says_which_compilers_fail_and_which_trace_scalars():
    fails = {c.api for c in compilers.table() if c.fails_on_control_flow}
    assert {"jax.jit", "phiml.math.jit_compile", "torch.jit.trace"} <= fails
    assert not {"torch.compile", "torch.jit.script"} & fails
    assert compilers.compiler("tensorflow.function").fails_on_control_flow is False
    assert compilers.compiler("tensorflow.function", autograph=False).fails_on_control_flow is True
    tracing = {c.api for c in compilers.table() if c.traces_scalars}
    assert tracing == {"jax.jit", "phiml.math.jit_compile", "phiml.math.jit_compile_linear"}


def test_the_documented_golden_cases_exist():
    text = (ROOT / "docs" / "compilers.md").read_text()
    named = set(re.findall(r"`([a-z-]+/[a-z_*]+)`", text))
    assert len(named) >= 12
    for case in named:
        folder, _, pattern = case.partition("/")
        assert list((ROOT / "golden" / folder).glob(f"{pattern}.py")), f"docs/compilers.md names {case}: no such golden case"
