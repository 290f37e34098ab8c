"""Compatibility branches for other jax releases: the branch the installed jax never takes is left
alone (no report, no rewrite: the fallback is right for the release it was written for). Decided from
jax's sources: `hasattr(jax, "pure_callback")` holds, `hasattr(jnp, "product")` does not, no supported
Python is older than 3.8, the `except ImportError:` of an existing import never runs, nor does a `try:`
body after an import that cannot succeed. A parameter that happens to be called `jax` decides nothing."""
import sys

import jax
import jax.numpy as jnp

GOLDEN = {"findings": ["PML604:35", "PML604:49"], "framework": "jax", "backends": ["jax"]}

if hasattr(jax, "pure_callback"):
    callback = jax.pure_callback
else:
    import jax.experimental.host_callback as hcb
    callback = hcb.call

if hasattr(jnp, "product"):
    total = jnp.product
else:
    total = jnp.prod

if sys.version_info < (3, 8):
    lowest = jnp.NINF
else:
    lowest = -jnp.inf

try:
    from jax import tree_util
except ImportError:
    tree_util = jnp.alltrue

try:
    from jax.experimental import host_callback as legacy  # runs, fails, and is handled: reported
    legacy_lowest = jnp.NINF  # never runs: the import above cannot succeed
except ImportError:
    legacy_lowest = -jnp.inf


def cumulative(x):
    return jnp.cumprod(x) if hasattr(jnp, "cumprod") else jnp.cumproduct(x)


def host_print(jax, x):
    if hasattr(jax, "debug"):
        return x
    else:
        from jax.experimental import host_callback
        return host_callback.id_print(x)


def golden_run():
    x = jnp.array([1.0, 2.0, 3.0])
    return total(x), lowest, legacy_lowest, cumulative(x), host_print(jax, x), tree_util.tree_leaves([x])
