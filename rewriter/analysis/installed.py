"""What the installed packages (PhiFlow, PhiML, jax, equinox, diffrax) re-export and bind.

Queries over `_installed.py`, which `scan_installed.py` derives from their sources (read with `ast`,
never imported). Everything here is a pure function of that data, so a run's findings do not depend
on what the environment running the tool has installed.
"""
from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType


@lru_cache(maxsize=None)
def data() -> ModuleType:
    """The generated module, loaded on first use: a run served from the result cache never needs it."""
    return importlib.import_module(f"{__package__}._installed")


def _parse(groups: dict[str, str]) -> dict[str, str]:
    """{module C: "n m=k"} -> {n: "C.n", m: "C.k"}."""
    out = {}
    for module, names in groups.items():
        for token in names.split():
            name, _, original = token.partition("=")
            last = original or name
            out[name] = f"{module}.{last}" if module else last
    return out


@lru_cache(maxsize=None)
def _bindings(module: str) -> dict[str, str] | None:
    """Public name -> its canonical spelling, for a public module (every name) or a private one (the
    names with a public spelling); None for any other module."""
    groups = data().NAMES[module] if module in data().NAMES else data().ORIGINS.get(module)
    return None if groups is None else _parse(groups)


@lru_cache(maxsize=65536)
def canonical(dotted: str) -> str:
    """The one spelling of what `dotted` denotes: `phi.field.solve_linear` and
    `phiml.math._optimize.solve_linear` are `phiml.math.solve_linear`, `phi.flow.math.where` is
    `phiml.math.where`, `jax._src.api.jit` is `jax.jit`. Names outside the packages come back as given."""
    for _ in range(8):  # each step moves to a canonical prefix; chains are short
        parts = dotted.split(".")
        for i in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:i])
            bindings = _bindings(prefix)
            if bindings is None:
                if prefix in data().MODULES:
                    return dotted  # a module that re-exports nothing: its names are its own
                continue
            target = bindings.get(parts[i])
            spelled = ".".join(parts[: i + 1])
            if target is None or target == spelled:
                return dotted
            dotted = ".".join([target, *parts[i + 1:]])
            break
        else:
            return dotted
    return dotted


def public_modules() -> list[str]:
    return sorted(data().NAMES)


def is_module(dotted: str) -> bool:
    """`dotted` (canonical) is a module of the installed packages."""
    return dotted in data().MODULES


def module_exists(module: str) -> bool | None:
    """Whether `import module` finds it; None for modules outside the packages."""
    if module.split(".")[0] not in data().VERSIONS:
        return None
    return module in data().MODULES


@lru_cache(maxsize=None)
def star_exports(module: str) -> dict[str, str] | None:
    """What `from module import *` binds: name -> canonical spelling (None: not a public module of the
    packages). Partial for the modules in OPEN."""
    if module not in data().NAMES:
        return None
    literal = data().ALL.get(module)
    names = literal.split() if literal is not None else list(_bindings(module))
    return {n: canonical(f"{module}.{n}") for n in names}


def aliases() -> list[tuple[str, str]]:
    """Every (`module.name`, its canonical spelling's next step) the packages bind: the edges
    `canonical` follows, for questions about what can reach a given name (apis.may_denote_an_api)."""
    modules = sorted({*data().NAMES, *data().ORIGINS})
    return [(f"{module}.{name}", target) for module in modules for name, target in (_bindings(module) or {}).items()]


def has_attribute(module: str, name: str) -> bool | None:
    """`hasattr(module, name)` right after `import module`, on the installed version; None when
    that cannot be told from the sources (a submodule, which is an attribute only once imported; a
    name bound on some paths only; a `__getattr__` that may answer anything)."""
    bindings = _bindings(module) if module in data().NAMES else None
    if bindings is None or name.startswith("_"):
        return None
    if name in bindings:
        return None if name in data().MAYBE.get(module, "").split() else True
    if f"{module}.{name}" in data().MODULES or module in data().OPEN:
        return None
    if module in data().GETATTR:
        answers = data().GETATTR[module]
        return None if answers is None else answers.get(name, False)
    return False


def version(root: str) -> str | None:
    """The installed version of the package `root` (`phi`, `jax`) the facts were read from; None if not read."""
    return data().VERSIONS.get(root)


def oldest_python() -> tuple[int, ...]:
    """The oldest Python every installed package accepts: code running on them runs on no older one."""
    return tuple(data().OLDEST_PYTHON)


def static_fields(class_name: str) -> frozenset[str]:
    """The fields of an installed value class (`diffrax.SaveAt`) that hold Python values: static
    under `equinox.filter_jit` (annotations.py)."""
    if class_name.startswith("."):  # a relative import inside an installed package: `._saveat.SaveAt`
        found = [fields for defined, fields in data().STATIC_FIELDS.items() if _relative_match(defined, class_name)]
        return frozenset(found[0].split()) if len(found) == 1 else frozenset()
    return _value_classes().get(canonical(class_name), frozenset())


def _relative_match(defined: str, relative: str) -> bool:
    """`diffrax._saveat.SaveAt` is what `._saveat.SaveAt` may spell inside its package."""
    return defined.endswith("." + relative.lstrip("."))


@lru_cache(maxsize=1)
def _value_classes() -> dict[str, frozenset[str]]:
    return {canonical(defined): frozenset(fields.split()) for defined, fields in data().STATIC_FIELDS.items()}


def is_type_predicate(function: str) -> bool:
    """An installed function that answers a question about types (`diffrax.is_sde`: predicates.py).
    A relative spelling (`._heuristics.is_sde`, inside an installed package) matches by its tail."""
    if function.startswith("."):
        return any(_relative_match(f"{module}.{name}", function) for module, name in _predicates())
    return _canonical_predicates().__contains__(canonical(function))


@lru_cache(maxsize=1)
def _predicates() -> frozenset[tuple[str, str]]:
    return frozenset((module, name) for module, names in data().TYPE_PREDICATES.items() for name in names.split())


@lru_cache(maxsize=1)
def _canonical_predicates() -> frozenset[str]:
    return frozenset(canonical(f"{module}.{name}") for module, name in _predicates())


def is_class(dotted: str) -> bool:
    """`dotted` (any spelling) denotes a class of the installed packages: a call of it makes an object
    of that class, never an array (forms.py)."""
    return canonical(dotted) in _classes()


@lru_cache(maxsize=1)
def _classes() -> frozenset[str]:
    return frozenset(f"{module}.{name}" for module, names in data().CLASSES.items() for name in names.split())
