"""The one table of APIs that matter, keyed by canonical qualified name.

Codemods never match on spelling (`jax.jit`, `J`, `m.jit_compile`): they resolve a node to its
qualified names (ast_resolver.py) and look them up here.
"""
from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from .aliases import NO_ALIASES, Aliases
from .installed import aliases
from .installed import canonical as installed_canonical
from .installed import is_module, public_modules, star_exports


class Kind(str, enum.Enum):
    JIT = "jit"  # traces/compiles its function argument
    VMAP = "vmap"  # vectorising transform
    MAP = "map"  # PhiML's Python-loop map over dimensions
    PARTIAL = "partial"  # functools.partial
    GRAD = "grad"  # gradient-style transforms that are pure and cheap to build
    CUSTOM_GRADIENT = "custom-gradient"  # caches traces keyed on function identity
    SOLVER = "solver"  # solve/minimize: function arguments become cache keys
    NETWORK = "network"  # PhiML networks: building, calling (native_call), training (PML503)
    SOLVE_TAPE = "solve-tape"  # records solves for inspection (PML505)
    BRANCH = "branch"  # jax's traced conditionals (PML507)


@dataclass(frozen=True)
class Api:
    """One API of the table: its kind, its framework, and the keywords that make its parameters static."""
    name: str
    kind: Kind
    framework: str  # phiml | jax | torch | tensorflow | python
    # Keyword arguments of the transform that make parameters static (not traced).
    static_keywords: tuple[str, ...] = ()


def _apis(kind: Kind, framework: str, names: str, static: tuple[str, ...] = ()) -> list[Api]:
    return [Api(n, kind, framework, static) for n in names.split()]


_TABLE: list[Api] = [
    *_apis(Kind.JIT, "phiml", "phiml.math.jit_compile phiml.math.jit_compile_linear", ("auxiliary_args",)),
    *_apis(Kind.JIT, "jax", "jax.jit equinox.filter_jit", ("static_argnums", "static_argnames")),
    *_apis(Kind.JIT, "tensorflow", "tensorflow.function"),
    *_apis(Kind.JIT, "torch", "torch.compile torch.jit.script torch.jit.trace"),
    *_apis(Kind.VMAP, "jax", "jax.vmap equinox.filter_vmap"),
    *_apis(Kind.VMAP, "torch", "torch.vmap torch.func.vmap"),
    *_apis(Kind.VMAP, "tensorflow", "tensorflow.vectorized_map"),
    *_apis(Kind.MAP, "phiml", "phiml.math.map phiml.math.map_"),
    *_apis(Kind.PARTIAL, "python", "functools.partial"),
    *_apis(Kind.GRAD, "jax", "jax.grad jax.value_and_grad jax.jacfwd jax.jacrev jax.hessian jax.checkpoint jax.remat"),
    *_apis(Kind.GRAD, "phiml", "phiml.math.gradient phiml.math.jacobian phiml.math.hessian"),
    *_apis(Kind.GRAD, "torch", "torch.func.grad torch.func.jacrev torch.func.jacfwd torch.func.hessian"),
    *_apis(Kind.CUSTOM_GRADIENT, "phiml", "phiml.math.custom_gradient", ("auxiliary_args",)),
    *_apis(Kind.CUSTOM_GRADIENT, "jax", "jax.custom_vjp jax.custom_jvp"),
    *_apis(Kind.CUSTOM_GRADIENT, "tensorflow", "tensorflow.custom_gradient"),
    *_apis(Kind.SOLVER, "phiml", "phiml.math.solve_linear phiml.math.solve_nonlinear phiml.math.minimize phiml.math.Solve"),
    *_apis(Kind.SOLVER, "jax", "jax.lax.custom_root jax.lax.custom_linear_solve"),
    *_apis(Kind.SOLVER, "jax", " ".join(f"jax.scipy.sparse.linalg.{n}" for n in ("cg", "gmres", "bicgstab"))),
    *_apis(Kind.NETWORK, "phiml", "phiml.nn.update_weights phiml.nn.get_parameters phiml.math.native_call phiml.nn.mlp "
                                  "phiml.nn.u_net phiml.nn.conv_net phiml.nn.res_net phiml.nn.conv_classifier "
                                  "phiml.nn.invertible_net"),
    *_apis(Kind.SOLVE_TAPE, "phiml", "phiml.math.SolveTape"),
    *_apis(Kind.BRANCH, "jax", "jax.lax.cond jax.lax.switch"),
]
TABLE: dict[str, Api] = {api.name: api for api in _TABLE}
# The APIs whose function arguments PML101 looks at (a subset of the kinds above: `jax.grad` and the
# like are cheap to build and not keyed on identity).
TEMPORARY_FUNCTION_APIS = frozenset({
    "phiml.math.solve_linear", "phiml.math.Solve", "phiml.math.minimize", "phiml.math.solve_nonlinear",
    "phiml.math.custom_gradient", "phiml.math.gradient", "phiml.math.jacobian", "phiml.math.hessian",
    "jax.lax.custom_root", "jax.lax.custom_linear_solve", "jax.custom_vjp", "jax.custom_jvp",
    "jax.scipy.sparse.linalg.cg", "jax.scipy.sparse.linalg.gmres", "jax.scipy.sparse.linalg.bicgstab",
})

# Those of them that build a new function whatever they are given (PML101 reports them built per call
# even of module-level functions); the others matter only when handed a function created per call.
TEMPORARY_FUNCTION_BUILDERS = frozenset({
    "phiml.math.custom_gradient", "phiml.math.gradient", "phiml.math.jacobian", "phiml.math.hessian",
    "jax.custom_vjp", "jax.custom_jvp",
})

# Re-exports (`phi.field.solve_linear` is `phiml.math.solve_linear`) and what `from X import *` binds
# are read from the installed sources (installed.py). tensorflow's are not read (its public API is
# generated into modules that its internals import from, so a name cannot tell public from private):
# the one re-export of it the rules meet keeps a written alias.
_OUTSIDE_ALIASES = (("tensorflow.compat.v2.", "tensorflow."),)


class _StarExports(Mapping):
    """module -> {name: canonical spelling} for `from module import *`, computed on first use."""

    def __getitem__(self, module: str) -> dict[str, str]:
        exports = star_exports(module)
        if exports is None:
            raise KeyError(module)
        return exports

    def __iter__(self):
        return iter(public_modules())

    def __len__(self) -> int:
        return len(public_modules())


STAR_EXPORTS: Mapping[str, dict[str, str]] = _StarExports()
# The backend a `from phi.<backend>.flow import *` selects: the framework the code "already uses".
STAR_BACKENDS = {"phi.jax.flow": "jax", "phi.torch.flow": "torch", "phi.tf.flow": "tensorflow"}


def canonical(name: str) -> str:
    """The one name of what `name` denotes (installed.canonical). A spelling through a private
    module (`jax._src.api.jit`, `phiml.math._functional.jit_compile`: library internals) is only
    resolved when it is one of the table's APIs: `jax._src.dtypes.isdtype` is `jax.numpy.isdtype`,
    but rules judge `jax.numpy` names as array operations, which jax's own dtype and shape helpers
    are not."""
    for old, new in _OUTSIDE_ALIASES:
        if name.startswith(old):
            return new + name[len(old):]
    resolved = installed_canonical(name)
    if resolved != name and _private(name) and resolved not in TABLE and not is_module(resolved):
        return name
    return resolved


def _private(name: str) -> bool:
    return name.startswith("_") or "._" in name  # (some part starts with `_`)


def lookup(name: str) -> Api | None:
    return TABLE.get(canonical(name))


def spelled_apis(text: str, imported: dict[str, set[str]], star_modules, aliases: Aliases = NO_ALIASES) -> list[Api]:
    """The APIs a dotted spelling (`m.jit_compile`) can denote through a file's imports
    (`imported`: local name -> absolute qualified names), star-imported modules and the project's
    re-exports of them (`aliases`: analysis/aliases.py). Shared by both pre-filter stages (libcst and
    CPython ast) so they cannot disagree; not a resolution."""
    return [api for api in map(lookup, _spelled_names(text, imported, star_modules, aliases)) if api is not None]


def star_target(module: str, name: str, aliases: Aliases = NO_ALIASES) -> str | None:
    """What `name` denotes when `from module import *` binds it (None: that import binds no such name,
    or one of the project's own): through the project's re-exports for a module of the project the
    aliases speak for (a package of the project shadows an installed one of its name), else the
    installed module's exports."""
    if aliases:
        known, target = aliases.star(module, name, STAR_EXPORTS.get)
        if known:
            return target
    return STAR_EXPORTS.get(module, {}).get(name)


def _spelled_names(text: str, imported: Mapping[str, Iterable[str]], star_modules: Iterable[str],
                   aliases: Aliases = NO_ALIASES) -> set[str]:
    """The qualified names a dotted spelling may stand for through a file's imports and star imports."""
    root, _, rest = text.partition(".")
    suffix = "." + rest if rest else ""
    candidates = {aliases.looked_up(q + suffix) for q in imported.get(root, ())}
    for module in star_modules:
        target = star_target(module, root, aliases)
        if target:
            candidates.add(target + suffix)
    return candidates


def may_denote_an_api(imported: Mapping[str, Iterable[str]], star_modules: Iterable[str],
                      aliases: Aliases = NO_ALIASES) -> bool:
    """Whether any spelling through a file's imports (`imported`: local name -> qualified names, and
    its star-imported modules, as `spelled_apis` takes them) may denote an API of the table other
    than `functools.partial`, which applies nothing by itself. False lets the pre-filter conclude
    without walking the file (prefilter.Syntax): a spelling resolves only from an imported name, and
    only if that name begins or canonicalizes to one of `_reaching_names`."""
    return bool(reaching_roots(imported, star_modules, aliases))


def reaching_roots(imported: Mapping[str, Iterable[str]], star_modules: Iterable[str],
                   aliases: Aliases = NO_ALIASES) -> frozenset[str]:
    """The names of a file a spelling of an API may start at (`may_denote_an_api`): those its imports
    bind to a name that begins or canonicalizes to one of `_reaching_names`, or through the project's
    re-exports (`aliases`) to one that does, and those its star imports may bind so."""
    roots = {name for name, names in imported.items() if any(map(reaches, names))}
    if aliases:
        roots |= {name for name, names in imported.items()
                  if name not in roots and any(reaches(t) for q in names for t in aliases.under(q))}
    for module in star_modules:
        roots |= _star_roots(module)
        if aliases:
            roots |= _aliased_star_roots(module, aliases)
    return frozenset(roots)


def _aliased_star_roots(module: str, aliases: Aliases) -> set[str]:
    """The names `from module import *` may bind to one of `_reaching_names` through the project's
    re-exports (a module of the project: `_star_roots` knows installed ones only)."""
    prefix = module + "."
    out = {key[len(prefix):] for key, target in aliases.exact.items()
           if key.startswith(prefix) and "." not in key[len(prefix):] and reaches(target)}
    found = aliases.modules.get(module)
    if found is not None:
        out |= _star_roots(found[0]) - found[1]
    return out


@lru_cache(maxsize=None)
def _star_roots(module: str) -> frozenset[str]:
    return frozenset(name for name, target in STAR_EXPORTS.get(module, {}).items() if reaches(target))


def matters(name: str) -> bool:
    """Whether what `name` denotes may matter to some rule: it is under a package the rules' tables name
    (the APIs of the table, the installed packages whose re-exports are read, the calls, modules and
    libraries static_names.py and the traced-value and form analyses name). A name elsewhere (`jaxlib.`,
    `typing.`) is what its own spelling says to every rule: no alias needs to say what it denotes."""
    return name.partition(".")[0] in _relevant_roots()


@lru_cache(maxsize=1)
def _relevant_roots() -> frozenset[str]:
    from .installed import data
    from .static_names import (CONCRETIZING_CALLS, JAX_STAGED, OBJECT_UPDATES, PYTREE_LISTS, STATIC_CALLS, STATIC_MODULES,
                               STRUCTURE_KEEPING)

    names = [*TABLE, *STATIC_CALLS, *CONCRETIZING_CALLS, *OBJECT_UPDATES, *PYTREE_LISTS, *STRUCTURE_KEEPING, *STATIC_MODULES,
             *JAX_STAGED, *data().VERSIONS, *(old for old, _ in _OUTSIDE_ALIASES), "numpy", "torch", "tensorflow"]
    return frozenset(name.partition(".")[0] for name in names)


def only_narrows(name: str) -> bool:
    """Whether reading a name as `name` (an alias's target) can only make the pre-filter's gates find
    less: `name` is no API of the table nor leads to one (`reaches`), and a call of it gives a Python
    value (static_names.STATIC_CALLS, a concretization, a function of NumPy or another of STATIC_MODULES):
    a value the gates would otherwise read as a call of an unknown function, which may give a tracer."""
    from .static_names import CONCRETIZING_CALLS, STATIC_CALLS, STATIC_MODULES

    return lookup(name) is None and not reaches(name) \
        and (name in STATIC_CALLS or name in CONCRETIZING_CALLS or (name + ".").startswith(STATIC_MODULES))


def may_spell_an_api(text: str, imported: Mapping[str, Iterable[str]], star_modules: Iterable[str],
                     aliases: Aliases = NO_ALIASES) -> bool:
    """Whether a dotted spelling (a read, outermost of its chain) may denote an API of the table other
    than `functools.partial` through a file's imports, as `spelled_apis` reads it, or a prefix
    of one (`jax.lax`, bound to a name and called as `L.cond`). Finer than `may_denote_an_api`: a
    file that imports `jax` but only reads `jax.numpy.zeros` spells none. Only a spelling that starts
    at one of `reaching_roots` may."""
    return any(map(reaches, _spelled_names(text, imported, star_modules, aliases)))


def warm() -> None:
    """Build the table of reaching names now (`_reaching_names`), in a process about to fork workers
    that each read it: they inherit it instead of building their own."""
    _reaching_names(False)


def reaches(name: str, partial: bool = False) -> bool:
    """`name`, or what it canonicalizes to, is one of `_reaching_names`: an API of the table, or a name
    some spelling under which may denote one (with `partial`, `functools.partial` counts too)."""
    reach = _reaching_names(partial)
    return name in reach or canonical(name) in reach


@lru_cache(maxsize=2)
def _reaching_names(partial: bool = False) -> frozenset[str]:
    """`reaching_names`, as `_reaching.py` holds them where they were made from this table and these
    installed facts (`reaching_inputs`): making them canonicalizes every alias the installed packages
    bind, which a small project's run would pay for most of its own work."""
    try:
        from . import _reaching
    except ImportError:
        return reaching_names(partial)
    if _reaching.INPUTS == reaching_inputs():
        return _reaching.REACHING | _reaching.WITH_PARTIAL if partial else _reaching.REACHING
    return reaching_names(partial)


def reaching_inputs() -> str:
    """A digest of what `reaching_names` is made from: the installed facts (the text of `_installed.py`),
    the table's names and which of them apply nothing (`functools.partial`), and `_OUTSIDE_ALIASES`
    ("" where the facts' text cannot be read). The code that makes them is not in it: the test that
    regenerates `_reaching.py` holds the two together (tests/test_installed.py)."""
    import hashlib
    from pathlib import Path

    try:
        facts = Path(__file__).with_name("_installed.py").read_bytes()
    except OSError:
        return ""
    h = hashlib.sha256(facts)
    h.update(repr(sorted((name, api.kind is Kind.PARTIAL) for name, api in TABLE.items())).encode())
    h.update(repr(_OUTSIDE_ALIASES).encode())
    return h.hexdigest()


def reaching_names(partial: bool = False) -> frozenset[str]:
    """The dotted names some spelling beginning with them (`q`, `q.rest`) may canonicalize into an API
    of the table: each API's name and its prefixes; every name the packages bind to one of those,
    with its prefixes (`phi.flow` for `phi.flow.math` -> `phiml.math`); the spellings under
    `_OUTSIDE_ALIASES` (`tensorflow.compat`); again until nothing is added. Once a process. Without
    `partial`, not `functools.partial`: it applies nothing by itself, so a file that spells it alone
    applies no API (`may_spell_an_api`); with it, every API of the table (what an alias may rename)."""
    reach: set[str] = set()

    def add(name: str) -> bool:
        if name in reach:
            return False
        parts = name.split(".")
        reach.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        return True

    for name, api in TABLE.items():
        if partial or api.kind is not Kind.PARTIAL:
            add(name)
    edges = [(alias, target, canonical(alias)) for alias, target in aliases()]
    changed = True
    while changed:
        changed = False
        for alias, target, resolved in edges:
            if alias not in reach and (target in reach or resolved in reach):
                changed |= add(alias)
        for old, new in _OUTSIDE_ALIASES:
            for name in [r for r in reach if r.startswith(new) and not r.startswith(old)]:
                changed |= add(old + name[len(new):])
    return frozenset(reach)
