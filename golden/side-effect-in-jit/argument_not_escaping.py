"""Must not be reported: writes that reach no caller's container. A copy made inside (`dict(state)`,
`state = dict(state)`), an array argument updated functionally (`.at[].set`), an argument item that
may be an array (`buf[i] = v`: an error on jax both ways, in place and traced alike on torch), a
helper's argument that is the jitted function's own list, and a function that is not jitted."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


def collect(parts, x):
    parts.append(x * 2)
    return parts


@jax.jit
def scratch(state, buf, x):
    work = dict(state)
    work["u"] = work["u"] + x
    state = dict(state)
    state["v"] = x
    buf = buf.at[0].set(x)
    parts = collect([], x)
    return work["u"] + state["v"] + buf[0] + parts[0]


def eager_update(state, x):
    state["u"] = state["u"] + x
    return state


def golden_run():
    state = {"u": jnp.ones(2), "v": jnp.zeros(2)}
    out = [scratch(state, jnp.zeros(2), jnp.float32(k)) for k in range(3)]
    eager_update(state, 1.0)
    return out, state["u"], state["v"]
