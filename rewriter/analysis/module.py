"""The analysis of one module, as the pass that writes fixes on libcst asks it: each part computed lazily,
at most once per file. What the rules decide on is read from CPython's `ast` (`python`, `lowered`); the
libcst tree is where their fixes are written (`names`: its parents and positions; `locator`: the libcst
twin of an `ast` node)."""
from __future__ import annotations

from functools import cached_property

from ..lazy_libcst import cst

from ..cst_tree import children
from .aliases import NO_ALIASES
from ..findings import Span
from .testcode import Expecting, TestCode, fresh_name
from .names import NameResolver
from .ast_module import AstModule
from .locator import Locator
from .lowering import lowered
from .reachability import Reachability


class ModuleAnalysis:
    def __init__(self, wrapper: cst.MetadataWrapper, path: str = "", callsite_facts: dict | None = None,
                 project=None, world=None) -> None:
        self.wrapper = wrapper
        self.path = path
        self.callsite_facts = callsite_facts or {}
        self.project = project  # what the rest of the project tells this file (rewriter/analysis/facts.py)
        self.world = world  # the user's world beyond the file (rewriter/project/world.py), or None
        self.package = getattr(world, "package", "")
        # The project's re-exports (analysis/aliases.py) and the libraries it ships its own copy of
        # (project/targets.Targets.own_copies), for the readings on `ast`
        self.aliases = project.alias_map() if hasattr(project, "alias_map") else NO_ALIASES
        self.own_copies: frozenset[str] = world.targets.own_copies() if world is not None else frozenset()
        self.names = NameResolver(wrapper, self.package)
        self.reserved: set[str] = set()  # names handed out by fresh_name during this pass (AstFile's too)
        self.error_cells: frozenset[int] = frozenset()  # a notebook's cells whose stored outputs hold an error

    def release(self) -> None:
        """The pass over the file is over: let its trees go without the garbage collector (NameResolver.release)."""
        self.names.release()
        for reading in ("python", "lowered"):
            if self.__dict__.get(reading) is not None:
                self.__dict__[reading].release()

    @cached_property
    def lowered(self) -> AstModule | None:
        """The module of a newer Python's grammar, as CPython reads it lowered (lowering.py; None: it cannot)."""
        code = lowered(self.wrapper.module)
        return AstModule(code, self.package, self.aliases, self.own_copies) if code is not None else None

    @cached_property
    def python(self) -> AstModule:
        """The module as CPython reads it (the bytes it was parsed from, when at hand): what the readings
        already moved to `ast` read (issue 45)."""
        source = self.names.source
        module = self.wrapper.module
        code = source.decode(module.encoding, errors="replace") if source is not None else module.code
        return AstModule(code, self.package, self.aliases, self.own_copies)

    @cached_property
    def locator(self) -> Locator:
        """The libcst node of a node of `python`'s tree (locator.Locator)."""
        return Locator(self.wrapper.module, self.names.positions, self.python, self.names.parent)

    @cached_property
    def reachability(self) -> Reachability:
        return Reachability(self.python, self.world.targets if self.world is not None else None)

    @cached_property
    def testcode(self) -> TestCode:
        return TestCode(self.python, self.path, self.error_cells)

    def expected_failure(self, span: Span, statement: bool = False) -> Expecting | None:
        """What says the code at `span` is meant to fail (testcode.TestCode.expected_failure)."""
        return self.testcode.expected_failure(span, statement)

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every identifier spelled in the module: new names must avoid all of them."""
        out = set()
        stack = [self.wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                out.add(node.value)
            stack.extend(children(node))
        return frozenset(out)

    def fresh_name(self, base: str, taken: set[str] | None = None) -> str:
        """`base`, or `base_2`, `base_3`... : a name used nowhere in the module (nor in `taken`)."""
        return fresh_name(base, self.identifiers | set(taken or ()), self.reserved)
