"""The project index (rewriter/project): summaries, name resolution across modules, the facts it gives
each file, and the cache that keys a file's result on those facts."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rewriter import runner
from rewriter.cache import ResultCache
from rewriter.config import Config
from rewriter.project import index as index_module
from rewriter.project.index import Fn, Jitted, ProjectIndex, module_name, project_root
from rewriter.project.summary import Summary, summarize

PHYSICS = """\
from phiml import math


def limiter(v, strength):
    if (v > 0).all:
        return v * strength
    return v
"""

TRAIN = """\
from phiml import math
from physics import limiter


@math.jit_compile
def step(u):
    return limiter(u * 0.5, 3.)
"""

OTHER = """\
def unrelated(x):
    return x + 1
"""


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _index(root: Path) -> ProjectIndex:
    return ProjectIndex.build(str(root), [str(p) for p in sorted(root.rglob("*.py"))])


# -- module names and roots ----------------------------------------------------------------------

def test_module_names_follow_the_packages_around_a_file(tmp_path: Path):
    _project(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/sub/mod.py": "", "script.py": ""})
    assert module_name(str(tmp_path / "src/pkg/sub/mod.py")) == ("pkg.sub.mod", False)
    assert module_name(str(tmp_path / "src/pkg/__init__.py")) == ("pkg", True)
    assert module_name(str(tmp_path / "script.py")) == ("script", False)
    assert project_root(str(tmp_path / "src/pkg/sub")) == str(tmp_path)


def test_a_module_name_remembered_for_a_relative_path_follows_the_working_folder(tmp_path: Path, monkeypatch):
    """module_name is remembered per absolute path: the same relative path read from another folder is
    another file."""
    _project(tmp_path, {"a/pkg/__init__.py": "", "a/pkg/mod.py": "", "b/pkg/mod.py": ""})
    monkeypatch.chdir(tmp_path / "a")
    assert module_name("pkg/mod.py") == ("pkg.mod", False)
    monkeypatch.chdir(tmp_path / "b")
    assert module_name("pkg/mod.py") == ("mod", False)  # no `__init__.py` there: a folder of scripts


# -- summaries -----------------------------------------------------------------------------------

def test_a_summary_classifies_what_each_call_passes():
    summary = summarize(TRAIN.encode() + b"\n\ndef run(x):\n    n = 3\n    return step(x, n, x.shape[0], len(x))\n", "train")
    step = summary.functions["step"]
    assert step.jit == ["phiml.math.jit_compile", "phiml", []]
    (call,) = step.calls
    assert call.target == "train.limiter" and call.args == [[0, "params", ["u"]], [1, "python", 3.0]]
    (run_call,) = summary.functions["run"].calls
    assert [a[1:] for a in run_call.args] == [["params", ["x"]], ["python", 3], ["python", None], ["python", None]]
    assert summary.bindings["limiter"] == [[2, "import", "physics.limiter"]]


def test_a_call_through_a_local_alias_is_a_call_of_what_it_names():
    """`fn = step_jit; fn(x, n=None)`: a call of `step_jit`, with its arguments (`None` its own kind); an alias
    also passed on, or bound twice, stays a read the index cannot see into."""
    source = (b"import jax\nfrom lib import step\nstep_jit = jax.jit(step)\n\n"
              b"def test_a(x):\n    fn = step_jit\n    return fn(x, n=None)\n\n"
              b"def test_b(x):\n    fn = step_jit\n    run(fn)\n    return fn(x)\n\n"
              b"def test_c(x, y):\n    fn = step_jit\n    if y:\n        fn = other\n    return fn(x)\n")
    summary = summarize(source, "tests.test_lib")
    (call,) = summary.functions["test_a"].calls
    assert call.target == "tests.test_lib.step_jit" and call.args == [[0, "params", ["x"]], ["n", "none", None]]
    assert summary.functions["test_b"].calls == []  # (`run` is bound nowhere: no call of it is recorded)
    assert summary.functions["test_c"].calls == []
    assert [line for target, line in summary.references if target == "tests.test_lib.step_jit"] == [10]  # (the first)


def test_a_test_class_methods_calls_are_recorded_unless_a_decorator_may_trace_them():
    source = (b"import jax\nimport pytest\nfrom lib import step\nstep_jit = jax.jit(step)\n\n"
              b"class TestStep:\n    @pytest.mark.parametrize('n', [1, 2])\n    def test_a(self, n):\n"
              b"        fn = step_jit\n        return fn(n, k=None)\n\n"
              b"    @jax.jit\n    def traced(self, x):\n        return step_jit(x)\n")
    summary = summarize(source, "tests.test_lib")
    assert list(summary.methods) == ["TestStep.test_a"]
    (call,) = summary.methods["TestStep.test_a"]
    assert call.target == "tests.test_lib.step_jit" and call.args == [[0, "params", ["n"]], ["k", "none", None]]
    assert Summary.from_json(summary.to_json()).methods == summary.methods


def test_a_summary_round_trips_through_json():
    summary = summarize(TRAIN.encode(), "train")
    assert Summary.from_json(json.loads(json.dumps(summary.to_json()))) == summary


def test_a_summary_round_trips_through_pickle():
    """As summaries come back from the survey's worker processes (marshalled plain data)."""
    import pickle

    summary = summarize(TRAIN.encode() + b"\nstep(3.0)\n", "train")
    assert summary.functions["step"].calls and summary.calls
    assert pickle.loads(pickle.dumps(summary)) == summary
    stored = Summary.stored("train", False, summary.stored_form())
    assert pickle.loads(pickle.dumps(stored)) == summary


def test_a_summary_of_a_file_python_cannot_parse_is_none():
    assert summarize(b"def f(:\n", "broken") is None


def test_factories_are_recognised():
    source = (b"import jax\n\n\ndef make_step(dt):\n    @jax.jit\n    def step(x):\n        return x * dt\n    return step\n\n\n"
              b"def make_plain(k):\n    def f(x):\n        return x * k\n    return f\n\n\n"
              b"def not_a_factory(k):\n    return k\n")
    summary = summarize(source, "m")
    assert summary.functions["make_step"].returns_jit == ["jax.jit", "jax"]
    assert summary.functions["make_plain"].returns_new_function == "f" and summary.functions["make_plain"].returns_jit is None
    assert not summary.functions["not_a_factory"].returns_new_function



PREDICATES = """
import functools
import numpy as np
import jax.numpy as jnp

LIMIT = 3


def scalar_like(x):
    return isinstance(x, (int, float)) or np.isscalar(x)


def has_rows(x):
    if x is None:
        return False
    return x.ndim >= 1 and type(x) in (list, tuple) or len(x.shape) > LIMIT


def rank_is(x, rank):
    return x.ndim == rank


def positive(x):
    return x > 0


def through_local(x):
    y = x
    return isinstance(y, int) and y > 0


def staged(x):
    return jnp.isscalar(x) or jnp.all(x)


def none_only(x):
    print(x)


def generator(x):
    yield isinstance(x, int)
    return True


def delegating(x):
    for part in x:
        if part:
            yield from part
    return isinstance(x, int)


@functools.cache
def decorated(x):
    return isinstance(x, int)


def local_call(x):
    def isinstance(a, b):
        return a
    return isinstance(x, int)
"""


def test_functions_returning_python_values_for_any_argument_are_recognised():
    """summary.Function.returns_python: what ast_flow.py calls static whatever the arguments hold."""
    summary = summarize(PREDICATES.encode(), "m")
    found = {name for name, f in summary.functions.items() if f.returns_python}
    assert found == {"scalar_like", "has_rows"}
    assert Summary.from_json(summary.to_json()).functions["has_rows"].returns_python


def test_a_predicate_imported_from_another_module_is_a_fact_of_the_importer(tmp_path: Path):
    root = _project(tmp_path, {
        "checks.py": PREDICATES,
        "main.py": "from checks import scalar_like, positive, has_rows as rows\nimport checks\n",
        "other.py": "from checks import rank_is\n",
    })
    index = _index(root)
    assert index.facts_for(str(root / "main.py")).python_results == ("rows", "scalar_like")
    assert not index.facts_for(str(root / "other.py"))
    assert index.facts_for(str(root / "main.py")).sources == ("checks.py",)


def test_a_predicate_built_on_predicates_and_one_called_through_its_module_are_facts(tmp_path: Path):
    """`Function.python_if`: a function whose returns are Python values but for calls of other
    functions returns one if each of them does, followed through the index (across modules, not
    around a cycle). A call through an imported module (`checks.batched(x)`) is a fact under its
    spelling there."""
    root = _project(tmp_path, {
        "shapes.py": "import numpy as np\n\n\ndef is_scalar(x):\n    return isinstance(x, float) or np.isscalar(x)\n",
        "checks.py": (
            "from shapes import is_scalar\n\n\n"
            "def batched(x):\n    return not is_scalar(x) and x.ndim > 1\n\n\n"
            "def either(x):\n    return batched(x) or is_scalar(x)\n\n\n"
            "def doubled(x):\n    return x * 2\n\n\n"
            "def uses_doubled(x):\n    return doubled(x) > 0\n\n\n"
            "def ping(x):\n    return pong(x)\n\n\n"
            "def pong(x):\n    return ping(x)\n"),
        "main.py": (
            "import checks\nfrom checks import either, uses_doubled, ping\n\n\n"
            "def f(x):\n    return checks.batched(x), checks.doubled(x), checks.uses_doubled(x), either(x)\n"),
    })
    checks = summarize((root / "checks.py").read_bytes(), "checks")
    assert checks.functions["batched"].python_if == ["checks.is_scalar"]
    assert not checks.functions["batched"].returns_python
    assert checks.functions["either"].python_if == ["checks.batched", "checks.is_scalar"]
    assert checks.functions["doubled"].python_if == []
    assert Summary.from_json(checks.to_json()).functions["batched"].python_if == ["checks.is_scalar"]
    index = _index(root)
    assert index.facts_for(str(root / "main.py")).python_results == ("checks.batched", "either")


def test_a_predicate_bound_twice_is_no_fact_and_long_chains_are_cut(tmp_path: Path):
    """A name bound more than once (`try: import fast as checks` / `except: import checks`; a `def`
    beside a `from ... import` of the same name) may be either binding: no fact. A chain of predicates
    longer than MAX_PREDICATE_DEPTH is not followed to its end (no RecursionError)."""
    chain = "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n\n\n" for i in range(1000)) + "def f1000(x):\n    return isinstance(x, int)\n"
    root = _project(tmp_path, {
        "checks.py": "def batched(x):\n    return isinstance(x, tuple)\n",
        "fast.py": "import jax.numpy as jnp\n\n\ndef batched(x):\n    return jnp.any(x > 0)\n",
        "either.py": "try:\n    from fast import batched\nexcept ImportError:\n    def batched(x):\n        return isinstance(x, tuple)\n",
        "main.py": "try:\n    import fast as checks\nexcept ImportError:\n    import checks\nfrom either import batched\n\n\n"
                   "def f(x):\n    return checks.batched(x), batched(x)\n",
        "plain.py": "import checks\nfrom chain import f0, f995\n\n\ndef f(x):\n    return checks.batched(x), f0(x), f995(x)\n",
        "chain.py": chain,
    })
    index = _index(root)
    assert not index.facts_for(str(root / "main.py")).python_results
    assert index.facts_for(str(root / "plain.py")).python_results == ("checks.batched", "f995")


def test_a_predicate_fact_is_not_applied_where_its_name_is_bound_in_the_function(tmp_path: Path):
    """ast_flow.py applies a predicate fact only where the name reads the module's one binding: an import
    of another module under that name inside the jitted function is a call of the other module's."""
    root = _project(tmp_path, {
        "checks.py": "def batched(x):\n    return isinstance(x, tuple)\n",
        "fast.py": "import jax.numpy as jnp\n\n\ndef batched(x):\n    return jnp.any(x > 0)\n",
        "main.py": "import jax\nimport checks\n\n\n@jax.jit\ndef f(x):\n    import fast as checks\n    if checks.batched(x):\n"
                   "        return x\n    return -x\n\n\n@jax.jit\ndef g(x):\n    if checks.batched(x):\n        return x\n    return -x\n",
    })
    report = runner.run([str(root)], Config(root=str(root)), write=False, jobs=1)
    assert [(f.code, f.span.line) for r in report.results for f in r.findings] == [("PML201", 8)]


def test_a_star_import_may_rebind_a_predicate_and_packages_imported_twice_are_one(tmp_path: Path):
    """A module with a star import may rebind any name (no predicate facts); `import pkg.checks` and
    `import pkg.other` both bind `pkg` to the package: `pkg.checks.batched(x)` keeps its fact."""
    root = _project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/checks.py": "def batched(x):\n    return isinstance(x, tuple)\n",
        "pkg/other.py": "",
        "fast.py": "import jax.numpy as jnp\n\n\ndef batched(x):\n    return jnp.any(x > 0)\n",
        "starred.py": "from pkg.checks import batched\nfrom fast import *\n\n\ndef f(x):\n    return batched(x)\n",
        "both.py": "import jax\nimport pkg.checks\nimport pkg.other\n\n\n@jax.jit\ndef f(x):\n    if pkg.checks.batched(x):\n"
                   "        return x\n    return -x\n",
    })
    index = _index(root)
    assert not index.facts_for(str(root / "starred.py")).python_results
    assert index.facts_for(str(root / "both.py")).python_results == ("pkg.checks.batched",)
    report = runner.run([str(root / "both.py")], Config(root=str(root)), write=False, jobs=1)
    assert not [f for r in report.results for f in r.findings]
    rebound = (root / "both.py").read_text().replace("import pkg.other\n", "import pkg.other\n\n\ndef setup():\n"
                                                      "    global pkg\n    import pkg.other, fast as pkg\n")
    (root / "rebound.py").write_text(rebound)  # (`pkg` may be `fast` once setup() ran)
    report = runner.run([str(root / "rebound.py")], Config(root=str(root)), write=False, jobs=1)
    assert [f.code for r in report.results for f in r.findings] == ["PML201"]
    (root / "aliased.py").write_text((root / "both.py").read_text().replace("import pkg.other\n", "import pkg.other, fast as pkg\n"))
    report = runner.run([str(root / "aliased.py")], Config(root=str(root)), write=False, jobs=1)
    assert [f.code for r in report.results for f in r.findings] == ["PML201"]  # (the last alias binds `pkg`)


def test_an_edited_predicate_updates_the_facts_of_who_calls_it(tmp_path: Path):
    """A predicate's summary is part of what other modules see of it (index._surface): an edit that
    makes it return an array takes it out of the facts of the modules that call it, through others."""
    root = _project(tmp_path, {
        "shapes.py": "def is_scalar(x):\n    return isinstance(x, float)\n",
        "checks.py": "from shapes import is_scalar\n\n\ndef batched(x):\n    return not is_scalar(x)\n",
        "main.py": "import checks\nfrom checks import batched\n\n\ndef f(x):\n    return checks.batched(x)\n",
    })
    sources = {str(p): p.read_bytes() for p in sorted(root.glob("*.py"))}
    index = ProjectIndex.build(str(root), list(sources), sources=sources)
    assert index.facts_for(str(root / "main.py")).python_results == ("batched", "checks.batched")
    index.update(str(root / "shapes.py"), b"def is_scalar(x):\n    return x > 0\n")
    assert not index.facts_for(str(root / "main.py"))


# -- resolution ----------------------------------------------------------------------------------

def test_names_resolve_through_imports_aliases_and_re_exports(tmp_path: Path):
    root = _project(tmp_path, {
        "sim/__init__.py": "from .physics import limiter\nfrom .physics import *\n",
        "sim/physics.py": PHYSICS + "\n\ndef other(x):\n    return x\n",
        "main.py": "import sim\nfrom sim import limiter as lim\nalias = sim.physics.other\n",
    })
    index = _index(root)
    assert index.resolve("main.lim") == Fn("sim.physics", "limiter")
    assert index.resolve("main.sim.limiter") == Fn("sim.physics", "limiter")
    assert index.resolve("main.alias") == Fn("sim.physics", "other")
    assert index.resolve("sim.other") == Fn("sim.physics", "other")  # through the star import
    assert index.resolve("main.nothing") is None


def test_a_rebound_name_is_two_things(tmp_path: Path):
    root = _project(tmp_path, {
        "physics.py": PHYSICS,
        "main.py": "import jax\nfrom physics import limiter\nbefore = limiter(1, 2)\nlimiter = jax.jit(limiter)\n",
    })
    index = _index(root)
    assert index.resolve("main.limiter", before_line=3) == Fn("physics", "limiter")
    after = index.resolve("main.limiter")
    assert isinstance(after, Jitted) and after.function == Fn("physics", "limiter") and after.by_binding


def test_same_named_scripts_in_two_folders_resolve_beside_their_importer(tmp_path: Path):
    root = _project(tmp_path, {
        "a/physics.py": PHYSICS, "a/train.py": TRAIN,
        "b/physics.py": "def limiter(v, strength):\n    return v\n", "b/train.py": TRAIN,
    })
    index = _index(root)
    assert index.facts_for(str(root / "a/physics.py")).traces
    assert index.facts_for(str(root / "b/physics.py")).traces  # b's own physics, not a's
    assert index.facts_for(str(root / "a/physics.py")).sources == ("a/train.py",)
    assert index.facts_for(str(root / "b/physics.py")).sources == ("b/train.py",)


# -- facts ---------------------------------------------------------------------------------------

def test_a_helper_called_from_a_jit_function_elsewhere_is_traced(tmp_path: Path):
    index = _index(_project(tmp_path, {"physics.py": PHYSICS, "train.py": TRAIN, "other.py": OTHER}))
    facts = index.facts_for(str(tmp_path / "physics.py"))
    (trace,) = facts.traces
    assert (trace.function, trace.how, trace.api) == ("limiter", "called", "phiml.math.jit_compile")
    params = {p.name: p.trace for p in trace.params}
    assert params == {"v": "traced"}  # only tracers cross modules; `strength` stays a Python value there
    assert "train.py" in trace.caller and facts.sources == ("train.py",)
    assert not index.facts_for(str(tmp_path / "train.py")) and not index.facts_for(str(tmp_path / "other.py"))


def test_traced_values_propagate_through_helpers_of_a_third_module(tmp_path: Path):
    index = _index(_project(tmp_path, {
        "util.py": "def clip(x):\n    if x > 1:\n        return 1\n    return x\n",
        "physics.py": "from util import clip\n\n\ndef limiter(v, s):\n    return clip(v) * s\n",
        "train.py": TRAIN,
    }))
    (trace,) = index.facts_for(str(tmp_path / "util.py")).traces
    assert trace.function == "clip" and trace.params[0].trace == "traced"
    assert "`u`: parameter of `step`" in trace.params[0].why


def test_calls_of_a_jit_function_from_other_modules_are_evidence(tmp_path: Path):
    index = _index(_project(tmp_path, {
        "model.py": "import jax\n\n\n@jax.jit\ndef pick(v, total):\n    if total:\n        return v.sum()\n    return v\n",
        "train.py": "import jax.numpy as jnp\nfrom model import pick\n\n\ndef go(v):\n    return pick(v, True), pick(jnp.ones(2), total=False)\n",
    }))
    calls = index.facts_for(str(tmp_path / "model.py")).calls
    assert [(c.function, c.where) for c in calls] == [("pick", "train.py:6"), ("pick", "train.py:6")]
    assert {(a.param, a.kind, a.value) for c in calls for a in c.args} == {
        ("v", "unknown", None), ("total", "python", True), ("v", "array", None), ("total", "python", False)}


def test_an_update_names_exactly_the_files_whose_facts_changed(tmp_path: Path):
    root = _project(tmp_path, {"physics.py": PHYSICS, "train.py": TRAIN, "other.py": OTHER})
    index = _index(root)
    changed = index.update(str(root / "train.py"), TRAIN.replace("limiter(u * 0.5, 3.)", "u * 0.5").encode())
    assert changed == {str((root / "physics.py").resolve())}
    assert not index.facts_for(str(root / "physics.py"))
    assert index.update(str(root / "other.py"), (OTHER + "# a comment\n").encode()) == set()
    assert index.update(str(root / "train.py"), TRAIN.encode()) == {str((root / "physics.py").resolve())}


def test_summaries_are_cached_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = _project(tmp_path / "p", {"physics.py": PHYSICS, "train.py": TRAIN})
    cache = ResultCache.at(tmp_path / "cache")
    files = [str(root / "physics.py"), str(root / "train.py")]
    first = ProjectIndex.build(str(root), files, cache=cache)
    monkeypatch.setattr(index_module, "summarize", lambda *a: pytest.fail("summarised again"))
    second = ProjectIndex.build(str(root), files, cache=cache)
    assert second.facts_for(files[0]) == first.facts_for(files[0])


def test_a_build_without_a_cache_stores_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Without a cache (`--no-cache`) a summary is neither keyed nor written out as JSON."""
    root = _project(tmp_path / "p", {"physics.py": PHYSICS, "train.py": TRAIN})
    files = [str(root / "physics.py"), str(root / "train.py")]
    monkeypatch.setattr(index_module, "_summary_key", lambda *a: pytest.fail("keyed"))
    monkeypatch.setattr(index_module.json, "dumps", lambda *a, **k: pytest.fail("stored"))
    index = ProjectIndex.build(str(root), files)
    assert index.facts_for(files[0]).traces  # limiter is traced from train.step


def test_a_build_served_by_the_cache_reads_a_summary_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A warm run needs its files' facts, cached too, not their summaries: they are read from their
    records the first time a field is asked for, and are then what was summarised."""
    root = _project(tmp_path / "p", {"physics.py": PHYSICS, "train.py": TRAIN})
    cache = ResultCache.at(tmp_path / "cache")
    files = [str(root / "physics.py"), str(root / "train.py")]
    first = ProjectIndex.build(str(root), files, cache=cache)
    facts = [first.facts_for(f) for f in files]  # (propagated, and stored)
    reads = []
    original = Summary.from_json.__func__
    monkeypatch.setattr(Summary, "from_json", classmethod(lambda cls, data: reads.append(data["module"]) or original(cls, data)))
    second = ProjectIndex.build(str(root), files, cache=cache)
    assert [second.facts_for(f) for f in files] == facts and facts[0]
    assert reads == []
    assert second.modules == first.modules and sorted(reads) == sorted(first.modules)
    assert second.modules["train"].functions["step"].jit == ["phiml.math.jit_compile", "phiml", []]
    assert sorted(reads) == sorted(first.modules), "each record is read once"


# -- the cache of results depends on the facts a file used ---------------------------------------

def _recomputed(root: Path, cache: ResultCache) -> set[str]:
    report = runner.run([str(root)], Config(root=str(root)), write=False, jobs=1, cache=cache)
    assert not report.errors, [(r.path, r.error) for r in report.errors]
    return {Path(r.path).name for r in report.results if not r.cached}


def test_a_change_recomputes_exactly_the_results_that_depend_on_it(tmp_path: Path):
    root = _project(tmp_path / "p", {"physics.py": PHYSICS, "train.py": TRAIN, "other.py": OTHER})
    cache = ResultCache.at(tmp_path / "cache")
    assert _recomputed(root, cache) == {"physics.py", "train.py", "other.py"}
    assert _recomputed(root, cache) == set()
    # train.py no longer calls the helper: its own result, and physics.py's (whose facts came from it).
    (root / "train.py").write_text(TRAIN.replace("limiter(u * 0.5, 3.)", "u * 0.5"))
    assert _recomputed(root, cache) == {"train.py", "physics.py"}
    # A comment in physics.py: its own result only; train.py used no fact from it.
    (root / "physics.py").write_text(PHYSICS + "# tuned\n")
    assert _recomputed(root, cache) == {"physics.py"}
    # train.py as it first was (its first result is served again); physics.py has its facts back, with
    # the comment: a new key.
    (root / "train.py").write_text(TRAIN)
    assert _recomputed(root, cache) == {"physics.py"}
    # An edit of train.py that tells physics.py nothing new: physics.py stays cached.
    (root / "train.py").write_text(TRAIN + "\n# a note\n")
    assert _recomputed(root, cache) == {"train.py"}


def test_a_notebook_is_part_of_the_project(tmp_path: Path):
    """A jitted function in a notebook traces a helper of a module beside it; the IPython lines of the
    notebook are masked, as for its own analysis."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    notebook.cells = [nbformat.v4.new_code_cell("%matplotlib inline\nfrom phiml import math\nfrom physics import limiter"),
                      nbformat.v4.new_code_cell("@math.jit_compile\ndef step(u):\n    return limiter(u, 2.)")]
    root = _project(tmp_path, {"physics.py": PHYSICS})
    nbformat.write(notebook, str(root / "explore.ipynb"))
    index = ProjectIndex.build(str(root), [str(root / "physics.py"), str(root / "explore.ipynb")])
    (trace,) = index.facts_for(str(root / "physics.py")).traces
    assert trace.function == "limiter" and "explore.ipynb" in trace.caller


def test_a_helper_also_called_eagerly_gets_no_facts(tmp_path: Path):
    """A function some code calls outside any trace is general-purpose (it must work on Python values
    and arrays alike): a traced caller elsewhere does not make its branches traced."""
    root = _project(tmp_path, {"physics.py": PHYSICS, "train.py": TRAIN,
                               "plot.py": "from physics import limiter\n\n\ndef show(data):\n    return limiter(data, 1.)\n"})
    assert not _index(root).facts_for(str(root / "physics.py"))
    (root / "plot.py").write_text("from physics import limiter\n")
    assert _index(root).facts_for(str(root / "physics.py")).traces


def test_updates_give_what_a_fresh_build_gives(tmp_path: Path):
    """The index keeps each module's contributions and recomputes only what an update may change: after
    any sequence of updates its facts are those of an index built afresh from the same sources."""
    root = _project(tmp_path, {
        "physics.py": PHYSICS, "train.py": TRAIN, "other.py": OTHER,
        "util.py": "def clip(x):\n    if x > 1:\n        return 1\n    return x\n",
        "model.py": "import jax\n\n\n@jax.jit\ndef pick(v, total):\n    if total:\n        return v.sum()\n    return v\n",
        "run.py": "from model import pick\nfrom physics import limiter as lim\n\n\ndef go(v):\n    return pick(v, True)\n",
    })
    sources = {str(p): p.read_bytes() for p in sorted(root.glob("*.py"))}
    index = ProjectIndex.build(str(root), list(sources), sources=sources)
    index.facts_for(str(root / "physics.py"))
    edits = [
        ("train.py", TRAIN.replace("limiter(u * 0.5, 3.)", "u * 0.5")),
        ("physics.py", PHYSICS.replace("def limiter", "from util import clip\n\n\ndef limiter").replace(
            "return v * strength", "return clip(v) * strength")),
        ("train.py", TRAIN),
        ("run.py", "from model import pick\n\n\ndef go(v):\n    return pick(v, False), pick(v, total=True)\n"),
        ("model.py", "import jax\n\n\n@jax.jit\ndef pick(v, flag):\n    return v\n"),
        ("util.py", "def clip(x, y=1):\n    return x\n"),
        ("other.py", "from physics import limiter\n\n\ndef eager(x):\n    return limiter(x, 1.)\n"),
        ("other.py", OTHER),
        ("train.py", TRAIN.replace("return limiter(u * 0.5, 3.)", "y = limiter(u, 1.)\n    return limiter(y * 0.5, 3.)")),
        ("physics.py", "# lines move\n\n" + PHYSICS),
        ("run.py", "from model import pick\nfrom physics import limiter\n\nresult = limiter(1., 2.)\n"),
        ("train.py", TRAIN.replace("from physics import limiter", "from physics import soft as limiter")),
        ("physics.py", PHYSICS + "\n\nsoft = limiter\n"),
        ("physics.py", PHYSICS + "\n\ndef soft(v, s):\n    if v > s:\n        return s\n    return v\n"),
    ]
    for name, text in edits:
        sources[str(root / name)] = text.encode()
        index.update(str(root / name), text.encode())
        fresh = ProjectIndex.build(str(root), list(sources), sources=sources)
        for path in sources:
            assert index.facts_for(path) == fresh.facts_for(path), f"after editing {name}: {path}"


# Module variants the random update sequences below choose from: helpers traced or called eagerly,
# rebindings in both orders, star imports, factories, relative imports in a package.
_VARIANTS = {
    "physics.py": [
        "def limiter(v, s):\n    if v > 0:\n        return v\n    return s\n",
        "from util import clip\n\ndef limiter(v, s):\n    return clip(v) * s\n",
        "def limiter(w, s=1):\n    return w\n\nsoft = limiter\n",
        "import jax\n\n@jax.jit\ndef limiter(v, s):\n    return v\n",
        "from util import *\n\ndef limiter(v, s):\n    return clip(v, s)\n",
        "import jax\ndef limiter(v, s):\n    return v\nx = limiter(1, 2)\nlimiter = jax.jit(limiter)\n",
        "import jax\ndef limiter(v, s):\n    return v\nlimiter = jax.jit(limiter)\nx = limiter(1, 2)\n",
    ],
    "util.py": [
        "def clip(x, y=1):\n    if x > y:\n        return y\n    return x\n",
        "import jax\n\ndef clip(x, y=0):\n    return x\n\ndef make(d):\n    @jax.jit\n    def f(x):\n        return x * d\n    return f\n",
        "from physics import limiter as clip\n",
        "",
    ],
    "train.py": [
        "from phiml import math\nfrom physics import limiter\n\n@math.jit_compile\ndef step(u):\n    return limiter(u * 0.5, 3.)\n",
        "from phiml import math\nfrom physics import soft as limiter\n\n@math.jit_compile\ndef step(u):\n    return limiter(u, u)\n",
        "import jax\nimport physics\nstep = jax.jit(physics.limiter)\n",
        "import jax\nfrom util import make\nfor i in range(3):\n    g = make(i)\n",
        "from physics import limiter\n\ndef eager(x):\n    return limiter(x, 1.)\n",
        "import jax\nfrom physics import limiter\nhelper = limiter\nlimiter = jax.jit(limiter)\n",
        "import jax\nfrom physics import limiter\nlimiter = jax.jit(limiter)\nhelper = limiter\n",
    ],
    "mathlib.py": [  # a module re-exporting PhiML's math, whole or in part, or binding its names itself
        "from phiml.math import *\n",
        "from phiml.math import *\n\ndef batch(x):\n    return x\n",
        "from phiml.math import batch as spatial, jit_compile\nfrom physics import *\n",
        "import jax\nbatch = jax.jit\n\nclass Box:\n    pass\n",
        "",
    ],
    "run.py": [
        "import mathlib\nfrom mathlib import batch, Box\n\n@mathlib.jit_compile\ndef go(v):\n    return batch(v), Box()\n",
        "from mathlib import *\n\ndef go(v):\n    return batch(v), spatial(v), limiter(v, 1)\n",
        "from train import helper\n\ndef go(v):\n    return helper(v, 1.0)\n",
        "from train import step\nimport jax.numpy as jnp\n\ndef go(v):\n    return step(v, 2), step(jnp.ones(2), s=3)\n",
        "from physics import limiter\nr = limiter(1., 2.)\n",
        "",
    ],
}
_VARIANTS.update({
    "pkg/__init__.py": ["", "from .physics import limiter\n", "from .physics import *\n"],
    **{f"pkg/{name}": [t.replace("from physics", "from .physics").replace("import physics", "from . import physics")
                        .replace("from util", "from .util").replace("from train", "from .train")
                        .replace("from mathlib", "from .mathlib").replace("import mathlib", "from . import mathlib") for t in texts]
       for name, texts in _VARIANTS.items()},
})


def test_random_update_sequences_agree_with_fresh_builds(tmp_path: Path):
    """The incremental index (per-module contributions, remembered resolutions, the traced values kept
    while untouched) against a fresh build after every step, and `update`'s answer against the facts
    that did change."""
    import random

    rng = random.Random(19)
    for trial in range(12):
        root = tmp_path / f"trial{trial}"
        files = {name: rng.choice(texts) for name, texts in _VARIANTS.items()}
        sources = {str(_project(root, {name: text}) / name): text.encode() for name, text in files.items()}
        index = ProjectIndex.build(str(root), list(sources), sources=sources)
        for step in range(10):
            name = rng.choice(list(_VARIANTS))
            text = "\n" * rng.randint(0, 2) + rng.choice(_VARIANTS[name])
            path = str(root / name)
            before = {p: index.facts_for(p) for p in sources}
            sources[path] = text.encode()
            changed = index.update(path, text.encode())
            fresh = ProjectIndex.build(str(root), list(sources), sources=sources)
            for p in sources:
                assert index.facts_for(p) == fresh.facts_for(p), f"trial {trial}, step {step}: {name} edited; {p}"
            assert changed == {os.path.realpath(p) for p in sources if before[p] != index.facts_for(p)}


@pytest.mark.parametrize("before,after", [
    # a package module's own module-level reads, when lines are swapped and nothing else it binds changes
    ("import jax\nfrom pkg.physics import limiter\npass\nx = limiter(1, 2)\nlimiter = jax.jit(limiter)\n",
     "import jax\nfrom pkg.physics import limiter\nlimiter = jax.jit(limiter)\nx = limiter(1, 2)\npass\n"),
    # an alias moved after the rebinding it reads: the order of bindings is what other modules see
    ("import jax\nfrom pkg.physics import limiter\nhelper = limiter\nlimiter = jax.jit(limiter)\n",
     "import jax\nfrom pkg.physics import limiter\nlimiter = jax.jit(limiter)\nhelper = limiter\n"),
])
def test_an_update_that_only_moves_lines_is_seen(tmp_path: Path, before: str, after: str):
    root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/physics.py": "def limiter(v, s):\n    return v\n",
                               "pkg/mod.py": before,
                               "user.py": "from pkg.mod import helper\n\n\ndef go(v):\n    return helper(v, 1.0)\n"
                               if "helper" in before else ""})
    sources = {str(p): p.read_bytes() for p in sorted(root.rglob("*.py"))}
    index = ProjectIndex.build(str(root), list(sources), sources=sources)
    index.facts_for(str(root / "pkg/physics.py"))
    sources[str(root / "pkg/mod.py")] = after.encode()
    index.update(str(root / "pkg/mod.py"), after.encode())
    fresh = ProjectIndex.build(str(root), list(sources), sources=sources)
    assert index.facts_for(str(root / "pkg/physics.py")) == fresh.facts_for(str(root / "pkg/physics.py"))


def test_what_the_review_found(tmp_path: Path):
    """Eager uses that are not plain calls, a module literal rebound in a branch, a stdlib-named module,
    a set as static_argnames, and modules that star-import each other."""
    helper = "def clip(x, n):\n    if n > 0:\n        return x\n    return -x\n"
    jitted = "import jax\nfrom helpers import clip\n\n\n@jax.jit\ndef step(x, n):\n    return clip(x, n)\n"
    for eager in ("from helpers import clip\n\n\nclass A:\n    def m(self, x):\n        return clip(x, 1)\n",
                  "from helpers import clip\n\nfs = list(map(clip, [1], [2]))\n",
                  "from helpers import *\n\n\ndef g(x):\n    return clip(x, 1)\n"):
        root = _project(tmp_path / str(abs(hash(eager))), {"helpers.py": helper, "train.py": jitted, "other.py": eager})
        assert not _index(root).facts_for(str(root / "helpers.py")).traces, eager
    root = _project(tmp_path / "literal", {
        "model.py": "import jax\n\n\n@jax.jit\ndef pick(v, total):\n    return v\n",
        "user.py": "import jax.numpy as jnp\nfrom model import pick\ntotal = True\nif X:\n    total = jnp.ones(3)\n\n\n"
                   "def go(v):\n    return pick(v, total)\n",
        "statistics.py": "import jax\n\n\n@jax.jit\ndef mean(v, axis):\n    return v\n",
        "use.py": "from statistics import mean\n\n\ndef go(v):\n    return mean(v, 0)\n",
        "wrap.py": "import jax\nfrom model import pick\nfast = jax.jit(pick, static_argnames={'total'})\n",
    })
    index = _index(root)
    (call,) = [c for c in index.facts_for(str(root / "model.py")).calls if c.where.startswith("user.py")]
    assert {a.param: a.kind for a in call.args}["total"] == "unknown"
    assert index.facts_for(str(root / "statistics.py")).calls
    files = {f"m{i}.py": "".join(f"from m{j} import *\n" for j in range(6) if j != i) for i in range(6)}
    root = _project(tmp_path / "stars", files)
    index = _index(root)
    lookups = []
    looked_up = index._in_module
    index._in_module = lambda *a, **k: lookups.append(a[0]) or looked_up(*a, **k)
    assert index.resolve("m0.missing") is None
    assert len(lookups) <= 6 * 6, "each module's star imports are searched once per name"


def test_a_rebuilt_index_of_an_unchanged_project_reads_its_facts_from_the_cache(tmp_path):
    """The facts of a project are propagated once; a later build over the same files reads them (the
    warm run of an unchanged tree), and a changed file means they are propagated again."""
    from rewriter.cache import ResultCache
    from rewriter.project import propagation

    root = tmp_path / "proj"
    root.mkdir()
    (root / "physics.py").write_text("def limiter(v, s):\n    if (v > 0).all:\n        return v * s\n    return v\n")
    (root / "main.py").write_text("import jax\nfrom physics import limiter\n\n@jax.jit\ndef step(u):\n"
                                  "    return limiter(u, 2.0)\n")
    files = [str(root / "physics.py"), str(root / "main.py")]
    cache = ResultCache.at(tmp_path / "cache")
    first = ProjectIndex.build(str(root), files, cache=cache)
    expected = first.facts_for(files[0])
    assert expected.traces  # `limiter` is traced from main.py

    runs = []
    original = propagation.Propagation.run
    def counting(self):
        runs.append(1)
        return original(self)
    propagation.Propagation.run = counting
    try:
        again = ProjectIndex.build(str(root), files, cache=cache)
        assert again.facts_for(files[0]) == expected and again.facts_for(files[1]) == first.facts_for(files[1])
        assert not runs
        (root / "main.py").write_text("import jax\nfrom physics import limiter\n\n@jax.jit\ndef step(u, s):\n"
                                      "    return limiter(u, s)\n")
        changed = ProjectIndex.build(str(root), files, cache=cache)
        changed.facts_for(files[0])
        assert runs == [1]
    finally:
        propagation.Propagation.run = original
        cache.close()


def test_a_files_facts_digest_is_the_json_of_all_its_fields(tmp_path: Path):
    """FileFacts.digest, which keys a file's cached result, reads every field of every fact, nested ones
    included, as `dataclasses.asdict` would, without its copy: facts that differ anywhere differ."""
    import dataclasses
    import hashlib

    index = _index(_project(tmp_path, {"physics.py": PHYSICS, "train.py": TRAIN}))
    facts = index.facts_for(str(tmp_path / "physics.py"))
    assert facts.traces and facts.traces[0].params
    text = json.dumps(dataclasses.asdict(facts), sort_keys=True, default=repr)
    assert facts.digest() == hashlib.sha256(text.encode()).hexdigest()
    param = dataclasses.replace(facts.traces[0].params[0], why="another reason")
    trace = dataclasses.replace(facts.traces[0], params=(param, *facts.traces[0].params[1:]))
    assert dataclasses.replace(facts, traces=(trace, *facts.traces[1:])).digest() != facts.digest()


@pytest.mark.parametrize("order", ["near first", "far first"])
def test_a_remembered_step_of_a_resolution_answers_as_resolving_again_would(tmp_path: Path, order: str):
    """A name a binding leads to is resolved once and its answer kept (`_resolve_via`); a chain of
    re-exports longer than `_MAX_DEPTH` still resolves to nothing from its far end, whichever end was
    asked first, and every answer is the one a fresh index gives."""
    from rewriter.project.index import _MAX_DEPTH

    length = _MAX_DEPTH + 2
    files = {f"m{i}.py": f"from m{i + 1} import f\n" for i in range(length)}
    files[f"m{length}.py"] = "def f(x):\n    return x\n"
    root = _project(tmp_path, files)
    targets = [f"m{i}.f" for i in range(length + 1)]
    fresh = {t: _index(root).resolve(t) for t in targets}
    assert fresh["m0.f"] is None and fresh[f"m{length - 2}.f"] == Fn(f"m{length}", "f")
    index = _index(root)
    asked = targets if order == "far first" else list(reversed(targets))
    assert {t: index.resolve(t) for t in asked} == fresh
    assert {t: index.resolved_trail(t, None, "")[0] for t in asked} == fresh


def test_a_run_resolves_each_files_real_path_once(tmp_path: Path, monkeypatch):
    """`files.real_path` is an lstat per file: a run asks it once of each file, though the index's build and
    the survey both read them (the build forgets real paths known before only where its caller did not)."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "pkg" / "__init__.py").write_text("")
    for name in ("a", "b", "c"):
        (root / "pkg" / f"{name}.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x\n")
    asked: list[str] = []
    islink = os.path.islink
    monkeypatch.setattr(os.path, "islink", lambda path: (asked.append(os.fspath(path)), islink(path))[1])
    runner.run([str(root)], Config(root=str(root)), write=False, jobs=1)
    files = [p for p in asked if p.endswith(".py")]
    assert sorted(files) == sorted(set(files)) and len(files) == 4
