"""Must not change: inner jits whose separate compilation the program may observe. `report` has an
effect (a debug print, ordered with the program's other effects), `warm` is called only for what
compiling it does, and `count` is given a Python int that the inner jit makes a tracer while the plain
function would compute with the int."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML303:30", "PML303:31", "PML303:32"],
    "framework": "jax",
    "backends": ["jax"],
}


def report(x):
    jax.debug.print("x = {x}", x=x)
    return x + 1


def warm(x):
    return x * 3


def count(x, n):
    return x * n


@jax.jit
def outer(x):
    y = jax.jit(report)(x)
    jax.jit(warm)(x)
    return y + jax.jit(count)(x, 2)


def golden_run():
    x = jnp.arange(3.)
    return [outer(x), outer(x + 1)]
