"""What a name or an attribute chain denotes, read from a module's scopes (scope_model.py): name
resolution, with what it reads of the tree left to ast_resolver.NameResolver, on CPython's `ast` (how
the tree spells a chain, what scope a node is in, and how its blocks hold statements).

`from phi.flow import *`-style star imports, which no scope analysis sees through, are resolved from the
table of what those modules export. A name is canonical: read through the project's re-exports
(aliases.py) and the installed packages' (apis.canonical), except through a library the project ships
its own copy of (`own_copies`), whose names are the project's code.
"""
from __future__ import annotations

from .aliases import NO_ALIASES, Aliases, absolute_name
from .apis import Api, canonical, lookup, spelled_apis, star_target
from .scope_model import GlobalScope, QualifiedName, QualifiedNameSource, Scope


class Resolution:
    """Resolution on a module's scopes; a subclass reads its tree (the methods below that raise)."""

    def __init__(self, package: str = "", aliases: Aliases = NO_ALIASES) -> None:
        # The package the module's relative imports start from ("" : not known, and they stay relative),
        # and the project's re-exports of the names it imports (analysis/aliases.py)
        self.package = package
        self.aliases = aliases
        self._apis_by_spelling: dict[str, list[Api]] = {}
        # Libraries the project ships its own copy of, of a release the installed facts do not describe
        # (rewriter/project/targets.Targets.own_copies): names through them are the project's code, so
        # they are neither canonicalized through the installed re-exports nor taken for the table's APIs.
        self.own_copies: frozenset[str] = frozenset()

    # -- what the tree says ---------------------------------------------------------------------
    def scope(self, node) -> Scope | None:
        raise NotImplementedError

    def parent(self, node):
        raise NotImplementedError

    def spelling(self, node) -> str | None:
        """`a.b.c` for a Name/Attribute chain, else None."""
        raise NotImplementedError

    def identifier(self, name) -> str:
        """The identifier a Name node reads."""
        raise NotImplementedError

    @property
    def imported(self) -> dict[str, set[str]]:
        raise NotImplementedError

    @property
    def star_modules(self) -> list[str]:
        raise NotImplementedError

    def _block_of(self, owner) -> list | None:
        """The statements directly in a module's or function's body (None: not a block `reaching` reads)."""
        raise NotImplementedError

    def _unconditional(self, node, statement) -> bool:
        """The binding at `node` certainly happens when its block-level `statement` runs."""
        raise NotImplementedError

    @property
    def module_node(self):
        raise NotImplementedError

    # -- names ----------------------------------------------------------------------------------
    def _own(self, name: str) -> bool:
        """`name` is spelled through a library the project ships its own copy of (`own_copies`)."""
        return bool(self.own_copies) and name.split(".", 1)[0] in self.own_copies

    def _canonical(self, name: str) -> str:
        return name if self._own(name) else canonical(name)

    def resolved(self, name: str) -> str:
        """What an absolute name a file's import binds (`mypkg.math.batch`) denotes: read through the
        project's re-exports and the installed packages' (`phiml.math.batch`)."""
        return canonical(self.aliases.realias(name))

    def qualified_names(self, node) -> set[str]:
        """The canonical names `node` may denote: through its bindings, else through a star import."""
        scope = self.scope(node)  # the scope answers directly: no QualifiedNameProvider pass
        names = {self._denoted(q) for q in scope.get_qualified_names_for(node)} if scope is not None else set()
        if names or not self.star_modules:
            return names
        text = self.spelling(node)
        if text is None:
            return names
        head, _, rest = text.partition(".")
        if scope is not None and scope.assignments[head]:
            return names  # bound in the file: not from the star import
        for module in reversed(self.star_modules):  # a later star import shadows an earlier one
            if self._own(module):
                return names  # the project's own copy: its exports are not the installed ones
            target = star_target(module, head, self.aliases)
            if target:
                return {canonical(target + ("." + rest if rest else ""))}
        return names

    def _denoted(self, q: QualifiedName) -> str:
        """A qualified name of the scope analysis, canonical: an import's made absolute (a relative one
        in the module's package) and read through the project's re-exports."""
        if q.source is not QualifiedNameSource.IMPORT:
            return canonical(q.name)
        name = absolute_name(q.name, self.package) if q.name.startswith(".") else q.name
        return self._canonical(self.aliases.realias(name))

    def could_be_api(self, node, kinds=None) -> bool:
        """Cheap test that `node`'s spelling can resolve to an API (of `kinds`) via an import or `*`."""
        text = self.spelling(node)
        if text is None:
            return False
        return any(kinds is None or a.kind in kinds for a in self._spelled_apis(text))

    def could_be_one_of(self, node, api_names: frozenset[str]) -> bool:
        """`could_be_api`, for a set of API names rather than kinds."""
        text = self.spelling(node)
        return text is not None and any(a.name in api_names for a in self._spelled_apis(text))

    def _spelled_apis(self, text: str) -> list[Api]:
        """`spelled_apis` through the file's imports, once per spelling (a file has few of them)."""
        found = self._apis_by_spelling.get(text)
        if found is None:
            found = self._apis_by_spelling[text] = spelled_apis(text, self.imported, self.star_modules, self.aliases)
        return found

    def api(self, node, kinds=None) -> Api | None:
        """The API (of one of `kinds`) this Name/Attribute refers to. Cheap when its spelling cannot match."""
        if not self.could_be_api(node, kinds):
            return None
        # Every binding the name may have must be the same API (a conditional rebinding is not).
        apis = {None if self._own(name) else lookup(name) for name in self.qualified_names(node)}
        if len(apis) != 1:
            return None
        api = apis.pop()
        return api if api is not None and (kinds is None or api.kind in kinds) else None

    # -- bindings -------------------------------------------------------------------------------
    def assignments(self, name) -> set:
        """Every binding of the name in the scope it is read from, wherever it is in the text (empty for
        builtins/unknown). For the binding the read really sees, use `reaching`."""
        scope = self.scope(name)
        if scope is None:
            return set()
        identifier = self.identifier(name)
        return set(scope[identifier]) if identifier in scope else set()

    def reaching(self, name) -> set:
        """The bindings the name read at `name` may denote when it is read, flow-sensitively.

        `def step` called eagerly, redefined, and only the second one jitted (`fast = jax.jit(step)`)
        are two functions: a read in straight-line code sees the last binding that certainly ran
        before it, plus any later conditional ones (inside `if`/loops/`try`). A read inside a
        function body runs after the module has been imported: it sees the last binding of the
        module, and the conditional ones after it. Reads the scope analysis cannot place keep
        every binding (conservative).
        """
        scope = self.scope(name)
        identifier = self.identifier(name)
        if scope is None or identifier not in scope:
            return set()
        access = next((a for a in scope.accesses[identifier] if a.node is name), None)
        candidates = set(access.referents) if access is not None else set(scope[identifier])
        if len(candidates) <= 1:
            return candidates
        if len({id(a.scope) for a in candidates}) != 1:
            return candidates
        owner_scope = next(iter(candidates)).scope
        owner = self.module_node if isinstance(owner_scope, GlobalScope) else getattr(owner_scope, "node", None)
        block, index = self._block_index(owner)
        if block is None or index is None:
            return candidates
        placed = []
        for assignment in candidates:
            node = getattr(assignment, "node", None)
            statement = self._statement_in(node, index) if node is not None else None
            if statement is None:
                return candidates
            placed.append((index[id(statement)], self._unconditional(node, statement), assignment))
        if scope is owner_scope:
            use = self._statement_in(name, index)
            limit = index[id(use)] if use is not None else len(block)
        else:  # read in a nested function: it runs after the block
            limit = len(block)
        out = set()
        # The latest statement first; within one statement, the binding written last first (a `with ... as s`
        # and the bindings in its body share a statement: in the order of a set, they came out differently
        # from run to run).
        for position, unconditional, assignment in sorted(placed, key=lambda p: (p[0], p[2].created), reverse=True):
            if position > limit:
                continue
            out.add(assignment)
            if unconditional and position < limit:  # a binding in the reading statement itself may come later
                break
        return out or candidates

    def _block_index(self, owner) -> tuple[list | None, dict[int, int] | None]:
        """`_block_of(owner)` and each of its statements' place in it, once per block (`reaching` asks
        for a module's block at every read of a name bound more than once in it)."""
        blocks = self.__dict__.setdefault("_blocks", {})
        found = blocks.get(id(owner))
        if found is None:
            block = self._block_of(owner)
            found = blocks[id(owner)] = (block, None if block is None else {id(stmt): i for i, stmt in enumerate(block)})
        return found

    def _statement_in(self, node, index: dict[int, int]):
        """The ancestor of `node` (or itself) that is a statement of the block `index` numbers."""
        current = node
        while current is not None and id(current) not in index:
            current = self.parent(current)
        return current
