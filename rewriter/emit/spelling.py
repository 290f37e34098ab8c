"""How to spell a framework function in this file: through the imports it already has, or a new one.

`math.where` if the file did `from phiml import math`, `jnp.where` after `import jax.numpy as jnp`,
`jax.numpy.where` after a bare `import jax`, `where` after `from phiml.math import where`, and
`math.where` under `from phi.flow import *`. Only when nothing fits is an import added (through
libcst's AddImportsVisitor, applied by the engine), under the conventional alias if it is free.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..lazy_libcst import cst

from ..analysis.apis import STAR_EXPORTS, canonical

if TYPE_CHECKING:
    from ..analysis.ast_resolver import NameResolver

Import = tuple[str, "str | None", "str | None"]  # (module, object, asname) as AddImportsVisitor takes them

# The import added when the file has no spelling: module -> (from-module, object, alias).
_CONVENTIONAL: dict[str, tuple[str | None, str, str]] = {
    "phiml.math": ("phiml", "math", "math"),
    "jax.numpy": (None, "jax.numpy", "jnp"),
    "jax.lax": ("jax", "lax", "lax"),
    "torch": (None, "torch", "torch"),
    "tensorflow": (None, "tensorflow", "tf"),
}


def dotted_expr(text: str) -> cst.BaseExpression:
    parts = text.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(node, cst.Name(part))
    return node


@dataclass
class Spelling:
    """Spells `module.name` for one file and collects the imports the spellings need."""

    resolver: "NameResolver"  # (the file's on `ast`: its `imported`, `resolved`, `star_modules`, `aliases`)
    taken: frozenset[str]  # identifiers used in the file: a new alias must avoid them
    imports: list[Import] = field(default_factory=list)
    _aliases: dict[str, str] = field(default_factory=dict)

    def __call__(self, module: str, name: str) -> cst.BaseExpression:
        return dotted_expr(self.text(module, name))

    def text(self, module: str, name: str) -> str:
        """The spelling as code (a rule on `ast` plans its fix with it: rewriter/ast_rule.py)."""
        text = self._existing(module, name)
        return text if text is not None else f"{self._add_import(module)}.{name}"

    def _existing(self, module: str, name: str) -> str | None:
        full = f"{module}.{name}"
        found: list[str] = []
        resolved = self.resolver.resolved  # (through the project's re-exports: a package's own `math` may be PhiML's)
        for local, qualified in sorted(self.resolver.imported.items()):
            targets = {resolved(q) for q in qualified}
            if len(targets) != 1:
                continue  # bound to different things in different places: not a safe spelling
            target = targets.pop()
            if target == full:
                return local
            if target == module and {resolved(f"{q}.{name}") for q in qualified} == {full}:
                found.insert(0, f"{local}.{name}")
            elif module.startswith(target + ".") and {resolved(f"{q}{module[len(target):]}.{name}") for q in qualified} == {full}:
                found.append(f"{local}{module[len(target):]}.{name}")
        if found:
            return found[0]
        for star in reversed(self.resolver.star_modules):
            exports = STAR_EXPORTS.get(star, {})
            whole = self.resolver.aliases.modules.get(star)  # a module of the project re-exporting an installed one
            if whole is not None:
                exports = {n: t for n, t in STAR_EXPORTS.get(whole[0], {}).items() if n not in whole[1]}
            for local, target in exports.items():
                if canonical(target) == module and local not in self.resolver.imported:
                    return f"{local}.{name}"
        return None

    def _add_import(self, module: str) -> str:
        if module in self._aliases:
            return self._aliases[module]
        origin, obj, alias = _CONVENTIONAL.get(module, (None, module, module.rsplit(".", 1)[-1]))
        if alias in self.taken:
            base, i = f"{alias}_", 2
            while f"{base}{i}" in self.taken:
                i += 1
            alias = f"{base}{i}"
        if origin is None:
            self.imports.append((obj, None, alias if alias != obj else None))
        else:
            self.imports.append((origin, obj, alias if alias != obj else None))
        self._aliases[module] = alias
        return alias


@dataclass(frozen=True)
class PlannedSpelling:
    """The spellings a rule planned on `ast` (`Spelling.text`, by module and name), for its builder on
    libcst: the code it writes names what the plan's imports bind, whatever either tree's names say."""

    texts: dict[tuple[str, str], str]

    def __call__(self, module: str, name: str) -> cst.BaseExpression:
        return dotted_expr(self.texts[(module, name)])
