"""The project index: every module's summary, and what they tell each file about the others.

Built before the per-file codemods run, from `ast` summaries (summary.py) cached by content. Three
kinds of facts cross module boundaries (rewriter/analysis/facts.py):

- **traced helpers**: a function traced from a jitted function of another module (directly, or
  through helpers), with what its traced callers pass each parameter, joined over those callers;
  also a function to which another module applies a jit transform (`jax.jit(physics.forward)`,
  `jax.jit(make_forward(meta))`);
- **call evidence**: what calls in other modules pass each parameter of a jitted function (a Python
  literal, an array, unknown), which decides configuration versus data (PML204, PML201);
- **factories**: a name bound to a function of another module that creates a new (jit) function
  per call (PML302, PML401).

A fact is only given across a module boundary: what a module's own code shows, its own analysis
sees better (libcst, flow-sensitive). Names are resolved through imports, aliases and re-exports;
module-level rebinding is flow-sensitive (a read sees the binding before it; a function body, which
runs after the module loaded, sees the last one).
"""
from __future__ import annotations

from ast import Module
import hashlib
import json
import os
import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..analysis.ast_names import Met
from ..analysis.apis import canonical
from ..analysis.facts import FileFacts
from ..analysis.installed import star_exports
from ..file_digests import FileDigests, digest_of
from ..files import forget_real_paths, real_path
from .denotations import Fn, Jitted
from .propagation import Propagation
from .roots import project_root  # noqa: F401  (where the index is rooted; imported from here by its users)
from .summary import Function, Summary, static_from_spec, summarize

SUMMARY_SCHEMA = 9  # 2: Function.returns_python; 3: Function.python_if; 4: Function.maybe_jit; 5: NONE arguments;
# 6: a class binding lists its shape properties; 7: calls through a local alias; 8: Summary.methods; 9: compressed
_MAX_DEPTH = 12  # re-export chains and factory nesting followed at most this far



# -- where modules are ------------------------------------------------------------------------

def module_name(path: str) -> tuple[str, bool]:
    """(dotted module name, is a package `__init__`) by the packages around the file: its directory
    and every parent holding an `__init__.py` are packages (how `python -m` and mypy see it).
    Remembered per absolute path as `_packages_of` is: a run asks it of each file four times."""
    path = path if os.path.isabs(path) else os.path.abspath(path)
    try:
        return _MODULES[path]
    except KeyError:
        pass
    directory, filename = os.path.split(os.path.abspath(path))
    stem = filename.rsplit(".", 1)[0]
    package = stem == "__init__"
    found = _MODULES[path] = ".".join([*_packages_of(directory), *([] if package else [stem])]) or stem, package
    return found


_PACKAGES: dict[str, tuple[str, ...]] = {}
_MODULES: dict[str, tuple[str, bool]] = {}


def _forget_packages() -> None:
    """Where an index is built or updated: a package may have appeared since."""
    _PACKAGES.clear()
    _MODULES.clear()


def _packages_of(directory: str) -> tuple[str, ...]:
    """The names of `directory` and of the packages around it, outermost first (empty: not a package).
    Remembered per directory until the index is built or updated again (as real paths are): a run asks
    it of every file of a folder, and each answer is a stat per parent."""
    try:
        return _PACKAGES[directory]
    except KeyError:
        pass
    if not os.path.exists(os.path.join(directory, "__init__.py")):
        found: tuple[str, ...] = ()
    else:
        parent, name = os.path.split(directory)
        found = (name,) if parent == directory else (*_packages_of(parent), name)
    _PACKAGES[directory] = found
    return found


@dataclass
class ProjectIndex:
    """Every module's summary under one project root, and the facts that cross modules, computed when asked."""
    root: str
    modules: dict[str, Summary] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)  # module -> its file (absolute)
    by_path: dict[str, str] = field(default_factory=dict)  # real path -> module
    _facts: dict[str, FileFacts] | None = None
    _near: dict[str, str] = field(default_factory=dict)
    _memo: dict = field(default_factory=dict)  # (target, line, near) -> (what it denotes, the modules read)
    _readers: dict = field(default_factory=dict)  # (module, name) -> the keys of _memo whose answer read it
    _own: dict = field(default_factory=dict)  # bare module name -> keys of its flow-sensitive (module-level) reads
    _trail: set | None = None  # the (module, name) pairs the resolution under way reads
    _deepest: int = 0  # the deepest `resolve` of the resolution under way (`_resolve_via`)
    _display: dict = field(default_factory=dict)
    _propagation: Propagation | None = None
    # Where the facts of the index as built are cached, and their key (every module's path and summary
    # key): a run over an unchanged project reads them instead of propagating again. None after an update.
    _facts_store: tuple | None = None

    @property
    def propagation(self) -> Propagation:
        if self._propagation is None:
            self._propagation = Propagation(self)
        return self._propagation

    # -- building ------------------------------------------------------------------------------
    @classmethod
    def build(cls, root: str, paths: Iterable[str], cache=None, sources: dict[str, bytes] | None = None,
              summarize: Callable[[list[tuple[str, bytes]]], list[Summary | None]] | None = None,
              read: dict[str, bytes] | None = None, digests: FileDigests | None = None,
              paths_resolved: bool = False) -> "ProjectIndex":
        """Summaries of every file in `paths` (read from disk unless `sources` has the bytes).
        `summarize`: how the files the cache does not hold are summarized, all at once (the runner
        does it in its worker processes); by default one after the other, here. `read`: filled with
        the bytes read from disk here, by real path (the runner then processes the same bytes without
        reading them again). `digests` (with `cache`): the files' digests known from their stat; a
        file whose summary is cached under its known digest is not read. The real paths known are
        forgotten first (links may have changed), unless `paths_resolved`: the caller forgot them just
        before it resolved `paths` (each is an lstat)."""
        if not paths_resolved:
            forget_real_paths()
        _forget_packages()
        index = cls(os.path.abspath(root))
        given = {real_path(p): source for p, source in (sources or {}).items()}
        paths = list(paths)
        if digests is not None and cache is not None:
            digests.known(p for p in paths if real_path(p) not in given)
        else:
            digests = None

        def read_file(path: str) -> tuple[bytes, str | None] | None:
            try:
                if digests is not None:
                    source, digest = digests.read(path)
                else:
                    with open(path, "rb") as f:
                        source, digest = f.read(), None
            except OSError:
                return None
            if read is not None:
                read[real_path(path)] = source
            return source, digest

        jobs: list[tuple[str, bytes | None, str | None]] = []  # (path, its bytes unless known by digest, digest)
        for path in paths:
            source, digest = given.get(real_path(path)), None
            if source is None:
                digest = digests.digest(path) if digests is not None else None
                if digest is None:
                    found_file = read_file(path)
                    if found_file is None:
                        continue
                    source, digest = found_file
            jobs.append((path, source, digest))
        # (Without a cache, no key and no stored form: JSON for every summary would be work for nothing.)
        keys = {path: _summary_key(path, digest or digest_of(source)) for path, source, digest in jobs} \
            if cache is not None else {}
        found = cache.get_many(keys.values()) if cache is not None else {}
        missing = []
        for i, (path, source, digest) in enumerate(jobs):
            if keys.get(path) in found:
                continue
            if source is None:  # known by its digest, but its summary is not stored: read it after all
                found_file = read_file(path)
                if found_file is None:
                    jobs[i] = (path, None, None)
                    continue
                source, digest = found_file
                jobs[i] = (path, source, digest)
                keys[path] = _summary_key(path, digest)  # (another, if the file changed since it was stat'ed)
            missing.append((path, source))
        computed = (summarize or _summarize_each)(missing) if missing else []
        made = {path: summary for (path, _), summary in zip(missing, computed)}
        fresh = {}
        for path, source, digest in jobs:
            record = found.get(keys.get(path))
            if record is not None:
                summary = Summary.stored(*_module_of_file(path), record) if record != "null" else None
            elif path in made:
                summary = made[path]
                if cache is not None:
                    fresh[keys[path]] = summary.stored_form() if summary is not None else "null"
            else:
                keys.pop(path, None)
                continue  # (not readable after all)
            index._add(path, summary)
        if cache is not None and fresh:
            cache.put_many(fresh)
        if cache is not None:
            index._facts_store = (cache, _facts_key(index.root, keys))
        return index

    def update(self, path: str, source: bytes) -> set[str]:
        """Replace one file's summary (an editor's buffer); the real paths whose facts changed.

        A source that does not parse keeps the last summary that did (a buffer being typed must not
        make the other files' findings flicker), and one whose summary is unchanged (most edits inside
        a body) costs its parse, not a propagation over the project."""
        _forget_packages()
        summary = _summarize_file(path, source)
        if summary is None:
            return set()
        held = self.modules.get(self.by_path.get(real_path(path), ""))
        if held is not None and _same_summary(held, summary):
            return set()
        before = self._all_facts()
        self._add(path, summary)
        after = self._all_facts()
        changed = {m for m in before.keys() | after.keys() if before.get(m) != after.get(m)}
        return {real_path(self.paths[m]) for m in changed if m in self.paths}

    def _add(self, path: str, summary: Summary | None) -> None:
        self._facts_store = None  # the project differs from the one whose facts are cached
        real = real_path(path)
        old = self.by_path.get(real)
        if old is not None:
            previous = self.modules.pop(old, None)
            changed = _changed_names(previous, summary) if summary is not None and previous is not None else None
            if changed is not None:
                summary.module = old
                self.modules[old] = summary
                self._forget_names(old, changed)
                return
            self._forget(old, appeared_or_vanished=True)
        if summary is None:
            self.by_path.pop(real, None)
            return
        name = summary.module
        if name in self.modules and self.paths.get(name) != path:
            # Two files claim one name (scripts in two folders): both are kept, and an import resolves
            # to the one beside the importer first (a script's folder is first on sys.path).
            name = f"{name}@{_folder_key(real)}"
            summary.module = name
        if old is None or old != name:
            self._forget(name, appeared_or_vanished=True)
        self.modules[name] = summary
        self.paths[name] = path
        self.by_path[real] = name
        self._facts = None

    # -- queries -------------------------------------------------------------------------------
    def facts_for(self, path: str) -> FileFacts:
        """What the rest of the project tells this file (empty when it tells nothing)."""
        module = self.by_path.get(real_path(path))
        return self._all_facts().get(module, FileFacts()) if module is not None else FileFacts()

    def _all_facts(self) -> dict[str, FileFacts]:
        if self._facts is None:
            self._facts = self._cached_facts()
        if self._facts is None:
            self._facts = self.propagation.run()
            self._store_facts(self._facts)
        return self._facts

    def _cached_facts(self) -> dict[str, FileFacts] | None:
        if self._facts_store is None:
            return None
        cache, key = self._facts_store
        record = cache.get_many([key]).get(key)
        if record is None:
            return None
        try:
            return {module: FileFacts.from_json(data) for module, data in json.loads(record).items()}
        except (ValueError, KeyError, TypeError):
            return None  # an entry of another shape: computed again

    def _store_facts(self, facts: dict[str, FileFacts]) -> None:
        if self._facts_store is not None:
            cache, key = self._facts_store
            cache.put_many({key: json.dumps({module: f.to_json() for module, f in facts.items() if f})})

    def display(self, module: str) -> str:
        shown = self._display.get(module)
        if shown is None:
            path = self.paths.get(module, module)
            try:
                shown = os.path.relpath(path, self.root).replace(os.sep, "/")
            except ValueError:
                shown = path
            self._display[module] = shown
        return shown

    def where(self, module: str, line: int) -> str:
        return f"{self.display(module)}:{line}"

    # -- resolution ----------------------------------------------------------------------------
    def resolve(self, target: str, before_line: int | None = None, depth: int = 0, near: str = "",
                stars_seen: set | None = None):
        """What an absolute dotted name denotes: Fn, Jitted, ("built", Fn factory), or None. `near`:
        the folder key of the importing module, whose neighbours win over same-named modules elsewhere;
        `stars_seen`: the (module, name) lookups star imports made already in this resolution (modules
        that star-import each other would otherwise be searched exponentially often)."""
        if depth > self._deepest:
            self._deepest = depth
        if depth > _MAX_DEPTH:
            return None
        if depth and before_line is None and stars_seen is None:
            return self._resolve_via(target, depth, near)
        return self._resolve_here(target, before_line, depth, near, stars_seen)

    def _resolve_via(self, target: str, depth: int, near: str):
        """`resolve` of a name a binding leads to (an import, an alias: no line, no star search under way),
        remembered with the modules it read as `resolved_trail`'s answers are: the names of many modules
        lead through the same re-exports. An answer is kept only where no step of it went past
        `_MAX_DEPTH`, with how deep its steps went, and given again only where they stay within it from
        the depth it is asked at: the answer is the one resolving again would give."""
        key = ("via", target, near)
        found = self._memo.get(key)
        if found is not None and depth + found[2] <= _MAX_DEPTH:
            if self._trail is not None:
                self._trail.update(found[1])
            if depth + found[2] > self._deepest:
                self._deepest = depth + found[2]
            return found[0]
        outer, deepest = self._trail, self._deepest
        self._trail, self._deepest = set(), depth
        try:
            result = self._resolve_here(target, None, depth, near, None)
        finally:
            trail, reached = self._trail, self._deepest
            self._trail, self._deepest = outer, max(deepest, reached)
        if outer is not None:
            outer.update(trail)
        if reached <= _MAX_DEPTH:
            self._memo[key] = (result, frozenset(trail), reached - depth)
            for read in trail:
                self._readers.setdefault(read, set()).add(key)
        return result

    def _resolve_here(self, target: str, before_line: int | None, depth: int, near: str, stars_seen: set | None):
        parts = target.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if near and f"{module}@{near}" in self.modules:
                return self._in_module(f"{module}@{near}", parts[i:], before_line, depth, stars_seen)
            if module in self.modules:
                return self._in_module(module, parts[i:], before_line, depth, stars_seen)
        return None

    def near(self, module: str) -> str:
        key = self._near.get(module)
        if key is None:
            key = self._near[module] = _folder_key(real_path(self.paths.get(module, "")))
        return key

    def resolved_trail(self, target: str, before_line: int | None, near: str):
        """`resolve`, and the modules the answer read; remembered across runs and updates: an update
        forgets exactly the answers that read the module it changed (and, when a module comes or
        goes, every answer: a name that did not resolve may now)."""
        key = (target, before_line, near)
        found = self._memo.get(key)
        if found is None:
            self._trail = set()
            try:
                result = self.resolve(target, before_line, near=near)
            finally:
                trail, self._trail = self._trail, None
            found = self._memo[key] = (result, frozenset(trail))
            for read in trail:
                self._readers.setdefault(read, set()).add(key)
            if before_line is not None:
                self._own.setdefault(target.split(".", 1)[0], set()).add(key)
        return found

    def _forget(self, module: str, appeared_or_vanished: bool) -> None:
        """A module came or went: every answer may change (a name that did not resolve may now)."""
        self._memo.clear()
        self._readers.clear()
        self._own.clear()
        self._display.pop(module, None)
        if self._propagation is not None:
            self._propagation.forget(module, everything=True)

    def _forget_names(self, module: str, names: set[str]) -> None:
        """`module` changed, and what other modules see of it changed only for `names` (_changed_names):
        the answers that read those names, its own module-level answers (their lines may have moved)
        and the contributions that rest on them are computed again; nothing else."""
        for name in (*names, "") if names else ():  # ("": what reads the names a module binds, all of them)
            for key in self._readers.pop((module, name), ()):
                self._memo.pop(key, None)
        bare = module.partition("@")[0]
        own = self._own.get(bare.split(".", 1)[0], set())
        for key in [k for k in own if k[0].startswith(bare + ".")]:  # its own module-level (line-bound) answers
            own.discard(key)
            self._memo.pop(key, None)
        self._facts = None
        if self._propagation is not None:
            self._propagation.forget(module, names=names)

    def _in_module(self, module: str, rest: list[str], before_line: int | None, depth: int,
                   stars_seen: set | None = None):
        summary = self.modules[module]
        if self._trail is not None:
            self._trail.add((module, rest[0] if rest else ""))
        near = self.near(module)
        name = rest[0]
        bindings = summary.bindings.get(name)
        if bindings and before_line is not None:
            bindings = [b for b in bindings if b[0] < before_line]
        if not bindings:
            submodule = f"{module}.{name}"
            if submodule in self.modules:
                return self._in_module(submodule, rest[1:], None, depth + 1) if len(rest) > 1 else None
            seen = stars_seen if stars_seen is not None else set()
            if (module, name) in seen:
                return None
            seen.add((module, name))
            for star in summary.stars:
                found = self.resolve(f"{star}.{'.'.join(rest)}", None, depth + 1, near, seen)
                if found is not None:
                    return found
            return None
        line, kind, *detail = bindings[-1]
        if kind == "import":
            return self.resolve(".".join([detail[0], *rest[1:]]), None, depth + 1, near)
        if kind == "alias":
            local = _is_local(detail[0], module)
            return self.resolve(".".join([detail[0], *rest[1:]]), line if local else None, depth + 1, near)
        if len(rest) != 1:
            return None
        if kind == "def":
            function = summary.functions.get(name)
            if function is None or function.line != line:
                return None
            if function.jit is not None:
                api, framework, static = function.jit
                return Jitted(Fn(module, name), api, framework, _tuple(static), module, name, line, False)
            return Fn(module, name)
        if kind == "jit":
            api, framework, spec, wrapped, how = detail
            local = _is_local(wrapped, module)
            inner = self.resolve(wrapped, line if local else None, depth + 1, near) if wrapped else None
            fn = None
            if how == "factory" and isinstance(inner, Fn):
                factory = self.function(inner)
                if factory is not None and factory.returns_new_function and factory.returns_new_function != "<lambda>":
                    fn = Fn(inner.module, f"{inner.name}.{factory.returns_new_function}")
            elif how == "function":
                fn = inner.function if isinstance(inner, Jitted) else inner if isinstance(inner, Fn) else None
            static = None
            if fn is not None:
                target = self.function(fn)
                if target is not None:
                    positional = target.params[: target.positional]
                    static = _tuple(static_from_spec(spec, positional, target.params))
                    if static is not None and api == "phiml.math.jit_compile_linear" and "auxiliary_args" not in spec:
                        static = tuple(sorted(set(static) | set(target.params[1:])))
            elif spec == {}:
                static = ()
            return Jitted(fn, api, framework, static, module, name, line, True)
        if kind == "call":
            factory = self.resolve(detail[0], line if _is_local(detail[0], module) else None, depth + 1, near)
            return ("built", factory) if isinstance(factory, Fn) else None
        return None

    # -- re-exports from outside the project ----------------------------------------------------
    def reexport_trail(self, target: str, near: str = ""):
        """`reexport`, and the (module, name) pairs the answer read; remembered as `resolved_trail`'s
        answers are (an update forgets those that read what it changed)."""
        key = ("reexport", target, near)
        found = self._memo.get(key)
        if found is None:
            self._trail = set()
            try:
                result = self.reexport(target, near)
            finally:
                trail, self._trail = self._trail, None
            found = self._memo[key] = (result, frozenset(trail))
            for read in trail:
                self._readers.setdefault(read, set()).add(key)
        return found

    def reexport(self, target: str, near: str = "", depth: int = 0, seen: set | None = None):
        """What an absolute dotted name that starts in a module of the project denotes, where the
        project's modules bind it by importing it from outside (`from phiml.math import *` in a package's
        `__init__.py`, `from X import a as b`, `b = a`, through other modules of the project): ("outside",
        its canonical name); ("class", its name) for a class the project defines; ("own", its name) for
        another binding of the project (a def, a value); None when no module of the project holds it,
        or it cannot be told (bound differently on different paths, a star import of an unread module)."""
        if depth > _MAX_DEPTH or target in self.modules:
            return None  # (a module of the project is itself, whatever it re-exports)
        parts = target.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            found = f"{module}@{near}" if near and f"{module}@{near}" in self.modules else module if module in self.modules else None
            if found is not None:
                return self._reexport_in(found, parts[i:], near, depth, seen if seen is not None else set())
        return None

    def _reexport_in(self, module: str, rest: list[str], near: str, depth: int, seen: set):
        summary = self.modules[module]
        name = rest[0]
        if self._trail is not None:
            self._trail.add((module, name))
        bare = module.partition("@")[0]
        bindings = summary.bindings.get(name)
        if not bindings:
            submodule = f"{bare}.{name}"
            if submodule in self.modules:
                return self._reexport_in(submodule, rest[1:], near, depth + 1, seen) if len(rest) > 1 else None
            if (module, name) in seen:
                return None
            seen.add((module, name))
            for star in reversed(summary.stars):  # a later star import binds over an earlier one
                if self._in_project(star, near):
                    found = self.reexport(f"{star}.{'.'.join(rest)}", near, depth + 1, seen)
                    if found is not None:
                        return found
                    if self._binds(star, name, near):
                        return None  # the project's own, or what it cannot tell
                    continue
                exports = star_exports(star)
                if exports is None:
                    return None  # a module the installed packages' facts do not cover: it may bind anything
                if name in exports:
                    return "outside", canonical(".".join([exports[name], *rest[1:]]))
            return None
        answers = {self._binding(module, bare, name, rest, binding, near, depth, seen) for binding in bindings}
        return answers.pop() if len(answers) == 1 else None

    def _binding(self, module: str, bare: str, name: str, rest: list[str], binding: list, near: str, depth: int, seen: set):
        kind, detail = binding[1], binding[2:]
        if kind in ("import", "alias") and detail:
            dotted_name = ".".join([detail[0], *rest[1:]])
            if self._in_project(detail[0], near):
                return self.reexport(dotted_name, near, depth + 1, seen)
            return "outside", canonical(dotted_name)
        if len(rest) != 1:
            return None
        return ("class" if kind == "class" else "own"), f"{bare}.{name}"

    def class_properties(self, target: str) -> tuple[str, ...]:
        """The shape properties (annotations.shape_properties) of the class `target` ("class" of `reexport`) names."""
        module, _, name = target.rpartition(".")
        summary = self.modules.get(module)
        bindings = summary.bindings.get(name) if summary is not None else None
        if not bindings or bindings[-1][1] != "class":
            return ()
        return tuple(bindings[-1][2:])

    def _in_project(self, dotted_name: str, near: str) -> bool:
        """`dotted_name` is a module of the project, or a name in one."""
        parts = dotted_name.split(".")
        return any(".".join(parts[:i]) in self.modules or near and f"{'.'.join(parts[:i])}@{near}" in self.modules
                   for i in range(len(parts), 0, -1))

    def _binds(self, module: str, name: str, near: str) -> bool:
        """The module of the project binds `name` itself (or may: a star import of its own)."""
        found = f"{module}@{near}" if near and f"{module}@{near}" in self.modules else module
        summary = self.modules.get(found)
        return summary is not None and (name in summary.bindings or bool(summary.stars))

    def whole_reexport(self, module: str) -> tuple[str, tuple[str, ...]] | None:
        """(the installed module, the names of its own) for a module of the project that re-exports an
        installed one whole: its only star import is of a module the installed packages' facts cover
        (`from phiml.math import *`); every other name of it is that module's. Its own names are those
        it binds and its submodules."""
        key = ("whole", module)
        if key in self._memo:  # (remembered as `resolve`'s answers are; any name that comes or goes forgets it)
            return self._memo[key][0]
        found = None
        summary = self.modules.get(module)
        if summary is not None and len(summary.stars) == 1:
            star = summary.stars[0]
            if not self._in_project(star, self.near(module)) and star_exports(star) is not None:
                prefix = module.partition("@")[0] + "."
                own = set(summary.bindings) | {m[len(prefix):].partition(".")[0].partition("@")[0]
                                               for m in self.modules if m.startswith(prefix)}
                found = canonical(star), tuple(sorted(own))
        self._memo[key] = (found, frozenset({(module, "")}))
        self._readers.setdefault((module, ""), set()).add(key)
        return found

    def function(self, fn: Fn) -> Function | None:
        if self._trail is not None:
            self._trail.add((fn.module, fn.name.partition(".")[0]))
        summary = self.modules.get(fn.module)
        if summary is None:
            return None
        outer, _, inner = fn.name.partition(".")
        found = summary.functions.get(outer)
        if found is not None and inner:
            found = found.nested.get(inner)
        return found


def _surface(summary: Summary) -> dict[str, str]:
    """What other modules can see of a module, per name: what the name is bound to (in order, lines
    left out) and, for a def, its signature, jit transform and factory kind (and a factory's line,
    which messages elsewhere name). Calls made in its bodies are its own contribution, not its surface."""
    def signature(f: Function) -> tuple:
        line = f.line if (f.returns_jit or f.returns_new_function) else 0
        return (f.params, f.positional, f.annotations, f.jit, f.returns_jit, f.returns_new_function, f.decorated, line,
                f.returns_python, f.python_if, tuple((k, signature(v)) for k, v in sorted(f.nested.items())))

    out = {name: repr(tuple((b[1], *b[2:]) for b in found)) for name, found in summary.bindings.items()}
    for name, function in summary.functions.items():
        out[name] = out.get(name, "") + repr(signature(function))
    return out


def _changed_names(old: Summary, new: Summary) -> set[str] | None:
    """The names whose surface differs (names that come or go among them); None when the whole module
    must count as changed (its star imports, whether it is a package, or the order in which the names
    it keeps are bound: an alias reads the binding before it)."""
    if old.stars != new.stars or old.package != new.package:
        return None
    common = old.bindings.keys() & new.bindings.keys()
    if _binding_order(old, common) != _binding_order(new, common):
        return None  # names that stay were rebound in another order
    a, b = _surface(old), _surface(new)
    return {name for name in a.keys() | b.keys() if a.get(name) != b.get(name)}


def _binding_order(summary: Summary, names) -> list:
    """The order in which `names` are bound (lines left out: an edit above them moves them all)."""
    return [(name, kind) for _, name, kind in sorted((b[0], name, b[1]) for name in names for b in summary.bindings[name])]


def _same_summary(a: Summary, b: Summary) -> bool:
    """Equal but for the module name a duplicated script was given in the index."""
    return dataclasses.replace(b, module=a.module) == a


def _folder_key(real_path: str) -> str:
    """A dot-free key of a file's folder (module names are dotted)."""
    return hashlib.sha1(os.path.dirname(real_path).encode()).hexdigest()[:12]


def _is_local(target: str, module: str) -> bool:
    """`target` names something of `module` itself (by its name before any `@folder` key)."""
    return target.startswith(module.partition("@")[0] + ".")


def _tuple(value) -> tuple | None:
    return None if value is None else tuple(value)


def _module_of_file(path: str) -> tuple[str, bool]:
    """The module name a file is indexed under. A notebook is never imported: its name cannot be an
    import's (`explore.py` beside `explore.ipynb` keeps the name `explore`)."""
    name, package = module_name(path)
    return (f"{name}__ipynb", False) if path.lower().endswith(".ipynb") else (name, package)


def _facts_key(root: str, summary_keys: dict[str, str]) -> str:
    """What the facts of a project depend on: its root (facts name places relative to it), every
    file's real path and the key of its summary (which holds its module name and its content)."""
    h = hashlib.sha256(f"facts|{SUMMARY_SCHEMA}|{root}".encode())
    for path, key in sorted((real_path(p), k) for p, k in summary_keys.items()):
        h.update(f"\0{path}\0{key}".encode())
    return "facts:" + h.hexdigest()


def _summary_key(path: str, digest: str) -> str:
    """The key of the summary of the file at `path` whose bytes have `digest` (file_digests.digest_of)."""
    from ..cache import tool_fingerprint

    name, package = _module_of_file(path)
    text = f"summary|{SUMMARY_SCHEMA}|{tool_fingerprint()}|{name}|{package}|{path.endswith('.ipynb')}|{digest}"
    return "summary:" + hashlib.sha256(text.encode()).hexdigest()


def _summarize_each(files: list[tuple[str, bytes]]) -> list[Summary | None]:
    return [_summarize_file(path, source) for path, source in files]


def summarize_file(path: str, source: bytes, tree: Module | None = None, kids: dict | None = None,
                   met: Met | None = None) -> Summary | None:
    """The summary of the file at `path` holding `source`; `tree`: its ast, when the caller has it
    (`kids`, `met`: project.summary.summarize)."""
    name, package = _module_of_file(path)
    if tree is not None and not path.endswith(".ipynb"):
        return summarize(source, name, package, tree=tree, kids=kids, met=met)
    return _summarize_file(path, source)


def _summarize_file(path: str, source: bytes) -> Summary | None:
    name, package = _module_of_file(path)
    if path.endswith(".ipynb"):
        from ..notebooks import NotebookError, module_of

        try:
            source = module_of(source)[0].encode("utf-8")
        except (NotebookError, ValueError, UnicodeError):
            return None
    if b"\x00" in source:
        return None
    return summarize(source, name, package)
