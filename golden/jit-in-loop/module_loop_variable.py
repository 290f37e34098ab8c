"""At module level the loop variable is a global: it still changes in the loop, so nothing moves."""
import jax
import jax.numpy as jnp

GOLDEN = {"findings": ["PML302:12", "PML302:9"]}

y = jnp.ones(3)
for k in range(3):
    y = jax.jit(lambda x: x ** k)(y)
offset = 1.0
while offset < 4:
    y = jax.jit(lambda x: x + offset)(y)
    offset = offset * 2
