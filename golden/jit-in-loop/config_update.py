"""`jax.config.update(...)` configures jax: it does not change what `jax.jit` or `jax.grad` are, so a
wrapper that reads only those is hoisted (`jnp.append` is a function of jax.numpy: it changes
nothing). One that reads `jax.config` itself is not: a shared trace would keep the value the first
call saw."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
BIAS = jnp.append(jnp.zeros(0), 1.0)  # a function of jax.numpy, not a list's append

GOLDEN = {"findings": ["PML302:21", "PML302:30"], "framework": "jax", "backends": ["jax"], "compiles": [8, 5]}


def loss(params, batch):
    return jnp.mean((batch @ params - BIAS) ** 2)


def train(params, batches, lr):
    for batch in batches:
        update = jax.jit(lambda p, b: p - lr * jax.grad(loss)(p, b))
        params = update(params, batch)
    return params


def flagged(batches):
    out = []
    for batch in batches:
        out.append(jax.jit(lambda b: b.sum() * jax.config.jax_enable_x64)(batch))
    return out


def golden_run():
    rng = np.random.default_rng(0)
    batches = [jnp.asarray(rng.normal(size=(8, 3))) for _ in range(4)]
    return train(jnp.zeros(3), batches, 0.1), flagged(batches)
