"""A jitted lambda rebuilt every iteration; it reads a local the loop never changes."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML302:15"], "framework": "jax", "backends": ["jax"], "compiles": [4, 1]}


def loss(params, batch):
    return jnp.mean((batch @ params - 1.0) ** 2)


def train(params, batches, lr):
    train_lambda_jit = jax.jit(lambda p, b: p - lr * jax.grad(loss)(p, b))
    for batch in batches:
        update = train_lambda_jit
        params = update(params, batch)
    return params


def golden_run():
    rng = np.random.default_rng(0)
    batches = [jnp.asarray(rng.normal(size=(8, 3)).astype(np.float32)) for _ in range(4)]
    return train(jnp.zeros(3), batches, 0.1)
