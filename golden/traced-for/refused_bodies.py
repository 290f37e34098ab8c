"""Reported without a fix: `break`, a side effect, a carried Python value, the index read after the loop."""
import jax

GOLDEN = {
    "findings": ["PML202:11", "PML202:20", "PML501:22", "PML202:29", "PML202:36"],
}


@jax.jit
def early_exit(x, n):
    for _ in range(n):
        x = x * 2
        if x.shape[0] > 3:
            break
    return x


@jax.jit
def logs(x, n, seen):
    for _ in range(n):
        x = x * 2
        seen.append(x)
    return x


@jax.jit
def counts(x, n):
    steps = 0
    for _ in range(n):
        steps = steps + 1
    return x * steps


@jax.jit
def last_index(x, n):
    for i in range(n):
        x = x + 1
    return x * i
