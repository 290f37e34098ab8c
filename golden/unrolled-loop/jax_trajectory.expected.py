"""A jitted simulation that runs 200 Python steps and stacks the states: every step is a copy of the
body in the trace (200 x 6 equations). It becomes one `jax.lax.scan` carrying the state and stacking
what was appended; the calls pass float arrays, so the carry provably keeps its shape and dtype."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML206:17"],
    "framework": "jax",
    "backends": ["jax"],
}


@jax.jit
def trajectory(x, v):
    def trajectory_body(carry, _):
        v, x = carry
        v = v - 0.01 * jnp.sin(x)
        x = x + 0.01 * v
        states_item = x
        return (v, x), states_item
    (v, x), states_stacked = jax.lax.scan(trajectory_body, (v, x), None, length=200)
    return states_stacked, v


def golden_run():
    return [trajectory(jnp.ones(8), jnp.zeros(8)), trajectory(jnp.zeros(8), jnp.ones(8))]
