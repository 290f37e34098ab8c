"""rewriter.analysis.ast_globals and ast_captures answer on CPython's `ast` what bindings.ModuleGlobals and
bindings.free_names answer on libcst (for PML302, still read there).

Both readings run on the same source: the module's globals facts (bindings, `global` declarations, names
mutated in place, paths changed in place) must be equal, and for every def and lambda below module level
its free names (in order, with where each is bound) and why its globals may be unstable. (What lifting
would capture was compared the same way with captures.py, libcst's reading, until PML101 and PML102 moved
to `ast` and it was deleted.) `python -m tests.test_ast_globals PATH...` runs the comparison over other
files and prints every difference.
"""
from __future__ import annotations

import ast
import sys

import libcst as cst
import pytest

from rewriter.analysis import ast_captures, ast_globals, ast_resolver, bindings, names
from rewriter.analysis.aliases import NO_ALIASES
from rewriter.cst_tree import branches

from tests.harness.readings import compare_over, golden_differences
from tests.test_scopes import SYNTAX


def _cst_functions(node: cst.CSTNode, depth: int = 0):
    """Every def and lambda inside a def or lambda, in the order written."""
    for child in branches(node):
        inner = depth + (type(child) in (cst.FunctionDef, cst.Lambda))
        if type(child) in (cst.FunctionDef, cst.Lambda) and depth:
            yield child
        yield from _cst_functions(child, inner)


def _ast_functions(tree: ast.Module, parents: dict[int, ast.AST]):
    """Every def and lambda inside a def or lambda, in the order written."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    for node in ast_captures.walked(tree):
        if type(node) in functions:
            current = parents.get(id(node))
            while current is not None and type(current) not in functions:
                current = parents.get(id(current))
            if current is not None:
                yield node


_CONSTANTS = ("None", "True", "False")  # (Names on libcst, constants on `ast`: builtins either way)


def differences(source: str) -> list[str]:
    module = cst.parse_module(source)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    on_cst = names.NameResolver(wrapper, "", NO_ALIASES)
    tree = ast.parse(source)
    on_ast = ast_resolver.NameResolver(tree, "", NO_ALIASES)
    out = []
    cst_globals, ast_globals_ = bindings.ModuleGlobals(on_cst), ast_globals.ModuleGlobals(on_ast)
    if cst_globals._facts != ast_globals_.facts:
        out.append(f"globals: libcst {cst_globals._facts}, ast {ast_globals_.facts}")
    cst_functions, ast_functions = list(_cst_functions(module)), list(_ast_functions(tree, on_ast.parents))
    if len(cst_functions) != len(ast_functions):
        return [*out, f"functions: libcst {len(cst_functions)}, ast {len(ast_functions)}"]
    for fn, twin in zip(cst_functions, ast_functions):
        label = fn.name.value if isinstance(fn, cst.FunctionDef) else "lambda"
        free_cst = [(f.node.value, f.where) for f in bindings.free_names(on_cst, fn) if f.node.value not in _CONSTANTS]
        free_ast = [(f.node.id, f.where) for f in ast_captures.free_names(on_ast, twin)]
        if free_cst != free_ast:
            out.append(f"{label} (line {twin.lineno}) free names: libcst {free_cst}, ast {free_ast}")
            continue
        unstable_cst = cst_globals.unstable_among(bindings.free_names(on_cst, fn))
        unstable_ast = ast_globals_.unstable_among(ast_captures.free_names(on_ast, twin))
        if unstable_cst != unstable_ast:
            out.append(f"{label} (line {twin.lineno}) unstable: libcst {unstable_cst!r}, ast {unstable_ast!r}")
    return out


def test_every_construct_reads_alike():
    assert differences(SYNTAX) == []


@pytest.mark.parametrize("source", [
    "import jax\nimport jax.numpy as jnp\njax.config.update('x', 1)\ndef f(x):\n    g = lambda y: jnp.sin(y) + jax.config.x\n",
    "import numpy as np\nLOG = []\nLOG.append(1)\nK = 1\nK = 2\ndef f(a):\n    return lambda: LOG + [K, a, np.append(a, 1)]\n",
    "def f(x):\n    from phiml import math\n    import jax.numpy as jnp, jax\n    def g(v):\n        return math.sin(v) + jnp.cos(v)\n    x = 2\n    return g\n",
    "def f(x, n):\n    def g(v):\n        nonlocal n\n        return v\n    async def h(v):\n        return await v\n    def k(v):\n        yield v\n    class C:\n        z = 1\n        def m(self):\n            return super().m() + z\n    return lambda *a: a[0] + x\n",
    "def f(x):\n    y = 1\n    g = lambda v: v + y\n    y = 2\n    for i in range(3):\n        h = lambda: i\n    return g, h\n",
])
def test_forms(source):
    assert differences(source) == []


def test_golden_cases_and_examples_read_alike():
    assert golden_differences(differences) == {}


if __name__ == "__main__":
    sys.exit(compare_over(sys.argv[1:], differences))
