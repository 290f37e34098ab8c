"""Must not be reported: the function writes into its state argument and returns it, and every
caller rebinds its name to the result. The caller's old dict is left unchanged under jit (updated
eagerly), but no caller reads it again: the returned state is the same either way."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


@jax.jit
def advance(state, dt):
    state["t"] = state["t"] + dt
    state["u"] = state["u"] * jnp.exp(-dt)
    return state


def golden_run():
    state = {"t": jnp.float32(0.), "u": jnp.ones(3)}
    for _ in range(3):
        state = advance(state, 0.1)
    return state["t"], state["u"]
