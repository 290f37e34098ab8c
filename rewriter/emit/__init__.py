"""How to write where / cond / loops / imports for each framework, in the spelling the file already uses.

Codemods decide *whether* to rewrite; these modules decide *how* the rewritten code reads:
`spelling` finds the file's own spelling of a framework function (or adds an import), `frameworks`
builds the primitives, `condition` turns a Python condition into a traced boolean, `branches`
reduces straight-line code to one expression per name, and `safety` says what evaluating a branch
unconditionally may do.
"""
from __future__ import annotations

from .frameworks import FRAMEWORKS, Emitter
from .spelling import Spelling

__all__ = ["FRAMEWORKS", "Emitter", "Spelling"]
