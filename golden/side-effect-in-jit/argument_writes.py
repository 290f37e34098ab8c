"""A jit-compiled step writes its results into the caller's dict and list. `jax.jit` passes the
function a rebuilt copy of every container argument: the caller's objects never change, while an
eager run updates them."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML501:17", "PML501:18"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "differs"},
}


@jax.jit
def advance(state: dict, log, dt):
    state["u"] += dt * state["v"]
    log.append(jnp.max(state["u"]))
    return jnp.sum(state["u"])


def golden_run():
    state = {"u": jnp.zeros(3), "v": jnp.array([1., 2., 3.])}
    log = []
    for _ in range(3):
        advance(state, log, 0.5)
    return state["u"], len(log)
