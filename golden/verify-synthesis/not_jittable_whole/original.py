"""Functions that cannot be jitted as a whole (they return a label beside the array): the harness's
jit fails on both versions, so the rewrite is compared as the program calls it, unjitted. A right
rewrite is verified; a wrong one is still falsified; a function returning functions is not compared."""
import jax.numpy as jnp

SYNTHESIS = {
    "verdicts": {"doubled": "verified", "tripled": "falsified", "makers": "unsynthesizable"},
    "reasons": {"doubled": "compared unjitted", "tripled": "differ", "makers": "returns functions"},
}


def doubled(x):
    return "doubled", x * 2.0


def tripled(x):
    return "tripled", x * 3.0


def makers(x):
    return [("double", lambda: x * 2.0)]


def main():
    x = jnp.array([1.0, -2.0])
    return doubled(x), tripled(x), makers(x)
