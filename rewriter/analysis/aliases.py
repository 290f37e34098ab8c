"""What a file's imports name, as absolute names of what they denote: relative imports and the
project's own re-exports.

Two things a file's import statements do not say by themselves:

- **relative imports**: `from ..math import batch` in `phi/physics/fluid.py` names `phi.math.batch`.
  The package a relative import starts from is the file's (its own module for an `__init__.py`, its
  parent's otherwise: rewriter/project/index.py `module_name`); the file's World carries it
  (rewriter/project/world.py). Without a package (a script, a file read alone) a relative import
  names nothing we can tell, and keeps its dots.
- **the project's re-exports**: a package of the project whose `math/__init__.py` does
  `from phiml.math import *` makes `mypkg.math.batch` PhiML's `batch`, as PhiFlow's `phi.math` does
  for the installed one. The project index reads every module's bindings and gives each file the
  aliases of the names it imports (rewriter/project/propagation.py; facts.FileFacts.aliases and
  `reexports`): exact names (`mypkg.math.batch` -> `phiml.math.batch`, `mypkg.jit` -> `jax.jit`), and
  whole modules that re-export an installed one but for names of their own.

Both stages of the pre-filter (CPython's ast) and the libcst analysis read names through the same
functions here, so they cannot disagree.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping


def package_of(module: str, is_package: bool) -> str:
    """The package relative imports of a module start from: itself for a package's `__init__`."""
    return module if is_package else module.rpartition(".")[0]


def absolute_module(module: str | None, level: int, package: str) -> str | None:
    """The module `from <level dots><module> import ...` names in a file of `package`; None when it
    cannot be told (no package known, or more dots than the package has parents: Python raises there)."""
    if not level:
        return module or ""
    if not package:
        return None
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def spelled_module(module: str | None, level: int, package: str) -> str:
    """The module of `from <level dots><module> import ...` as the scope analysis leaves it: absolute
    where `absolute_module` can tell, else with its dots (`..math`, `.`), which name nothing installed."""
    found = absolute_module(module, level, package)
    return found if found is not None else "." * level + (module or "")


def absolute_name(name: str, package: str) -> str:
    """A dotted name as the scope analysis spells a relative import's (`..math.batch`, `.a`), absolute
    in a file of `package` (`phi.math.batch`); unchanged when it is not relative or cannot be told."""
    if not name.startswith("."):
        return name
    rest = name.lstrip(".")
    level = len(name) - len(rest)
    base = absolute_module(None, level, package)
    if base is None:
        return name
    return f"{base}.{rest}" if base and rest else base or rest


class Aliases:
    """The project's re-exports a file reads (facts.FileFacts): `exact` names, and `modules` that
    re-export an installed module whole: {module: (installed module, its own names)}; `realias` reads
    a name through them (the longest prefix that has an alias wins)."""

    __slots__ = ("exact", "modules")

    def __init__(self, exact: Mapping[str, str] | None = None,
                 modules: Mapping[str, tuple[str, frozenset[str]]] | None = None) -> None:
        self.exact = dict(exact or {})
        self.modules = dict(modules or {})

    def __bool__(self) -> bool:
        return bool(self.exact or self.modules)

    def realias(self, name: str) -> str:
        """What `name` denotes through the project's re-exports (`mypkg.math.batch` -> `phiml.math.batch`);
        unchanged where none applies."""
        if not self:
            return name
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i]) if i < len(parts) else name
            target = self.exact.get(prefix)
            if target is not None:
                return ".".join([target, *parts[i:]])
            found = self.modules.get(prefix)
            if found is not None and (i == len(parts) or parts[i] not in found[1]):
                return ".".join([found[0], *parts[i:]])
        return name

    def looked_up(self, name: str) -> str:
        """`realias`, for a name only looked up in the table of APIs (apis.spelled_apis); AskedAliases does
        not record it: where neither the name nor what an alias makes it reaches an API, it finds none
        either way."""
        return self.realias(name)

    def under(self, name: str) -> Iterable[str]:
        """What the names `name` and those below it (`name.x`) may denote through the aliases: the
        question of the pre-filter's "may this import reach an API" (apis.reaching_roots)."""
        for key, target in self.exact.items():
            if key == name or key.startswith(name + "."):
                yield target
        for key, (target, _) in self.modules.items():
            if key == name or key.startswith(name + "."):
                yield target

    def star(self, module: str, name: str, exports) -> tuple[bool, str | None]:
        """What `name` denotes when `from module import *` binds it: (whether `module` is one of the
        project's the aliases speak for, what it denotes there: None when that import binds no such
        name, or binds one of the project's own that no alias names). For a module re-exporting an
        installed one whole, a name not its own is what `exports(installed module)` (the installed
        module's star exports: name -> canonical spelling, or None) says."""
        exact = self.exact.get(f"{module}.{name}")
        if exact is not None:
            return True, exact
        found = self.modules.get(module)
        if found is not None:
            return True, None if name in found[1] else (exports(found[0]) or {}).get(name)
        return False, None


NO_ALIASES = Aliases()


class AskedAliases(Aliases):
    """No aliases, remembering every name `realias` was asked to read (`asked`). What a reading without
    aliases asked tells whether some aliases would have changed it (survey.Survey.passed_with): where
    none of the names asked is under an alias's name, each answer, so the whole reading, is the same.
    (Names only looked up in the table of APIs, `looked_up`, are not asked: the survey requires aliases
    that reach no API for them.)"""

    __slots__ = ("asked",)

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def realias(self, name: str) -> str:
        self.asked.add(name)
        return name

    def looked_up(self, name: str) -> str:
        return name
