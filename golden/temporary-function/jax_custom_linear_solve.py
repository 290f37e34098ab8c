"""Raw jax: matvec and solve lambdas built on every call of an eager function. `custom_linear_solve`
wraps its matvec in a new closure before tracing, so it traces it on every call however it is
defined (measured): one info finding, advising a jitted caller; nothing is lifted."""
import jax
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    "findings": ["PML101:17"],
    "messages": {"PML101:17": "a module-level function or a `functools.partial` is traced just as often"},
    "framework": "jax",
    "backends": ["jax"],
}


def halve(b):
    return lax.custom_linear_solve(lambda x: 2. * x, b, solve=lambda matvec, y: y / 2.)


def golden_run():
    return [halve(jnp.arange(4.) * i) for i in range(3)]
