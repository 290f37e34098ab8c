"""rewriter.cst_tree walks libcst trees as libcst's own traversal does, without rebuilding them."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import libcst as cst
import pytest

from rewriter import cst_tree

ROOT = Path(__file__).resolve().parent.parent


def _sources() -> list[Path]:
    """Our golden cases and examples, and a module of real code (PhiML's tensors, 3k lines)."""
    spec = importlib.util.find_spec("phiml")
    real = Path(list(spec.submodule_search_locations)[0]) / "math" / "_tensors.py" if spec and spec.submodule_search_locations else None
    return [*sorted(ROOT.glob("golden/**/*.py")), *sorted(ROOT.glob("examples/*.py")), *([real] if real else [])]


def _modules():
    for path in _sources():
        try:
            yield path, cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue


SYNTAX = '''
from . import a as b, c
from .. import *
import x.y as z
@dec(1)
async def f(p, /, q: int = 2, *args, r, **kw) -> "T":
    global g
    async with m as (n, o), p:
        async for i in j:
            yield from k
    x = [a for b in c if d]; y = {e: f async for e, f in g}
    lambda *, s=1: (s, *t)
    match v:
        case {"k": 1, **rest} | [1, *others] if others: pass
        case Point(x=0) as pt: pass
    try: pass
    except* (E, F) as err: del err
    finally: return f"{x!r:>{width}}" "tail"
class C[T](B, metaclass=M):
    type Alias[U] = list[U]
    z: int
    w @= q if r else s
print(not a, -b, a < b <= c, a is not b, (yield), await w, t[1:2, ::3], ..., 1j, b'x')
'''


class _Order(cst.CSTVisitor):
    """libcst's own traversal: every node, pre-order, with its parent."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, int | None]] = []
        self.stack: list[cst.CSTNode] = []

    def on_visit(self, node) -> bool:
        self.seen.append((id(node), id(self.stack[-1]) if self.stack else None))
        self.stack.append(node)
        return True

    def on_leave(self, node) -> None:
        self.stack.pop()


def test_children_are_libcsts_children_in_the_same_order():
    modules = [("syntax", cst.parse_module(SYNTAX)), *_modules()]
    checked = 0
    for path, module in modules:
        expected = _Order()
        module.visit(expected)
        ours = []
        stack: list[tuple[cst.CSTNode, int | None]] = [(module, None)]
        while stack:
            node, parent = stack.pop()
            ours.append((id(node), parent))
            stack.extend((child, id(node)) for child in reversed(cst_tree.children(node)))
        assert ours == expected.seen, path
        checked += len(ours)
    assert checked > 50_000  # the cases were found and walked


class _Log(cst.BatchableCSTVisitor):
    def __init__(self, log: list) -> None:
        super().__init__()
        self.log = log

    def visit_Name(self, node) -> None:
        self.log.append(("visit_Name", id(node)))

    def leave_Name(self, node) -> None:
        self.log.append(("leave_Name", id(node)))

    def visit_FunctionDef(self, node) -> bool:
        self.log.append(("visit_FunctionDef", id(node)))
        return False  # libcst's batched traversal still visits the children

    def leave_Call(self, node) -> None:
        self.log.append(("leave_Call", id(node)))


class _Other(_Log):
    def visit_Call(self, node) -> None:
        self.log.append(("other.visit_Call", id(node)))

    def visit_Comma(self, node) -> None:  # a token with a hook is walked into
        self.log.append(("other.visit_Comma", id(node)))

    def leave_Module(self, node) -> None:
        self.log.append(("other.leave_Module", id(node)))


def test_visit_batched_calls_what_libcst_calls_in_the_same_order():
    for source in (SYNTAX, (ROOT / "examples" / "phiml_diffusion.py").read_text()):
        module = cst.parse_module(source)
        ours: list = []
        parents: dict = {}
        order: dict = {}
        cst_tree.visit_batched(module, [_Log(ours), _Other(ours)], parents=parents, order=order)
        theirs: list = []
        seen: list = []
        cst.MetadataWrapper(module, unsafe_skip_copy=True).visit_batched(
            [_Log(theirs), _Other(theirs)], before_visit=lambda node: seen.append(node))
        assert ours == theirs and ours and any(entry[0] == "other.visit_Comma" for entry in ours)
        # Tokens no visitor hooks (whitespace, other punctuation, operators) are not walked into: their
        # parents are known, their place in the order and their own children's parents are not.
        expected_parents = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(cst.metadata.ParentNodeProvider)
        skipped = cst_tree.token_kinds() - {cst.Comma}
        walked = [n for n in seen if not any(type(a) in skipped for a in [n, *_ancestors(n, expected_parents)])]
        assert [id(n) for n in walked] == sorted(order, key=order.get)
        assert {k: id(v) for k, v in parents.items()} == {
            id(n): id(p) for n, p in expected_parents.items() if type(p) not in skipped and id(p) in order}
        assert len(walked) < len(seen) / 2  # most of a module's nodes are tokens'


def test_without_a_token_hooked_tokens_are_neither_walked_nor_given_parents():
    """The common case (no rule hooks a token): the walk reads no field that holds only tokens, so
    tokens get no parent; every other node gets libcst's parent and order, as above."""
    for source in (SYNTAX, (ROOT / "examples" / "phiml_diffusion.py").read_text()):
        module = cst.parse_module(source)
        ours: list = []
        parents: dict = {}
        order: dict = {}
        cst_tree.visit_batched(module, [_Log(ours)], parents=parents, order=order)
        theirs: list = []
        seen: list = []
        cst.MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([_Log(theirs)], before_visit=seen.append)
        assert ours == theirs and ours
        expected_parents = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(cst.metadata.ParentNodeProvider)
        walked = [n for n in seen if not any(type(a) in cst_tree.token_kinds() for a in [n, *_ancestors(n, expected_parents)])]
        assert [id(n) for n in walked] == sorted(order, key=order.get)
        assert {k: id(v) for k, v in parents.items()} == {id(n): id(expected_parents[n]) for n in walked if n is not module}


def test_branches_are_the_children_that_are_no_tokens():
    """`branches` skips the fields that hold only tokens without reading them: the same nodes as
    filtering `children`, on every node of the cases and of real code."""
    checked = 0
    for _, module in [("syntax", cst.parse_module(SYNTAX)), *_modules()]:
        for node in cst_tree.walk(module):
            assert cst_tree.branches(node) == [c for c in cst_tree.children(node) if type(c) not in cst_tree.token_kinds()]
            checked += 1
    assert checked > 50_000


def _ancestors(node, parents) -> list:
    out = []
    while node in parents:
        node = parents[node]
        out.append(node)
    return out


def test_an_attribute_hook_is_refused_not_silently_skipped():
    class Hooked(cst.BatchableCSTVisitor):
        def visit_Call_func(self, node) -> None:
            pass

    with pytest.raises(NotImplementedError, match="visit_Call_func"):
        cst_tree.visit_batched(cst.parse_module("f(x)\n"), [Hooked()])


def test_walk_is_pre_order():
    module = cst.parse_module("a = f(b)\n")
    names = [n.value for n in cst_tree.walk(module) if isinstance(n, cst.Name)]
    assert names == ["a", "f", "b"]


def _node_classes() -> set[type]:
    found: set[type] = set()
    stack = [cst.CSTNode]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return found


def test_every_node_class_has_its_fields_learnt_from_the_public_traversal():
    """No class a parse builds falls back to libcst's own (rebuilding) traversal: the probe learns
    the fields of each, every field whose annotation admits a node among them, once each."""
    import dataclasses

    for cls in cst_tree._node_classes():
        fields = cst_tree._child_fields(cls)
        assert fields is not None, cls
        hints = cst_tree._annotations(cls)
        may_hold_nodes = {f.name for f in dataclasses.fields(cls)
                          if any(isinstance(c, type) and issubclass(c, cst.CSTNode) for c in cst_tree._classes_in(hints[f.name]))}
        assert [name for name, _ in fields] != [] or not may_hold_nodes, cls
        assert {name for name, _ in fields} == may_hold_nodes, cls


def test_a_class_whose_fields_cannot_be_learnt_is_read_by_libcsts_traversal(monkeypatch):
    """A class the probe cannot read (here: every probe fails) is walked with `.children`: the same
    nodes, in the same order."""
    monkeypatch.setattr(cst_tree, "_child_fields", lambda cls: None)
    monkeypatch.setattr(cst_tree, "_CHILDREN", {})
    monkeypatch.setattr(cst_tree, "_BRANCHES", {})
    module = cst.parse_module(SYNTAX)
    for node in cst_tree.walk(module):
        assert cst_tree.children(node) == list(node.children)
        assert cst_tree.branches(node) == [c for c in node.children if type(c) not in cst_tree.token_kinds()]


def test_warm_builds_what_a_walk_would(monkeypatch):
    """What the runner builds before it forks the workers that process files: a reader of every class a
    parse builds (the same a walk builds on first use), and the visitors' hooks."""
    for table in ("_CHILDREN", "_BRANCHES", "_METHOD_NAMES"):
        monkeypatch.setattr(cst_tree, table, {})
    cst_tree.warm([_Other])
    met = set()
    stack: list[cst.CSTNode] = [cst.parse_module(SYNTAX), *(m for _, m in _modules())]
    while stack:  # libcst's own children: no reader is built on the way
        node = stack.pop()
        met.add(type(node))
        stack.extend(node.children)
    assert met - cst_tree._CHILDREN.keys() == set() and met - cst_tree._BRANCHES.keys() == set()
    assert len(met) > 100
    assert ("leave", "Module", "leave_Module") in cst_tree._METHOD_NAMES[_Other]
    built = dict(cst_tree._CHILDREN)
    module = cst.parse_module(SYNTAX)
    assert all(cst_tree.children(node) == list(node.children) for node in cst_tree.walk(module))
    assert cst_tree._CHILDREN == built  # nothing left to build


def test_warm_leaves_an_unsupported_visitor_to_the_walk():
    """A visitor with an attribute hook fails each file it is asked to visit (that file's error), not the
    whole run: building the tables before the workers are forked does not raise for it."""

    class AttributeHook(cst.BatchableCSTVisitor):
        def visit_Name_value(self, node) -> None:
            pass

    cst_tree.warm([AttributeHook])
    with pytest.raises(NotImplementedError):
        cst_tree.visit_batched(cst.parse_module("x = 1\n"), [AttributeHook()])


def test_concrete_classes_are_the_subclasses_issubclass_names():
    """cst_tree.concrete reads derivation off the MRO: the same classes `issubclass` names, for every
    set of bases the project asks of it."""
    import inspect

    from rewriter.analysis import names

    asked = [cst_tree.token_bases(), (cst.CSTNode,), (cst.FunctionDef, cst.Lambda, cst.ClassDef), (cst.BaseExpression,),
             (cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.Finally),
             (cst.IndentedBlock, cst.Else, cst.ExceptHandler, cst.Finally, cst.BaseCompoundStatement)]
    for bases in asked:
        found = (getattr(cst, name) for name in dir(cst))
        named = {c for c in found if isinstance(c, type) and issubclass(c, bases) and not inspect.isabstract(c)}
        assert cst_tree.concrete(*bases) == named, bases
    assert cst_tree.token_kinds() == cst_tree.concrete(*cst_tree.token_bases()) and len(cst_tree.token_kinds()) > 40
    assert names.block_kinds() == (cst_tree.concrete(*asked[-2]), cst_tree.concrete(*asked[-1]))


def test_exact_class_tests_say_what_isinstance_says():
    """`type(node) in cst_tree.concrete(bases)`, which the hot walks use to avoid ABCMeta's Python-level
    `isinstance`, agrees with `isinstance` on every node of the golden cases and examples."""
    bases = [(cst.BaseCompoundStatement,), (cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.Finally),
             (cst.IndentedBlock, cst.Else, cst.ExceptHandler, cst.Finally, cst.BaseCompoundStatement),
             (cst.BaseExpression,), (cst.BaseSmallStatement,), (cst.CSTNode,)]
    exact = [(b, cst_tree.concrete(*b)) for b in bases]
    root = Path(__file__).resolve().parent.parent
    seen = 0
    for path in sorted([*root.glob("golden/**/*.py"), *root.glob("examples/*.py")]):
        for node in cst_tree.walk(cst.parse_module(path.read_bytes())):
            for b, classes in exact:
                assert (type(node) in classes) == isinstance(node, b), (type(node), b)
            seen += 1
    assert seen > 100_000
