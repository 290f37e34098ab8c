"""`equinox.filter_jit` keeps every argument that is not an array static, so a Python number that
changes with the loop compiles the function again: the epoch counter and a learning rate decayed
from it on every call, a refinement level raised on some epochs each time it is raised. jax has no
switch that bounds this: reported with the stable key (an array, where the function only computes
with the value). An array of the same numbers is traced, and a float grown by a step of unknown type
may become an array after the first step: both left alone."""
import equinox as eqx
import jax.numpy as jnp

LEVEL, RAISE = 1, 1

GOLDEN = {
    "findings": ["PML401:32", "PML401:33", "PML401:34"],
    "framework": "jax",
    "backends": ["jax"],
    "compiles": [9, 9],  # ints 1..4 (levels and counters share keys), four rates, one array shape
    "messages": {"PML401:32": "each time `level` changes", "PML401:33": "on every call",
                 "PML401:34": "keeps every argument that is not an array static"},
}


@eqx.filter_jit
def relax(x, level):
    for _ in range(3):
        x = 0.5 * (x + jnp.roll(x, 1)) * level / (level + 1)
    return x


def train(x, epochs, lr: float):
    level = LEVEL
    for epoch in range(epochs):
        x = relax(x, level)
        x = relax(x, epoch + 1)
        x = relax(x, lr * 0.5 ** epoch)
        x = relax(x, jnp.asarray(epoch + 2.0))  # an array: traced
        if epoch % 2 == 1:
            level += RAISE
    return x


def drift(x, steps, dt):
    t = 1.0
    for _ in range(steps):
        x = relax(x, t)  # `dt` may be an array: `t` is one after the first step
        t += dt
    return x


def golden_run():
    x = jnp.linspace(0.0, 1.0, 6)
    return train(x, 4, 0.8), drift(x, 3, jnp.asarray(0.25))
