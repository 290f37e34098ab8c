"""Where a node is in the module: libcst's PositionProvider answers, one statement at a time.

libcst computes every node's position in one code generation of the whole module that records a
range per node: about twice the cost of parsing the file. A file with findings needs the positions
of a handful of nodes (the findings' spans, a few line comparisons). A statement in a block starts
at column 0 of its line, so a code generation of that statement alone, from its first line and
with the indentation of its block, records the very ranges the whole module's would. Where each
statement starts is counted by a code generation that writes nothing and records no range (one per
top-level statement asked about, and the ones above it); the ranges are then recorded for the
innermost statement holding the node asked about, not for the class or def around it. The answers
are libcst's own.
"""
from __future__ import annotations

from typing import Callable

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst._position import CodeRange
from libcst.metadata import PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState


class _Store:
    """What libcst's position-recording code generation writes into (`provider._computed`)."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        return None


_NOTHING = _Nothing()
# The statements a block (IndentedBlock.body) holds.
_BLOCK_STATEMENTS = frozenset({
    cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.Try, cst.TryStar,
    cst.With, cst.Match,
})


class _LineCounter(CodegenState):
    """A code generation that writes nothing and records no range: it counts line breaks, and (when
    `starts` is given) where each statement begins: its first line and the indentation of its block."""

    def __init__(self, module: cst.Module, line: int, starts: dict | None = None) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = line
        self.starts = starts

    def add_indent_tokens(self) -> None:
        pass  # indentation holds no line break

    def add_token(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            self.line += len(NEWLINE_RE.findall(value))

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.starts is not None and type(node) in _BLOCK_STATEMENTS:
            self.starts[id(node)] = (self.line, tuple(self.indent_tokens))

    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _Nothing:
        return _NOTHING


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
        self._block_starts: dict[int, dict[int, tuple[int, tuple[str, ...]]]] = {}  # top-level index -> ...
        self._inner_done: dict[int, dict[cst.CSTNode, CodeRange]] = {}  # id(statement in a block) -> ...
        self._whole = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        top, inner = self._holders(node)
        if top is None:
            return self._everything()[node]
        if inner is None:
            return self._of_statement(top)[node]
        return self._of_inner(top, inner)[node]

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, cst.CSTNode):
            return False
        if node is self._module or self._top_level(node) is not None:
            return True
        return node in self._everything()

    def _top_level(self, node: cst.CSTNode) -> int | None:
        """The index of the top-level node holding `node`; None when the walk of the tree did not see it."""
        return self._holders(node)[0]

    def _holders(self, node: cst.CSTNode) -> tuple[int | None, cst.CSTNode | None]:
        """The index of the top-level node holding `node` (None when the walk of the tree did not see
        it), and the innermost statement of a block below it that holds `node` (None: there is none)."""
        current, inner = node, None
        while True:
            index = self._index.get(id(current))
            if index is not None and self._top[index] is current:
                return index, inner
            if not self._knows(current):
                return None, None
            parent = self._parent_of(current)
            if inner is None and type(parent) is cst.IndentedBlock and type(current) in _BLOCK_STATEMENTS:
                inner = current
            current = parent
            if current is None or current is self._module:
                return None, None

    def _of_inner(self, index: int, statement: cst.CSTNode) -> dict[cst.CSTNode, CodeRange]:
        """The ranges of `statement`, a statement in a block of the index-th top-level statement."""
        found = self._inner_done.get(id(statement))
        if found is None:
            starts = self._block_starts.get(index)
            if starts is None:
                starts = self._block_starts[index] = {}
                self._top[index]._codegen(_LineCounter(self._module, self._start(index), starts))
            line, indent = starts[id(statement)]
            found = self._inner_done[id(statement)] = self._record(statement, line, indent)
        return found

    def _of_statement(self, index: int) -> dict[cst.CSTNode, CodeRange]:
        found = self._done.get(index)
        if found is None:
            found = self._done[index] = self._record(self._top[index], self._start(index), ())
        return found

    def _record(self, node: cst.CSTNode, line: int, indent: tuple[str, ...]) -> dict[cst.CSTNode, CodeRange]:
        """The ranges of `node` and everything in it, generated from `line` with the block indentation `indent`."""
        module, store = self._module, _Store()
        state = PositionProvidingCodegenState(default_indent=module.default_indent,
                                              default_newline=module.default_newline, provider=store)
        state.line = line
        state.indent_tokens = list(indent)
        node._codegen(state)
        return store._computed

    def _start(self, index: int) -> int:
        """The first line of the index-th top-level node: 1 plus the line breaks of the code before it."""
        while len(self._starts) <= index:
            counter = _LineCounter(self._module, self._starts[-1])
            self._top[len(self._starts) - 1]._codegen(counter)
            self._starts.append(counter.line)
        return self._starts[index]

    def _everything(self):
        if self._whole is None:
            self._whole = self._wrapper.resolve(PositionProvider)
        return self._whole
