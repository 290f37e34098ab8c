"""The shape and dtype algebra of branch forms (rewriter/analysis/forms.py, read by ast_forms.py): what
proves a merge safe.

Each claim of agreement here was checked by execution on jax, numpy, torch and tensorflow (float32,
float64, float16 and int32 data): a Python number keeps a floating array's dtype, a full reduction
keeps a float's, an integer array times a Python float changes dtype (and raises in tensorflow)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from rewriter.analysis.ast_forms import Forms
from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.forms import Agreement, Form, agreement, merge_dtypes
from rewriter.ast_rule import AstFile
from rewriter.emit.ast_agreement import forms_in

HEADER = """
    import jax
    import jax.numpy as jnp
    import tensorflow as tf
    import torch
    from phiml import math
    from jaxtyping import Array, Float, Float32, Int32
"""


def _forms(signature: str, body: str = "", params: dict[str, Form] | None = None) -> Forms:
    source = textwrap.dedent(HEADER) + f"\ndef f({signature}):\n" + textwrap.indent(textwrap.dedent(body) + "return x\n", "    ")
    return _forms_of(source, params)


def _forms_of(source: str, params: dict[str, Form] | None = None) -> Forms:
    """The forms in the function `f` of `source`, asked at its last statement."""
    python = AstModule(source)
    fn = next(s for s in python.tree.body if isinstance(s, ast.FunctionDef) and s.name == "f")
    return forms_in(AstFile("module.py", python, python), fn, fn.body[-1], params)


def _expression(code: str) -> ast.expr:
    return ast.parse(code, mode="eval").body


def _verdict(forms: Forms, *values: str) -> Agreement:
    return agreement([forms.of(_expression(v)) for v in values]).agreement


FLOAT_X = {"x": Form("array", "x", "float"), "cap": Form("scalar", dtype="float")}
SAME_X = {"x": Form("array", "x", "same")}


@pytest.mark.parametrize("values,params,expected", [
    # a full reduction is a 0-d array of x's dtype; a Python number is weak
    (("x * (cap / jnp.sum(x))", "x"), FLOAT_X, Agreement.AGREE),
    (("x * (cap / x.sum())", "x"), FLOAT_X, Agreement.AGREE),
    (("x / jnp.max(x) * cap", "x"), FLOAT_X, Agreement.AGREE),
    (("x + 0.01 * jnp.sin(x)", "x"), FLOAT_X, Agreement.AGREE),
    (("2 * x * x", "1 - 2 * (1 - x) ** 2"), FLOAT_X, Agreement.AGREE),
    (("x ** 0.5", "x"), FLOAT_X, Agreement.AGREE),
    # without evidence that x is floating, a Python float may change its dtype
    (("x * (cap / jnp.sum(x))", "x"), {"x": Form("array", "x", "same"), "cap": Form("scalar", dtype="float")},
     Agreement.DOUBT),
    (("x * 0.5", "x"), SAME_X, Agreement.DOUBT),
    (("x * 0.5", "x"), {"x": Form("array", "x", "int32")}, Agreement.DOUBT),
    # integers keep an integer array's dtype
    (("2 * x * x", "1 - 2 * (1 - x) ** 2"), SAME_X, Agreement.AGREE),
    # an integer sum widens in numpy and torch; the max keeps the dtype everywhere
    (("x + jnp.sum(x)", "x"), SAME_X, Agreement.DOUBT),
    (("x + jnp.max(x)", "x"), SAME_X, Agreement.AGREE),
    # a reduction over some axes has a shape of its own; with keepdims it broadcasts back
    (("jnp.sum(x, axis=0)", "x[0]"), FLOAT_X, Agreement.DOUBT),
    (("x - jnp.sum(x, axis=0)", "x"), FLOAT_X, Agreement.DOUBT),
    (("x - jnp.mean(x, axis=0, keepdims=True)", "x"), FLOAT_X, Agreement.AGREE),
    # a reduction is a 0-d array: it does not agree with a Python number, nor with x
    (("jnp.sum(x)", "0.0"), FLOAT_X, Agreement.DOUBT),
    (("jnp.sum(x)", "x"), FLOAT_X, Agreement.DOUBT),
    (("jnp.sum(x)", "jnp.max(x) * 2"), FLOAT_X, Agreement.AGREE),
    # casts spell the dtype, whatever x holds
    (("x.astype(jnp.float32) * 0.5", "jnp.abs(x).astype(jnp.float32)"), SAME_X, Agreement.AGREE),
    (("x.astype(jnp.float32)", "x.astype(jnp.float64)"), SAME_X, Agreement.DOUBT),
    (("x.astype(jnp.float32)", "x"), FLOAT_X, Agreement.DOUBT),  # x may be float64
    (("x.astype(float)", "x.astype(float)"), SAME_X, Agreement.DOUBT),  # float64 in numpy, float32 in jax
    (("tf.cast(x, tf.float32)", "tf.cast(x * 2, tf.float32)"), SAME_X, Agreement.AGREE),
    (("x.float() * 0.5", "x.to(torch.float32)"), SAME_X, Agreement.AGREE),
    (("x.to('cpu')", "x"), SAME_X, Agreement.DOUBT),
    # reshapes to literal shapes
    (("x.reshape((2, 3)) * 2", "jnp.reshape(-x, (2, 3))"), SAME_X, Agreement.AGREE),
    (("x.reshape(2, 3)", "x.reshape((2, 3))"), SAME_X, Agreement.AGREE),
    (("x.reshape((2, 3))", "x.reshape((3, 2))"), SAME_X, Agreement.DOUBT),
    (("x.reshape((2, -1))", "x.reshape((2, -1))"), SAME_X, Agreement.DOUBT),
    (("x.reshape((2, 3))", "x"), SAME_X, Agreement.DOUBT),
])
def test_array_algebra(values, params, expected):
    assert _verdict(_forms("x, cap", params=params), *values) is expected


def test_phiml_reductions_keep_batch_dimensions():
    forms = _forms("x, cap", "total = math.sum(x)\n", FLOAT_X)
    assert forms.of(_expression("total")).kind == "reduced"
    assert _verdict(forms, "x - (total - cap) * 0.25", "x") is Agreement.AGREE
    assert _verdict(forms, "total", "x") is Agreement.DOUBT  # broadcast by a selection


@pytest.mark.parametrize("signature,values,expected", [
    ('x: Float[Array, "n"], cap', ("x * 0.5", "-x"), Agreement.AGREE),
    ('x: Float32[Array, "n"], cap', ("x.astype(jnp.float32)", "x * 2"), Agreement.AGREE),
    ('x: Int32[Array, "n"], cap', ("x * 0.5", "x"), Agreement.DOUBT),
    ("x: jax.Array, cap", ("x * 0.5", "x"), Agreement.DOUBT),
    ("x: float, cap", ("2 * x * x", "1 - 2 * (1 - x) ** 2"), Agreement.AGREE),
    ("x: int, cap", ("x * 0.5", "x"), Agreement.DOUBT),
])
def test_annotations_declare_dtypes(signature, values, expected):
    assert _verdict(_forms(signature), *values) is expected


def test_a_rebound_builtin_proves_nothing():
    source = textwrap.dedent(HEADER) + "\nfloat = jnp.float32\n\ndef f(x: float):\n    return x\n"
    assert _forms_of(source).of(_expression("x")).kind == "array"


@pytest.mark.parametrize("forms,division,expected", [
    ([Form("array", "x", "float32"), Form("scalar", dtype="float")], False, "float32"),
    ([Form("array", "x", "float16"), Form("scalar", dtype="float")], True, "float16"),
    ([Form("array", "x", "int32"), Form("scalar", dtype="int")], False, "int32"),
    ([Form("array", "x", "int32"), Form("scalar", dtype="int")], True, "?"),  # float64 in numpy, float32 in jax
    ([Form("array", "x", "int32"), Form("scalar", dtype="float")], False, "?"),  # tensorflow raises
    ([Form("array", "x", "bool"), Form("scalar", dtype="int")], False, "?"),  # bool + 1 is an integer
    ([Form("array", "x", "same"), Form("scalar", dtype="float")], False, "float"),
    ([Form("array", "x", "float"), Form("scalar", "y", "float")], False, "?"),  # two values' own dtypes
    ([Form("array", "x", "float32"), Form("scalar", "y", "float32")], False, "float32"),
    ([Form("scalar", dtype="int"), Form("scalar", dtype="int")], True, "float"),
])
def test_merge_dtypes(forms, division, expected):
    assert merge_dtypes(forms, division) == expected
