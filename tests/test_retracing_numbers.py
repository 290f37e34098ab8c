"""PML401's proofs that an argument is a plain Python number (what `equinox.filter_jit` keeps
static), and which loop counters change only on some iterations."""
import ast
import textwrap

import pytest

from codemods._loop_keys import Loop
from codemods._python_numbers import is_python_number
from rewriter.analysis.ast_module import AstModule


def _arguments(source: str):
    module = AstModule(textwrap.dedent(source))
    found = {module.text(node.args[0]): node.args[0] for node in ast.walk(module.tree)
             if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "f"}
    return module.names, found


SOURCE = """
    import jax.numpy as jnp
    LEVEL, STEP = 1, 2
    RATE = 0.5

    def run(x, n, dt, lr: float, k: int, data):
        t = 0.0
        level = LEVEL
        y = jnp.zeros(3)
        w = 1.0
        for i in range(n):
            f(i)
            f(t)
            f(level)
            f(RATE * 0.9 ** i)
            f(lr * 2)
            f(k // 2)
            f(int(x.sum()))
            f(min(level + STEP, 10))
            f(len(data))
            f(x)
            f(dt)
            f(y)
            f(w)
            f(jnp.asarray(i))
            f(round(x))
            t += 0.25
            w += dt
            if i % 3 == 0:
                level += STEP
        for j, item in enumerate(data):
            f(j)
            f(item)
"""


@pytest.mark.parametrize("expr, number", [
    ("i", True), ("t", True), ("level", True), ("RATE * 0.9 ** i", True), ("lr * 2", True), ("k // 2", True),
    ("int(x.sum())", True), ("min(level + STEP, 10)", True), ("len(data)", True), ("j", True),
    ("x", False),  # a parameter without a number annotation: callers pass anything
    ("dt", False), ("y", False), ("jnp.asarray(i)", False), ("item", False),
    ("w", False),  # `w += dt`, `dt` unknown: an array after the first step
    ("round(x)", False),  # round of an array is an array
])
def test_python_numbers(expr, number):
    names, found = _arguments(SOURCE)
    assert is_python_number(names, found[expr]) is number


def test_a_shadowed_builtin_proves_nothing():
    names, found = _arguments("""
        def int(v):
            return v

        def run(x):
            for _ in range(3):
                f(int(x))
    """)
    assert not is_python_number(names, found["int(x)"])


def test_counters_raised_under_a_condition_change_only_sometimes():
    module = AstModule(textwrap.dedent("""
        for epoch in range(n):
            t += dt
            if plateau(epoch):
                level += 1
            try:
                tries += 1
            except ValueError:
                pass
            for batch in data:
                seen += 1
    """))
    keys = Loop.of(module.tree.body[0], module)
    assert {"epoch", "t", "level", "tries", "seen"} <= keys.counters
    assert keys.sometimes == {"level", "tries", "seen"}
    assert keys.every_iteration(ast.parse("t * 2", mode="eval").body) and keys.every_iteration(ast.parse("epoch", mode="eval").body)
    assert not keys.every_iteration(ast.parse("level + 1", mode="eval").body)
    assert keys.every_iteration(ast.parse("level + epoch", mode="eval").body)  # the counter changes every time


def test_values_that_read_each_other_are_read_once():
    """`new = old + d; old = new` in a loop: each value reads the other's; the key is read, not recursed forever
    (a real tree's whole file was an error)."""
    from rewriter.engine import process_source
    from rewriter.registry import all_codemods
    from rewriter.settings import Settings

    source = textwrap.dedent("""
        import jax


        @jax.jit
        def scale(x, phi):
            return x * phi


        def compress(x, steps):
            phi = 0.5
            for _ in range(steps):
                new_phi = phi + 0.01
                x = scale(x, new_phi)
                phi = new_phi
            return x
    """).encode()
    result = process_source(source, "cycle.py", Settings(codemods=all_codemods(), original_positions=True, rewrite=False))
    assert result.error is None
