"""Shared program analysis. Codemods ask these questions; they never re-implement them.

The package imports nothing itself: the project index (ast only) reads `apis` and `facts` without
loading libcst, which the rest of the analysis needs. `ModuleAnalysis` is module.py's.
"""
from __future__ import annotations


def __getattr__(name: str):
    if name == "ModuleAnalysis":
        from .module import ModuleAnalysis

        return ModuleAnalysis
    raise AttributeError(name)
