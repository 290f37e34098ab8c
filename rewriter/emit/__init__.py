"""How to write where / cond / loops / imports for each framework, in the spelling the file already uses.

Codemods decide *whether* to rewrite; these modules decide *how* the rewritten code reads:
`spelling` finds the file's own spelling of a framework function (or adds an import), `frameworks`
builds the primitives, `condition` turns a Python condition into a traced boolean, `branches`
reduces straight-line code to one expression per name, and `safety` guards a branch evaluated
unconditionally. The `ast_` modules decide the same on CPython's `ast` (issue 45), for a rule that
plans its fix there: whether a block reduces (`ast_branches`), a condition converts (`ast_condition`),
what evaluating a branch may do (`ast_safety`) and whether the merged values agree (`ast_agreement`).
"""
from __future__ import annotations

from .frameworks import FRAMEWORKS, Emitter
from .spelling import Spelling

__all__ = ["FRAMEWORKS", "Emitter", "Spelling"]
