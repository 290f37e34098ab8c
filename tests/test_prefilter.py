"""The ast pre-filter may only skip files in which no rule can fire."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rewriter.analysis.ast_names import Met
from rewriter.engine import Settings, process_source, wanted_codemods
from rewriter.prefilter import filter_codemods, has_gate, syntax_of
from rewriter.registry import all_codemods

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    p for p in [*ROOT.glob("golden/*/*.py"), *ROOT.glob("examples/*.py")] if not p.name.endswith(".expected.py")
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_files_with_findings_pass_the_prefilter(path: Path):
    source = path.read_bytes()
    unfiltered = process_source(source, str(path), Settings(all_codemods(), unsafe_fixes=True, ast_prefilter=False))
    if unfiltered.findings:  # every rule that reports here gets through (rules the pre-filter does not know always do)
        assert {f.code for f in unfiltered.findings} <= {c.CODE for c in filter_codemods(source, list(all_codemods()))}
    filtered = process_source(source, str(path), Settings(all_codemods(), unsafe_fixes=True))
    assert [f.message for f in filtered.findings] == [f.message for f in unfiltered.findings]
    assert filtered.new_source == unfiltered.new_source


@pytest.mark.parametrize("source, expected", [
    (b"import jax\n# jax.jit in a comment, 'jax.jit(f)' in a string\n", False),
    (b"import re\ndef f(p):\n    return re.compile(p)(1)\n", False),
    (b"import jax\n@jax.jit\ndef f(x):\n    return x\n", False),  # one jit, module level: nothing to do
    (b"import jax\ndef f(x):\n    return jax.jit(g)(x)\n", True),
    (b"from jax import jit as J\nfor i in range(3):\n    y = J(lambda x: x)(1)\n", True),
    (b"import jax\nb = jax.vmap(jax.jit(f))\n", True),
    (b"from phi.flow import *\ndef f(u):\n    return math.map(g, u, dims=batch)\n", False),  # g is not jitted
    (b"from phi.flow import *\ng = jit_compile(h)\ndef f(u):\n    return math.map(g, u, dims=batch)\n", True),
    # PhiFlow's re-exports are the same functions (rewriter/analysis/installed.py); a parameter is not
    (b"from phi import field\ndef f(u):\n    return field.solve_linear(lambda x: x, u)\n", True),
    (b"from phi.flow import *\ndef f(u):\n    return field.solve_linear(lambda x: x, u)\n", True),
    (b"def f(field, u):\n    return field.solve_linear(lambda x: x, u)\n", False),
    (b"from phi.field import jit_compile, functional_gradient as fg\nstep = jit_compile(fg(loss))\n", True),
    (b"def f(:\n", True),  # libcst reports the syntax error
    # no import reaches an API, but `.with_preprocessing(...)` is a solver call by its own name
    (b"import numpy as np\ndef f(x, g):\n    return g.with_preprocessing(lambda y: y)\n", True),
    (b"import numpy as np\ndef f(x, g):\n    return g.preprocessed(lambda y: y)\n", False),
])
def test_prefilter_decisions(source: bytes, expected: bool):
    assert _gates_pass(source) is expected


def _gates_pass(source: bytes) -> bool:
    """Some rule whose gate reads the walk's facts passes it (a file `ast` cannot read always passes)."""
    syntax = syntax_of(source)
    return syntax is None or any(c.ast_gate(syntax) for c in all_codemods() if c.READS_FACTS)


def _passing(syntax) -> list[str]:
    return [c.CODE for c in all_codemods() if c.READS_FACTS and c.ast_gate(syntax)]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_factories_elsewhere_change_nothing_under_names_no_gate_reads(path: Path):
    """Survey.passed_with keeps a file's first judgement when other modules give it only factories, none
    of them named as `Syntax.factory_sensitive` says a gate could notice: given every other name of the
    file as such a factory, every rule's gate is as without them."""
    import ast

    from rewriter.analysis.facts import FileFacts, RemoteFactory
    from rewriter.prefilter import syntax_of

    source = path.read_bytes()
    alone = syntax_of(source)
    if alone is None:
        return
    if alone.factory_sensitive is None:
        return  # not walked (Syntax.spells_no_api): any factory elsewhere has the file judged again
    names = {n.id for n in ast.walk(alone.tree) if isinstance(n, ast.Name)} - alone.factory_sensitive
    facts = FileFacts(factories=tuple(RemoteFactory(n, "jax.jit", "jax", "m.py:1", n) for n in sorted(names)))
    codemods = list(all_codemods())
    assert filter_codemods(source, codemods, facts) == filter_codemods(source, codemods)


def test_the_names_a_factory_elsewhere_must_bear_to_matter():
    from rewriter.prefilter import syntax_of

    source = (b"import jax\nfrom m import make, build, other\n\nfast = jax.jit(abs)\nstep = make(1)\n\n\n"
              b"def run(xs):\n    for x in xs:\n        step(x)\n        build()(x)\n    other(2)\n")
    assert syntax_of(source).factory_sensitive == {"step", "make", "build"}


def test_the_pre_filter_walks_the_branches_the_summary_read():
    """The survey's two walks of one tree: the summary's breadth-first walk computes each node's
    branches once, the pre-filter's walk reads them (rewriter/survey.py), and finds the same."""
    import ast

    from rewriter import prefilter
    from rewriter.project.summary import summarize

    source = (Path(__file__).parent.parent / "golden" / "traced-if" / "agreeing_branches.py").read_bytes()
    tree = ast.parse(source)
    kids: dict = {}
    met = Met()
    summarize(source, "m", False, tree, kids=kids, met=met)
    assert len(kids) > 30
    asked = []
    original = prefilter.branches
    try:
        prefilter.branches = lambda node: asked.append(node) or original(node)
        shared = prefilter.syntax_of(source, None, tree, kids=kids, met=met)
        passing = _passing(shared)
        assert asked == []
    finally:
        prefilter.branches = original
    alone = prefilter.syntax_of(source)
    assert passing == _passing(alone) and passing
    assert shared.identifiers == alone.identifiers


@pytest.fixture
def searched(monkeypatch) -> list[bytes]:
    """The trigger words TriggerWords.has is asked about, in order."""
    from rewriter import engine

    asked: list[bytes] = []
    has = engine.TriggerWords.has
    monkeypatch.setattr(engine.TriggerWords, "has", lambda self, word: asked.append(word) or has(self, word))
    return asked


def test_the_survey_searches_the_words_of_the_rules_its_pre_filter_lets_through(searched):
    """A word a file lacks costs a search of the whole file: once one rule's words show (so the file
    is walked), the survey asks for words only of the rules the ast pre-filter lets through; what it
    lets through is what the words and the pre-filter say together."""
    from rewriter import engine, survey

    source = b"import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    codemods = list(all_codemods())
    found = survey.survey(("m.py", source, codemods))
    every = {w for c in codemods for group in engine._trigger_bytes(c) for w in group}
    assert len(set(searched)) < len(every) / 2
    wanted = engine.wanted_codemods(source, codemods)
    assert found.first_pass == tuple(c.CODE for c in filter_codemods(source, wanted)) and "PML201" in found.first_pass


def test_the_survey_searches_no_word_of_a_candidate_gated_rule_in_a_file_it_does_not_walk(searched):
    """A file whose reads spell no API has no facts: a rule whose gate reads them (PML507: `lax.cond`
    under `vmap`) cannot pass there, and its words are not searched (`switch`, after `vmap` is found
    and `cond` is not); what passes is what the words and the pre-filter say together."""
    from rewriter import engine, survey

    source = b"import numpy as np\n\n\ndef f(x, auxiliary_args=None):  # vmap\n    return np.sum(x)\n"
    codemods = list(all_codemods())
    found = survey.survey(("m.py", source, codemods))
    assert b"auxiliary_args" in searched and b"switch" not in searched
    wanted = engine.wanted_codemods(source, codemods)
    assert "PML205" in {c.CODE for c in wanted} and b"switch" in searched  # (asked of every rule here)
    assert found.first_pass == tuple(c.CODE for c in filter_codemods(source, wanted))


@pytest.mark.parametrize("imports, stars, expected", [
    ({"np": {"numpy"}}, [], False),
    ({"partial": {"functools.partial"}}, [], False),  # applies nothing by itself
    ({"jax": {"jax"}}, [], True),
    ({"J": {"jax.jit"}}, [], True),
    ({"jnp": {"jax.numpy"}}, [], False),
    ({"lax": {"jax.lax"}}, [], True),  # lax.cond
    ({"api": {"jax._src.api"}}, [], True),  # a private module's spelling of jax.jit
    ({"cf": {"jax._src.lax.control_flow"}}, [], True),  # cf.conditionals.cond
    ({"tfc": {"tensorflow.compat"}}, [], True),  # tfc.v2.function is tensorflow.function
    ({"F": {"phi.flow"}}, [], True),  # F.math.jit_compile, through phi.flow's binding of math
    ({"api": {"api.jit"}}, [], False),  # `from .api import jit`: a module of the project's own
    ({}, ["phi.flow"], True),
    ({}, ["os"], False),
])
def test_which_imports_may_spell_an_api(imports, stars, expected):
    from rewriter.analysis.apis import may_denote_an_api

    assert may_denote_an_api(imports, stars) is expected


def test_a_file_whose_imports_reach_no_api_is_not_walked(monkeypatch):
    """It has no facts without a walk, and a rule that reads its identifiers (a migration rule)
    reads them off the summary's walk; a factory elsewhere called here in a loop has it judged again,
    walked, one under another name does not."""
    from rewriter import prefilter, survey
    from rewriter.analysis.facts import FileFacts, RemoteFactory

    walks = []
    visit = prefilter.SyntaxFacts.visit
    monkeypatch.setattr(prefilter.SyntaxFacts, "visit", lambda self, node: (walks.append(node) if node.__class__ is ast.Module else None) or visit(self, node))
    source = b"import numpy as np\n\ndef f(x):\n    for i in range(3):\n        x = step(x)  # jit\n    return x\n"
    codemods = list(all_codemods())
    found = survey.survey(("m.py", source, codemods))
    assert walks == [] and found.first_pass == () and found.factory_sensitive == {"range", "step"}
    assert found.passed_with(FileFacts(factories=(RemoteFactory("step", "jax.jit", "jax", "m.py:1", "step"),))) is None
    assert found.passed_with(FileFacts(factories=(RemoteFactory("np", "jax.jit", "jax", "m.py:1", "np"),))) == ()
    wanted = wanted_codemods(source, codemods)  # as the engine judges a file (its words first)
    assert "PML401" in [c.CODE for c in wanted] and filter_codemods(source, wanted) == [] and walks == []
    # judged again with the factory: walked, and PML401 may fire
    facts = FileFacts(factories=(RemoteFactory("step", "jax.jit", "jax", "m.py:1", "step"),))
    assert "PML401" in [c.CODE for c in filter_codemods(source, wanted, facts)] and len(walks) == 1
    migrating = b"import jax.numpy as jnp\n\ny = jnp.NINF\n"
    assert survey.survey(("m.py", migrating, codemods)).first_pass == ("PML604",) and len(walks) == 1


def _surveyed_syntax(source: bytes):
    """prefilter.Syntax as the survey builds it: with the branches and reads of the summary's walk."""
    from rewriter.prefilter import syntax_of
    from rewriter.project.summary import summarize

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    kids: dict = {}
    met = Met()
    summarize(source, "m", False, tree, kids=kids, met=met)
    return syntax_of(source, None, tree, kids=kids, met=met)


@pytest.mark.parametrize("source, unwalked", [
    (b"import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) + jax.numpy.cos(x)\n", True),
    (b"import jax\n\ndef f(x):\n    return jax.jit(abs)(x)\n", False),
    (b"import jax\n\n@jax.jit\ndef f(x):\n    return x\n", False),  # a decorator is a read
    (b"from jax import jit, numpy\n\ndef f(x):\n    return numpy.sin(x)\n", True),  # `jit` imported, never read
    (b"from jax import jit\n\ng = jit\n", False),
    (b"import jax\n\nL = jax.lax\n\ndef f(p, x):\n    return L.cond(p, abs, abs, x)\n", False),  # a prefix of jax.lax.cond
    (b"from jax._src import api\n\ndef f(g):\n    return api.jit(g)\n", False),  # a private module's jax.jit
    (b"from phi.flow import *\n\ndef f(g):\n    return jit_compile(g)\n", False),  # a star import's name
    (b"from phi.flow import *\n\ndef f(x):\n    return x.sum\n", True),
    (b"import jax\n\ndef f(x):\n    jax.config.update('x', 1)\n    return jax.numpy.sum(x)\n", True),
])
def test_a_file_whose_reads_spell_no_api_is_not_walked(source, unwalked):
    """Finer than its imports: a file that imports `jax` but reads no spelling that may denote an API
    of the table (or a prefix of one) is not walked, and the walk would find no candidate there."""
    syntax = _surveyed_syntax(source)
    assert syntax.spells_no_api is unwalked
    if unwalked:
        assert _passing_when_walked(syntax) == []


def _passing_when_walked(syntax) -> list[str]:
    """The rules whose gates read facts that pass on the facts a full walk of the file finds, even
    where the survey does not walk it."""
    syntax.__dict__["spells_no_api"] = False  # (a cached property: `facts` is the walk's from here on)
    return _passing(syntax)


@pytest.mark.slow
@pytest.mark.parametrize("package", ["phiml", "phi", "equinox", "diffrax", "jax"])
def test_files_whose_imports_reach_no_api_have_no_candidate(package):
    """Syntax.spells_no_api's promise, on every file of the installed packages: a full walk of such a
    file resolves no spelling to an API (other than functools.partial) and passes no gate that reads facts;
    judged on its imports alone, and on its reads (as the survey judges it)."""
    import importlib.util

    from rewriter.analysis.apis import Kind
    from rewriter.prefilter import syntax_of

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} is not installed")
    unwalked = by_reads = 0
    for path in sorted(Path(spec.submodule_search_locations[0]).rglob("*.py")):
        source = path.read_bytes()
        syntax = syntax_of(source)
        if syntax is None:
            continue
        if not syntax.spells_no_api:
            syntax = _surveyed_syntax(source)
            if not syntax.spells_no_api:
                continue
            by_reads += 1
        unwalked += 1
        finder = syntax._walked
        assert _passing_when_walked(syntax) == [], path
        resolved = [t for t, apis in finder.s._apis.items() if any(a.kind is not Kind.PARTIAL for a in apis)]
        assert resolved == [], path
    assert unwalked and by_reads  # (each package has files that import jax or phiml and spell none of their APIs)


@pytest.mark.slow
@pytest.mark.parametrize("package", ["phiml", "phi", "jax"])
def test_identifiers_without_a_walk_are_those_of_the_walk(package):
    """A file the survey does not walk (its reads spell no API, or none of the kinds the gates asked
    for: Syntax.spells) has its identifiers (the migration rules' gates), its calls and the names a
    factory elsewhere must bear to matter read off what the summary's walk met (ast_names.Met) and the
    branches it computed (rewriter/survey.py): they must be the pre-filter walk's own, whichever file it is."""
    import importlib.util

    from rewriter.prefilter import syntax_of
    from rewriter.project.summary import summarize

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} is not installed")
    compared = 0
    for path in sorted(Path(spec.submodule_search_locations[0]).rglob("*.py")):
        source = path.read_bytes()
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        kids: dict = {}
        met = Met()
        summarize(source, "m", False, tree, kids=kids, met=met)
        shared = syntax_of(source, None, tree, kids=kids, met=met)
        identifiers, calls, sensitive = shared.identifiers, shared.calls, shared.factory_sensitive
        assert "_walked" not in shared.__dict__  # (all three read off the branches)
        compared += 1
        walked = shared._walked
        # (a walk that has no summary's walk to read them off collects them itself)
        assert identifiers == syntax_of(source, None, tree, kids=kids)._walked.identifiers.identifiers(), path
        assert sorted(map(id, calls)) == sorted(map(id, walked.all_calls)), path
        assert sensitive == walked.factory_sensitive(), path
    assert compared


def _gates_as_surveyed(source: bytes) -> tuple[list[str], list[str], bool] | None:
    """The rules whose gates pass as the survey asks them (a gate first asks which kinds of API the
    reads spell: Syntax.spells), as they pass when that cannot be told (every gate reads the walk), and
    whether the first spared a walk of a file whose reads spell some API."""
    surveyed = _surveyed_syntax(source)
    if surveyed is None:
        return None
    blind = _surveyed_syntax(source)
    blind.__dict__["_spelled_kinds"] = None  # (a cached property: `spells` cannot tell, as without the reads)
    gated = [c for c in all_codemods() if has_gate(c)]
    passed = [c.CODE for c in gated if c.ast_gate(surveyed)]
    spared = not surveyed.spells_no_api and "_walked" not in surveyed.__dict__
    return passed, [c.CODE for c in gated if c.ast_gate(blind)], spared


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_gate_asks_the_kinds_its_facts_need(path: Path):
    """The kinds of API a gate asks the reads for (Syntax.spells) are necessary for it to pass: as the
    survey asks, every gate passes where it passes with the walk alone."""
    found = _gates_as_surveyed(path.read_bytes())
    if found is not None:
        assert found[0] == found[1]


def test_the_kinds_of_api_spare_walks_of_golden_cases():
    """Not vacuous: some golden cases whose reads spell an API are decided without the walk."""
    assert sum(found[2] for path in SOURCES if (found := _gates_as_surveyed(path.read_bytes()))) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("package", ["phiml", "phi", "equinox", "diffrax", "jax"])
def test_a_gate_asks_the_kinds_its_facts_need_in_installed_packages(package):
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} is not installed")
    spared = 0
    for path in sorted(Path(spec.submodule_search_locations[0]).rglob("*.py")):
        found = _gates_as_surveyed(path.read_bytes())
        if found is not None:
            assert found[0] == found[1], path
            spared += found[2]
    # (files that spell an API and are decided without the walk, so that the comparison is not vacuous;
    # PhiML's own files import its APIs relatively, which a module of no package cannot resolve)
    assert spared or package == "phiml"


@pytest.mark.parametrize("source, kinds", [
    (b"import jax\n\n@jax.jit\ndef f(x):\n    return x\n", {"JIT"}),
    # (`functools.partial` applies nothing by itself: no import reaches it alone, apis.reaching_roots)
    (b"import jax\nfrom functools import partial\n\n@partial(jax.vmap, in_axes=0)\ndef f(x):\n    return x\n", {"VMAP"}),
    (b"from phiml import math\n\ndef f(x):\n    return math.map(abs, x, dims='b')\n", {"MAP"}),
    (b"from phi.flow import *\n\ndef f(g):\n    return jit_compile(g)\n", {"JIT"}),  # through a star import
    (b"from jax import lax as L\n\ndef f(p, x):\n    return L.cond(p, abs, abs, x)\n", {"BRANCH"}),
    (b"import jax\n\nL = jax.lax\n\ndef f(p, x):\n    return L.cond(p, abs, abs, x)\n", set()),  # a prefix: no API
    (b"import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n", set()),
])
def test_the_kinds_of_api_a_file_reads(source: bytes, kinds: set[str]):
    from rewriter.analysis.apis import Kind

    syntax = _surveyed_syntax(source)
    assert {k.name for k in syntax._spelled_kinds} == kinds
    assert all(syntax.spells(Kind[k]) for k in kinds) and not syntax.spells(*(k for k in Kind if k.name not in kinds))
    assert syntax_of(source).spells(Kind.SOLVER)  # without the reads it cannot tell


def test_the_survey_builds_the_reach_table_before_the_workers_fork():
    from rewriter import survey
    from rewriter.analysis import apis

    apis._reaching_names.cache_clear()
    survey.warm()
    assert apis._reaching_names.cache_info().currsize == 1
    assert apis.reaches("jax.jit") and apis._reaching_names.cache_info().currsize == 1  # the table it built


@pytest.mark.parametrize("source", [
    "def f(g):  # jit\n    return g.ｗith_preprocessing(lambda y: y)\n".encode(),  # CPython reads `ｗ` as `w`
    b"# coding: utf-7\ndef f(g, jit):\n    return g.with+AF8-preprocessing(lambda y: y)\n",  # `+AF8-` is `_`
])
def test_with_preprocessing_is_read_off_the_tree_where_the_bytes_spell_it_otherwise(source):
    """`.with_preprocessing(...)` makes a candidate without any import (a solver's method): a file whose
    bytes do not hold the word may still call it, and must be walked (found in review)."""
    from rewriter import survey
    from rewriter.prefilter import syntax_of
    from rewriter.project.summary import summarize

    tree = ast.parse(source)
    kids: dict = {}
    summarize(source, "m", False, tree, kids=kids)
    assert not syntax_of(source, None, tree, kids=kids).spells_no_api
    assert not syntax_of(source).spells_no_api
    assert "PML101" in [c.CODE for c in filter_codemods(source, list(all_codemods()))]
    assert "PML101" in survey.survey(("m.py", source, list(all_codemods()))).first_pass


@pytest.mark.parametrize("source, found", [
    # CPython reads `ｊit` as `jit` (NFKC), and so does the rule, decided on `ast` (libcst kept the name as
    # written, and PML302 did not match it there: the code does build a jit per call)
    ("import jax\n\n\ndef f(x):\n    return jax.ｊit(abs)(x)\n".encode(), ["PML302"]),
    (b"# coding: utf-7\nimport jax\n\n\ndef f(x):\n    return jax.+AGo-it(abs)(x)\n", ["PML302"]),  # `+AGo-` is `j`
])
def test_trigger_words_are_found_where_cpython_reads_names_otherwise_than_the_bytes(source, found):
    """A rule's words are searched in the source as CPython reads its names too (found in review: the
    bytes alone missed `jit`, and PML302 never ran on working code that builds a jit per call)."""
    from rewriter.engine import TriggerWords, wanted_codemods
    from rewriter.registry import by_code

    assert TriggerWords(source).wanted(by_code("PML302"))
    result = process_source(source, "m.py", Settings(wanted_codemods(source, list(all_codemods()))))
    assert [f.code for f in result.findings] == found


_SCRIPTED_IF = "import torch\n\n@torch.jit.script\ndef f(x):\n    if x.sum() > 0:\n        x = x * 2\n    return x\n"
_LONG_LOOP = "import {lib}\n\n{decorator}\ndef f(x):\n    for i in range(1000):\n        x = x + i\n    return x\n"
_HELPER = ("import jax\nimport torch\n\ndef helper(x):\n    if x.sum() > 0:\n        x = x * 2\n    return x\n\n"
           "@torch.jit.script\ndef a(x):\n    return helper(x)\n\n@{jit}\ndef b(x):\n    return helper(x)\n")
_COUNT = "import {lib}\n\n@{decorator}\ndef f(x, n: int):\n    for i in range(n):\n        x = x * 2\n    return x\n"


@pytest.mark.parametrize("source, code, passes", [
    (_SCRIPTED_IF, "PML201", False),  # torch.jit.script compiles the `if`
    (_SCRIPTED_IF.replace("torch.jit.script", "torch.compile"), "PML201", False),  # a graph break
    (_SCRIPTED_IF.replace("torch.jit.script", "torch.jit.trace"), "PML201", True),  # bakes in one branch
    (_SCRIPTED_IF.replace("import torch", "import jax").replace("torch.jit.script", "jax.jit"), "PML201", True),
    (_SCRIPTED_IF.replace("import torch", "import tensorflow as tf").replace("torch.jit.script", "tf.function"), "PML201", False),
    (_SCRIPTED_IF.replace("import torch", "import tensorflow as tf").replace("torch.jit.script", "tf.function(autograph=False)"),
     "PML201", True),
    (_SCRIPTED_IF.replace("import torch", "import tensorflow as tf").replace("torch.jit.script", "tf.function(**options)"),
     "PML201", True),  # autograph cannot be read: it may be off
    (_HELPER.format(jit="torch.jit.script"), "PML201", False),  # a helper only compiled code calls
    (_HELPER.format(jit="jax.jit"), "PML201", True),  # ... and one a jax trace reaches too
    (_LONG_LOOP.format(lib="torch", decorator="@torch.jit.script"), "PML206", False),  # one compiled loop
    (_LONG_LOOP.format(lib="torch", decorator="@torch.compile"), "PML206", True),  # recorded per iteration
    (_LONG_LOOP.format(lib="jax", decorator="@jax.jit"), "PML206", True),
    (_COUNT.format(lib="torch", decorator="torch.jit.script"), "PML204", False),  # `n: int` stays an int
    (_COUNT.format(lib="jax", decorator="jax.jit"), "PML204", True),
])
def test_a_traced_value_gate_asks_what_the_compiler_does_with_python_control_flow(source: str, code: str, passes: bool):
    """The gates of PML201-PML204 and PML206 count the functions a compiler may trace only where that
    compiler makes the rule's hazard (compilers.py): `torch.jit.script` compiles an `if`, a loop and an
    `int` parameter; `torch.compile` breaks the graph at an `if` but records each iteration of a loop;
    `tf.function` converts an `if` with autograph. A gate that fails is right: the rule, let through
    without gates, finds nothing there."""
    from rewriter.registry import by_code

    rule = by_code(code)
    assert rule.ast_gate(syntax_of(source.encode())) is passes
    if not passes:
        found = process_source(source.encode(), "m.py", Settings(all_codemods(), ast_prefilter=False))
        assert code not in {f.code for f in found.findings}


_NESTED = "import jax\n\n\ndef simulate(x):\n{body}\n"
_STEP = "    @jax.jit\n    def step(v):\n        return v * 2\n"


@pytest.mark.parametrize("body, passes", [
    (_STEP + "    return step(x)", True),
    (_STEP + "    return step", False),  # returned: a jit factory
    (_STEP + "    return [step(v) for v in x]", True),
    (_STEP + "    return list(map(step, x))", False),  # passed on
    (_STEP + "    return x", False),  # never read
    (_STEP + "    step = None\n    return x", False),  # bound twice
    (_STEP + "    def inner(step):\n        return step\n    return step(inner(x))", True),  # another `step`
    ("    if x is None:\n" + _STEP.replace("\n    ", "\n        ").replace("    @", "        @", 1) + "        x = step(x)\n    return x",
     False),  # under a condition
])
def test_the_nested_jit_gate_reads_the_rules_own_conditions(body: str, passes: bool):
    """PML102's gate: a jit def that is a statement of its function's body, bound once there and only
    called there. Where it fails, the rule let through without gates finds nothing either; where it
    passes here, the rule reports."""
    from rewriter.registry import by_code

    source = _NESTED.format(body=body).encode()
    assert by_code("PML102").ast_gate(syntax_of(source)) is passes
    found = process_source(source, "m.py", Settings(all_codemods(), ast_prefilter=False))
    assert ("PML102" in {f.code for f in found.findings}) is passes


@pytest.mark.parametrize("source, passes", [
    ("from phi.flow import *\n\ny = math.transpose(x, (1, 0))\n", True),  # phi.flow's `math` is phiml.math
    ("from phi.flow import *\nimport numpy as np\n\ny = np.transpose(x)\n", False),
    ("from phi.flow import *\n\ndef transpose(x):\n    return x.T\n", False),  # a name, not `math.transpose`
    ("from phi.flow import *\nfrom mylib import *\n\ny = math.transpose(x, (1, 0))\n", False),  # mylib may bind `math`
    ("from mylib import *\nfrom phi.flow import *\n\ny = math.transpose(x, (1, 0))\n", True),
    ("from phi.math import *\n\ny = divide_no_nan(a, b)\n", True),
])
def test_a_migration_gate_resolves_what_a_star_import_binds(source: str, passes: bool):
    """Under `*` imports, the migration rules' gate reads each chain as `star_name` does (the last `*`
    import whose exports are known, and not past one whose exports are not), not every identifier
    that shares a source's last name. The rule, let through without gates, agrees."""
    from rewriter.registry import by_code

    assert by_code("PML602").ast_gate(syntax_of(source.encode())) is passes
    found = process_source(source.encode(), "m.py", Settings(all_codemods(), ast_prefilter=False))
    assert ("PML602" in {f.code for f in found.findings}) is passes


_METHOD = ("import jax\nfrom functools import partial\n\n\nclass Model:\n    def __init__(self, k):\n        self.k = k\n\n"
           "    @partial(jax.jit, static_argnums=0)\n    def step(self, x):\n        return x * self.k\n{more}")


@pytest.mark.parametrize("code, more, passes", [
    ("PML506", "", False),  # `self.k` is set only by the constructor
    ("PML506", "\n    def retune(self, k):\n        self.k = k\n", True),
    ("PML506", "\nmodel = Model(2)\nmodel.k = 3\n", True),
    ("PML401", "\n    def run(self, x, n):\n        for i in range(n):\n            x = self.step(x)\n        return x\n", True),
    ("PML401", "\n    def run(self, x):\n        return self.step(x)\n", False),  # not called in a loop
])
def test_the_method_gates_read_what_their_rules_need(code: str, more: str, passes: bool):
    """PML506's gate wants an attribute assigned after construction, PML401's a jit-decorated method
    called in a loop: a jit-decorated method alone lets neither through. Where a gate fails, the rule
    let through without gates finds nothing."""
    from rewriter.registry import by_code

    source = _METHOD.format(more=more).encode()
    assert by_code(code).ast_gate(syntax_of(source)) is passes
    if not passes:
        found = process_source(source, "m.py", Settings(all_codemods(), ast_prefilter=False))
        assert code not in {f.code for f in found.findings}


@pytest.mark.parametrize("source, passes", [
    ("from phiml import math\n\n@math.jit_compile\ndef f(x):\n    return math.gradient(loss, 'x')(x)\n", True),
    ("from phiml import math\n\nstep = math.jit_compile(math.gradient(loss, 'x'))\n", True),
    ("from phiml import math\n\n@math.jit_compile\ndef f(x, tape):\n    return tape.gradient(x, x)\n", False),  # a tape's
    ("import jax\nfrom phiml import math\n\n@jax.jit\ndef f(x):\n    return math.gradient(loss, 'x')(x)\n", False),  # not PhiML's jit
])
def test_the_gradient_gate_asks_which_gradient_under_which_jit(source: str, passes: bool):
    """PML504's gate reads what a callee may denote, not its last name, and only under PhiML's jit,
    as the rule does. Where it fails, the rule let through without gates finds nothing."""
    from rewriter.registry import by_code

    assert by_code("PML504").ast_gate(syntax_of(source.encode())) is passes
    if not passes:
        found = process_source(source.encode(), "m.py", Settings(all_codemods(), ast_prefilter=False))
        assert "PML504" not in {f.code for f in found.findings}


@pytest.mark.parametrize("source, found, alone", [
    (b"f = jax.jit(g)\n", True, True),  # ASCII, no declaration: the bytes alone
    (b"# -*- coding: utf-8 -*-\nf = jax.jit(g)\n", True, True),
    ("# \u00e9t\u00e9\nf = jax.jit(g)\n".encode(), True, True),  # UTF-8 that NFKC leaves as it is
    ("x = 1  # \u00e9\n\uff4a\uff49\uff54(f)\n".encode(), True, False),  # full-width: only that line follows
    ("s = '\u00e9'\n".encode(), False, True),
    (b"# coding: utf-7\nx = jax.+AF8-jit\n", True, False),  # `_jit` only as CPython reads it
    (b"\xef\xbb\xbff = jax.jit(g)\n", True, False),  # a BOM: decoded
    (b"x = '\xff'  # jit\n", True, True),  # undecodable: the bytes (its parse says why)
])
def test_words_are_searched_where_cpython_reads_them(source, found, alone):
    from rewriter.analysis.ast_names import words_text

    text = words_text(source)
    assert (b"jit" in text) is found
    assert (text == source) is alone and text.startswith(source)
    if b"utf-7" in source:
        assert b"_jit" in text and b"_jit" not in source
    # The last answer is kept for the same bytes; other bytes, equal or not, get their own.
    assert words_text(source) == text
    assert words_text(bytes(bytearray(source))) == text and words_text(b"s = 1\n") == b"s = 1\n"
    other = "x = 1  # \uff4a\n".encode()  # (not ASCII: asked after `source`, it must not get its answer)
    assert words_text(other) == other + b"\nx = 1  # j" and words_text(source) == text
