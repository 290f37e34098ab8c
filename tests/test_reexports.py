"""Relative imports and the project's own re-exports of an installed API (rewriter/analysis/aliases.py):
what a file's names denote, read alike by the analysis and both stages of the pre-filter; and
what is static by construction (a PhiML Shape, a Python container) or never an array (forms.py)."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from rewriter import runner
from rewriter.analysis.aliases import NO_ALIASES, Aliases, absolute_module, absolute_name, package_of, spelled_module
from rewriter.analysis.apis import canonical, may_denote_an_api, spelled_apis, star_target
from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.facts import FileFacts, Reexport, RemoteFactory
from rewriter.analysis.names import NameResolver
from rewriter.config import Config
from rewriter.emit.ast_agreement import forms_in
from rewriter.engine import TriggerWords
from rewriter.prefilter import _Spelling, filter_codemods, syntax_of
from rewriter.project.index import ProjectIndex
from rewriter.project.world import World, file_package
from rewriter.registry import all_codemods, by_code
from tests.harness.ast_files import ast_file, verdicts


# -- relative imports --------------------------------------------------------------------------------

@pytest.mark.parametrize("module, level, package, expected", [
    ("math", 0, "phi.physics", "math"),  # absolute: unchanged
    (None, 0, "phi", ""),
    ("math", 1, "phi.physics", "phi.physics.math"),  # `from .math import x` in phi/physics/fluid.py
    ("math", 2, "phi.physics", "phi.math"),  # `from ..math import x`
    (None, 1, "phi.physics", "phi.physics"),  # `from . import x`
    (None, 2, "phi.physics", "phi"),  # `from .. import math`
    ("x", 3, "phi.physics", None),  # beyond the top-level package: Python raises
    ("x", 1, "", None),  # a script: no package to start from
    ("a.b", 1, "pkg", "pkg.a.b"),
])
def test_relative_imports_are_absolute_in_the_files_package(module, level, package, expected):
    assert absolute_module(module, level, package) == expected
    assert spelled_module(module, level, package) == (expected if expected is not None else "." * level + (module or ""))


def test_the_package_of_a_module_and_of_a_package():
    assert package_of("phi.physics.fluid", False) == "phi.physics"
    assert package_of("phi.math", True) == "phi.math"  # phi/math/__init__.py: `.` is phi.math itself
    assert package_of("script", False) == ""


@pytest.mark.parametrize("name, package, expected", [
    ("..math.batch", "phi.physics", "phi.math.batch"),
    (".a", "pkg", "pkg.a"),
    ("..", "pkg.sub", "pkg"),
    ("...x", "pkg", "...x"),  # cannot be told: kept
    ("jax.jit", "pkg", "jax.jit"),
])
def test_scope_spellings_of_relative_imports_are_made_absolute(name, package, expected):
    assert absolute_name(name, package) == expected


def test_a_files_package_follows_the_init_files_around_it(tmp_path: Path):
    (tmp_path / "phi" / "physics").mkdir(parents=True)
    for init in ("phi/__init__.py", "phi/physics/__init__.py"):
        (tmp_path / init).write_text("")
    (tmp_path / "phi/physics/fluid.py").write_text("")
    (tmp_path / "script.py").write_text("")
    assert file_package(str(tmp_path / "phi/physics/fluid.py")) == "phi.physics"
    assert file_package(str(tmp_path / "phi/physics/__init__.py")) == "phi.physics"
    assert file_package(str(tmp_path / "script.py")) == ""
    assert file_package(str(tmp_path / "phi/notebook.ipynb")) == ""
    assert World(package="a").digest() != World(package="b").digest()


RELATIVE = """\
from ..math import batch, jit_compile as jc
from .. import math
from . import helpers
from .util import *
from ... import beyond


@jc
def step(x):
    return batch(x), math.spatial(x), helpers.f(x), beyond
"""


def _analysis(source: str, package: str = "") -> AstModule:
    return AstModule(textwrap.dedent(source), package)


def _names(python: AstModule, spelled: str) -> set[str]:
    """The qualified names of the first read spelled so (in the order written; not in an import)."""
    stack: list[ast.AST] = [python.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, (ast.Name, ast.Attribute)) and ast.unparse(node) == spelled:
            return python.names.qualified_names(node)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    raise AssertionError(f"no read of {spelled}")


def test_the_analysis_reads_relative_imports_in_the_package():
    """`from ..math import batch` in phi/physics/*.py is phi.math.batch, which is PhiML's batch."""
    a = _analysis(RELATIVE, "phi.physics")
    names = a.names
    assert names.imported["batch"] == {"phi.math.batch"} and names.imported["math"] == {"phi.math"}
    assert names.imported["helpers"] == {"phi.physics.helpers"} and names.imported["beyond"] == {"...beyond"}
    assert names.star_modules == ["phi.physics.util"]
    assert _names(a, "batch") == {"phiml.math.batch"}
    assert _names(a, "math.spatial") == {"phiml.math.spatial"}
    assert _names(a, "helpers.f") == {"phi.physics.helpers.f"}
    assert [c.function.name for c in a.jit.contexts] == ["step"]  # `jc` is PhiML's jit_compile
    alone = _analysis(RELATIVE)  # no package: they stay relative, and name nothing installed
    assert _names(alone, "batch") == {"..math.batch"} and not alone.jit.contexts


def test_both_stages_spell_imports_alike():
    """The pre-filter's imports and star imports are the analysis's, relative ones included, with and
    without the package: the pre-filter can only be a superset if it reads the same names. (The pass
    that writes fixes reads the imports of its libcst tree alike: a fix's code names what they bind.)"""
    for package in ("phi.physics", "", "pkg"):
        spelling = _Spelling(ast.parse(RELATIVE), package)
        names = _analysis(RELATIVE, package).names
        assert spelling.imported == names.imported
        assert [s for s in spelling.stars if not s.startswith(".")] == names.star_modules
        written = NameResolver(cst.MetadataWrapper(cst.parse_module(RELATIVE), unsafe_skip_copy=True), package)
        assert written.imported == names.imported


def test_the_pre_filter_lets_a_jit_through_a_relative_import():
    source = b"from ..math import jit_compile\n\n@jit_compile\ndef f(x):\n    if (x > 0).all:\n        x = -x\n    return x\n"
    codemods = [by_code("PML201")]
    assert filter_codemods(source, codemods, package="phi.physics") == codemods
    assert filter_codemods(source, codemods) == []  # alone, `..math` names nothing


# -- aliases ---------------------------------------------------------------------------------------

ALIASES = Aliases({"mypkg.jit": "jax.jit", "mypkg.ops.batch": "phiml.math.batch", "mypkg.ops.own": "mypkg.ops.own"},
                  {"mypkg.math": ("phiml.math", frozenset({"vec_abs", "extra"}))})


@pytest.mark.parametrize("name, expected", [
    ("mypkg.jit", "jax.jit"),
    ("mypkg.ops.batch", "phiml.math.batch"),
    ("mypkg.ops.batch.x", "phiml.math.batch.x"),  # the longest aliased prefix, and the rest
    ("mypkg.math.where", "phiml.math.where"),  # a module re-exporting an installed one whole
    ("mypkg.math", "phiml.math"),
    ("mypkg.math.vec_abs", "mypkg.math.vec_abs"),  # its own name: not the installed module's
    ("mypkg.math.extra.f", "mypkg.math.extra.f"),
    ("mypkg.other", "mypkg.other"),
    ("jax.jit", "jax.jit"),
])
def test_aliases_read_a_name_through_the_projects_re_exports(name, expected):
    assert ALIASES.realias(name) == expected
    assert NO_ALIASES.realias(name) == name


def test_star_imports_of_the_projects_modules_read_through_the_aliases():
    assert star_target("mypkg.math", "jit_compile", ALIASES) == "phiml.math.jit_compile"
    assert star_target("mypkg.math", "vec_abs", ALIASES) is None  # its own, unnamed: not the installed one
    assert star_target("mypkg.math", "no_such_name", ALIASES) is None
    assert star_target("mypkg.ops", "own", ALIASES) == "mypkg.ops.own"  # the project's own stops the search
    assert star_target("phi.flow", "jit_compile") == "phiml.math.jit_compile"


def test_aliases_make_a_spelling_an_api_for_every_stage():
    imported = {"m": {"mypkg.math"}, "J": {"mypkg.jit"}, "b": {"mypkg.ops.batch"}}
    assert [a.name for a in spelled_apis("m.jit_compile", imported, [], ALIASES)] == ["phiml.math.jit_compile"]
    assert [a.name for a in spelled_apis("J", imported, [], ALIASES)] == ["jax.jit"]
    assert spelled_apis("m.jit_compile", imported, []) == []
    assert may_denote_an_api({"m": {"mypkg.math"}}, [], ALIASES) and not may_denote_an_api({"m": {"mypkg.math"}}, [])
    assert may_denote_an_api({}, ["mypkg.math"], ALIASES)  # `from mypkg.math import *`
    assert not may_denote_an_api({"b": {"mypkg.ops.batch"}}, [], ALIASES)  # batch is no API of the table


def test_facts_give_the_aliases_as_the_resolution_reads_them():
    facts = FileFacts(aliases=(("mypkg.jit", "jax.jit"),), reexports=(Reexport("mypkg.math", "phiml.math", ("vec_abs",)),))
    assert facts and facts.alias_map().realias("mypkg.math.batch") == "phiml.math.batch"
    assert FileFacts.from_json(facts.to_json()) == facts
    assert FileFacts().alias_map() is NO_ALIASES


# -- the project's re-exports, end to end -----------------------------------------------------------

MATH_PACKAGE = {
    "mypkg/__init__.py": "",
    "mypkg/math/__init__.py": "from phiml.math import *\n\nvec_abs = vec_length\n\n\ndef batch_of(x):\n    return x.shape.batch\n",
    "mypkg/compat.py": "from .math import jit_compile as compile_fn\nfrom jax import jit\n\nfast = jit\n",
    "mypkg/shapes.py": "from mypkg.compat import compile_fn\nfrom .math import *\n",
    "mypkg/things.py": "class Box:\n    pass\n",
    "mypkg/sim/__init__.py": "",
}
KERNEL = """\
{imports}


@{jit}
def step(u, v):
    if {shape}:
        v = v * 2
    if (u > 1).any:
        u = u * 0.5
    return u + v
"""
# (imports, the jit decorator, the Shape test): every way a module of the package may name PhiML's API
SPELLINGS = [
    ("from ..math import batch, jit_compile", "jit_compile", "batch(u) & batch(v)"),
    ("from mypkg.math import batch, jit_compile", "jit_compile", "(batch(u) & batch(v)).without('b')"),
    ("from mypkg import math", "math.jit_compile", "math.batch(u)"),
    ("from .. import math", "math.jit_compile", "math.channel(u)"),
    ("import mypkg.math as m", "m.jit_compile", "m.spatial(u).without('x')"),
    ("import mypkg.math", "mypkg.math.jit_compile", "mypkg.math.batch(v)"),
    ("from ..compat import compile_fn\nfrom ..math import *", "compile_fn", "batch(u)"),
    ("from ..shapes import *", "compile_fn", "instance(u)"),  # through two modules of the project, star imports
]


def _package(tmp_path: Path, kernel: str) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    for name, text in {**MATH_PACKAGE, "mypkg/sim/kernel.py": kernel}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _findings(root: Path, prefilter: bool = True) -> list[tuple[str, int]]:
    """A run's findings (the CLI's: each file surveyed, its first judgement kept or made again with the
    facts, Survey.passed_with); with `prefilter` False, every rule on every file instead."""
    from dataclasses import replace

    config = Config(root=str(root), project_root=str(root), unsafe_fixes=True)
    if prefilter:
        results = runner.run([str(root)], config, write=False, jobs=1).results
    else:
        files = [str(p) for p in sorted(root.rglob("*.py"))]
        settings = runner.settings_for(config, index=runner.project_index(config, files))
        results = runner.process_files(files, lambda path: replace(settings(path), ast_prefilter=False))
    return sorted((Path(r.path).name, f.code, f.span.line) for r in results for f in r.findings)


@pytest.mark.parametrize("imports, jit, shape", SPELLINGS, ids=[s[0].splitlines()[-1] for s in SPELLINGS])
def test_a_package_re_exporting_phiml_is_phiml_to_every_rule_and_both_pre_filter_stages(tmp_path, imports, jit, shape):
    """The jit transform is found through the package's re-export, the Shape's `if` stays, the tensor's is
    reported; with and without the pre-filter alike (the superset property); and the file's survey,
    judged without the facts, is judged again with them."""
    root = _package(tmp_path, KERNEL.format(imports=imports, jit=jit, shape=shape))
    found = _findings(root)
    line = KERNEL.format(imports=imports, jit=jit, shape=shape).splitlines().index("    if (u > 1).any:") + 1
    assert found == [("kernel.py", "PML201", line)], found
    assert _findings(root, prefilter=False) == found


def test_the_index_follows_re_exports_through_the_projects_modules(tmp_path):
    root = _package(tmp_path, "")
    index = ProjectIndex.build(str(root), [str(p) for p in sorted(root.rglob("*.py"))])
    assert index.reexport("mypkg.math.batch") == ("outside", "phiml.math.batch")
    assert index.reexport("mypkg.math.vec_abs") == ("outside", canonical("phiml.math.vec_length"))  # `b = a`
    assert index.reexport("mypkg.math.batch_of") == ("own", "mypkg.math.batch_of")
    assert index.reexport("mypkg.compat.compile_fn") == ("outside", "phiml.math.jit_compile")  # `import a as b`
    assert index.reexport("mypkg.compat.fast") == ("outside", "jax.jit")
    assert index.reexport("mypkg.shapes.compile_fn") == ("outside", "phiml.math.jit_compile")  # two modules on
    assert index.reexport("mypkg.shapes.spatial") == ("outside", "phiml.math.spatial")  # star of a star
    assert index.reexport("mypkg.things.Box") == ("class", "mypkg.things.Box")
    assert index.reexport("mypkg.math") is None and index.reexport("jax.jit") is None
    assert index.whole_reexport("mypkg.math") == ("phiml.math", ("batch_of", "vec_abs"))
    assert index.whole_reexport("mypkg.shapes") is None  # a star import of the project's own module


def test_a_file_is_given_the_aliases_of_what_it_imports_and_reads(tmp_path):
    kernel = ("from ..math import batch\nfrom .. import math\nfrom ..things import Box\nfrom ..compat import *\n\n"
              "def f(x):\n    return math.vec_abs(x), fast(x), Box()\n")
    root = _package(tmp_path, kernel)
    index = ProjectIndex.build(str(root), [str(p) for p in sorted(root.rglob("*.py"))])
    facts = index.facts_for(str(root / "mypkg/sim/kernel.py"))
    assert dict(facts.aliases) == {"mypkg.math.batch": "phiml.math.batch", "mypkg.math.vec_abs": canonical("phiml.math.vec_length"),
                                   "mypkg.compat.fast": "jax.jit"}
    assert facts.reexports == (Reexport("mypkg.math", "phiml.math", ("batch_of", "vec_abs")),)
    assert facts.classes == ("mypkg.things.Box",)
    assert "mypkg/math/__init__.py" in facts.sources
    assert not index.facts_for(str(root / "mypkg/things.py"))  # imports nothing of the project's


def test_an_edit_of_the_re_exporting_module_changes_the_facts_of_its_importers(tmp_path):
    kernel = KERNEL.format(imports="from mypkg import math", jit="math.jit_compile", shape="math.batch(u)")
    root = _package(tmp_path, kernel)
    sources = {str(p): p.read_bytes() for p in sorted(root.rglob("*.py"))}
    index = ProjectIndex.build(str(root), list(sources), sources=sources)
    path = str(root / "mypkg/sim/kernel.py")
    assert index.facts_for(path).reexports
    edited = MATH_PACKAGE["mypkg/math/__init__.py"] + "\n\ndef batch(x):\n    return x\n"  # an own `batch` now
    sources[str(root / "mypkg/math/__init__.py")] = edited.encode()
    changed = index.update(str(root / "mypkg/math/__init__.py"), edited.encode())
    assert str(Path(path).resolve()) in changed
    assert "batch" in index.facts_for(path).reexports[0].own
    fresh = ProjectIndex.build(str(root), list(sources), sources=sources)
    assert index.facts_for(path) == fresh.facts_for(path)


def test_a_survey_with_aliases_is_judged_again():
    from rewriter import survey

    found = survey.survey(("m.py", b"from mypkg import math\n\n@math.jit_compile\ndef f(x):\n    return x\n", list(all_codemods())))
    assert found.passed_with(FileFacts(python_results=("x",))) == found.first_pass
    assert found.passed_with(FileFacts(classes=("mypkg.Box",))) == found.first_pass
    assert found.passed_with(FileFacts(aliases=(("mypkg.math.jit_compile", "phiml.math.jit_compile"),))) is None
    assert found.passed_with(FileFacts(reexports=(Reexport("mypkg.math", "phiml.math"),))) is None


_F32 = (("mypkg.util.f32", "jax.numpy.float32"),)  # `f32 = jnp.float32` in mypkg/util.py: a staged jax function
_F32_SOURCE = "import jax\nfrom mypkg.util import f32\n\nSCALE = f32(2.0)\n\n@jax.jit\ndef f(x):\n{body}    return x\n"


@pytest.mark.parametrize("body, kept", [
    ("", True),  # `f32` is read at module level only: no gate asks what it denotes
    ("    if x.shape[0] > 1:\n        x = x * 2\n", True),  # a static test: `f32` is not read in it
    ("    if f32(1.0) > 0:\n        x = x * 2\n", False),  # the test calls it: a tracer once it is jax's
])
def test_a_survey_keeps_its_judgement_where_its_gates_read_no_aliased_name(body, kept):
    """Aliases that reach no API still change what the traced-value reading calls staged (`f32(1.0)` is a
    tracer once `f32` is `jnp.float32`); the survey keeps its judgement only where no gate looked a name
    up under one of them (Survey.realiased), and the judgement made again agrees either way."""
    from rewriter import survey

    source = _F32_SOURCE.format(body=body).encode()
    codemods = list(all_codemods())
    found = survey.survey(("m.py", source, codemods))
    facts = FileFacts(aliases=_F32)
    assert facts.widens_a_gate() and facts.aliases_reach_no_api()
    again = [c.CODE for c in filter_codemods(source, [c for c in codemods if c.CODE in found.first_pass or c.ast_gate(syntax_of(source, facts))], facts)]
    if kept:
        assert found.passed_with(facts) == found.first_pass
        assert set(again) <= set(found.first_pass)
    else:
        assert found.passed_with(facts) is None
        assert "PML201" in again and "PML201" not in found.first_pass  # not vacuous: this alias widens a gate


@pytest.mark.parametrize("facts", [
    FileFacts(aliases=_F32 + (("mypkg.util.fast", "jax.jit"),)),  # an alias to an API: which names reach one changes
    FileFacts(aliases=(("mypkg.util.zeros", "jax.numpy.zeros"),), reexports=(Reexport("mypkg.math", "phiml.math"),)),
    # factories besides: the reading with them may ask what the first did not
    FileFacts(aliases=_F32, factories=(RemoteFactory("make", "jax.jit", "jax", "mypkg/util.py:3", "make"),)),
])
def test_a_survey_is_judged_again_for_aliases_it_cannot_rule_out(facts):
    from rewriter import survey

    found = survey.survey(("m.py", _F32_SOURCE.format(body="").encode(), list(all_codemods())))
    assert found.passed_with(FileFacts(aliases=_F32)) == found.first_pass
    assert found.passed_with(facts) is None


@pytest.mark.parametrize("spelled, alias", [
    ("from mypkg.util import partial\n\n@partial(jax.jit)", ("mypkg.util.partial", "functools.partial")),
    ("from mypkg.util import ft\n\n@ft.partial(jax.jit)", ("mypkg.util.ft", "functools")),
])
def test_a_survey_is_judged_again_for_an_alias_of_functools_partial(spelled, alias):
    """`functools.partial` applies nothing by itself, so it makes no import reach an API (apis.reaching_roots),
    yet an alias to it makes `partial(jax.jit)` a jit application: the judgement is made again (found in
    review: the gates of PML201-204 pass with the alias, none without)."""
    from rewriter import survey

    source = f"import jax\n{spelled}\ndef features(v, *, flat: bool = False):\n    if flat:\n        return v.reshape(-1)\n    return v[:, None]\n".encode()
    codemods = list(all_codemods())
    found = survey.survey(("m.py", source, codemods))
    facts = FileFacts(aliases=(alias,))
    assert not facts.aliases_reach_no_api() and found.passed_with(facts) is None
    assert "PML204" in {c.CODE for c in filter_codemods(source, codemods, facts)} - set(found.first_pass)


def test_a_survey_is_judged_again_for_an_alias_of_a_name_its_star_import_binds():
    from rewriter import survey

    source = b"import jax\nfrom mypkg.util import *\n\n@jax.jit\ndef f(x):\n    return f32(x)\n"
    found = survey.survey(("m.py", source, list(all_codemods())))
    assert found.passed_with(FileFacts(aliases=_F32)) is None


# Targets that reach no API of the table, and `functools.partial`, which reaches none alone (apis.reaching_roots)
# yet makes `partial(jax.jit)` an application: Survey.passed_with must judge it again.
_TARGETS = ("jax.numpy.float32", "jax.Array", "dataclasses.replace", "numpy.sum", "mypkg.helper", "functools.partial")


def _aliased_names(tree: ast.Module, imported: dict[str, set[str]]) -> list[str]:
    """Every name the file imports and every attribute chain it reads through one: what the index may
    alias (propagation.py)."""
    names = {q for targets in imported.values() for q in targets}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            text = ast.unparse(node) if isinstance(node.value, (ast.Name, ast.Attribute)) else ""
            head, _, rest = text.partition(".")
            if rest and head in imported and all(part.isidentifier() for part in text.split(".")):
                names |= {f"{q}.{rest}" for q in imported[head]}
    return sorted(names)


def _kept_judgements(path: Path) -> tuple[int, int]:
    """Survey.passed_with on `path` with every other name it may alias (`_aliased_names`) aliased to one of
    `_TARGETS` in turn, checked against the judgement made again with those facts. Returns (times
    the judgement was kept for aliases that widen a gate, times made again)."""
    from rewriter import survey

    source = path.read_bytes()
    codemods = list(all_codemods())
    found = survey.survey((str(path), source, codemods))
    alone = syntax_of(source)
    if found.first_pass is None or alone is None:
        return 0, 0
    names = _aliased_names(alone.tree, alone.imported)
    kept = again = 0
    for offset in (0, 1):
        chosen = names[offset::2]
        facts = FileFacts(aliases=tuple((name, _TARGETS[i % len(_TARGETS)]) for i, name in enumerate(chosen)))
        if not facts.aliases or not facts.widens_a_gate():
            continue
        passed = found.passed_with(facts)
        if passed is None:
            again += 1
            continue
        wanted = [c for c in codemods if c.CODE in passed or TriggerWords(source).wanted(c)]
        judged = {c.CODE for c in filter_codemods(source, wanted, facts, package=file_package(str(path)))}
        assert judged == set(passed), (path, facts.aliases)
        kept += 1
    return kept, again


GOLDEN_SOURCES = sorted(p for p in Path(__file__).resolve().parent.parent.glob("golden/*/*.py")
                        if not p.name.endswith(".expected.py"))


def test_a_kept_judgement_is_the_one_made_again_with_the_aliases():
    """Survey.passed_with keeps a file's first judgement for aliases that reach no API only where the
    judgement made again with them is the same, on every golden case (and it is kept, and made again, in
    enough of them that the comparison is not vacuous)."""
    kept = again = 0
    for path in GOLDEN_SOURCES:
        k, a = _kept_judgements(path)
        kept, again = kept + k, again + a
    assert kept >= 20 and again >= 20, (kept, again)


@pytest.mark.slow
@pytest.mark.parametrize("package", ["phiml", "phi", "equinox", "diffrax"])
def test_a_kept_judgement_is_the_one_made_again_in_installed_packages(package):
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} is not installed")
    kept = sum(_kept_judgements(path)[0] for path in sorted(Path(spec.submodule_search_locations[0]).rglob("*.py")))
    assert kept


def test_the_pre_filter_reads_the_facts_aliases():
    source = b"from mypkg import math\n\n@math.jit_compile\ndef f(x):\n    if (x > 0).all:\n        x = -x\n    return x\n"
    codemods = [by_code("PML201")]
    facts = FileFacts(reexports=(Reexport("mypkg.math", "phiml.math"),))
    assert filter_codemods(source, codemods, facts) == codemods
    assert filter_codemods(source, codemods) == []
    assert not syntax_of(source, facts).spells_no_api


# -- static by construction: Shapes and containers ---------------------------------------------------

def _verdicts(source: str, package: str = "") -> dict[str, str]:
    return verdicts(ast_file(textwrap.dedent(source), world=World(package=package)), loops=False)


def test_a_shape_and_what_its_methods_and_operators_give_are_static():
    found = _verdicts("""
        from typing import Optional, Sequence
        import jax
        from phiml import math
        from phiml.math import Shape, batch, channel

        def helper(x, dims: Shape):
            if dims: pass
            return x

        @math.jit_compile
        def f(x, y, idx):
            s = batch(x) & batch(y)
            if s: pass
            if s.without('b'): pass
            if x.shape.after_gather({'i': idx}): pass
            if x.shape.only(channel).with_dim_size('vector', idx): pass
            if channel(x) + batch(y): pass
            if x.shape.non_batch.spatial: pass
            if (x > 0).all: pass
            if s.get_size(idx): pass
            return helper(x, batch(idx))

        @jax.jit
        def g(x, xs: list, d: dict, t: Sequence[jax.Array], o: Optional[tuple] = None, u: list | None = None, n: 'list' = None):
            if xs: pass
            if not d: pass
            if t and o: pass
            if u: pass
            if n: pass
            if xs[0]: pass
    """)
    assert {k for k, v in found.items() if v != "static"} == {"(x > 0).all", "s.get_size(idx)", "xs[0]", "n"}, found


def test_forms_call_shapes_containers_and_objects_no_arrays():
    source = textwrap.dedent("""
        import dataclasses
        from phiml import math
        from phiml.math import Solve, Shape, batch, copy_with

        class Box:
            pass

        def f(x, solve: Solve, dims: Shape, xs: list, name: str):
            pass
    """)
    file = ast_file(source)
    fn = next(n for n in file.python.tree.body if isinstance(n, ast.FunctionDef))
    forms = forms_in(file, fn, fn.body[0])

    def node(code: str) -> ast.expr:
        return ast.parse(code, mode="eval").body

    def form(code: str):
        return forms.of(node(code))

    for code, what in [("solve", "a `Solve`"), ("dims", "a Shape"), ("batch(x)", "a Shape"), ("batch(x) & dims", "a Shape"),
                       ("dims.without('b')", "a Shape"), ("x.shape", "a Shape"), ("copy_with(solve, x0=x)", "an update of a `Solve`"),
                       ("dataclasses.replace(solve, x0=x)", "an update of a `Solve`"), ("solve.with_defaults('x')", "an update of a `Solve`"),
                       ("Solve('CG', x0=x)", "a `Solve` object"), ("Box()", "a `Box` object"), ("name", "a string")]:
        assert (form(code).kind, form(code).what) == ("other", what), code
    assert form("x").kind == "array" and form("copy_with(x, y=1)").kind == "unknown"
    assert "declared a Python container" in forms.condition(node("xs"))
    assert "a Shape" in forms.condition(node("batch(x)"))
    assert forms.condition(node("x > 0")) == ""


def test_a_jit_through_the_projects_re_export_traces_helpers_of_other_modules(tmp_path):
    """The index finds the jit function too (summary.Function.maybe_jit, resolved through the re-exports):
    a helper in another module it calls with a tracer is traced there, as under `from phiml import math`."""
    root = _package(tmp_path, "")
    (root / "mypkg/sim/limits.py").write_text("def clip(v, s):\n    if (v > 0).all:\n        return v * s\n    return v\n")
    (root / "mypkg/sim/kernel.py").write_text(
        "from mypkg import math\nfrom .limits import clip\n\n\n@math.jit_compile(auxiliary_args='s')\n"
        "def step(u, s):\n    return clip(u * 0.5, s)\n")
    index = ProjectIndex.build(str(root), [str(p) for p in sorted(root.rglob("*.py"))])
    (trace,) = index.facts_for(str(root / "mypkg/sim/limits.py")).traces
    assert (trace.function, trace.api, [p.name for p in trace.params]) == ("clip", "phiml.math.jit_compile", ["v"])
    assert _findings(root) == [("limits.py", "PML201", 2)]


# -- which aliases have a file judged again ------------------------------------------------------------

def test_aliases_that_only_narrow_keep_the_first_judgement():
    """NumPy's functions under a package's names (jax's own `jax._src.dtypes.bool_` is `numpy.bool_`) can
    only make the gates find less; an API, a module re-exported whole, a staged jax function can make
    them find more: the file is judged again."""
    from rewriter.analysis.apis import only_narrows

    assert only_narrows("numpy.bool_") and only_narrows("numpy") and only_narrows("builtins.len")
    assert not only_narrows("jax.jit") and not only_narrows("jax.numpy.sum") and not only_narrows("phiml.math.jit_compile")
    assert only_narrows("phiml.math.batch")  # a Shape: static, as an unknown function is not
    assert not only_narrows("mypkg.helper")
    assert not FileFacts(aliases=(("jax._src.dtypes.bool_", "numpy.bool_"),)).widens_a_gate()
    assert FileFacts(aliases=(("m.f", "numpy.sum"), ("m.s", "jax.numpy.sum"))).widens_a_gate()
    assert FileFacts(reexports=(Reexport("mypkg.math", "phiml.math"),)).widens_a_gate()


SOURCES = sorted(p for p in [*Path(__file__).resolve().parent.parent.glob("golden/*/*.py"),
                             *Path(__file__).resolve().parent.parent.glob("examples/*.py")]
                 if not p.name.endswith(".expected.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_narrowing_aliases_never_widen_a_gate(path: Path):
    """Survey.passed_with keeps the judgement made without the aliases when they only narrow: with every
    name the file imports aliased to a NumPy function, no rule's gate lets more through."""
    source = path.read_bytes()
    alone = syntax_of(source)
    if alone is None:
        return
    names = sorted({q for targets in alone.imported.values() for q in targets})
    facts = FileFacts(aliases=tuple((q, "numpy.sum") for q in names))
    assert not facts.widens_a_gate()
    codemods = list(all_codemods())
    assert set(filter_codemods(source, codemods, facts)) <= set(filter_codemods(source, codemods))


def test_a_project_that_is_an_installed_package_reads_its_re_exports_from_the_installed_facts(tmp_path):
    """PhiFlow's own `phi/physics/fluid.py`, analysed in a copy of PhiFlow of the installed release (its
    version file says so: a copy of another release, or of none said, is the project's own code):
    `from ..math import batch` is `phi.math.batch`, which installed.canonical makes PhiML's; the index
    gives it no alias to say so."""
    from rewriter.analysis.installed import version

    root = tmp_path / "copy"
    (root / ".git").mkdir(parents=True)
    for name, text in {"phi/__init__.py": "", "phi/VERSION": version("phi") + "\n",
                       "phi/math/__init__.py": "from phiml.math import *\n",
                       "phi/physics/__init__.py": "",
                       "phi/physics/fluid.py": KERNEL.format(imports="from ..math import batch, jit_compile",
                                                             jit="jit_compile", shape="batch(u) & batch(v)")}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    index = ProjectIndex.build(str(root), [str(p) for p in sorted(root.rglob("*.py"))])
    assert not index.facts_for(str(root / "phi/physics/fluid.py"))
    assert _findings(root) == [("fluid.py", "PML201", 8)]


def test_the_ast_mirror_reads_a_relative_shape_call_as_static():
    """ast_traced reads `batch` through the relative import as the libcst analysis does: the jit function
    is found (control flow in a traced function), and its `if` on a Shape is no condition that may be a
    tracer; one on a tensor is."""
    shape_only = (b"from ..math import batch, jit_compile\n\n@jit_compile\ndef f(u, v):\n"
                  b"    if batch(u) & batch(v):\n        v = v * 2\n    return v\n")
    facts = syntax_of(shape_only, package="phi.physics").facts
    assert facts.traced_functions & facts.control_flow and not facts.traced_condition
    tensor = shape_only.replace(b"batch(u) & batch(v)", b"(u > 0).all")
    assert syntax_of(tensor, package="phi.physics").facts.traced_condition
    alone = syntax_of(tensor).facts
    assert alone is None or not alone.traced_functions  # alone, `..math` names nothing: no jit function
