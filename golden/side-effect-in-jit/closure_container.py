"""A jit-compiled function defined in a factory writes into a list of the factory and rebinds one of
its counters with `nonlocal`: both happen once per trace, so three calls record one. The appended
value is static (a shape), but appending counts calls: reported all the same."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML501:21", "PML501:22"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "differs"},
}


def make_step(scale):
    calls = []
    count = 0

    @jax.jit
    def step(x):
        nonlocal count
        calls.append(x.shape)
        count = count + 1
        return x * scale

    return step, calls, lambda: count


def golden_run():
    step, calls, count = make_step(2.0)
    for k in range(3):
        step(jnp.ones(2) * k)
    return len(calls), count()
