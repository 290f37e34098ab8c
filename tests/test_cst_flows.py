"""rewriter.analysis.cst_flows: the traced values read on `ast` (ast_flow.py), asked with libcst nodes.

Before the libcst reading (traced.py) was deleted, the facade's answers were compared with its answers
on every analysed function of the golden cases, the examples and the real-code trees (docs/benchmarks.md,
"Readings of the analysis moved to `ast`"). What stays checked here is the move between the trees: each
flow belongs to the libcst twin of its function, each recorded condition is found on libcst and gives
`ast`'s value there, every expression of an analysed body finds its `ast` twin and is given that twin's
value (`value_anywhere`, `value_at`), and the nodes with no twin are only the ones no rule asks about.
`python -m tests.test_cst_flows PATH...` checks other files.
"""
from __future__ import annotations

import ast
import sys

import libcst as cst

from rewriter.analysis.callsites import Role
from rewriter.analysis.module import ModuleAnalysis
from rewriter.analysis.trace_values import Step, Trace
from rewriter.cst_tree import branches, scope_kinds
from rewriter.findings import Span
from tests.harness.readings import compare_over, golden_differences


def _analysis(source: str) -> ModuleAnalysis:
    return ModuleAnalysis(cst.MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True))


def differences(source: str) -> list[str]:
    analysis = _analysis(source)
    facade, names = analysis.traced, analysis.names
    locator = facade.locator
    reading = facade.reading
    out: list[str] = []
    if reading is None:
        return out
    twins = {id(flow.context.function): flow for flow in reading.flows.values()}
    if len(facade.flows) != len(reading.flows):
        out.append(f"{len(reading.flows)} flows on `ast`, {len(facade.flows)} on libcst")
    for flow in facade.flows.values():
        fn = flow.context.function
        theirs = twins.get(id(locator.ast_of(fn)))
        at = f"line {names.positions[fn].start.line}"
        if theirs is None:
            out.append(f"{at}: no `ast` flow of the function")
            continue
        if flow.params is not theirs.params or flow.bound is not theirs.bound or len(flow.tests) != len(theirs.tests):
            out.append(f"{at}: {len(theirs.tests)} conditions on `ast`, {len(flow.tests)} found on libcst")
        for node in _own(fn):
            if not isinstance(node, cst.BaseExpression) or _unlocated(node, names):
                continue
            twin = locator.ast_of(node)
            if twin is None:
                out.append(f"{at}: no `ast` twin of {type(node).__name__} `{_code(analysis, node)}`")
                continue
            if flow.value_of(node) is not theirs.tests.get(id(twin)):
                out.append(f"{at}: the value recorded at `{_code(analysis, node)}` differs")
            if id(node) in flow.tests:
                for inner in _walk(node):
                    if isinstance(inner, cst.BaseExpression) and not _unlocated(inner, names) \
                            and facade.value_at(node, inner).why == ("not inside an analysed traced function",):
                        out.append(f"{at}: `{_code(analysis, inner)}` in `{_code(analysis, node)}` is not read there")
            mine = facade.value_anywhere(node)
            if mine != reading.value_anywhere(twin, theirs.context.function):
                out.append(f"{at}: value of `{_code(analysis, node)}`: {mine} vs {reading.value_anywhere(twin)}")
    return out


def _code(analysis, node) -> str:
    return analysis.wrapper.module.code_for_node(node).strip()[:60]


def _unlocated(node, names) -> bool:
    """A libcst node `ast` has no expression for (no rule asks its value): the attribute's name in `x.a`, a
    keyword's name, a name a `global` declares, a parameter's or a def's name, an import's, a part of an
    implicitly concatenated string (one string to `ast`), the tuple of `del a, b` (two targets to `ast`)."""
    parent = names.parent(node)
    if isinstance(parent, (cst.ConcatenatedString, cst.Del)) or any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in _ancestors(node, names)):
        return True
    if not isinstance(node, cst.Name):
        return False
    return isinstance(parent, (cst.NameItem, cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName, cst.Attribute)) \
        and not (isinstance(parent, cst.Attribute) and parent.value is node) or isinstance(parent, cst.Arg) and parent.keyword is node


def _ancestors(node, names):
    current = names.parent(node)
    while current is not None:
        yield current
        if isinstance(current, cst.BaseStatement):
            return
        current = names.parent(current)


def _own(fn) -> list:
    out, stack = [], [fn.body]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(c for c in branches(node) if type(c) not in scope_kinds())
    return out


def _walk(node) -> list:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(branches(current))
    return out


JIT = "import jax\nimport jax.numpy as jnp\n"
FORMS = JIT + (
    "@jax.jit\ndef f(x, n: int = 3):\n    global G, H\n    y = x * 2\n"
    "    if y.sum() > 0 and n and (y, G) and ():\n        y = -y\n    for i, j in zip(y, (y, 1)):\n        y = y + i\n"
    "    while jnp.any(y > 0) or (n and y[0, 1]):\n        y = y - 1\n    s = 'a' f'{y}'\n    return helper(y), [v for v in (y,)]\n"
    "def helper(v):\n    return v if v.sum() > 0 else -v\n")


def test_forms():
    assert differences(FORMS) == []


def test_a_chain_is_read_as_libcst_nests_it():
    """`y.sum() > 0 and n` of `y.sum() > 0 and n and (y, G) and ()`: one `ast` node holds every operand;
    the libcst node of the first two has a value all the same (the emitters ask it: emit/condition.py)."""
    analysis = _analysis(FORMS)
    test = next(n for n in _own(next(f for f in analysis.traced.flows.values() if f.context.name == "f").context.function)
                if isinstance(n, cst.If)).test
    inner = test.left.left
    assert analysis.wrapper.module.code_for_node(inner) == "y.sum() > 0 and n"
    assert analysis.traced.value_at(test, inner).trace is Trace.TRACED
    assert analysis.traced.value_at(test, test.right).static  # `()`: an empty tuple, placed between its parentheses


def test_a_derivation_is_placed_where_libcst_places_its_steps():
    """A step holds an `ast` node, or a Span where `ast` places none (a name `global` declares); a finding
    shows it where libcst's node of it is."""
    analysis = _analysis(FORMS)
    flow = next(f for f in analysis.traced.flows.values() if f.context.name == "f")
    steps = {s.label: s.node for s in flow.bound["y"].why if isinstance(s, Step)}
    assert isinstance(steps["`x`"], ast.arg) and analysis.locator.span(steps["`x`"]) == Span(4, 6, 4, 7)
    assert analysis.locator.span(steps["`y`"]) == Span(6, 4, 6, 5)
    declared = flow.bound["G"].why[0] if "G" in flow.bound else None
    if declared is None:  # (a name only declared is no local: its value is read where the test is)
        test = next(n for n in _own(flow.context.function) if isinstance(n, cst.If)).test
        declared = flow.envs[id(test)]["G"].why[0]
    assert declared.node == Span(5, 11, 5, 12) and declared.lines.label(declared.node) == "line 5"


def test_a_file_of_a_newer_grammar_is_read_lowered():
    """PEP 695 and PEP 701 (which CPython 3.11 rejects and libcst reads): the file is read lowered
    (lowering.py), each node where libcst places it."""
    source = JIT + ("type Vector = list[float]\n@jax.jit\ndef f[T](x, d: dict, n: int = 2):\n"
                    '    if x > n:\n        print(f"{d["k"]} {x}")\n        return x\n    return -x\n')
    analysis = _analysis(source)
    assert analysis.python.tree is None and differences(source) == []
    (flow,) = analysis.traced.flows.values()
    test = next(n for n in _own(flow.context.function) if isinstance(n, cst.If)).test
    assert flow.value_of(test).trace is Trace.TRACED
    call = next(n for n in _own(flow.context.function) if isinstance(n, cst.Call))
    assert analysis.traced.value_anywhere(call.args[0].value).trace is Trace.TRACED  # (the f-string holds `x`)


def test_a_file_not_even_lowered_has_no_flows_and_declared_roles():
    """A construct lowering.py does not lower (a PEP 750 template string): no flows; the roles of the jitted
    functions' parameters come from their declarations alone."""
    source = JIT + "s = t\"{1}\"\n@jax.jit\ndef f(x, n: int = 2):\n    if x > n:\n        return x\n    return -x\n"
    analysis = _analysis(source)
    assert analysis.traced.flows == {}
    roles = analysis.traced.roles(analysis.jit.contexts[0])
    assert roles["x"].role is Role.UNKNOWN and (roles["n"].role, roles["n"].why) == (Role.CONFIG, "annotated `int`")


def test_golden_cases_and_examples_move_between_the_trees():
    assert golden_differences(differences) == {}


if __name__ == "__main__":
    sys.exit(compare_over(sys.argv[1:], differences))
