"""rewriter.analysis.callsites: what the calls of a jitted function pass, read on CPython's `ast`, and the
roles that makes of its parameters (AstFile.traced.roles); a fix written on libcst finds the calls by
their places.

Before the libcst reading was deleted (issue 45), the two were compared for every jit context of the
golden cases, the examples and 2,315 real-code files; the one difference kept is `ast`'s (a deleted name,
test_a_deleted_name_is_no_container). The roles end to end are tests/test_evidence.py's.
"""
from __future__ import annotations


import libcst as cst
import pytest

from rewriter.analysis.ast_jit import JitAnalysis
from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.callsites import CallSites, Role
from rewriter.analysis.module import ModuleAnalysis
from rewriter.ast_rule import AstFile
from rewriter.engine import ProcessingError
from tests.harness.ast_files import ast_file

OPEN = "imported elsewhere"


def _read(source: str, open_module: str = ""):
    """{function name: (evidence, roles)} for each jit context of `source`."""
    module = AstModule(source)
    sites = CallSites(module, open_module=open_module)
    return {c.name: (sites.of(c.function, c.how, c.application), sites.roles(c.function, c.how, c.application, c.static_params))
            for c in JitAnalysis(module.names).contexts}


def test_arrays_literals_and_loop_variables_are_told_apart():
    [(evidence, roles)] = _read(
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef _f(x, n=3, flag: bool = False):\n    return x\n"
        "_f(jnp.ones(3), 2)\n_f(jnp.array([1., 2.]), n=4)\nfor k in range(5):\n    _f(jnp.float32(k) / 2, k, True)\n",
        OPEN).values()
    assert evidence.complete and len(evidence.calls) == 3
    assert roles["x"].role is Role.DATA and roles["x"].why == "an array is passed (`jnp.ones(3)`)"
    assert roles["x"].arrays == ("float",) * 3 and roles["x"].shapes == ("(3,)", "(2,)", None)
    assert roles["n"].role is Role.CONFIG and roles["n"].why == "passed only as Python values: `2`, `4`, `k`"
    assert roles["n"].values == (2, 4, None) and roles["n"].proven
    assert roles["flag"].role is Role.CONFIG and roles["flag"].why == "annotated `bool`"


def test_a_keyword_that_lands_in_kwargs_leaves_the_named_parameters_bound():
    """`verbose=True` goes to `**kwargs`: the call still tells that `rank` keeps its default."""
    [(evidence, roles)] = _read(
        "import jax\nimport jax.numpy as jnp\ndef _f(x, rank: int = -1, *args, **kwargs):\n    return x\n"
        "fast = jax.jit(_f)\nfast(jnp.ones(4), verbose=True)\nfast(jnp.ones(4))\n").values()
    assert evidence.complete and len(evidence.calls) == 2
    assert roles["rank"].role is Role.DEFAULTED
    [(evidence, roles)] = _read(
        "import jax\nimport jax.numpy as jnp\ndef _f(x, rank: int = -1, *args):\n    return x\n"
        "fast = jax.jit(_f)\nfast(jnp.ones(4), 2, 3)\nfast(jnp.ones(4), verbose=True)\n").values()
    assert not evidence.complete  # no `**kwargs`: the second call raises, and is not read
    assert roles["rank"].role is Role.CONFIG and roles["rank"].values == (2,)


def test_a_parameter_passed_only_none_is_a_constant_at_trace_time():
    """jit flattens `None` to no leaves: the function sees `None`, as it sees a default."""
    [(_, roles)] = _read(
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef _f(x, n=None, m=None, k=3):\n    return x\n"
        "_f(jnp.ones(2), n=None, k=None)\n_f(jnp.ones(2), None, None, None)\n").values()
    assert roles["n"].role is Role.DEFAULTED and roles["n"].values == (None,) and roles["n"].proven
    assert roles["n"].why == "every call passes `None`, an empty pytree: not traced"
    assert roles["m"].why == "every call passes `None` or leaves its default `None`, an empty pytree: not traced"
    assert roles["k"].role is Role.CONFIG  # left at `3` by none, but passed `None` where a number is the default
    [(_, roles)] = _read(
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef _f(x, n=None):\n    return x\n"
        "_f(jnp.ones(2), n=None)\n_f(jnp.ones(2), n=jnp.ones(2))\n").values()
    assert roles["n"].role is Role.DATA


def test_a_wrapped_function_escapes_when_public_or_passed_on():
    [(evidence, roles)] = _read(
        "import jax\nimport jax.numpy as jnp\ndef g(x, mode='a'):\n    return x\nfast = jax.jit(g)\nm, n = 'b', 2\n"
        "fast(jnp.zeros((2, 3)), m)\nrun(fast)\n", OPEN).values()
    assert evidence.escapes == ["`fast` is public: imported elsewhere", "`fast` is passed to `run`"]
    assert roles["mode"].values == ("b",) and roles["mode"].open == "; ".join(evidence.escapes)
    assert roles["x"].shapes == ("(2, 3)",)


def test_each_way_a_function_escapes_is_named():
    [(evidence, roles)] = _read(
        "import jax\n@register\n@jax.jit\ndef _h(x, *, scale=2.0):\n    return x\nitems = [_h]\n_h(1, scale=-1.5)\n"
        "_h(*args)\nclass A(_h):\n    pass\ncache[_h, 1]\ng = _h\nreturn_ = {**_h}\n").values()
    assert evidence.escapes == ["`_h` is handed to the decorator `@register`", "`_h` is stored in a container",
                                "`_h` is passed to `a call`", "`_h` is used other than by a call", "`_h` is assigned to `g`"]
    assert len(evidence.calls) == 1 and roles["scale"].values == (-1.5,) and not roles["scale"].proven


def test_an_argument_is_quoted_without_its_parentheses():
    [(evidence, roles)] = _read(
        "import jax\ndef f(x, y):\n    return x\nb = jax.jit(f)(1, y=(\n    2 +  # two\n    3))\n").values()
    assert roles["y"].why == "passed only as Python values: `2 + # two 3`"
    [passed] = evidence.params["y"].passed
    assert (passed.expr.lineno, passed.expr.col_offset, passed.expr.end_lineno) == (5, 4, 6)


def test_a_one_line_def_ending_in_a_semicolon_is_read():
    """(`ast`'s def ends after the `;`, libcst's before: a rule on libcst asked by the start.)"""
    file = ast_file("import jax\n@jax.jit\ndef f(x): return x + 1;\nf(2)\n")
    [context] = file.jit.contexts
    assert file.traced.roles(context)["x"].why == "passed only as Python values: `2`"


def test_a_deleted_name_is_no_container():
    """`del f, g` deletes names (libcst's reading took the targets for a tuple's elements: "stored in a
    container"); the one difference over the real-code files, in jax's tests."""
    [(evidence, _)] = _read("import jax\n@jax.jit\ndef f(x):\n    return x\nf(1)\ndel f, g\n").values()
    assert evidence.escapes == ["`f` is used other than by a call"] and len(evidence.calls) == 1


def test_a_file_of_a_newer_grammar_is_read_lowered():
    """PEP 701's nested quotes, which this Python rejects: the calls are read from the file lowered
    (rewriter/analysis/lowering.py), as in any file."""
    source = "import jax\n@jax.jit\ndef f(x, flag: bool = True, n=3):\n    return x\nf(1, False)\ns = f\"{'a' f\"{1}\"}\"\n"
    file = ast_file(source)
    assert file.python.tree is None and file.reading is not None and file.reading.tree is not None
    [context] = file.jit.contexts
    roles = file.traced.roles(context)
    assert roles["x"].why == "passed only as Python values: `1`" and roles["n"].role is Role.DEFAULTED


def test_a_syntax_newer_syntax_does_not_know_is_not_read():
    """A newer Python's syntax the tool does not read (PEP 750's template strings): no call is read, as
    no rule reads the file (the libcst facade of the traced values gave the roles the declarations
    alone say; nothing asked it since every rule reads `ast`)."""
    source = "import jax\n@jax.jit\ndef f(x, flag: bool = True, n=3):\n    return x\nf(1, False)\ns = t\"{1}\"\n"
    with pytest.raises(ProcessingError, match="syntax error at line 6"):
        ast_file(source)


def test_a_call_is_found_on_libcst_by_its_place():
    """Where a fix is written: the libcst twins of the calls and arguments the evidence holds (locator.py)."""
    source = "import jax\n@jax.jit\ndef f(x):\n    return x\ny = [f((1)), f((2, 3)), f(i for i in z)]\n"
    module = cst.parse_module(source)
    analysis = ModuleAnalysis(cst.MetadataWrapper(module, unsafe_skip_copy=True))
    file = AstFile("module.py", analysis.python, analysis.python)
    [context] = file.jit.contexts
    passed = file.traced.callsites.of(context.function, context.how, context.application).params["x"].passed
    found = [analysis.locator.cst_of(p.call) for p in passed]
    given = [analysis.locator.cst_of(p.expr) for p in passed]
    assert [module.code_for_node(c) for c in found] == ["f((1))", "f((2, 3))", "f(i for i in z)"]
    assert [type(g) for g in given] == [cst.Integer, cst.Tuple, cst.GeneratorExp]


def test_a_pass_of_rules_on_libcst_finds_the_facts_on_ast():
    """An editor's pass that libcst reads (a rule not decided on `ast`: tests/conftest.py's) gives the
    roles the calls prove as the `ast` reading does (engine.Pass.facts_found)."""
    from rewriter.engine import report_pass
    from rewriter.settings import Settings
    from tests.conftest import FooToBar

    source = b"import jax\n@jax.jit\ndef f(x, n):\n    return x\nf(1.0, 3)\nfoo = 1\n"
    found = report_pass(source, "m.py", Settings(codemods=(FooToBar,), ast_prefilter=False))
    assert found.read is None and found.context is not None
    [(name, roles)] = found.facts_found()
    assert name == "f" and dict(roles)["n"].why == "passed only as Python values: `3`"
