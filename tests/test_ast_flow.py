"""rewriter.analysis.ast_flow reads on CPython's `ast` the traced values rewriter.analysis.traced reads on libcst.

Both run on the same source, each on its own tree's jit contexts. Compared, for every function they
analyse (by where it starts): its context, its parameters' values, the value recorded at every condition
and trip count with the names' values there, every local name's value over all its bindings, the calls
of the module's functions with their arguments' values, the functions it hands to jax's primitives, its
configuration parameters; and the roles read for the directly jitted functions. A value is compared in
full: its trace, its sources (by function and name), its constant, fields, container, staged,
concretized and Shape marks, and its derivation, each step by its text and line.
`python -m tests.test_ast_flow PATH...` compares other files.
"""
from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import PositionProvider

from rewriter.analysis import ast_flow, ast_jit, jit, names, traced
from rewriter.analysis.aliases import NO_ALIASES
from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.trace_values import Step
from tests.harness.readings import compare_over, sources

ROOT = Path(__file__).resolve().parent.parent
OPEN = "imported by code outside the run"


class _Reading:
    """What one analysis found, told by lines: comparable across the trees."""

    def __init__(self, analysis, line_of) -> None:
        self.analysis, self.line_of = analysis, line_of
        self.functions = {id(f.context.function): f.context.function for f in analysis.flows.values()}
        for context in analysis.jit.contexts:
            self.functions[id(context.function)] = context.function

    def value(self, v) -> tuple:
        sources = tuple(sorted((self.line_of(self.functions[owner]) if owner in self.functions else None, name)
                               for owner, name in v.sources))
        why = tuple((s.label, s.place, self.line_of(s.node)) if isinstance(s, Step) else s for s in v.why)
        return (v.trace.name, sources, v.const, tuple(sorted(v.fields)), v.container, v.staged, v.concretized, v.shape, why)

    def env(self, env: dict) -> tuple:
        return tuple(sorted((k, self.value(v)) for k, v in env.items()))

    def flows(self, nodes_of) -> dict:
        out = {}
        for flow in self.analysis.flows.values():
            context = flow.context
            recorded = nodes_of(context.function)
            tests = sorted((self.line_of(recorded[key]), self.value(value), self.env(flow.envs[key]))
                           for key, value in flow.tests.items() if key in recorded)
            out[self.line_of(context.function)] = (
                context.name, context.how, context.transform.api.name,
                self.line_of(context.caller.function) if context.caller is not None else None,
                self.env(flow.params), tests, len(flow.tests) - len(tests), self.env(flow.bound),
                [(self.line_of(name), self.line_of(call), [self.value(a) for a in args]) for name, call, args in flow.calls],
                [(self.line_of(expr), api) for expr, api in flow.bodies if not _constant(expr)],
                tuple(sorted((k, repr(r)) for k, r in flow.config.items())))
        return out


def differences(source: str) -> list[str]:
    module = cst.parse_module(source)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    resolver = names.NameResolver(wrapper, "", NO_ALIASES)
    python = AstModule(source)
    on_cst = traced.TracedAnalysis(resolver, jit.JitAnalysis(resolver), open_module=OPEN, python=lambda: python)
    on_ast = ast_flow.TracedAnalysis(python, ast_jit.JitAnalysis(python.names), open_module=OPEN)

    def cst_line(node):
        return positions[node].start.line

    def ast_line(node):
        return node.lineno

    def cst_nodes(fn):
        return {id(n): n for n in _walk_cst(fn)}

    def ast_nodes(fn):
        import ast

        return {id(n): n for n in ast.walk(fn)}

    a = _Reading(on_cst, cst_line).flows(cst_nodes)
    b = _Reading(on_ast, ast_line).flows(ast_nodes)
    out = [f"line {line}: libcst {a.get(line)}\n        ast    {b.get(line)}" for line in sorted(set(a) | set(b))
           if a.get(line) != b.get(line)]
    if on_cst.facts_found() != on_ast.facts_found():
        out.append(f"facts: libcst {on_cst.facts_found()}, ast {on_ast.facts_found()}")
    names_cst = [on_cst.qualified_name(c.function) for c in on_cst.jit.contexts]
    names_ast = [on_ast.qualified_name(c.function) for c in on_ast.jit.contexts]
    if names_cst != names_ast:
        out.append(f"qualified names: libcst {names_cst}, ast {names_ast}")
    return out


def _constant(expr) -> bool:
    """`None` handed to a primitive (`lax.scan(body, init, None)`): a Name to libcst, which the libcst reading
    lists among the functions handed over (and then finds no def of); a constant to `ast`."""
    return isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")


def _walk_cst(node):
    from rewriter.cst_tree import branches

    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(branches(current))


@pytest.mark.parametrize("source", [
    "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef f(x, n: int = 3):\n    y = x * 2\n    if y.sum() > 0 and n:\n"
    "        y = -y\n    for i in range(n):\n        y = y + i\n    while jnp.any(y > 0):\n        y = y - 1\n    return y\n",
    "import jax\n@jax.jit\ndef f(xs: list, flag=True):\n    out = []\n    for a, b in zip(xs, xs):\n        out.append(a)\n"
    "    if out and flag and isinstance(xs, list):\n        pass\n    k = len(xs) if xs else 0\n    return helper(out, k)\n"
    "def helper(v, k):\n    if k > 2:\n        return v[0], k\n    return v[(0, 1)], v[1:2, 0]\n",
    "from phiml import math\n@math.jit_compile(auxiliary_args='n')\ndef step(v, n, *rest, **kw):\n    global G\n"
    "    s = v.shape\n    if s.spatial and v.available:\n        v = math.where(v > 0, v, 0)\n    a, *b = rest\n"
    "    return [w for w in b if w is not None], {**kw, 'a': a}, f'{v!r:>{n}}'\n",
    "import jax\nfrom jax import lax\n@jax.jit\ndef f(x):\n    def body(i, c):\n        return c + i\n"
    "    y = lax.fori_loop(0, 3, body, x)\n    with open('f') as h:\n        z = int(y)\n    try:\n        q = float(x)\n"
    "    except ValueError:\n        q = 0\n    return (yield from g(x)) if q else not x\n",
])
def test_forms(source):
    assert differences(source) == []


def test_golden_cases_and_examples_read_the_same_values():
    found = {str(path.relative_to(ROOT)): diff[:3]
             for path, source in sources([str(ROOT / "golden"), str(ROOT / "examples")]) if (diff := differences(source))}
    assert found == {}


if __name__ == "__main__":
    sys.exit(compare_over(sys.argv[1:], differences))
