"""A public jitted function of an installable package: every call in the project passes `n` a Python
int, but users of the package may pass anything."""
import jax


@jax.jit
def repeat(x, n):
    for _ in range(n):
        x = x * 2
    return x
