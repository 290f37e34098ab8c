"""Must not change, and nothing to report: under `equinox.filter_jit` only arrays are traced. Fields a
value class declares as Python values (`dense: bool`, `eqx.field(static=True)`), parameters
annotated `tuple[int, int]`, type predicates of the installed packages (`eqx.is_array`) and the
number of a pytree's leaves are Python values at trace time, even after `eqx.tree_at` replaced
some leaves. A field declared as anything else is still "cannot tell" (line 45)."""
import equinox as eqx
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:45"],
    "framework": "jax",
    "backends": ["jax"],
}


class Options(eqx.Module):
    dense: bool
    mode: object
    scale: jax.Array
    steps: int = eqx.field(static=True, default=2)


@eqx.filter_jit
def integrate(y0, options: Options, shape: tuple[int, int]):
    options = eqx.tree_at(lambda o: o.scale, options, replace_fn=lambda s: s * 2)
    if options.dense:
        y0 = y0 * options.scale
    for _ in range(options.steps):
        y0 = y0 + 1
    if shape[0] > 2:
        y0 = y0 - 1
    if eqx.is_array(options.scale):
        y0 = y0 + options.scale
    total = 0.0
    for leaf in jax.tree_util.tree_leaves(options.scale):
        total = total + leaf.sum()
    return y0 + total


@eqx.filter_jit
def mode_of(y0, options: Options):
    # `mode` may hold an array: a traced condition is possible, so it stays "cannot tell"
    y = y0
    if options.mode:
        y = y * 3
    return y


def golden_run():
    out = []
    for dense in (True, False):
        options = Options(dense=dense, mode="fast", scale=jnp.float32(1.5))
        out.append(integrate(jnp.arange(4.0), options, (3, 4)))
        out.append(integrate(jnp.arange(4.0), options, (1, 4)))
        out.append(mode_of(jnp.arange(4.0), options))
    return out
