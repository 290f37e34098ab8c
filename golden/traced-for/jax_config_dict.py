"""A dict of settings built inside the jitted function: an entry read by its constant key is that entry,
so `range(config["steps"])` runs a Python int and is never touched, while the `if` on `config["scale"]`,
traced, becomes a `lax.cond` (unsafe: nothing proves both branches' shapes equal).
A merge with `**` whose entries may be either is "cannot tell", never "it raises"."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:20", "PML201:29"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
    "unsafe_fixes": True,
}


@jax.jit
def relax(x, scale):
    config = {"steps": 3, "scale": scale}
    if config["scale"] > 1:
        x = x / config["scale"]
    for _ in range(config["steps"]):
        x = 0.5 * (x + jnp.roll(x, 1))
    return x


@jax.jit
def merged(x, overrides):
    settings = {**{"order": 2}, **overrides}
    if settings["order"] == 2:
        return x * 2
    return x


def golden_run():
    x = jnp.array([1., 2., 4.])
    return [relax(x, jnp.float32(2.0)), relax(x, jnp.float32(0.5)), merged(x, {})]
