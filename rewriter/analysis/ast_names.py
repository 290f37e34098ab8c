"""Names read off CPython's `ast` (the pre-filter and the project summaries; names.py does it on libcst),
and walks of it that cost less than `ast.walk`/`ast.iter_child_nodes` (a generator per node, and
`iter_fields` per field): these take each class's fields from `_fields`, once."""
from __future__ import annotations

import ast
from ast import (Add, Assign, AsyncFor, AsyncFunctionDef, Attribute, BinOp, Call, ClassDef, Constant, Dict, DictComp, Expr,
                 For, FunctionDef, GeneratorExp, Global, IfExp, Import, ImportFrom, Lambda, List, ListComp, MatchClass,
                 MatchMapping, Module, Name, Nonlocal, Return, Set, SetComp, Starred, Sub, Subscript, Tuple, UAdd, USub,
                 UnaryOp, While, arg, keyword)
import io
import tokenize
import unicodedata
import warnings
from dataclasses import dataclass
from typing import Iterator


def parse(source: bytes | str) -> Module | None:
    """CPython's parse of `source`, quietly (no SyntaxWarning); None when it cannot parse it (libcst,
    or the file's own run, says why)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError):
        return None


def words_text(source: bytes) -> bytes:
    """What to search a word of a name in: the bytes, followed, where CPython reads names otherwise
    than they are spelled, by the source as it reads them (decoded in its declared encoding and
    NFKC-normalized: a full-width `ｊit` is `jit`; in a `# coding: utf-7` file `+AF8-` is `_`), in
    UTF-8. ASCII in UTF-8 (nearly every file) is the bytes alone; so is a source that cannot be
    decoded (its parse says why); so is UTF-8 that NFKC leaves as it is, and of other UTF-8 only the
    lines it changes follow. The last answer is kept: a file's trigger words and its gates ask of the
    same bytes in turn, and a file with non-ASCII text costs a decode and an NFKC check each time."""
    global _last_words
    last = _last_words
    if last[0] is source:
        return last[1]
    if source.isascii() and _no_coding_cookie(source):
        return source  # (what detect_encoding says of it, without its Python: UTF-8)
    text = _words_text(source)
    _last_words = (source, text)  # (one assignment: a thread reading meanwhile sees the old pair or the new)
    return text


_last_words: tuple = (None, b"")  # (bytes asked, `words_text` of them)


def _words_text(source: bytes) -> bytes:
    """`words_text` of a source that is not ASCII or may declare an encoding."""
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        return source
    if encoding == "utf-8" and source.isascii():
        return source
    try:
        text = source.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return source
    if encoding != "utf-8":
        return source + b"\n" + unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass")
    # In UTF-8 an ASCII word is in a line's bytes where it is in its text, and NFKC reads each line
    # alone (a newline composes with nothing): only the lines it changes can hold a word the bytes lack,
    # and where it changes none (most non-ASCII files: their `π` and `→` are NFKC already) a check of
    # the whole text in C says so.
    if unicodedata.is_normalized("NFKC", text):
        return source
    changed = [read for line in text.split("\n") if not line.isascii()
               and (read := unicodedata.normalize("NFKC", line)) != line]
    return source + b"\n" + "\n".join(changed).encode("utf-8", "surrogatepass") if changed else source


def _no_coding_cookie(source: bytes) -> bool:
    """No encoding can be declared in `source`: its first two lines, where tokenize.detect_encoding
    looks (split as it reads them, at b"\\n"), do not spell `coding`."""
    end = source.find(b"\n")
    if end >= 0:
        end = source.find(b"\n", end + 1)
    return b"coding" not in (source if end < 0 else source[:end])


_AST = ast.AST
# The nodes whose bodies (or element expressions) run once per iteration.
LOOPS = frozenset({For, AsyncFor, While, ListComp, SetComp, DictComp, GeneratorExp})


class Met:
    """What the one breadth-first walk of a file that the survey pays for (project.summary's) met, kept
    for the pre-filter's readers after it (prefilter.Syntax), so that none of them walks the tree
    again: every Name/Attribute read, outermost of its chain (`loads`); every Name's identifier
    (`names`); the nodes of the kinds in `MARKED`, in the walk's order (`marked`)."""

    __slots__ = ("loads", "names", "marked")
    # What the readers without a walk look at: identifiers, and where a factory's result is bound and called.
    MARKED = frozenset({Attribute, Import, ImportFrom, ast.keyword, Assign, *LOOPS})

    def __init__(self) -> None:
        self.loads: list[ast.AST] = []
        self.names: set[str] = set()
        self.marked: list[ast.AST] = []


def children(node: ast.AST) -> list[ast.AST]:
    """The nodes `ast.iter_child_nodes(node)` yields, in the same order."""
    out = []
    for name in node._fields:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend([item for item in value if isinstance(item, _AST)])
        elif isinstance(value, _AST):
            out.append(value)
    return out


# Fields that never hold a node worth visiting: identifiers and flags, and the context and operator
# singletons (`Load`, `Add`, `Eq`: a third of a module's nodes, in none of which anything is found).
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "kind",
                          "type_comment", "conversion", "is_async"})
# Lists that may hold something else than nodes: `None` among a dict display's keys (`{**d}`) and among
# keyword-only defaults (no default), names.
_MIXED_LISTS = frozenset({(Dict, "keys"), (ast.arguments, "kw_defaults"), (Global, "names"), (Nonlocal, "names"),
                          (MatchClass, "kwd_attrs")})
_BRANCH_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _branch_fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """(field, whether a list there may hold non-nodes) for the fields of `cls` that may hold nodes."""
    if cls is Constant:
        return ()  # its value is a Python object, never a node
    return tuple((f, (cls, f) in _MIXED_LISTS) for f in cls._fields if f not in _LEAF_FIELDS)


def branches(node: ast.AST) -> list[ast.AST]:
    """`children(node)` without the context and operator singletons, in the same order. The kinds met
    most (three quarters of the nodes a walk asks of, on research code) are read field by field,
    without the table's loop."""
    kind = type(node)
    try:
        if kind is Attribute or kind is Expr or kind is keyword:
            return [node.value]  # type: ignore[attr-defined]
        if kind is Call:
            out: list[ast.AST] = [node.func]  # type: ignore[attr-defined]
            out.extend(node.args)  # type: ignore[attr-defined]
            out.extend(node.keywords)  # type: ignore[attr-defined]
            return out
        if kind is Assign:
            out = list(node.targets)  # type: ignore[attr-defined]
            out.append(node.value)  # type: ignore[attr-defined]
            return out
        if kind is BinOp:
            return [node.left, node.right]  # type: ignore[attr-defined]
        if kind is Subscript:
            return [node.value, node.slice]  # type: ignore[attr-defined]
        if kind is Tuple or kind is List:
            return list(node.elts)  # type: ignore[attr-defined]
        if kind is arg or kind is Return:
            found = node.annotation if kind is arg else node.value  # type: ignore[attr-defined]
            return [] if found is None else [found]
    except AttributeError:
        pass  # (a node built without one of its fields: the table reads what it has)
    try:
        fields = _BRANCH_FIELDS[kind]
    except KeyError:
        fields = _BRANCH_FIELDS[kind] = _branch_fields(kind)
    out = []
    for name, mixed in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            if mixed:
                out.extend([item for item in value if isinstance(item, _AST)])
            else:
                out.extend(value)
        elif value is not None and isinstance(value, _AST):
            out.append(value)
    return out


class TreeWalk:
    """One breadth-first walk of a tree over `branches`, kept for two readers of the same module that
    each walked it: every node in `ast.walk`'s order (`nodes`: ast_module.AstModule.walked) and each
    node's parent by id (`parents`: ast_resolver.NameResolver.parents). It holds the tree only, so
    neither reader makes a cycle through it."""

    __slots__ = ("tree", "_nodes", "_parents")

    def __init__(self, tree: ast.AST) -> None:
        self.tree = tree
        self._nodes: list[ast.AST] | None = None
        self._parents: dict[int, ast.AST] = {}

    def nodes(self) -> list[ast.AST]:
        if self._nodes is None:
            self._walk()
        return self._nodes  # type: ignore[return-value]

    def parents(self) -> dict[int, ast.AST]:
        if self._nodes is None:
            self._walk()
        return self._parents

    def _walk(self) -> None:
        queue: list[ast.AST] = [self.tree]
        parents = self._parents
        i = 0
        while i < len(queue):
            node = queue[i]
            i += 1
            found = branches(node)
            for child in found:
                parents[id(child)] = node
            queue.extend(found)
        self._nodes = queue


def in_source_order(node: ast.AST) -> list[ast.AST]:
    """`branches(node)` in the order they are written, as libcst's walk meets them: a def's decorators
    before its parameters, a call's keywords among its arguments, a dict's keys among its values, a
    conditional expression's body before its test."""
    kind = type(node)
    if kind is FunctionDef or kind is AsyncFunctionDef:
        return [*node.decorator_list, node.args, *([node.returns] if node.returns else []), *node.body]  # type: ignore[attr-defined]
    if kind is ClassDef:
        return [*node.decorator_list, *_by_position([*node.bases, *node.keywords]), *node.body]  # type: ignore[attr-defined]
    if kind is Call:
        return [node.func, *_by_position([*node.args, *node.keywords])]  # type: ignore[attr-defined]
    if kind is Dict:
        return [part for key, value in zip(node.keys, node.values) for part in ((key, value) if key else (value,))]  # type: ignore[attr-defined]
    if kind is IfExp:
        return [node.body, node.test, node.orelse]  # type: ignore[attr-defined]
    if kind is ast.arguments:
        return _by_position(branches(node))
    if kind is MatchMapping:
        return [part for pair in zip(node.keys, node.patterns) for part in pair]  # type: ignore[attr-defined]
    return branches(node)


def walk_outside_lambdas(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node in it, not entering lambdas (they run when called); a node's branches are met
    last written first (libcst's walk in the rules that quote the first of them they meet)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if type(current) is not Lambda:
            stack.extend(in_source_order(current))


def with_enclosing(tree: ast.AST, kinds: frozenset, enclosing: frozenset) -> list[tuple[ast.AST, ast.AST | None]]:
    """The nodes of `kinds` in `tree` in the order written (libcst's pre-order walk), each with the
    innermost node of the `enclosing` kinds around it (None outside any): the def or lambda a call is
    made in, the loop it runs in. A node is not around itself; a def's decorators and defaults are in its
    subtree, as the walk meets them. One list, where a rule's own walk over every node ran in the
    interpreter: the node around is kept aside while its subtree is walked, and a marker on the stack
    restores the outer one, so nothing is allocated per node."""
    out: list[tuple[ast.AST, ast.AST | None]] = []
    stack: list = [tree]
    outer: list = []
    around = None
    while stack:
        node = stack.pop()
        if node is _LEAVE:
            around = outer.pop()
            continue
        kind = type(node)
        if kind in kinds:
            out.append((node, around))
        if kind is Name or kind is Constant:
            continue  # (no branches)
        if kind in enclosing:
            stack.append(_LEAVE)  # (met once the node's whole subtree is)
            outer.append(around)
            around = node
        stack.extend(reversed(in_source_order(node)))
    return out


_LEAVE = object()  # (`with_enclosing`: the end of an enclosing node's subtree)
FUNCTIONS = frozenset({FunctionDef, AsyncFunctionDef, Lambda})  # (the defs and lambdas: what calls are made in)


def _by_position(nodes: list) -> list:
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset))


def own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a def's or lambda's own body: a nested def, lambda or class is met, not entered
    (its body runs when it is called), as `own_nodes` walks libcst trees."""
    stack = [fn.body] if isinstance(fn, Lambda) else list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if type(node) not in SCOPES:
            stack.extend(branches(node))


def own_nodes_in_order(fn: ast.AST) -> Iterator[ast.AST]:
    """`own_nodes` in the order written (libcst's pre-order walk): where the order shows, in the order of
    findings or of the names they hand out."""
    stack = [fn.body] if isinstance(fn, Lambda) else list(reversed(fn.body))  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        yield node
        if type(node) not in SCOPES:
            stack.extend(reversed(in_source_order(node)))


# The nodes whose bodies run when they are called, not where they are written. (Tested by type: `isinstance`
# with a tuple asks each class in turn, and a miss looks `__class__` up too.)
SCOPES = frozenset({FunctionDef, AsyncFunctionDef, Lambda, ClassDef})


# The fields that hold statements, except handlers or match cases (lists of them, where they are lists).
_BLOCK_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
_BLOCK_FIELDS_OF: dict[type, tuple[str, ...]] = {}


def statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """The statements of `tree` at any depth, in the order `ast.walk` meets them (breadth first),
    without entering expressions, which hold no statements. Only the fields named `body`, `orelse`,
    `finalbody`, `handlers` and `cases` hold them, and when those are lists they hold nothing else
    (a lambda's or conditional expression's `body` is an expression: no list)."""
    queue = [tree]
    i = 0
    fields_of = _BLOCK_FIELDS_OF
    while i < len(queue):
        node = queue[i]
        i += 1
        cls = type(node)
        try:
            fields = fields_of[cls]
        except KeyError:
            fields = fields_of[cls] = tuple(f for f in cls._fields if f in _BLOCK_FIELDS)
        if fields:
            for name in fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    queue.extend(value)
        if isinstance(node, ast.stmt):
            yield node


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while type(node) is Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not Name:
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def literal_value(node: ast.AST):
    """`ast.literal_eval(node)`: the same value, and a ValueError or TypeError (or RecursionError)
    where it raises one. literal_eval builds four closures that call each other, a cycle only the
    garbage collector frees, on every call; the summaries and the pre-filter make about 12,000 calls
    on the whole benchmark corpus, and the cycles were most of what the survey left to the collector."""
    if isinstance(node, Constant):
        return node.value
    if isinstance(node, Tuple):
        return tuple(map(literal_value, node.elts))
    if isinstance(node, List):
        return list(map(literal_value, node.elts))
    if isinstance(node, Set):
        return set(map(literal_value, node.elts))
    if isinstance(node, Call) and isinstance(node.func, Name) and node.func.id == "set" \
            and node.args == node.keywords == []:
        return set()
    if isinstance(node, Dict):
        if len(node.keys) != len(node.values):
            _not_a_literal(node)
        return dict(zip(map(literal_value, node.keys), map(literal_value, node.values)))
    if isinstance(node, BinOp) and isinstance(node.op, (Add, Sub)):
        left, right = _signed_number(node.left), _number(node.right)
        if isinstance(left, (int, float)) and isinstance(right, complex):
            return left + right if isinstance(node.op, Add) else left - right
    return _signed_number(node)


def _signed_number(node: ast.AST):
    if isinstance(node, UnaryOp) and isinstance(node.op, (UAdd, USub)):
        operand = _number(node.operand)
        return +operand if isinstance(node.op, UAdd) else -operand
    return _number(node)


def _number(node: ast.AST):
    if not isinstance(node, Constant) or type(node.value) not in (int, float, complex):
        _not_a_literal(node)
    return node.value


def _not_a_literal(node: ast.AST):
    raise ValueError(f"malformed node or string: {node!r}")


@dataclass(frozen=True)
class Argument:
    """A call's argument as libcst has it (`cst.Arg`): its value, its keyword, its star, in the order written."""

    value: ast.expr
    keyword: str | None = None
    star: str = ""  # "*" or "**"


def arguments(call: Call) -> list[Argument]:
    """The arguments of `call` in the order written (`ast` keeps positional and keyword ones apart)."""
    out = []
    for a in sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset)):
        if type(a) is Starred:
            out.append(Argument(a.value, None, "*"))
        elif type(a) is ast.keyword:
            out.append(Argument(a.value, a.arg, "" if a.arg is not None else "**"))
        else:
            out.append(Argument(a))
    return out
