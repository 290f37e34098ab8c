"""libcst, imported where it is first used rather than where it is named.

A `--check` decides on CPython's `ast` and shows no fix, so it needs libcst only for a file some rule
still reads on libcst; yet every rule's file, and the analysis its fixes read, names libcst, and
importing it is a large part of a `--check`'s own start-up (docs/benchmarks.md). So those modules take
`cst` from here: an empty module that imports libcst the first time one of its attributes is read,
and from then on is libcst's namespace, as fast to read as libcst itself (PEP 810's `lazy import`
does the same). A module that names libcst this way must not read it at import time: not as a base
class (a factory makes the class on first use; a visitor only cst_tree.visit_batched calls needs no
libcst base at all), in a module constant (a cached function, or a table filled on first use), nor
in a type alias outside `TYPE_CHECKING`. tests/test_lazy_libcst.py checks
that a `--check` that parses nothing with libcst imports none of it, in any process.
"""
from __future__ import annotations

import functools
import importlib
import types
from typing import TYPE_CHECKING


class _OnFirstUse(types.ModuleType):
    """Becomes the named module the first time an attribute is read: its namespace is copied in, and the
    object is then a plain module (the class switch is what the stdlib's `importlib.util.LazyLoader`
    does), whose reads cost what a module's do. A name the module gets later (a submodule imported
    after) is read from the module itself (a module-level `__getattr__`, PEP 562, asked only of names
    the copy lacks). Two threads that read it first both import under the import lock and copy the
    same names."""

    def __getattr__(self, attribute: str):
        module = importlib.import_module(self.__name__)
        self.__dict__.update(vars(module))
        self.__dict__["__getattr__"] = functools.partial(getattr, module)
        self.__class__ = types.ModuleType  # type: ignore[assignment]
        return getattr(module, attribute)


if TYPE_CHECKING:
    import libcst as cst
else:
    cst = _OnFirstUse("libcst")
