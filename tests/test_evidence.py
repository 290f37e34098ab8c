"""The evidence static-vs-traced decisions rest on: reaching bindings, call-site roles, branch forms,
test code. Each test states one decision the rules inherit (golden cases show them end to end)."""
from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from rewriter.findings import Span
from rewriter.analysis import ModuleAnalysis
from rewriter.analysis.callsites import Role
from rewriter.analysis.forms import Agreement, agreement
from rewriter.analysis.testcode import collectable, is_test_path
from rewriter.emit.ast_agreement import forms_in
from tests.harness.ast_files import ast_file, defs


def _analysis(source: str, path: str = "module.py") -> ModuleAnalysis:
    return ModuleAnalysis(cst.MetadataWrapper(cst.parse_module(textwrap.dedent(source)), unsafe_skip_copy=True), path)


def _def(analysis: ModuleAnalysis, name: str, index: int = -1) -> cst.FunctionDef:
    defs = [s for s in analysis.wrapper.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return defs[index]


def _roles(source: str, function: str) -> dict[str, Role]:
    file = ast_file(textwrap.dedent(source))
    context = file.jit.context_of(defs(file, function)[-1])
    return {name: role.role for name, role in file.traced.roles(context).items()}


# -- which binding a name denotes ---------------------------------------------------------------
def test_a_rebound_def_is_another_function():
    file = ast_file(textwrap.dedent("""
        import jax

        def step(x):
            return x

        step(1)

        def step(x):
            return x + 1

        fast = jax.jit(step)
    """))
    (context,) = file.jit.contexts
    assert context.function is defs(file, "step")[-1]


def test_a_read_inside_a_function_sees_the_last_module_binding():
    file = ast_file(textwrap.dedent("""
        import jax

        def helper(x):
            return x

        @jax.jit
        def f(x):
            return helper(x)

        def helper(x):
            return -x
    """))
    helpers = [c.function for c in file.jit.contexts if c.how == "called"]
    assert helpers == [defs(file, "helper")[-1]]


def test_a_conditional_rebinding_keeps_both_candidates():
    file = ast_file(textwrap.dedent("""
        import jax

        def step(x):
            return x

        if FLAG:
            def step(x):
                return -x

        fast = jax.jit(step)
    """))
    # Either may be the jitted one: both are analysed (a safe fix keeps eager semantics anyway).
    branch = next(s for s in file.reading.tree.body if isinstance(s, ast.If))
    assert {id(c.function) for c in file.jit.contexts} == {id(defs(file, "step")[0]), id(branch.body[0])}


# -- parameter roles from the calls ---------------------------------------------------------------
def test_literal_calls_make_configuration_and_array_calls_data():
    roles = _roles("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, mode, n, scale=2, unused=None):
            return x

        f(jnp.ones(3), True, 3)
        f(jnp.zeros(3), False, 4)
    """, "f")
    assert roles == {"x": Role.DATA, "mode": Role.CONFIG, "n": Role.CONFIG, "scale": Role.DEFAULTED,
                     "unused": Role.DEFAULTED}


def test_an_annotation_is_configuration_without_calls_and_an_array_call_wins():
    roles = _roles("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, flag: bool, n: int, k):
            return x

        g = f
    """, "f")
    assert roles == {"x": Role.UNKNOWN, "flag": Role.CONFIG, "n": Role.CONFIG, "k": Role.UNKNOWN}
    roles = _roles("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, n: int):
            return x

        f(jnp.ones(2), jnp.int32(3))
    """, "f")
    assert roles["n"] is Role.DATA


def test_names_and_loop_indices_are_followed_to_their_values():
    roles = _roles("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, n):
            return x

        data, count = jnp.ones(3), 2
        for i in range(3):
            f(data, i)
        f(data, count)
    """, "f")
    assert roles == {"x": Role.DATA, "n": Role.CONFIG}


def test_a_wrapper_name_is_where_the_calls_are():
    roles = _roles("""
        import jax

        def f(x, n):
            return x

        fast = jax.jit(f)
        fast(1.0, 3)
    """, "f")
    assert roles == {"x": Role.CONFIG, "n": Role.CONFIG}


# -- branch forms -----------------------------------------------------------------------------------
def _verdict(source: str, *values: str) -> Agreement:
    file = ast_file(textwrap.dedent(source))
    fn = defs(file, "f")[-1]
    forms = forms_in(file, fn, fn.body[0])
    return agreement([forms.of(ast.parse(v, mode="eval").body) for v in values]).agreement


SOURCE = """
    import jax.numpy as jnp
    from phiml import math

    def f(x, y):
        m = math.mean(x)
        z = jnp.zeros_like(x)
        return x
"""


@pytest.mark.parametrize("values,expected", [
    (("x * 2", "-x"), Agreement.AGREE),
    (("x * 2", "x + z"), Agreement.AGREE),  # zeros_like(x) is shaped like x
    (("x - m", "x / 2"), Agreement.AGREE),  # a mean broadcasts back into x; both are floats
    (("x * 0.5", "x"), Agreement.DOUBT),  # x may hold integers
    (("x", "y"), Agreement.DOUBT),  # two values whose shapes may differ
    (("x", "0"), Agreement.DOUBT),  # a number broadcast to x's shape
    (("x[:, None]", "x"), Agreement.DOUBT),
    (("jnp.sum", "jnp.mean"), Agreement.CLASH),  # functions, not arrays
    (("'a'", "'b'"), Agreement.CLASH),
    (("(x, y)", "x"), Agreement.CLASH),  # structures differ
    (("(x, y)", "(x * 2, y)"), Agreement.AGREE),
])
def test_branch_agreement(values, expected):
    assert _verdict(SOURCE, *values) is expected


# -- test code --------------------------------------------------------------------------------------
def test_test_paths_and_collected_names():
    assert is_test_path("tests/solver.py") and is_test_path("pkg/test_solver.py") and is_test_path("solver_test.py")
    assert not is_test_path("pkg/solver.py") and not is_test_path("contest.py")
    assert collectable("test_square_jit") and collectable("TestCase") and not collectable("_test_square_jit")


def test_new_names_are_never_collected_by_pytest():
    analysis = _analysis("x = 1\n")
    assert analysis.fresh_name("test_square_lambda_jit") == "_test_square_lambda_jit"
    assert analysis.fresh_name("step_jit") == "step_jit"


def test_calls_meant_to_fail_reach_the_jitted_function():
    analysis = _analysis("""
        import jax
        import pytest

        @jax.jit
        def f(x):
            return x

        def g(x):
            return x

        fast_g = jax.jit(g)

        def test_f():
            with pytest.raises(TypeError):
                f(1)

        class TestG:
            def test_g(self):
                self.assertRaises(TypeError, fast_g, 1)
    """)
    for name in ("f", "g"):
        r = analysis.names.positions[_def(analysis, name)]
        assert analysis.expected_failure(Span(r.start.line, r.start.column, r.end.line, r.end.column), statement=True)


# -- callers that are not seen --------------------------------------------------------------------
def _role_of(source: str, function: str, param: str, world=None):
    file = ast_file(textwrap.dedent(source), world=world)
    context = file.jit.context_of(defs(file, function)[-1])
    return file.traced.roles(context)[param]


_STEP = textwrap.dedent("""
    import jax

    @jax.jit
    def step(x, n):
        for _ in range(n):
            x = x * 2
        return x

    step(1.0, 3)
""")


@pytest.mark.parametrize("use, escape", [
    ("run(step)", "`step` is passed to `run`"),
    ("def make():\n    return step", "`step` is returned"),
    ("table = [step]", "`step` is stored in a container"),
    ("alias = step", "`step` is assigned to `alias`"),
])
def test_a_function_used_other_than_by_calls_has_callers_not_seen(use: str, escape: str):
    role = _role_of(_STEP + use + "\n", "step", "n")
    assert role.role is Role.CONFIG and not role.proven and escape in role.open


def test_every_use_a_visible_call_proves_the_role():
    role = _role_of(_STEP, "step", "n")
    assert role.proven and role.open == ""


def test_a_registering_decorator_and_a_public_function_of_a_distributed_package_escape():
    registered = _STEP.replace("@jax.jit", "@register\n@jax.jit").replace("import jax", "import jax\nregister = print")
    assert "handed to the decorator `@register`" in _role_of(registered, "step", "n").open
    from rewriter.project.world import World

    public = _role_of(_STEP, "step", "n", world=World(open_module="`pkg.mod` is in a package that setup.py makes installable"))
    assert not public.proven and "`step` is public: `pkg.mod`" in public.open
    private = _role_of(_STEP.replace("step", "_step"), "_step", "n", world=World(open_module="`pkg.mod` ..."))
    assert private.proven


def test_an_annotation_is_proof_whoever_calls():
    role = _role_of(_STEP.replace("def step(x, n)", "def step(x, n: int)") + "run(step)\n", "step", "n")
    assert role.proven and role.why == "annotated `int`"
