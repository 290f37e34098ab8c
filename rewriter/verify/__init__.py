"""Run original and rewritten code on every backend and compare with the original's eager result.

`child` executes programs in a fresh interpreter per backend (PhiML's global jit state and the
frameworks' own caches must not leak between runs); `values` turns results into plain data and
compares them with a float32-appropriate tolerance.
"""
