"""Build step (setuptools' `build_ext`, named in pyproject.toml): the analysis' hot modules compiled.

A wheel (`pip install .`, `pip wheel .`) compiles the modules pyproject.toml lists as `ext-modules`
with Cython, from their unchanged Python source: the same code, without the interpreter's dispatch
(fewer instructions: docs/benchmarks.md). Where that cannot be done (no
C compiler, a failing build) the wheel keeps the pure-Python modules, which behave the same; a
checkout installed for development (`pip install -e .`, `make install`) is never compiled, or every
edit of a listed module would be shadowed by its stale compiled twin. tests/test_compiled.py runs
the compiled build against the checkout over every golden case, the examples and the installed
packages, and requires the same output. Never imported at run time.

The listed modules import the `ast` node classes they test for by name (`from ast import Call`):
compiled, a module reads its own globals at C speed, while `ast.Call` is looked up through the `ast`
module on every use (tests/test_compiled_source.py).
"""
from __future__ import annotations

import os
import sys

from setuptools.command.build_ext import build_ext

# Cython reads the annotations as Python does (hints, not C types: a `set[str]` parameter given a
# frozenset stays legal); functions stay introspectable Python functions.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


class CompileWhereBuilt(build_ext):
    """`build_ext` for a wheel: Cython's C of each listed module, compiled; nothing for a checkout."""

    def run(self) -> None:
        if getattr(self, "editable_mode", False) or self.inplace:
            return  # a checkout runs its own Python source
        try:
            from Cython.Build import cythonize

            self.extensions = cythonize(self.extensions, compiler_directives=DIRECTIVES, build_dir="build/cython",
                                        quiet=True, nthreads=os.cpu_count() or 1)
            self.parallel = self.parallel or os.cpu_count() or 1
            super().run()
        except Exception as e:  # noqa: BLE001 (any failure leaves the pure-Python package, which works)
            self.extensions = []
            print(f"phiml-rewrite: not compiled, the pure-Python modules are installed ({type(e).__name__}: {e})",
                  file=sys.stderr)

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001 (that module stays Python)
            print(f"phiml-rewrite: {ext.name} not compiled ({type(e).__name__}: {e})", file=sys.stderr)
