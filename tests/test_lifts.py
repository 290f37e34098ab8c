"""PML101's lifts of solver operators: keyword call sites, captured values next to the operator's own
arguments, loops (late binding, matrices traced once), and the cache policy of lifted operators."""
from __future__ import annotations

import ast
import textwrap

import pytest

from codemods._ast_lift import loops_repeating
from rewriter.analysis.ast_resolver import NameResolver as AstResolver
from rewriter.engine import Settings, process_source
from rewriter.registry import by_code

HEADER = "from phiml import math\nfrom phiml.math import Solve, spatial\n\n\n"


def _run(body: str, unsafe: bool = False):
    source = (HEADER + textwrap.dedent(body)).encode()
    result = process_source(source, "case.py", Settings((by_code("PML101"),), unsafe_fixes=unsafe))
    assert result.error is None, result.error
    return result


def _execute(source: str, entry: str):
    namespace: dict = {}
    exec(compile(source, "case.py", "exec"), namespace)
    return namespace[entry]()


OWN_KEYWORD = """
def step(u, dt, nu):
    @math.jit_compile_linear
    def operator(x, dt, scale=1.):
        return x - scale * dt * nu * math.laplace(x)
    return math.solve_linear(operator, u, Solve('CG', 1e-5, 1e-5, x0=u), dt=dt, scale=2.)


def run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return [float(math.sum(step(u, 0.1, nu) ** 2)) for nu in (0.5, 1.)]
"""


def test_captured_values_come_before_the_operators_own_arguments():
    """`nu` goes right after `x`: `dt=` and `scale=` stay bound by name (appended, `nu` would bind to `dt`)."""
    result = _run(OWN_KEYWORD)
    new = result.new_source.decode()
    assert "def _step_operator(x, nu, dt, scale=1.):" in new
    assert "Solve('CG', 1e-5, 1e-5, x0=u), nu, dt=dt, scale=2.)" in new
    original = _execute(HEADER + textwrap.dedent(OWN_KEYWORD), "run")
    assert _execute(new, "run") == pytest.approx(original)


def test_keywords_y_and_solve_become_positional_in_their_order():
    result = _run("""
        def step(u, k, solve):
            return math.solve_linear(math.jit_compile_linear(lambda x: k * x), solve=solve, y=u)
    """)
    assert "math.solve_linear(_step_operator, u, solve, k)" in result.new_source.decode()


def test_keywords_with_calls_are_not_reordered():
    result = _run("""
        def step(u, k, make):
            return math.solve_linear(math.jit_compile_linear(lambda x: k * x), solve=make(u), y=u.numpy())
    """)
    assert result.new_source is None
    assert "another order" in result.findings[0].note


def test_forget_traces_is_added_once_and_kept_when_given():
    result = _run("""
        def step(u, k):
            @math.jit_compile_linear(forget_traces=False)
            def operator(x):
                return k * x
            return math.solve_linear(operator, u, Solve('CG', x0=u))


        def other(u, k):
            return math.solve_linear(math.jit_compile_linear(lambda x: k * x), u, Solve('CG', x0=u))


        def constant(u):
            return math.solve_linear(math.jit_compile_linear(lambda x: 2 * x), u, Solve('CG', x0=u))
    """)
    new = result.new_source.decode()
    assert "@math.jit_compile_linear(forget_traces=False)\ndef _step_operator" in new
    assert "@math.jit_compile_linear(forget_traces=True)\ndef _other_operator" in new
    assert "@math.jit_compile_linear\ndef _constant_operator" in new  # nothing captured: keyed on shapes only


@pytest.mark.parametrize("loop", [
    "for scale in scales:\n        solves.append({solve})",
    "while scales:\n        scale = scales.pop()\n        solves.append({solve})",
])
def test_a_function_kept_in_a_solve_built_in_a_loop_is_not_lifted(loop):
    solve = "Solve('CG', x0=0 * y, preprocess_y=lambda v: v * scale)"
    result = _run(f"""
def run(y, scales):
    solves = []
    {loop.format(solve=solve)}
    return solves
""")
    assert result.new_source is None
    assert "assigned again in the loop" in result.findings[0].note


def test_an_operator_traced_once_in_a_loop_is_reported_as_stale():
    result = _run("""
        def sweep(u, dts):
            op = math.jit_compile_linear(lambda x: x - dt * math.laplace(x))
            out = []
            while dts:
                dt = dts.pop()
                out.append(math.solve_linear(op, u, Solve('CG', x0=u)))
            return out
    """)
    assert result.new_source is None
    finding, = result.findings
    assert "reuse that matrix" in finding.message and finding.severity.value == "error"


def test_an_operator_created_in_each_iteration_is_lifted():
    result = _run("""
        def sweep(u, dts):
            out = []
            for dt in dts:
                op = math.jit_compile_linear(lambda x: x - dt * math.laplace(x))
                out.append(math.solve_linear(op, u, Solve('CG', x0=u)))
            return out
    """)
    assert "math.solve_linear(_sweep_op, u, Solve('CG', x0=u), dt)" in result.new_source.decode()


def test_grad_for_f_makes_the_lift_unsafe():
    body = """
        def step(u, k):
            return math.solve_linear(math.jit_compile_linear(lambda x: k * x), u, Solve('CG', x0=u), grad_for_f=True)
    """
    assert _run(body).new_source is None
    assert _run(body, unsafe=True).new_source is not None


def test_loops_repeating_counts_bodies_tests_and_comprehension_items_not_first_iterables():
    tree = ast.parse(textwrap.dedent("""
        def f(xs):
            for x in g(xs):
                h(x)
            while g(xs):
                pass
            return [h(y) for y in g(xs)]
    """))
    resolver = AstResolver(tree)
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    in_for_iter, in_while_test, in_comp_iter = [c for c in calls if c.func.id == "g"]
    in_for_body, in_comp_item = [c for c in calls if c.func.id == "h"]
    assert loops_repeating(resolver, in_for_iter) == []
    assert loops_repeating(resolver, in_comp_iter) == []
    assert [type(x).__name__ for x in loops_repeating(resolver, in_for_body)] == ["For"]
    assert [type(x).__name__ for x in loops_repeating(resolver, in_while_test)] == ["While"]
    assert [type(x).__name__ for x in loops_repeating(resolver, in_comp_item)] == ["ListComp"]


