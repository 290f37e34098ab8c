"""rewriter.analysis.ast_jit finds on CPython's `ast` the jit contexts rewriter.analysis.jit finds on libcst.

Both run on the same source; their contexts are compared in order, each by where its function starts
(the line of its `def` or `lambda`, and its name), its transform, how it is traced, its static
parameters, where its caller's function and its application start; and the transform each function's
name carries where it is read (`jitted_value`; names as Python reads them, NFKC: tests/test_ast_scopes.py). `python -m tests.test_ast_jit PATH...` compares other files.
"""
from __future__ import annotations

import ast
import sys
import unicodedata

import libcst as cst
import pytest
from libcst.metadata import PositionProvider

from rewriter.analysis import ast_jit, ast_resolver, jit, names
from rewriter.analysis.aliases import NO_ALIASES
from tests.harness.readings import compare_over, golden_differences


def _context(context, line_of) -> tuple:
    caller = context.caller
    return (context.name, line_of(context.function), context.transform.api.name, context.how,
            tuple(sorted(context.static_params)) if context.static_params is not None else None,
            line_of(caller.function) if caller is not None else None,
            line_of(context.application) if context.application is not None else None)


def differences(source: str) -> list[str]:
    module = cst.parse_module(source)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    on_cst = jit.JitAnalysis(names.NameResolver(wrapper, "", NO_ALIASES))
    tree = ast.parse(source)
    resolver = ast_resolver.NameResolver(tree)
    on_ast = ast_jit.JitAnalysis(resolver)

    def cst_line(node):
        return positions[node].start.line

    def ast_line(node):
        return node.lineno

    found_cst = [_context(c, cst_line) for c in on_cst.contexts]
    found_ast = [_context(c, ast_line) for c in on_ast.contexts]
    out = [f"context: libcst {a}, ast {b}" for a, b in zip(found_cst, found_ast) if a != b]
    if len(found_cst) != len(found_ast):
        out.append(f"{len(found_cst)} contexts on libcst, {len(found_ast)} on ast: "
                   f"{sorted(set(found_cst) ^ set(found_ast), key=repr)[:3]}")
    jitted_cst = sorted((positions[n].start.line, unicodedata.normalize("NFKC", n.value), _api(on_cst.jitted_value(n)))
                        for n in _cst_names(module))
    jitted_ast = sorted((n.lineno, n.id, _api(on_ast.jitted_value(n))) for n in ast.walk(tree) if type(n) is ast.Name
                        and n.id not in ("None", "True", "False"))
    out += [f"jitted_value: libcst {a}, ast {b}" for a, b in zip(jitted_cst, jitted_ast) if a != b]
    return out


def _api(transform) -> str:
    return transform.api.name if transform is not None else ""


def _cst_names(module: cst.Module) -> list[cst.Name]:
    """The Names ast has as Names: reads and plain bindings (tests/test_ast_resolver.py's walk)."""
    from tests.test_ast_resolver import _cst_expressions

    return [n for n in _cst_expressions(module) if type(n) is cst.Name]


@pytest.mark.parametrize("source", [
    "import jax\n@jax.jit\ndef f(x):\n    return g(x)\ndef g(y):\n    return y\nh = jax.jit(lambda z: z, static_argnums=0)\n",
    "from functools import partial\nimport jax\n@partial(jax.jit, static_argnames=('n',))\ndef f(x, n):\n    return x\nfast = f\n",
    "from phiml import math\n@math.jit_compile(auxiliary_args='n')\ndef f(x, n):\n    return x\nstep = math.jit_compile(f)\n",
    "import jax\nclass M:\n    def step(self, x):\n        return x\n    def run(self, x):\n        return jax.jit(self.step)(x)\n",
])
def test_forms(source):
    assert differences(source) == []


def test_golden_cases_and_examples_find_the_same_contexts():
    assert golden_differences(differences) == {}


if __name__ == "__main__":
    sys.exit(compare_over(sys.argv[1:], differences))
