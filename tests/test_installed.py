"""The facts about the installed packages (rewriter/analysis/_installed.py): generated from their
sources, true of the imported modules, and what the rules resolve through."""
from __future__ import annotations

import importlib
import textwrap

import pytest

from rewriter.analysis import installed
from rewriter.analysis.apis import TABLE, canonical, lookup
from rewriter.analysis.module_source import DEFINED, UNBOUND, ModuleRef, Ref, read_module
from rewriter.analysis.scan_installed import OUTPUT, Installed, facts, render


@pytest.mark.slow
def test_checked_in_facts_match_the_installed_packages():
    expected = render(facts(Installed()))
    assert OUTPUT.read_text() == expected, (
        "rewriter/analysis/_installed.py differs from the installed packages: "
        "run `python -m rewriter.analysis.scan_installed` and review the diff")


# -- reading one module -------------------------------------------------------------------------

def _read(source: str, name="pkg.mod", exports=None):
    return read_module(name, textwrap.dedent(source), False, lambda m: (exports or {}).get(m))


def test_reexports_and_definitions():
    m = _read("""
        from .ops import solve as solve_linear, where
        from other import *
        import numpy as np
        import jax.numpy
        def own(): pass
        alias = own
        functional_gradient = where
    """, exports={"other": ["a", "b"]})
    assert m.bindings["solve_linear"] == {Ref("pkg.ops", "solve")}
    assert m.bindings["a"] == {Ref("other", "a")}
    assert m.bindings["np"] == {ModuleRef("numpy")}
    assert m.bindings["jax"] == {ModuleRef("jax")}
    assert m.bindings["alias"] == {DEFINED}
    assert m.bindings["functional_gradient"] == {Ref("pkg.ops", "where")}
    assert not m.open


def test_branches_deletions_and_type_checking():
    m = _read("""
        import typing
        try:
            from fast import thing
        except ImportError:
            thing = None
        if typing.TYPE_CHECKING:
            only_for_checkers = 1
        else:
            at_run_time = 2
        if flag:
            maybe = 1
        gone = 1
        del gone
    """)
    assert m.bindings["thing"] == {Ref("fast", "thing"), DEFINED}
    assert "only_for_checkers" not in m.bindings and m.definitely_bound("at_run_time")
    assert m.possibly_bound("maybe") and not m.definitely_bound("maybe")
    assert m.bindings["gone"] == {UNBOUND}


def test_star_names_all_and_unknown_modules():
    m = _read("""
        from unreadable import *
        __all__ = ["x"] + ["y"]
        __all__ += ["z"]
    """)
    assert m.open and m.star_names() == ["x", "y", "z"]
    public = _read("import sys as _sys\nmath = _sys.modules[__name__]\n_hidden = 1\nshown = 2\n")
    assert public.bindings["math"] == {ModuleRef("pkg.mod")}
    assert public.star_names() == ["math", "shown"]


def test_deprecation_getattr():
    m = _read("""
        _deprecations = {"old": ("gone", None), "kept": ("deprecated", _kept)}
        from jax._src.deprecations import deprecation_getattr as _getattr
        __getattr__ = _getattr(__name__, _deprecations)
    """)
    assert m.getattr_names == {"old": False, "kept": True}
    assert _read("def __getattr__(name): ...\n").getattr_names is None


# -- what the rules resolve through ------------------------------------------------------------

@pytest.mark.parametrize("spelled, expected", [
    ("phi.field.solve_linear", "phiml.math.solve_linear"),
    ("phi.field.jit_compile_linear", "phiml.math.jit_compile_linear"),
    ("phi.field.functional_gradient", "phiml.math.gradient"),
    ("phi.math.functional_gradient", "phiml.math.gradient"),
    ("phi.flow.math.jit_compile", "phiml.math.jit_compile"),
    ("phi.jax.flow.field.minimize", "phiml.math.minimize"),
    ("phi.jax.flow.jnp.where", "jax.numpy.where"),
    ("phiml.jit_compile", "phiml.math.jit_compile"),
    ("phiml.math._optimize.solve_linear", "phiml.math.solve_linear"),
    ("jax._src.api.jit", "jax.jit"),
    ("jax._src.lax.control_flow.conditionals.cond", "jax.lax.cond"),
    ("jax.numpy.where", "jax.numpy.where"),
    ("numpy.where", "numpy.where"),
    ("mypackage.field.solve_linear", "mypackage.field.solve_linear"),
])
def test_canonical(spelled: str, expected: str):
    assert canonical(spelled) == expected


def test_private_helpers_keep_their_spelling():
    """Only table APIs are resolved through private modules (see apis.canonical)."""
    assert installed.canonical("jax._src.dtypes.isdtype") == "jax.numpy.isdtype"
    assert canonical("jax._src.dtypes.isdtype") == "jax._src.dtypes.isdtype"


def test_every_table_api_still_resolves_to_its_kind():
    for name, api in TABLE.items():
        found = lookup(name)
        assert found is not None and found.kind is api.kind, name


def test_renamed_reexports_of_apis_keep_the_word_the_byte_triggers_look_for():
    """A codemod's TRIGGERS are words of its APIs' names (`gradient`, `solve_linear`): a re-export
    under another name must contain it (`functional_gradient`), or the byte pre-filter would skip it."""
    for module in installed.data().NAMES:
        for name, target in installed._bindings(module).items():
            api = lookup(target)
            if api is not None:
                assert api.name.rsplit(".", 1)[1] in name, f"{module}.{name} is {api.name}: add it to the TRIGGERS"


def test_star_exports():
    flow = installed.star_exports("phi.flow")
    assert flow["field"] == "phi.field" and flow["math"] == "phiml.math" and flow["np"] == "numpy"
    assert "map" not in installed.star_exports("phiml")  # `from phiml import *` leaves the builtin alone
    assert installed.star_exports("phiml.math")["map"] == "phiml.math.map"
    assert installed.star_exports("mypackage") is None


@pytest.mark.parametrize("module, name, expected", [
    ("jax", "pure_callback", True),
    ("jax", "numpy", True),
    ("jax", "tree_map", False),  # removed: jax's __getattr__ only answers its listed deprecations
    ("jax", "device_put_replicated", False),  # listed, with no replacement: raises AttributeError
    ("jax.numpy", "product", False),
    ("jax.numpy", "prod", True),
    ("jax", "experimental", None),  # a submodule: an attribute once something imports it
    ("mypackage", "x", None),
])
def test_has_attribute(module: str, name: str, expected):
    assert installed.has_attribute(module, name) is expected


def test_module_exists():
    assert installed.module_exists("jax.experimental.host_callback") is False
    assert installed.module_exists("jax.experimental.pjit") is True
    assert installed.module_exists("torch.nn") is None


# -- the facts are true of the imported modules ----------------------------------------------------

_CHECKED = ("phi.field", "phi.math", "phi.flow", "phiml", "phiml.math", "jax", "jax.numpy", "jax.lax", "equinox")


def _object(dotted: str):
    module, _, name = dotted.rpartition(".")
    try:
        return importlib.import_module(dotted)
    except ImportError:
        return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("module", _CHECKED)
def test_reexports_are_the_same_objects(module: str):
    imported = importlib.import_module(module)
    for name, target in installed._bindings(module).items():
        if target != f"{module}.{name}" and name not in installed.data().MAYBE.get(module, "").split():
            assert getattr(imported, name) is _object(target), f"{module}.{name} is not {target}"


@pytest.mark.parametrize("module", _CHECKED)
def test_has_attribute_agrees_with_hasattr(module: str):
    imported = importlib.import_module(module)
    names = [*installed._bindings(module), "tree_map", "product", "functional_gradient", "no_such_name"]
    for name in names:
        known = installed.has_attribute(module, name)
        if known is not None:
            assert hasattr(imported, name) is known, f"hasattr({module}, {name!r})"


def test_the_stored_reaching_names_are_those_the_table_and_the_facts_give(monkeypatch):
    """`_reaching.py` is what `python -m rewriter.analysis.reaching` writes now, and a run reads it;
    where its inputs differ from this process's (a table edited, facts regenerated, and it not), a run
    makes the names itself instead of reading stale ones."""
    from rewriter.analysis import _reaching, apis, reaching

    assert reaching.OUTPUT.read_text() == reaching.render(), (
        "rewriter/analysis/_reaching.py is stale: run `python -m rewriter.analysis.reaching`")
    apis._reaching_names.cache_clear()
    try:
        assert apis._reaching_names(False) is _reaching.REACHING
        assert apis._reaching_names(True) == _reaching.REACHING | _reaching.WITH_PARTIAL == apis.reaching_names(True)
        apis._reaching_names.cache_clear()
        monkeypatch.setattr(_reaching, "REACHING", frozenset({"stale"}))
        monkeypatch.setattr(_reaching, "INPUTS", "another table")
        assert apis._reaching_names(False) == apis.reaching_names(False) != frozenset({"stale"})
    finally:
        apis._reaching_names.cache_clear()
