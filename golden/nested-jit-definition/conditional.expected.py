"""No finding: defined under a condition (where the def exists is part of the logic), or inside a
function that is itself traced (PML303's case: reported there, not here)."""
import jax

GOLDEN = {"findings": ["PML303:19"]}


def maybe_jit(x, use_jit):
    if use_jit:
        @jax.jit
        def f(y):
            return y + 1
        return f(x)
    return x + 1


@jax.jit
def outer(x):
    def inner(y):
        return y * 2

    return inner(x)
