"""`jax.jit` of what a factory returns for the loop's current value: a new function every
iteration, so jax compiles every time (its cache is keyed on the function object). Hoisting is
wrong (one wrapper cannot serve every `dt`); the fix is one wrapper per distinct value in a dict.
Reported, never applied: the value must be hashable with value equality (a jax array is not) and
the factory free of side effects, which only running shows. The dict form itself is not reported."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML302:25"],
    "framework": "jax",
    "backends": ["jax"],
    "messages": {"PML302:25": "not hoisted: the factory reads the loop variable `dt`"},
}


def make_step(dt):
    def step(x):
        return x + dt * jnp.sin(x)
    return step


def integrate(x, dts):
    for dt in dts:
        advance = jax.jit(make_step(dt))
        x = advance(x)
    return x


def integrate_cached(x, dts):
    steps = {}
    for dt in dts:
        if dt not in steps:
            steps[dt] = jax.jit(make_step(dt))
        x = steps[dt](x)
    return x


def golden_run():
    x = jnp.array([0.1, 0.5, 1.5])
    return integrate(x, [0.1, 0.2, 0.1]), integrate_cached(x, [0.1, 0.2, 0.1])
