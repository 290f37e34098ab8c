"""Must not be reported: writes that reach no caller's container. A copy made inside (`dict(state)`,
`state = dict(state)`), an array argument updated functionally (`.at[].set`), an argument item that
may be an array (`buf[i] = v`: an error on jax both ways, in place and traced alike on torch), a
helper's argument that is the jitted function's own list, a work list the function also takes items
out of (`pop`), a list every caller makes for the call (`summarize([], x)`), and a function that is
not jitted."""
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


@jax.jit
def combine(parts, x):
    while len(parts) > 1:
        last = parts.pop()
        parts.append(parts.pop() + last)
    return parts[0] * x


@jax.jit
def summarize(log, x):
    log.append(jnp.sum(x))
    return log[-1] * 2


def total(x):
    return summarize([], x)


def eager_update(state, x):
    state["u"] = state["u"] + x
    return state


def golden_run():
    state = {"u": jnp.ones(2), "v": jnp.zeros(2)}
    out = [scratch(state, jnp.zeros(2), jnp.float32(k)) for k in range(3)]
    eager_update(state, 1.0)
    parts = [jnp.ones(2), jnp.ones(2) * 2, jnp.ones(2) * 3]
    return out, state["u"], state["v"], combine(parts, 2.0), total(jnp.ones(3))
