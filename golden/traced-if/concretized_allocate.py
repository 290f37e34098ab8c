"""Must not change: the allocate-then-update pattern of neighbour lists. Called without a capacity (eagerly),
the function sizes it from the data with `int(...)` of a jax result; jitted, the capacity is static and
that branch never runs. `int(...)` gives a Python int wherever it runs at all (of a tracer it would
raise), so the `if` on it is Python control flow: a `where` would store an array as the capacity."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


def neighbours(x, capacity=None):
    count = jnp.sum(x > 0)
    if capacity is None:
        capacity = int(count * 2)
        if capacity > x.shape[0]:
            capacity = x.shape[0]
    return jnp.sort(x)[:capacity], capacity


update = jax.jit(neighbours, static_argnames="capacity")


def golden_run():
    x = jnp.array([3., -1., 2., 5.])
    first, capacity = neighbours(x)
    second, _ = update(x + 1., capacity=capacity)
    return [first, second]
