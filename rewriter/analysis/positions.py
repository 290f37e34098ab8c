"""Where a node is in the module: libcst's PositionProvider answers, one top-level statement at a time.

libcst computes every node's position in one code generation of the whole module that records a
range per node: about twice the cost of parsing the file. A file with findings needs the positions
of a handful of nodes (the findings' spans, a few line comparisons). Code generation of a top-level
statement starts at column 0 with no indentation, whatever came before it, so its positions are its
own, shifted by the lines above it: those are counted from a plain code generation of the
statements before it, ten times cheaper than recording positions. The answers are libcst's own.
"""
from __future__ import annotations

from typing import Callable

import libcst as cst
from libcst._position import CodeRange
from libcst.metadata import PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState


class _Store:
    """What libcst's position-recording code generation writes into (`provider._computed`)."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


class StatementPositions:
    """`positions[node]` and `node in positions`, as libcst's resolved PositionProvider mapping answers them.

    `parent_of(node)` gives the node's parent (None for the module, or for a node it does not know);
    a node it does not know is looked up in libcst's provider over the whole module instead.
    """

    def __init__(self, wrapper: cst.MetadataWrapper, parent_of: Callable[[cst.CSTNode], cst.CSTNode | None],
                 knows: Callable[[cst.CSTNode], bool]) -> None:
        self._wrapper = wrapper
        self._module = wrapper.module
        self._parent_of = parent_of
        self._knows = knows
        self._top: list[cst.CSTNode] = [*self._module.header, *self._module.body, *self._module.footer]
        self._index = {id(node): i for i, node in enumerate(self._top)}
        self._starts: list[int] = [1]  # first line of each top-level node, computed as far as asked
        self._done: dict[int, dict[cst.CSTNode, CodeRange]] = {}
        self._whole = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        top = self._top_level(node)
        if top is None:
            return self._everything()[node]
        return self._of_statement(top)[node]

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, cst.CSTNode):
            return False
        if node is self._module or self._top_level(node) is not None:
            return True
        return node in self._everything()

    def _top_level(self, node: cst.CSTNode) -> int | None:
        """The index of the top-level node holding `node`; None when the walk of the tree did not see it."""
        current = node
        while True:
            index = self._index.get(id(current))
            if index is not None and self._top[index] is current:
                return index
            if not self._knows(current):
                return None
            current = self._parent_of(current)
            if current is None or current is self._module:
                return None

    def _of_statement(self, index: int) -> dict[cst.CSTNode, CodeRange]:
        found = self._done.get(index)
        if found is None:
            module = self._module
            store = _Store()
            state = PositionProvidingCodegenState(default_indent=module.default_indent,
                                                  default_newline=module.default_newline, provider=store)
            state.line = self._start(index)
            self._top[index]._codegen(state)
            found = self._done[index] = store._computed
        return found

    def _start(self, index: int) -> int:
        """The first line of the index-th top-level node: 1 plus the line breaks of the code before it."""
        while len(self._starts) <= index:
            previous = self._top[len(self._starts) - 1]
            code = self._module.code_for_node(previous)
            self._starts.append(self._starts[-1] + len(NEWLINE_RE.findall(code)))
        return self._starts[index]

    def _everything(self):
        if self._whole is None:
            self._whole = self._wrapper.resolve(PositionProvider)
        return self._whole
