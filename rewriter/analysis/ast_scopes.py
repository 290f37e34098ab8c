"""The scopes of a module, read from CPython's `ast`: what each scope binds, where each name is read,
what it denotes (scope_model.py's classes, filled with `ast` nodes).

It answers what libcst's ScopeProvider answered (and rewriter/analysis/scopes.py, deleted, its
re-implementation), libcst's quirks included, so that the analysis moved from libcst's tree to
CPython's (issue 45) without a finding changing: tests/test_ast_scopes.py records its answers, every
read and binding of the golden cases, the examples and more, as they were when it compared the two.
The walk visits in the order libcst's does (source order: a call's keywords among its arguments, a
dict's keys among its values, a conditional expression's body before its test) and counts bindings at
the same places, so a read sees the same bindings.

Where the trees differ, the node that stands for a binding or a read is `ast`'s: a parameter's
binding is its `ast.arg`; an import's binding is the statement, with the `ast.alias` as its `as_name`;
an `except ... as e` binds at its `ExceptHandler`; `None`, `True` and `False` are read at their
`Constant`; a name a match pattern captures or matches a keyword of (a read, as libcst has it) is read
at a Name made for it, placed where its pattern is.
"""
from __future__ import annotations

import ast
from ast import (AnnAssign, Assign, AsyncFor, AsyncFunctionDef, AsyncWith, Attribute, AugAssign, Call, ClassDef, Constant, Dict,
                 DictComp, ExceptHandler, For, FormattedValue, FunctionDef, GeneratorExp, Global, IfExp, Import, ImportFrom,
                 JoinedStr, Lambda, ListComp, Load, MatchAs, MatchClass, MatchMapping, MatchSingleton, MatchStar, Module, Name,
                 NamedExpr, Nonlocal, SetComp, Store, Subscript, With)
import warnings
from typing import Any, Callable

from .ast_names import branches
from .scope_model import (_TYPING, Access, ClassScope, ComprehensionScope, FunctionScope, GlobalScope, Scope, Scopes,
                          full_name_for, resolve_reads)

_FUNCTIONS = (FunctionDef, AsyncFunctionDef)


class NotCompilable(SyntaxError):
    """Code CPython parses but will not compile, as its symbol table rejects a declaration (`nonlocal x` at
    module level): the file is reported as CPython reports it, not analysed."""
# What libcst counts as a binding statement (its scope provider's) that `ast` has a node for: the
# scope's count of bindings goes up once the node has been walked. (libcst's `Parameters`, `AsName`,
# `WithItem` and `CompFor` have no node of their own here: their walks count them.)
_COUNTED = frozenset({AnnAssign, Assign, AugAssign, ClassDef, FunctionDef, AsyncFunctionDef,
                      Global, Import, ImportFrom, NamedExpr, Nonlocal})


def module_scopes(tree: Module) -> Scopes:
    """Every scope of `tree`, its bindings and reads, and the scope of each node."""
    walk = _Walk()
    walk.visit(tree)
    walk.resolve_reads()
    return Scopes(tree, walk.scope_of, walk.parsed)


def _source_order(nodes: list) -> list:
    """Nodes of one list of fields (a call's arguments and keywords) in the order they are written."""
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset))


class _Walk:
    """One pass over the tree in libcst's visiting order."""

    def __init__(self) -> None:
        self.scope: Scope = GlobalScope()
        self.scope_of: dict[int, Scope] = {}
        self.reads: list[tuple[Access, str, ast.AST | None, ast.AST | None]] = []
        self.attribute: list[Attribute | None] = [None]  # outermost attribute being read, per call level
        self.in_annotation: list[bool] = [False]
        self.in_type_hint: list[bool] = [False]
        self.in_literal = 0  # open `Literal[...]` subscripts: their strings are not code
        self.string: Constant | None = None  # the string annotation whose code is being read
        self.parsed: list[Module] = []
        self.typing_seen = False  # some binding may make a name resolve to `typing.*`
        # The names a spelling of typing's may start at (`_may_name_typing`): typing's own module names,
        # and every name an import from them binds (`from typing import cast as C`), in any scope so far.
        self.typing_names: set[str] = set(_TYPING)

    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        handler = _HANDLERS.get(kind)
        if handler is None:
            visit = self.visit  # (once per node, not per child)
            for child in branches(node):
                visit(child)
        else:
            handler(self, node)
        scope = self.scope
        self.scope_of[id(node)] = scope
        if kind in _COUNTED:
            scope.count += 1

    def visit_all(self, nodes) -> None:
        visit = self.visit
        for node in nodes:
            if node is not None:
                visit(node)

    # bindings and reads
    def bind(self, name: str, node: ast.AST) -> None:
        if name in _TYPING:
            self.typing_seen = True
        self.scope._bind(name, node)

    def read(self, name: str, node: ast.AST) -> None:
        scope = self.scope
        self.reads.append((Access(node, scope, scope.count), name, self.attribute[-1], self.string))

    def name(self, node: Name) -> None:
        if type(node.ctx) is Store and self.string is None:  # names in a string annotation: reads
            self.bind(node.id, node)
        else:  # (libcst reads a `del x`)
            self.read(node.id, node)

    def import_(self, node: Import | ImportFrom) -> None:
        from_typing = type(node) is ImportFrom and node.module is not None and not node.level and _is_typing(node.module)
        if from_typing:
            self.typing_seen = True
        scope = self.scope
        for alias in node.names:
            if alias.name == "*":
                return
            self.scope_of[id(alias)] = scope
            typing_module = type(node) is Import and _is_typing(alias.name)
            if typing_module:
                self.typing_seen = True
            if from_typing or typing_module:
                self.typing_names.add(alias.asname or alias.name.split(".", 1)[0])
            for name in _dotted_prefixes(alias.asname or alias.name):
                if name in _TYPING:
                    self.typing_seen = True
                scope._bind_import(name, node, alias)

    def resolve_reads(self) -> None:
        resolve_reads(self.reads)
        self.reads = []

    # nodes that open scopes
    def function_def(self, node: FunctionDef | AsyncFunctionDef) -> None:
        outer = self.scope
        self.bind(node.name, node)
        self.scope = FunctionScope(outer, node, node.name)
        self.parameters(node.args)
        self.visit_all(node.body)
        self.scope = outer  # decorators and the return annotation are evaluated outside
        self.visit_all(node.decorator_list)
        if node.returns is not None:
            self.annotation(node.returns)

    def lambda_(self, node: Lambda) -> None:
        outer = self.scope
        self.scope = FunctionScope(outer, node)
        self.parameters(node.args)
        self.visit(node.body)
        self.scope = outer

    def parameters(self, arguments: ast.arguments) -> None:
        """Each parameter in the order written, its default and annotation evaluated where the function
        is defined; then libcst's `Parameters` counts once."""
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
        pairs = [*zip(positional, defaults)]
        if arguments.vararg is not None:
            pairs.append((arguments.vararg, None))
        pairs += zip(arguments.kwonlyargs, arguments.kw_defaults)
        if arguments.kwarg is not None:
            pairs.append((arguments.kwarg, None))
        scope = self.scope
        for arg, default in pairs:
            self.bind(arg.arg, arg)
            self.scope_of[id(arg)] = scope
            self.scope = scope.parent
            if default is not None:
                self.visit(default)
            if arg.annotation is not None:
                self.annotation(arg.annotation)
            self.scope = scope
        self.scope_of[id(arguments)] = scope
        scope.count += 1

    def class_def(self, node: ClassDef) -> None:
        outer = self.scope
        self.bind(node.name, node)
        self.visit_all(node.decorator_list)
        self.visit_all(node.bases)
        self.visit_all(node.keywords)
        self.scope = ClassScope(outer, node, node.name)
        self.visit_all(node.body)
        self.scope = outer

    def comprehension(self, node: ListComp | SetComp | DictComp | GeneratorExp) -> None:
        """The first iterable is evaluated outside; the rest (targets, conditions, inner loops, the
        element) in the comprehension's own scope."""
        outer = self.scope
        first, *inner_loops = node.generators
        self.visit(first.iter)
        self.scope_of[id(first)] = outer
        self.scope = inner = ComprehensionScope(outer, node)
        self.visit(first.target)
        inner.count += 1
        self.visit_all(first.ifs)
        self.inner_loops(inner_loops)
        if isinstance(node, DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = outer

    def inner_loops(self, loops: list) -> None:
        """libcst's nested `CompFor`s: each counts once the loops inside it are walked."""
        if not loops:
            return
        loop, *rest = loops
        self.visit(loop.target)
        self.visit(loop.iter)
        self.visit_all(loop.ifs)
        self.inner_loops(rest)
        self.scope_of[id(loop)] = self.scope
        self.scope.count += 1

    # other statements and expressions
    def global_(self, node: Global) -> None:
        for name in node.names:
            self.scope._declare_global(name)

    def nonlocal_(self, node: Nonlocal) -> None:
        if type(self.scope) is GlobalScope:
            raise NotCompilable("nonlocal declaration not allowed at module level", ("", node.lineno, node.col_offset + 1, None))
        for name in node.names:
            self.scope._declare_nonlocal(name)

    def for_(self, node: For | AsyncFor) -> None:
        self.visit(node.target)
        self.scope.count += 1
        self.visit(node.iter)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    def with_(self, node: With | AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
                self.scope.count += 1  # (libcst's `AsName`)
            self.scope_of[id(item)] = self.scope
            self.scope.count += 1  # (libcst's `WithItem`)
        self.visit_all(node.body)

    def except_handler(self, node: ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            self.bind(node.name, node)
            self.scope.count += 1  # (libcst's `AsName`)
        self.visit_all(node.body)

    def attribute_(self, node: Attribute) -> None:
        top = self.attribute
        if top[-1] is None:
            top[-1] = node
        self.visit(node.value)
        if top[-1] is node:
            top[-1] = None

    def call(self, node: Call) -> None:
        self.attribute.append(None)
        self.in_type_hint.append(False)
        called = {q.name for q in self.scope.get_qualified_names_for(node)} if self._may_name_typing(node.func) else ()
        arguments = _source_order([*node.args, *node.keywords]) if node.keywords else node.args
        if "typing.NewType" in called or "typing.TypeVar" in called:
            self.visit(node.func)
            self.in_type_hint[-1] = True
            self.visit_all(arguments[1:])
        elif "typing.cast" in called:
            self.visit(node.func)
            if arguments:
                self.in_type_hint.append(True)
                self.visit(arguments[0])
                self.in_type_hint.pop()
                self.visit_all(arguments[1:])
        else:
            self.visit(node.func)
            self.visit_all(arguments)
        self.attribute.pop()
        self.in_type_hint.pop()

    def subscript(self, node: Subscript) -> None:
        hint = literal = False
        if type(node.value) is Name and self._may_name_typing(node.value):
            names = {q.name for q in self.scope.get_qualified_names_for(node.value)}
            hint = any(n.startswith(("typing.", "typing_extensions.")) for n in names)
            literal = "typing.Literal" in names or "typing_extensions.Literal" in names
        self.in_type_hint.append(hint)
        self.in_literal += literal
        self.visit(node.value)
        self.visit(node.slice)
        self.in_type_hint.pop()
        self.in_literal -= literal

    def _may_name_typing(self, node: ast.expr) -> bool:
        """Whether the qualified names of `node` may be typing's (`typing.cast`), as `call` and `subscript`
        ask: only through a binding of the name its full name starts at (scope_model.full_name_for)
        that an import from typing made, or one of the name `typing` itself (a module-level
        `typing = ...` qualifies `typing.cast`). Saves resolving every call and subscript of a file
        that imports typing for its annotations."""
        if not self.typing_seen:
            return False
        name = full_name_for(node)
        return name is not None and name.partition(".")[0] in self.typing_names

    def annotation(self, node: ast.expr) -> None:
        self.in_annotation.append(True)
        self.visit(node)
        self.in_annotation.pop()

    def ann_assign(self, node: AnnAssign) -> None:
        self.visit(node.target)
        self.annotation(node.annotation)
        if node.value is not None:
            self.visit(node.value)

    def constant(self, node: Constant) -> None:
        """A string in an annotation or a type hint is read as code."""
        value = node.value
        if value is None or value is True or value is False:
            self.read(repr(value), node)  # (libcst's Name)
            return
        if not (type(value) is str or type(value) is bytes) or not value:
            return
        if not (self.in_type_hint[-1] or self.in_annotation[-1]) or self.in_literal:
            return
        outermost = self.string is None
        if outermost:
            self.string = node
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parsed = ast.parse(value)
        except (SyntaxError, ValueError):
            parsed = None  # as Python: not code, not read
        if parsed is not None:
            self.parsed.append(parsed)
            self.visit(parsed)
        if outermost:
            self.string = None

    def joined_str(self, node: JoinedStr) -> None:
        for part in node.values:  # (its text parts are no string literals of their own)
            if type(part) is FormattedValue:
                self.visit(part)

    def if_exp(self, node: IfExp) -> None:
        self.visit(node.body)
        self.visit(node.test)
        self.visit(node.orelse)

    def dict_(self, node: Dict) -> None:
        for key, value in zip(node.keys, node.values):
            if key is not None:
                self.visit(key)
            self.visit(value)

    # match patterns: libcst reads the names they capture, each at a Name node of its own
    def pattern_name(self, name: str, pattern: ast.pattern) -> None:
        """A read of a name a pattern captures or matches a keyword of, at a Name made for it: `ast` has
        no node for it, and a read is known by its node (two on one pattern would be one read)."""
        self.read(name, ast.copy_location(Name(name, Load()), pattern))

    def match_as(self, node: MatchAs) -> None:
        if node.pattern is not None:
            self.visit(node.pattern)
        if node.name is not None:
            self.pattern_name(node.name, node)

    def match_star(self, node: MatchStar) -> None:
        if node.name is not None:
            self.pattern_name(node.name, node)

    def match_singleton(self, node: MatchSingleton) -> None:
        self.pattern_name(repr(node.value), node)  # (`case None:`: libcst's Name)

    def match_mapping(self, node: MatchMapping) -> None:
        for key, pattern in zip(node.keys, node.patterns):
            self.visit(key)
            self.visit(pattern)
        if node.rest is not None:
            self.pattern_name(node.rest, node)

    def match_class(self, node: MatchClass) -> None:
        self.visit(node.cls)
        self.visit_all(node.patterns)
        for name, pattern in zip(node.kwd_attrs, node.kwd_patterns):
            self.pattern_name(name, node)
            self.visit(pattern)


def _is_typing(name: str | None) -> bool:
    return name is not None and name.split(".", 1)[0] in _TYPING


def _dotted_prefixes(name: str) -> list[str]:
    """`a.b.c` -> `a.b.c`, `a.b`, `a`: what a dotted import binds (scope_model._dotted_names of its name)."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


_HANDLERS: dict[type, Callable[[_Walk, Any], None]] = {
    Name: _Walk.name,
    Import: _Walk.import_,
    ImportFrom: _Walk.import_,
    FunctionDef: _Walk.function_def,
    AsyncFunctionDef: _Walk.function_def,
    Lambda: _Walk.lambda_,
    ClassDef: _Walk.class_def,
    ListComp: _Walk.comprehension,
    SetComp: _Walk.comprehension,
    DictComp: _Walk.comprehension,
    GeneratorExp: _Walk.comprehension,
    Global: _Walk.global_,
    Nonlocal: _Walk.nonlocal_,
    For: _Walk.for_,
    AsyncFor: _Walk.for_,
    With: _Walk.with_,
    AsyncWith: _Walk.with_,
    ExceptHandler: _Walk.except_handler,
    Attribute: _Walk.attribute_,
    Call: _Walk.call,
    Subscript: _Walk.subscript,
    AnnAssign: _Walk.ann_assign,
    Constant: _Walk.constant,
    JoinedStr: _Walk.joined_str,
    IfExp: _Walk.if_exp,
    Dict: _Walk.dict_,
    MatchAs: _Walk.match_as,
    MatchStar: _Walk.match_star,
    MatchSingleton: _Walk.match_singleton,
    MatchMapping: _Walk.match_mapping,
    MatchClass: _Walk.match_class,
}
