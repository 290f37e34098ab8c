"""The positive control of test_reads_structure.py: a test reads only the values of `vmap(jit(f))`, so
the swap to `jit(vmap(f))` is applied in the test module."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML301:17"],
    "framework": "jax",
    "backends": ["jax"],
}


def energy(x):
    return jnp.sum(x ** 2)


batched = jax.jit(jax.vmap(energy))


def test_batched_values():
    assert batched(jnp.ones((2, 3))).tolist() == [3.0, 3.0]


def golden_run():
    return [batched(jnp.arange(6.).reshape(2, 3))]
