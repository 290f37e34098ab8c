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

import bisect
import functools
from typing import TYPE_CHECKING, Callable

from ..lazy_libcst import cst
from .ast_names import parse

if TYPE_CHECKING:
    from libcst._position import CodeRange


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


@functools.cache
def _block_statements() -> frozenset[type]:
    """The statements a block (IndentedBlock.body) holds. (Tables of libcst's classes, and the classes
    derived from its own, are made once libcst is imported: lazy_libcst.)"""
    return frozenset({
        cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.Try, cst.TryStar,
        cst.With, cst.Match,
    })


@functools.cache
def _line_counter() -> type:
    """The class below."""
    from libcst._nodes.internal import CodegenState
    from libcst.metadata.position_provider import NEWLINE_RE

    block_statements = _block_statements()

    class LineCounter(CodegenState):
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
            if self.starts is not None and type(node) in block_statements:
                self.starts[id(node)] = (self.line, tuple(self.indent_tokens))

        def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _Nothing:
            return _NOTHING

    return LineCounter


class StatementPositions:
    """`positions[node]` and `node in positions`, as libcst's resolved PositionProvider mapping answers them.

    `parent_of(node)` gives the node's parent (None for the module, or for a node it does not know);
    a node it does not know is looked up in libcst's provider over the whole module instead.
    `source`: the bytes the module was parsed from, when at hand: CPython's parser then says where each
    statement starts (`_AstStarts`), and only the statement asked about is generated; `outline`: what
    of that parse it needs (`statement_outline`), when the run's survey has it already.
    """

    def __init__(self, wrapper: cst.MetadataWrapper, parent_of: Callable[[cst.CSTNode], cst.CSTNode | None],
                 knows: Callable[[cst.CSTNode], bool], source: bytes | None = None, outline: tuple | None = None) -> None:
        self._wrapper = wrapper
        self._module = wrapper.module
        self._parent_of = parent_of
        self._knows = knows
        self._source = source
        self._outline = outline  # statement_outline of CPython's parse of `source`, when at hand
        self._ast_starts: "_AstStarts | None | bool" = False  # False: not tried yet
        self._top: list[cst.CSTNode] = [*self._module.header, *self._module.body, *self._module.footer]
        self._index = {id(node): i for i, node in enumerate(self._top)}
        self._starts: list[int] = [1]  # first line of each top-level node, computed as far as asked
        self._done: dict[int, dict[cst.CSTNode, CodeRange]] = {}
        self._block_starts: dict[int, dict[int, tuple[int, tuple[str, ...]]]] = {}  # top-level index -> ...
        self._inner_done: dict[int, dict[cst.CSTNode, CodeRange]] = {}  # id(statement in a block) -> ...
        self._header_done: dict[int, dict[cst.CSTNode, CodeRange]] = {}  # id(def or class) -> its header's ranges
        self._whole = None
        self._block_lines: dict[int, list[int] | None] = {}  # id(module or block) -> block_starts

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        top, inner = self._holders(node)
        if top is None:
            return self._everything()[node]
        statement = self._top[top] if inner is None else inner
        if (type(statement) is cst.FunctionDef or type(statement) is cst.ClassDef) and node is not statement and self._in_header(node, statement):
            return self._of_header(top, inner)[node]
        if inner is None:
            return self._of_statement(top)[node]
        return self._of_inner(top, inner)[node]

    def first_line(self, statement: cst.CSTNode) -> int | None:
        """Where the code generation of `statement`, a statement of the module or of a block, starts (its
        leading comments and blank lines and its decorators included), without recording any range; None
        for another node."""
        index = self._index.get(id(statement))
        if index is not None and self._top[index] is statement:
            return self._start(index)
        top, inner = self._holders(statement)
        if top is None or inner is not statement:
            return None
        return self._inner_start(top, statement)[0]

    def block_starts(self, block: cst.CSTNode, statements: list) -> list[int] | None:
        """`first_line` of each of `statements`, the statements `block` (the module or a block) holds, once
        per block (None: one of them is not known)."""
        found = self._block_lines.get(id(block), False)
        if found is False:
            lines = [self.first_line(statement) for statement in statements]
            found = self._block_lines[id(block)] = None if None in lines else lines  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    def _in_header(self, node: cst.CSTNode, statement: cst.CSTNode) -> bool:
        """`node` is in a def's or class's decorators, name, parameters, bases or annotations: not its body."""
        body = statement.body
        current = node
        while current is not None and current is not statement:
            if current is body:
                return False
            current = self._parent_of(current)
        return current is statement

    def _of_header(self, index: int, inner: cst.CSTNode | None) -> dict[cst.CSTNode, CodeRange]:
        """The ranges of what a def or class statement writes before its body (a finding on its name or
        a decorator): a code generation of the statement with an empty body writes them alike."""
        statement = self._top[index] if inner is None else inner
        found = self._header_done.get(id(statement))
        if found is None:
            if inner is None:
                line, indent = self._start(index), ()
            else:
                line, indent = self._inner_start(index, inner)
            found = self._header_done[id(statement)] = self._record(statement.with_changes(body=cst.IndentedBlock(body=[])), line, indent)
        return found

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
            if inner is None and type(parent) is cst.IndentedBlock and type(current) in _block_statements():
                inner = current
            current = parent
            if current is None or current is self._module:
                return None, None

    def _of_inner(self, index: int, statement: cst.CSTNode) -> dict[cst.CSTNode, CodeRange]:
        """The ranges of `statement`, a statement in a block of the index-th top-level statement."""
        found = self._inner_done.get(id(statement))
        if found is None:
            found = self._inner_done[id(statement)] = self._record(statement, *self._inner_start(index, statement))
        return found

    def _inner_start(self, index: int, statement: cst.CSTNode) -> tuple[int, tuple[str, ...]]:
        """Where a statement in a block of the index-th top-level statement starts, and its block's indentation."""
        starts = self._from_ast()
        if starts is not None and id(statement) in starts.lines:
            return starts.start(statement), self._indent(statement)
        counted = self._block_starts.get(index)
        if counted is None:
            counted = self._block_starts[index] = {}
            self._top[index]._codegen(_line_counter()(self._module, self._start(index), counted))
        return counted[id(statement)]

    def _of_statement(self, index: int) -> dict[cst.CSTNode, CodeRange]:
        found = self._done.get(index)
        if found is None:
            found = self._done[index] = self._record(self._top[index], self._start(index), ())
        return found

    def _record(self, node: cst.CSTNode, line: int, indent: tuple[str, ...]) -> dict[cst.CSTNode, CodeRange]:
        """The ranges of `node` and everything in it, generated from `line` with the block indentation `indent`."""
        from libcst.metadata.position_provider import PositionProvidingCodegenState

        module, store = self._module, _Store()
        state = PositionProvidingCodegenState(default_indent=module.default_indent,
                                              default_newline=module.default_newline, provider=store)
        state.line = line
        state.indent_tokens = list(indent)
        node._codegen(state)
        return store._computed

    def _from_ast(self) -> "_AstStarts | None":
        if self._ast_starts is False:
            self._ast_starts = _AstStarts.of(self._module, self._source, self._outline) if self._source is not None else None
        return self._ast_starts

    def _indent(self, statement: cst.CSTNode) -> tuple[str, ...]:
        """The indentation a code generation of the whole module has at `statement`: that of every block
        (and `match`) around it."""
        out = []
        current = self._parent_of(statement)
        while current is not None and current is not self._module:
            if type(current) is cst.IndentedBlock or type(current) is cst.Match:  # (a match indents its cases)
                out.append(self._module.default_indent if current.indent is None else current.indent)
            current = self._parent_of(current)
        return tuple(reversed(out))

    def _start(self, index: int) -> int:
        """The first line of the index-th top-level node: 1 plus the line breaks of the code before it."""
        starts = self._from_ast() if len(self._starts) <= index else None
        if starts is not None and id(self._top[index]) in starts.lines:
            return starts.start(self._top[index])
        while len(self._starts) <= index:
            counter = _line_counter()(self._module, self._starts[-1])
            self._top[len(self._starts) - 1]._codegen(counter)
            self._starts.append(counter.line)
        return self._starts[index]

    def _everything(self):
        if self._whole is None:
            from libcst.metadata import PositionProvider

            self._whole = self._wrapper.resolve(PositionProvider)
        return self._whole


# The names of libcst's compound statements and of the ast classes CPython parses them into (by name:
# the survey reads the ast's without libcst).
_COMPOUND = {
    "FunctionDef": ("FunctionDef", "AsyncFunctionDef"), "ClassDef": ("ClassDef",), "If": ("If",),
    "For": ("For", "AsyncFor"), "While": ("While",), "With": ("With", "AsyncWith"),
    "Try": ("Try",), "TryStar": ("TryStar",), "Match": ("Match",),
}
_AST_COMPOUND = frozenset(name for names in _COMPOUND.values() for name in names)


def statement_outline(body: list) -> tuple:
    """What `_AstStarts` needs of CPython's parse of a file (`tree.body`), in plain tuples that cross
    process boundaries cheaply (the runner's survey has the parse; rewriter/survey.py): a block is a
    tuple of its statements; a simple statement is its line; a compound one is (its ast class's name,
    its line, body, orelse, the handlers' bodies, finalbody, the cases' bodies)."""
    out = []
    for node in body:
        kind = type(node).__name__
        if kind not in _AST_COMPOUND:
            out.append(node.lineno)
            continue
        out.append((kind, node.lineno, statement_outline(node.body) if kind != "Match" else (),
                    statement_outline(getattr(node, "orelse", ())),
                    tuple(statement_outline(h.body) for h in getattr(node, "handlers", ())),
                    statement_outline(getattr(node, "finalbody", ())),
                    tuple(statement_outline(c.body) for c in getattr(node, "cases", ()))))
    return tuple(out)


_KIND, _LINE, _BODY, _ORELSE, _HANDLERS, _FINALBODY, _CASES = range(7)


class _Mismatch(Exception):
    pass


class _AstStarts:
    """Where each statement's code generation starts, from CPython's parse of the same bytes: the line
    of its first token (ast's `lineno`; a def's or class's `def`/`class` line) less the lines libcst
    writes before it (its leading comment and blank lines; decorators and the lines after them)."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.lines: dict[int, int] = {}  # id(statement) -> the line of its keyword or first token

    @classmethod
    def of(cls, module: cst.Module, source: bytes, outline: tuple | None = None) -> "_AstStarts | None":
        """None where CPython does not parse the bytes, or its statements are not the module's.
        `outline`: `statement_outline` of CPython's parse of these very bytes, when at hand."""
        if outline is None:
            tree = parse(source)
            if tree is None:
                return None
            outline = statement_outline(tree.body)
        found = cls(module)
        try:
            found._pair(module.body, outline)
        except (_Mismatch, IndexError, TypeError, AttributeError):
            return None
        return found

    def start(self, statement: cst.CSTNode) -> int:
        line = self.lines[id(statement)] - len(statement.leading_lines)
        if type(statement) in (cst.FunctionDef, cst.ClassDef):
            for decorator in statement.decorators:
                counter = _line_counter()(self.module, 0)
                decorator._codegen(counter)
                line -= counter.line
            line -= len(statement.lines_after_decorators)
        return line

    def _pair(self, statements, block: tuple) -> None:
        j = 0
        for statement in statements:
            kind = type(statement)
            if kind is cst.SimpleStatementLine:
                smalls = block[j:j + len(statement.body)]
                if len(smalls) != len(statement.body) or any(type(line) is not int for line in smalls):
                    raise _Mismatch
                self.lines[id(statement)] = smalls[0]
                j += len(statement.body)
                continue
            node = block[j]
            j += 1
            if type(node) is not tuple or node[_KIND] not in _COMPOUND.get(kind.__name__, ()):
                raise _Mismatch
            self.lines[id(statement)] = node[_LINE]
            self._blocks(statement, node)
        if j != len(block):
            raise _Mismatch

    def _blocks(self, statement, node: tuple) -> None:
        kind = type(statement)
        if kind is not cst.Match:
            self._block(statement.body, node[_BODY])
        if kind is cst.If:
            orelse = statement.orelse
            if type(orelse) is cst.If:  # elif: nested in the ast's orelse
                inner = node[_ORELSE]
                if len(inner) != 1 or type(inner[0]) is not tuple or inner[0][_KIND] != "If":
                    raise _Mismatch
                self._blocks(orelse, inner[0])
            elif orelse is not None:
                self._block(orelse.body, node[_ORELSE])
        elif kind in (cst.For, cst.While):
            if statement.orelse is not None:
                self._block(statement.orelse.body, node[_ORELSE])
        elif kind in (cst.Try, cst.TryStar):
            if len(statement.handlers) != len(node[_HANDLERS]):
                raise _Mismatch
            for handler, body in zip(statement.handlers, node[_HANDLERS]):
                self._block(handler.body, body)
            if statement.orelse is not None:
                self._block(statement.orelse.body, node[_ORELSE])
            if statement.finalbody is not None:
                self._block(statement.finalbody.body, node[_FINALBODY])
        elif kind is cst.Match:
            if len(statement.cases) != len(node[_CASES]):
                raise _Mismatch
            for case, body in zip(statement.cases, node[_CASES]):
                self._block(case.body, body)

    def _block(self, block, nodes: tuple) -> None:
        if type(block) is cst.IndentedBlock:
            self._pair(block.body, nodes)
        # a one-line suite (`if x: a; b`) holds no statement of a block



def node_at(module: cst.Module, positions, span, kinds: tuple[type, ...], start_only: bool = False) -> cst.CSTNode | None:
    """The libcst node of one of `kinds` whose range is `span` (a Span: lines from 1, columns in characters):
    where a reading on CPython's `ast` (issue 45) says a node is, the node a rule on libcst edits.
    `start_only`: the node that starts there. Only statements that hold the place are entered (inside
    one, a node's range need not hold its children's: a parameter's is its name's, without its default
    or annotation; a def's starts after its decorators). Of a block's statements, the one holding the
    place is told by where each starts (`StatementPositions.first_line`): no range is recorded for a
    statement that is not itself asked about, only for the nodes compared."""
    from ..cst_tree import branches

    block_starts = getattr(positions, "block_starts", None)
    # The nodes whose range holds everything in them, whose place decides whether to look inside (not a
    # block: its range starts where its first statement's does, after that statement's decorators).
    holding = (cst.BaseStatement, cst.BaseSmallStatement)
    start_of, end_of = (span.line, span.column), (span.end_line, span.end_column)
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        children = branches(node)
        if block_starts is not None:
            children = _holding_line(node, children, span.line, block_starts)
        for child in reversed(children):
            if not isinstance(child, kinds) and (not isinstance(child, holding) or block_starts is not None):
                stack.append(child)  # (one that may hold the place: its range is not needed to enter it)
                continue
            try:
                r = positions[child]
            except KeyError:  # (placed nowhere: what it holds may be there)
                stack.append(child)
                continue
            start, end = (r.start.line, r.start.column), (r.end.line, r.end.column)
            if start == start_of and (start_only or end == end_of) and isinstance(child, kinds):
                return child
            if not isinstance(child, holding) or getattr(child, "decorators", None) \
                    or start <= start_of and (start_of < end if start_only else end_of <= end):
                stack.append(child)
    return None


def _holding_line(block: cst.CSTNode, children: list, line: int, block_starts) -> list:
    """Of a block's statements, the last that starts on or before `line` (the others cannot hold it);
    any other children as they are."""
    if type(block) is not cst.Module and type(block) is not cst.IndentedBlock:
        return children
    block_statements = _block_statements()
    statements = [child for child in children if type(child) in block_statements]
    starts = block_starts(block, statements) if statements else None
    if starts is None:
        return children
    index = bisect.bisect_right(starts, line) - 1
    others = [child for child in children if type(child) not in block_statements]  # (its comments and blank lines)
    return [*others, statements[index]] if index >= 0 else others

