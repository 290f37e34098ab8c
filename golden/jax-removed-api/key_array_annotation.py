"""`jax.random.KeyArray` / `PRNGKeyArray` in annotations become `jax.Array` (evaluated at def time,
they raise AttributeError); an `isinstance` check is reported: `jax.Array` also matches tracers."""
import jax
from jax import random

GOLDEN = {
    "findings": ["PML604:12", "PML604:16", "PML604:16", "PML604:21"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "AttributeError"},
}


def split(key: jax.random.KeyArray, n: int) -> tuple:
    return tuple(random.split(key, n))


def first(keys: list[random.KeyArray]) -> random.PRNGKeyArray:
    return keys[0]


def is_key(value) -> bool:
    return isinstance(value, jax.random.KeyArray)


def golden_run():
    key = random.PRNGKey(0)
    return random.key_data(random.wrap_key_data(first(list(split(key, 2)))))


def golden_expected():
    return jax.random.split(jax.random.PRNGKey(0), 2)[0]
