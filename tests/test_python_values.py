"""What `equinox.filter_jit` keeps a Python value: annotations, value-class fields, type predicates."""
from __future__ import annotations

import ast

import pytest

from rewriter.analysis.annotations import annotation_of, is_python_value, shape_properties, static_fields
from rewriter.analysis.installed import is_type_predicate
from rewriter.analysis.installed import static_fields as installed_static_fields
from rewriter.analysis.predicates import type_predicates


@pytest.mark.parametrize("code, python", [
    ("int", True), ("bool | None", True), ("tuple[int, int]", True), ("tuple[int, ...]", True),
    ("Optional[str]", True), ("typing.Literal['a', 'b']", True), ("'tuple[int, int]'", True),
    ("Union[int, float]", True),
    ("jax.Array", False), ("tuple[jax.Array, int]", False), ("list", False), ("Optional[Array]", False),
    ("Callable[[int], int]", False), ("PyTree[int]", False),
])
def test_python_value_annotations(code, python):
    assert is_python_value(annotation_of(code)) is python


def test_static_fields_of_value_classes():
    tree = ast.parse(
        "class A(eqx.Module):\n    dense: bool\n    ts: jax.Array\n    n: int = eqx.field(static=True)\n"
        "    fn: object = eqx.field(static=True)\n    x: object = eqx.field(static=False)\n"
        "@dataclasses.dataclass\nclass B:\n    flag: bool = False\n"
        "class C:\n    flag: bool = False\n")
    a, b, c = tree.body
    assert static_fields(a) == ["dense", "fn", "n"]
    assert static_fields(b) == ["flag"]
    assert static_fields(c) == []  # not a value class: its annotations say nothing about instances


def test_type_predicates_fixpoint():
    tree = ast.parse(
        "def _leaf(x):\n    return isinstance(x, Brownian)\n"
        "def is_sde(terms):\n    leaves, _ = flatten(terms, is_leaf=_leaf)\n    return any(_leaf(l) for l in leaves)\n"
        "def is_none(x):\n    return x is None or not callable(x)\n"
        "def positive(x):\n    return x > 0\n"
        "def mixed(x):\n    if x is None:\n        return False\n    return x.sum() > 0\n"
        "def gen(x):\n    yield isinstance(x, int)\n")
    assert type_predicates(tree) == ["_leaf", "is_none", "is_sde"]


def test_installed_tables_answer_by_every_spelling():
    assert {"dense", "solver_state"} <= installed_static_fields("diffrax.SaveAt")
    assert installed_static_fields("diffrax._saveat.SaveAt") == installed_static_fields("._saveat.SaveAt")
    assert "ts" not in installed_static_fields("diffrax.SaveAt")
    assert is_type_predicate("._heuristics.is_sde") and is_type_predicate("equinox.is_array")
    assert not is_type_predicate("jax.numpy.isnan") and not is_type_predicate("._heuristics.nothing")


def test_shape_properties_return_what_shapes_tell():
    """Only a property whose one `return` reads shapes, ranks, dtypes or lengths is a Python value under jit."""
    cls = ast.parse(
        "class State:\n"
        "    @property\n    def dim(self):\n        '''The dimension.'''\n        return self.pos.shape[-1]\n"
        "    @property\n    def rank(self):\n        return self.pos.ndim + len(self.vel) - 1\n"
        "    @property\n    def dims(self):\n        return (self.pos.shape[0], 3)\n"
        "    @property\n    def total(self):\n        return self.pos.sum()\n"           # the values: traced
        "    @property\n    def extent(self):\n        return self.box.size\n"            # a geometry's size: a tensor
        "    @property\n    def axis(self):\n        return self.pos.shape[self.k]\n"  # an index read elsewhere
        "    @property\n    def first(self):\n        if self.pos.ndim:\n            return 1\n        return 0\n"
        "    def plain(self):\n        return self.pos.shape[-1]\n"                   # not a property
    ).body[0]
    assert shape_properties(cls) == ["dim", "dims", "rank"]
