"""In a module-level loop, swapping would rebuild and recompile `jit(vmap(f))` every iteration."""
import jax
import jax.numpy as jnp

GOLDEN = {"findings": ["PML301:15", "PML302:15"]}


def f(x):
    return x * 2


f = jax.numpy.sin
xs = jnp.ones((2, 3))
for _ in range(3):
    xs = jax.vmap(jax.jit(f))(xs)
