"""Tricky: the function returns the state it writes into, but one caller drops the result and reads
its own dict afterwards. Eagerly that dict was updated in place; under `jax.jit` only the returned
copy has the write. Reported, at the write, with the call that drops the result."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML501:18"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "differs"},
    "messages": {"PML501:18": "discards the returned `state`"},
}


@jax.jit
def advance(state, dt):
    state["t"] = state["t"] + dt
    return state


def golden_run():
    state = {"t": jnp.float32(0.)}
    for _ in range(3):
        advance(state, 0.1)
    return state["t"]
