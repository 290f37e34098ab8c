"""rewriter.analysis.locator finds the libcst twin of every `ast` statement, expression and parameter.

Over a file: every node of those kinds is located, and the node found must be of a libcst kind that
spells the same form (the locator's table). Not asked: the parts of an f-string, which CPython 3.11
places at the whole string, and the tuple of a subscript's indices, which libcst does not have. `python -m tests.test_locator PATH...` locates the nodes of other files.
"""
from __future__ import annotations

import ast
import sys

import libcst as cst
import pytest

from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.locator import Locator
from rewriter.analysis.module import ModuleAnalysis
from tests.harness.readings import compare_over, golden_differences


def _asked(python: AstModule):
    """The statements, expressions and parameters of the module, not inside an f-string; not the tuple
    `ast` makes of a subscript's indices (`x[a, b]`), of which libcst has none."""
    stack: list[ast.AST] = [python.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and not python.parenthesized(node.slice):
            stack.extend([node.value, *node.slice.elts])
            yield node
            continue
        if isinstance(node, (ast.stmt, ast.expr, ast.arg)):
            yield node
        if not isinstance(node, ast.JoinedStr):
            stack.extend(ast.iter_child_nodes(node))


def differences(source: str) -> list[str]:
    module = cst.parse_module(source)
    analysis = ModuleAnalysis(cst.MetadataWrapper(module, unsafe_skip_copy=True))
    python = AstModule(source)
    locator = Locator(module, analysis.names.positions, python, analysis.names.parent)
    out = []
    for node in _asked(python):
        found = locator.cst_of(node)
        if found is None:
            out.append(f"{type(node).__name__} at {node.lineno}:{node.col_offset}: no libcst node there")
        elif _bare(python.text(node) if not isinstance(node, ast.arg) else node.arg) != _bare(_code(module, found, node)):
            out.append(f"{type(node).__name__} at {node.lineno}:{node.col_offset}: libcst's {type(found).__name__} is elsewhere")
    return sorted(out)


def _code(module: cst.Module, found: cst.CSTNode, node: ast.AST) -> str:
    """The code of the libcst node found: a def's or a class's from `def`/`class` (`ast`'s text of one holds no
    decorator), a statement without the comments above it, an expression without its parentheses."""
    if isinstance(found, (cst.FunctionDef, cst.ClassDef)):
        found = found.with_changes(decorators=(), lines_after_decorators=())
    if isinstance(found, cst.BaseExpression) and found.lpar and not (isinstance(found, cst.Tuple) and not found.elements):
        found = found.with_changes(lpar=(), rpar=())  # (a comment inside them is the parentheses')
    if hasattr(found, "leading_lines"):
        found = found.with_changes(leading_lines=())  # (comments above a statement are libcst's part of it)
    code = module.code_for_node(found)
    return "el" + code if isinstance(node, ast.If) and python_text_starts_elif(node, module) else code


def python_text_starts_elif(node: ast.If, module: cst.Module) -> bool:
    """An `elif`: `ast`'s If starts at the keyword, libcst writes a lone If as `if`."""
    return module.code.splitlines()[node.lineno - 1][node.col_offset:].startswith("elif")


def _bare(code: str) -> str:
    """The code without what the trees place differently: comments (which libcst gives the node before or
    after them, and `ast` to none), whitespace, line continuations, parentheses, a trailing comma or `;`. (A `#` in a string
    goes with the rest of its line on both sides alike: a test's simplification.)"""
    uncommented = "\n".join(line.split("#", 1)[0] for line in code.split("\n"))
    return "".join(uncommented.split()).replace("(", "").replace(")", "").replace("\\", "").rstrip(",;")


@pytest.mark.parametrize("source", [
    "x = ((1, 2))\nf(y for y in z)\ng((y for y in z))\nfor a in (1, 2): pass\nb = (*c, *d)\ne = (\n    (f, g),\n    h,\n)\n",
    "def h(*args, k: int = 1, **kw): global G, H\n@d\nclass C(B, metaclass=M):\n    def m(self): return (a), b;\n",
    "u = [1, 2][0:1, ::2]\nv = {1: 2, **w}\nw = f'a{x!r:>{n}}'\ns = 'a' 'b'\nif a:\n    pass\nelif b < c < d and e or not f:\n    pass\n",
    "async def g():\n    async for a in b:\n        await c\n    async with d as e, f:\n        yield from h\n    return [*i], {j}, (k := 1)\n",
    "g = x[d[0]:   , :-d[1]]\ny = c[\n    ..., 0, :\n]\ne = (\n    # c\n    a\n    - b\n)\n",
    "try:\n    pass\nexcept* E:\n    pass\nmatch p:\n    case [a, *b] if a:\n        del a\n    case _:\n        raise X from Y\n",
])
def test_forms(source):
    assert differences(source) == []


def test_golden_cases_and_examples():
    assert golden_differences(differences) == {}


if __name__ == "__main__":
    sys.exit(compare_over(sys.argv[1:], differences))
