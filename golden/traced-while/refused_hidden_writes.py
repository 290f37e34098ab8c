"""Reported without a fix, where a loop primitive would compute something else: an attribute written through an
augmented assignment or a tuple target (the body runs once, while tracing), a name bound by `:=` in the
condition and read after the loop, a name the outer loop reads again that the inner loop first assigns, and
a name annotated but never given a value before the loop."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML203:19", "PML203:27", "PML203:34", "PML202:44", "PML203:53"],
}


class Counter:
    calls = 0


@jax.jit
def counted(x, c: Counter):
    while jnp.max(x) > 1:
        x = x / 2
        c.calls += 1
    return x


@jax.jit
def halved_pair(x, c: Counter):
    while jnp.max(x) > 1:
        x, c.last = x / 2, x
    return x


@jax.jit
def last_total(x):
    while (total := jnp.sum(x)) > 1:
        x = x / 2
    return x, total


@jax.jit
def outer_reads(x, n):
    for k in range(3):
        if k > 0:
            x = x + z
        for i in range(n):
            z = x * 0.5
            x = x + 1
    return x


@jax.jit
def annotated(x):
    y: jax.Array
    while jnp.max(x) > 1:
        x = x / 2
        y = x
    return y
