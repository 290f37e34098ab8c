"""Every rule documents itself, and its documented examples are what the tool really does."""
from __future__ import annotations

import ast

import collections.abc
import re
import sys
import types
import typing
from pathlib import Path

import pytest

from rewriter.codemod import Codemod, Example, Unchanged
from rewriter.rule import Rule
from rewriter.engine import Settings, process_source
from rewriter.findings import Safety
from rewriter import rule_docs
from rewriter.registry import all_codemods

ROOT = Path(__file__).resolve().parent.parent

PRELUDE = "import jax\nimport jax.numpy as jnp\nfrom functools import partial\nfrom phiml import math\nfrom phiml.math import batch\n\n\n"
EXAMPLES = [(c, i, ex) for c in all_codemods() for i, ex in enumerate(c.EXAMPLES) if isinstance(ex, Example)]
COUNTER_EXAMPLES = [(c, ex) for c in all_codemods() for ex in c.EXAMPLES if isinstance(ex, Unchanged)]


def _example_id(value) -> str:
    """`PML201-0`, `PML201-static-shape-condition`: which example failed, at a glance."""
    if isinstance(value, type):
        return value.CODE
    if isinstance(value, Unchanged):
        return re.sub(r"[^a-z0-9]+", "-", value.note.lower()).strip("-")[:40]
    if isinstance(value, int):
        return str(value)
    return (re.sub(r"[^a-z0-9]+", "-", value.note.lower()).strip("-")[:40] or "example") if isinstance(value, Example) else ""


@pytest.mark.parametrize("codemod", all_codemods(), ids=lambda c: c.CODE)
def test_rule_is_documented(codemod: type[Codemod]):
    assert re.fullmatch(r"PML[1-6]\d\d", codemod.CODE)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", codemod.NAME)
    assert codemod.SUMMARY and codemod.documentation() and codemod.FIX_SAFETY
    assert isinstance(codemod.SAFETY, Safety)
    assert any(isinstance(ex, Example) for ex in codemod.EXAMPLES), "at least one before/after example"
    assert any(isinstance(ex, Unchanged) for ex in codemod.EXAMPLES), "at least one counter-example"
    assert all(isinstance(group, tuple) for group in codemod.TRIGGERS)
    page = codemod.explain()
    assert codemod.CODE in page and "Fix safety" in page


def test_codes_and_names_are_unique():
    codemods = all_codemods()
    assert len({c.CODE for c in codemods}) == len({c.NAME for c in codemods}) == len(codemods)


@pytest.mark.parametrize("codemod,index,example", EXAMPLES, ids=_example_id)
def test_documented_example_is_true(codemod, index, example):
    source = PRELUDE + example.before
    result = process_source(source.encode(), "example.py", Settings((codemod,), unsafe_fixes=True))
    assert result.error is None
    assert [f.code for f in result.findings] and all(f.code == codemod.CODE for f in result.findings)
    produced = result.new_source.decode() if result.new_source else source
    assert produced == PRELUDE + (example.after if example.after is not None else example.before)


@pytest.mark.parametrize("codemod,example", COUNTER_EXAMPLES, ids=_example_id)
def test_counter_example_is_left_alone(codemod, example):
    """What a rule documents it leaves alone, it does: no finding, and the file stays byte-identical."""
    source = PRELUDE + example.code
    result = process_source(source.encode(), "example.py", Settings((codemod,), unsafe_fixes=True))
    assert result.error is None
    assert [f.message for f in result.findings] == []
    assert result.new_source is None or result.new_source.decode() == source


def test_rule_pages_are_current():
    """docs/rules is what `phiml-rewrite rules --docs docs/rules` writes: no page stale, missing or extra."""
    folder = ROOT / "docs" / "rules"
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")}
    assert on_disk == rule_docs.pages(), "run `phiml-rewrite rules --docs docs/rules`"


GUIDANCE = ROOT / "tests" / "data" / "guidance"  # the seed pages the rules come from (a copy: its README)
AVOID_PAGES = ("phiml-what-to-avoid.txt", "phiflow-what-to-avoid.txt")


def _hazard_headings(text: str) -> list[str]:
    """The headings of a "What to avoid" page after its "Do not do any of the following" line: short lines
    without a full stop whose next non-empty line is a paragraph."""
    lines = [line.rstrip() for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("Do not do any of the following"))
    out = []
    for i, line in enumerate(lines[start + 1:], start + 1):
        following = next((n for n in lines[i + 1:] if n.strip()), "")
        if line and len(line) < 60 and not line.endswith((".", ":")) and len(following) >= 80:
            out.append(line)
    return out


@pytest.mark.parametrize("page", AVOID_PAGES)
def test_every_hazard_of_the_guidance_has_a_rule(page):
    """Each hazard the "What to avoid" pages name is some rule's HAZARDS (read from the page, not listed here)."""
    headings = _hazard_headings((GUIDANCE / page).read_text())
    assert len(headings) >= 7, headings  # the parser still finds the page's hazards
    claimed = {h for c in all_codemods() for h in c.HAZARDS}
    assert [h for h in headings if h not in claimed] == []


def test_every_hazard_a_rule_cites_is_in_the_guidance():
    text = "".join(p.read_text() for p in sorted(GUIDANCE.iterdir()) if p.suffix in (".md", ".txt") and p.name != "README.md")
    cited = {h: c.CODE for c in all_codemods() for h in c.HAZARDS}
    assert len(cited) >= 12
    assert {h: code for h, code in cited.items() if h not in text} == {}


@pytest.mark.parametrize("codemod,index,example", [e for e in EXAMPLES if e[2].by_hand is not None], ids=_example_id)
def test_documented_hand_fix_is_clean(codemod, index, example):
    """The fix a diagnostic's page shows is code the rule no longer reports."""
    assert example.after is None, "a hand fix is shown only where there is no automatic one"
    result = process_source((PRELUDE + example.by_hand).encode(), "example.py", Settings((codemod,), unsafe_fixes=True))
    assert result.error is None
    assert not [f for f in result.findings if f.code == codemod.CODE]


def test_the_rule_index_is_current():
    """rewriter/rule_index.py lists what the rules say of themselves (`python -m rewriter.registry` rewrites it)."""
    from pathlib import Path

    from rewriter import registry

    path = Path(registry.__file__).with_name("rule_index.py")
    assert path.read_text() == registry.index_source(), "stale: run `python -m rewriter.registry`"
    assert [r.code for r in registry.rule_index()] == [c.CODE for c in all_codemods()]


def test_work_per_file_does_not_grow_with_the_number_of_classes_or_bindings(monkeypatch):
    """Module-wide reads happen once per pass: PML506 read every attribute assignment of the module
    once per class with a static-`self` jit method, and the flow-sensitive name resolution indexed a
    module's statements at every read of a name bound more than once (a module of many such classes
    and re-bound names was quadratic)."""
    import textwrap

    from codemods import static_self
    from rewriter.analysis.ast_resolver import NameResolver

    one = textwrap.dedent('''
        class Gain{i}:
            def __init__(self, g, bias=0.0):
                self.g, self.bias = g, bias

            @partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x * self.g + self.bias

            def retune(self, g):
                self.g = g

        amp{i} = Gain{i}(2.0)
        amp{i}.bias = 1.0

        def helper(x):
            return x

        fast{i} = jax.jit(helper)
        for k in range(3):
            fast{i}(helper(k))
        ''')
    source = ("from functools import partial\nimport jax\n" + "".join(one.format(i=i) for i in range(6))).encode()
    module_reads, indexed = [], []
    original_reads, original_block = static_self._assigned_attributes, NameResolver._block_of
    monkeypatch.setattr(static_self, "_assigned_attributes",
                        lambda body: (module_reads.append(body) if any(isinstance(s, ast.ClassDef) for s in body) else None)
                        or original_reads(body))
    monkeypatch.setattr(NameResolver, "_block_of", lambda self, owner: indexed.append(owner) or original_block(self, owner))
    rules = [c for c in all_codemods() if c.CODE in ("PML506", "PML302", "PML401")]
    result = process_source(source, "many.py", Settings(rules, apply_fixes=False))
    assert sum(f.code == "PML506" for f in result.findings) == 6
    assert len(module_reads) == 1
    assert indexed and len(indexed) == len({id(o) for o in indexed})  # each block indexed once


def _conforms(value, hint) -> bool:
    """`value` is of the annotated type `hint` (the forms Codemod's class attributes use)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.ClassVar:
        return _conforms(value, args[0])
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, a) for a in args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return isinstance(value, tuple) and all(_conforms(v, args[0]) for v in value)
        return isinstance(value, tuple) and len(value) == len(args) and all(map(_conforms, value, args))
    if origin in (frozenset, collections.abc.Sequence):
        return isinstance(value, origin) and not isinstance(value, str) and all(_conforms(v, args[0]) for v in value)
    return isinstance(value, hint)


@pytest.mark.parametrize("codemod", all_codemods(), ids=lambda c: c.CODE)
def test_rule_attributes_have_their_declared_types(codemod):
    """What a rule declares (CODE, SAFETY, EXAMPLES, TRIGGERS, READS_FACTS...) is of the type Rule annotates:
    a string where a tuple is meant (`TRIGGERS = ("jit",)` read as letters) fails here, not in a run."""
    namespace = vars(sys.modules[Rule.__module__])  # Rule's own annotations
    hints = {name: eval(hint, namespace) if isinstance(hint, str) else hint for name, hint in Rule.__annotations__.items()}
    assert len(hints) >= 13
    for name, hint in hints.items():
        if typing.get_origin(hint) is typing.ClassVar:
            assert _conforms(getattr(codemod, name), hint), f"{codemod.CODE}.{name} = {getattr(codemod, name)!r} is not {hint}"
