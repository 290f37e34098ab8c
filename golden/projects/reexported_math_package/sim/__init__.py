"""A simulation package with a `math` of its own that is PhiML's (sim/math/__init__.py), as PhiFlow's `phi.math` is."""
