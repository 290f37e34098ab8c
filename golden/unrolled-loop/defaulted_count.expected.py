"""A count that no call changes is its default, 100: PML204 makes it static, and the loop is then
unrolled 100 times: `scan` over `jnp.arange(steps)`. Under `equinox.filter_jit` the rows of an
annotated array are iterated one by one: `scan` over them, each row having the shape the calls give
(`(60, 3)` rows are `(3,)`, like the carry), so both fixes are safe."""
import equinox as eqx
import jax
import jax.numpy as jnp
import functools

GOLDEN = {
    "findings": ["PML204:17", "PML206:19", "PML206:25"],
    "framework": "jax",
    "backends": ["jax"],
}


@functools.partial(jax.jit, static_argnames=('steps',))
def relax(x, steps=100):
    def relax_body(_, x):
        x = 0.5 * (x + jnp.roll(x, 1))
        return x
    x = jax.lax.fori_loop(0, steps, relax_body, x)
    return x


@eqx.filter_jit
def accumulate(rows: jax.Array, total):
    def accumulate_body(total, row):
        total = total + jnp.tanh(row)
        return total, None
    total, _ = jax.lax.scan(accumulate_body, total, rows)
    return total


def golden_run():
    return [relax(jnp.ones(4)), relax(jnp.zeros(4)), accumulate(jnp.ones((60, 3)), jnp.zeros(3))]
