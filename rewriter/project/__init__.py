"""The project index: every module summarised from CPython's ast, and the facts that cross modules."""
