"""The legacy-migration table (codemods/_migration_rows.py) is true for the installed libraries, and
the migrated golden programs run on them and compute what the old API was documented to compute.

- every target of every migration exists (import + getattr) in the installed phiml / phiflow / jax;
- every source is really gone (AttributeError / ImportError), deprecated (warns when used), or a
  compatibility alias that is the target object itself;
- the facts each rewrite relies on hold (signatures, identities, the `solve_linear` tuple unpacking);
- golden cases with GOLDEN["migration"]: the original fails with the stated error on the installed
  versions (or, for a deprecated alias, `"original_error": None`, still runs and must agree), and
  the rewrite — jitted and eager, on each backend — equals `golden_expected()`, the documented old
  semantics computed without the migrated API. (The golden harness's own execution test compares
  with the *original's* eager result — PhiML's on numpy — which does not exist when the original
  raises, nor for gradients, which numpy cannot take; cases whose original runs everywhere use it.)
"""
from __future__ import annotations

import importlib
import inspect
import math as pymath
import warnings
from pathlib import Path

import pytest

from codemods import _migration_rows as table
from rewriter.findings import Safety
from tests.harness.golden_cases import discover
from rewriter.verify.run import Run
from rewriter.verify.values import compare
from tests.harness.golden_batches import Batcher, Key, Request, grouped, rewritten_file

ROOT = Path(__file__).resolve().parent.parent
ALL = [m for rows in table.TABLES.values() for m in rows]


def _lookup(dotted: str):
    """Import the longest importable module prefix of `dotted`, then getattr the rest.
    Raises AttributeError / ImportError as Python would for the first missing piece."""
    parts = dotted.split(".")
    module, i = None, len(parts)
    while i > 0:
        try:
            module = importlib.import_module(".".join(parts[:i]))
            break
        except ModuleNotFoundError:
            i -= 1
    if module is None:
        raise ModuleNotFoundError(dotted)
    value = module
    for part in parts[i:]:
        value = getattr(value, part)
    return value


def _gone(dotted: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _lookup(dotted)
        except (AttributeError, ImportError):
            return True
    return False


def _warns(dotted: str) -> bool:
    """Using it warns — or, for jax, it is in the module's `_deprecations` table with a live object
    (jax's `deprecation_getattr` is cached: it warns only on the first access in a process)."""
    module_name, name = dotted.rsplit(".", 1)
    registered = getattr(importlib.import_module(module_name), "_deprecations", {}).get(name)
    if registered is not None and registered[1] is not None:
        return True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _lookup(dotted)
    return any(issubclass(w.category, (DeprecationWarning, FutureWarning)) for w in caught)


_BACKEND_MODULES = ("phi.tf.", "phi.torch.", "phi.jax.")  # importing them imports the framework


def _rows(migrations) -> list:
    """The rows as parameters; those that import a backend's framework (seconds each) are marked
    `backends`, out of `make check`'s quick loop."""
    return [pytest.param(m, id=m.source, marks=[pytest.mark.backends] if m.source.startswith(_BACKEND_MODULES) else [])
            for m in migrations]


@pytest.mark.parametrize("migration", _rows([m for m in ALL if m.target]))
def test_target_exists(migration):
    assert _lookup(migration.target) is not None


@pytest.mark.parametrize("migration", _rows(ALL))
def test_source_is_gone_deprecated_or_alias(migration):
    if migration.status is table.Status.REMOVED:
        assert _gone(migration.source), f"{migration.source} still exists in the installed version"
    elif migration.status is table.Status.DEPRECATED:
        assert not _gone(migration.source) and _warns(migration.source), f"{migration.source} is not deprecated"
    else:
        assert _lookup(migration.source) is _lookup(migration.target), f"{migration.source} is not an alias of {migration.target}"


@pytest.mark.parametrize("migration", ALL, ids=lambda m: m.source)
def test_row_is_well_formed(migration):
    if migration.target is None and migration.value is None:
        assert migration.safety in (Safety.DISPLAY, Safety.SAFE)  # SAFE without a target: a special form (tie_in)
    if migration.status is table.Status.ALIAS:
        assert migration.safety is Safety.SAFE


def test_phi_math_aliases_are_the_phiml_functions():
    import phi.math
    import phiml.math

    for old, new in table.PHI_MATH_ALIASES.items():
        assert getattr(phi.math, old) is getattr(phiml.math, new)
        assert not hasattr(phiml.math, old)
    assert phi.math.functional_gradient is phiml.math.gradient
    assert not hasattr(phiml.math, "functional_gradient")


def test_functional_gradient_signature_is_gradient_s():
    import phiml.math

    params = list(inspect.signature(phiml.math.gradient).parameters.values())
    assert [p.name for p in params] == ["f", "wrt", "get_output"]
    assert params[1].default is None and params[2].default is True  # PhiFlow 2.3-2.4 functional_gradient's defaults


def test_wrt_by_position_is_deprecated_and_means_the_names():
    from phiml import math

    def loss(x, y):
        return math.l2_loss(x * y)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        by_position = math.gradient(loss, (0, 1), get_output=False)
        one = math.gradient(loss, 1)
        listed = math.jacobian(loss, [0])
    assert any("wrt by position is deprecated" in str(w.message) for w in caught)
    # the GradientFunction is built from (f, parameters, wrt, get_output): equal wrt = the same function
    assert by_position.wrt == math.gradient(loss, ("x", "y"), get_output=False).wrt == ("x", "y")
    assert one.wrt == math.gradient(loss, "y").wrt == "y"  # an int: the bare gradient, like a name
    assert listed.wrt == math.jacobian(loss, ["x"]).wrt == ("x",)  # a list: a tuple of gradients
    assert math.gradient(loss).wrt == ("x",)  # PhiFlow 2.0-2.2's default wrt=(0,)


def test_star_imports_bind_what_the_table_says():
    from phiml.backend import default_backend, set_global_default_backend

    previous = default_backend()  # importing phi.torch.flow & co. makes that backend PhiML's global default
    try:
        modules = {module: importlib.import_module(module) for module in table.STAR}
    finally:
        set_global_default_backend(previous)
    for module, exports in table.STAR.items():
        mod = modules[module]
        public = getattr(mod, "__all__", None)
        for local, target in exports.items():
            assert public is None or local in public, f"`from {module} import *` does not bind {local}"
            assert getattr(mod, local) is _lookup(target), f"{module}.{local} is not {target}"
    for old, new in table.MODULE_ALIASES:
        assert _lookup(old.rstrip(".")) is _lookup(new.rstrip("."))


def test_jax_tree_targets_take_the_old_parameters():
    import jax

    # The rows `jax.tree_X` -> `jax.tree.Y` whose old function jax.tree_util still has (tree_multimap is gone).
    renamed = [(m.name, m.target.rsplit(".", 1)[1]) for m in table.JAX_TREE
               if m.target and m.target.startswith("jax.tree.") and hasattr(jax.tree_util, m.name)]
    assert len(renamed) == 6, renamed  # tree_map, tree_leaves, tree_flatten, tree_unflatten, tree_structure, tree_transpose
    for old, new in renamed:
        new_params = inspect.signature(getattr(jax.tree, new)).parameters
        old_params = inspect.signature(getattr(jax.tree_util, old)).parameters
        assert list(new_params) == list(old_params), (old, new)
        assert [p.kind for p in new_params.values()] == [p.kind for p in old_params.values()], (old, new)
    tree = {"a": (1, 2), "b": [3]}
    assert jax.tree.leaves(tree) == jax.tree_util.tree_leaves(tree)
    assert jax.tree.map(lambda v: v * 2, tree) == jax.tree_util.tree_map(lambda v: v * 2, tree)


def test_jax_identities_the_rewrites_rely_on():
    import jax
    import jax._src.ad_checkpoint as ad_checkpoint
    import jax._src.core as core
    import jax.numpy as jnp

    assert jax.checkpoint is ad_checkpoint.checkpoint  # what jax.ad_checkpoint.{checkpoint,remat} were
    assert jax.core.ShapedArray is core.ShapedArray  # what jax.abstract_arrays.ShapedArray was
    assert -jnp.inf == float("-inf") and pymath.copysign(1.0, -0.0) < 0  # NINF, NZERO
    x = jnp.asarray([-1.5, -0.5, -0.0, 0.0, 0.5, 1.5])
    assert (jnp.trunc(x) == jnp.where(x >= 0, jnp.floor(x), jnp.ceil(x))).all()  # jnp.fix's definition
    assert list(inspect.signature(jax.numpy.trapezoid).parameters) == ["y", "x", "dx", "axis"]  # jnp.trapz's
    pjit = inspect.signature(_lookup_quietly("jax.experimental.pjit.pjit")).parameters
    assert list(pjit)[1:] == list(table.PJIT_PARAMETERS)
    jit = inspect.signature(jax.jit).parameters
    assert all(jit[name].kind is inspect.Parameter.KEYWORD_ONLY for name in table.PJIT_PARAMETERS)


def _lookup_quietly(dotted: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _lookup(dotted)


@pytest.mark.parametrize("migration", table.REMOVED_KEYWORDS, ids=lambda m: f"{m.function}:{m.old}")
def test_removed_keyword_is_gone(migration):
    import phiml.math

    function = getattr(phiml.math, migration.function.rsplit(".", 1)[1])
    params = inspect.signature(function.__init__ if inspect.isclass(function) else function).parameters
    assert migration.old not in params or params[migration.old].kind is inspect.Parameter.VAR_POSITIONAL
    if migration.new is not None:
        assert migration.new in params
    else:  # solve_linear: `*f_args` — an `f_args=` keyword would end up in `**f_kwargs_`
        assert params[migration.old].kind is inspect.Parameter.VAR_POSITIONAL
        assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_unchanged_keywords_have_no_migration():
    functions = {m.function for m in table.REMOVED_KEYWORDS}
    assert not functions & set(table.UNCHANGED_KEYWORDS)


def test_solve_positional_order_changed():
    from phiml import math

    params = list(inspect.signature(math.Solve.__init__).parameters)[1:6]
    assert params == ["method", "rel_tol", "abs_tol", "x0", "max_iterations"]
    assert table.OLD_SOLVE_POSITIONAL[3:5] == ("max_iterations", "x0")


def test_solve_linear_unpacks_one_positional_tuple():
    """The fact PML605's f_args rewrite rests on: `solve_linear(f, y, solve, (a, b))` calls f(x, a, b)."""
    import numpy as np
    from phiml import math
    from phiml.math import spatial

    seen = []

    def f(x, a, b):
        seen.append((a, b))
        return x * 2

    y = math.tensor(np.ones(3, dtype=np.float32), spatial("x"))
    x = math.solve_linear(f, y, math.Solve("CG", 1e-5, 1e-5, x0=0 * y), ("a", "b"))
    assert seen and all(s == ("a", "b") for s in seen)
    assert np.allclose(x.numpy(), 0.5)


# --- migrated golden programs whose originals fail on the installed versions ----------------------

MIGRATION_CASES = [
    (case, backend)
    for case in discover(ROOT / "golden")
    if "migration" in case.spec
    for backend in case.spec["migration"].get("backends", ["jax"])
]


def _migration_key(case, backend: str) -> Key:
    return Key(backend, case.spec["migration"].get("framework", "phiml"), role="migration")


def _plan(directory: Path) -> list[Request]:
    out = []
    for case, backend in MIGRATION_CASES:
        rewritten, isolated = rewritten_file(case, directory)
        out.append(Request(case.id, _migration_key(case, backend), (
            Run("original", str(case.path), case.entry),
            Run("rewritten", str(rewritten), case.entry),
            Run("rewritten_eager", str(rewritten), case.entry, eager=True),
            Run("expected", str(rewritten), "golden_expected", eager=True),
        ), isolated))
    return out


@pytest.fixture(scope="session")
def migration_runs(tmp_path_factory) -> Batcher:
    return Batcher(lambda: _plan(tmp_path_factory.mktemp("migrated")))


@pytest.mark.parametrize("case,backend", [grouped(_migration_key(c, b), c, b) for c, b in MIGRATION_CASES],
                         ids=lambda v: v if isinstance(v, str) else v.id)
def test_migrated_program_runs_and_keeps_the_documented_semantics(case, backend, migration_runs):
    spec = case.spec["migration"]
    assert case.expected_path.exists(), "a migration case must be rewritten"
    records = migration_runs.records(_migration_key(case, backend), case.id)
    expected = records["expected"]
    assert "error" not in expected, f"golden_expected fails: {expected['error']}"
    checked = ["rewritten", "rewritten_eager"]
    if spec["original_error"] is None:  # a deprecated alias: the original still runs, and must agree too
        checked.insert(0, "original")
    else:
        error = records["original"].get("error", "success")
        assert error.startswith(spec["original_error"]), f"original on {backend}: want {spec['original_error']}, got {error}"
    for label in checked:
        record = records[label]
        assert "error" not in record, f"{label} fails on {backend}: {record['error']}\n{record.get('traceback', '')}"
        verdict = compare(expected["value"], record["value"], dtypes=False)  # computed another way: its own dtypes
        assert verdict.equal, f"{label} differs from the documented semantics on {backend}: {verdict.reason}"
        if label != "original" and "original" in checked:  # where the original runs, the same dtypes too
            same = compare(records["original"]["value"], record["value"])
            assert same.equal, f"{label} differs from the original on {backend}: {same.reason}"


def test_migration_cases_belong_to_migration_codemods():
    names = {"functional-gradient", "phi-math-alias", "jax-tree-api", "jax-removed-api", "removed-keyword"}
    for case, _ in MIGRATION_CASES:
        assert case.codemod in names and "backends" not in case.spec, case.id
