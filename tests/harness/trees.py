"""Reading the libcst trees the analysis works on, in tests."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis import ModuleAnalysis


def function_defs(analysis: ModuleAnalysis) -> dict[str, cst.FunctionDef]:
    """Every def of the analysed module, nested ones included, by name (the last of a name wins)."""
    out = {}
    stack: list[cst.CSTNode] = [analysis.wrapper.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.FunctionDef):
            out[node.name.value] = node
        stack.extend(node.children)
    return out
