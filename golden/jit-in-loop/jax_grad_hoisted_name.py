"""A jitted gradient rebuilt every iteration: it is hoisted under the name of what it wraps
(`loss_grad_jit`), not of where it was built; a lambda's is named after its caller."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML302:16"], "framework": "jax", "backends": ["jax"], "compiles": [4, 1]}


def loss(params, batch):
    return jnp.mean((batch @ params - 1.0) ** 2)


def train(params, batches, lr):
    for batch in batches:
        gradient = jax.jit(jax.grad(loss))
        params = params - lr * gradient(params, batch)
    return params


def golden_run():
    rng = np.random.default_rng(0)
    batches = [jnp.asarray(rng.normal(size=(8, 3)).astype(np.float32)) for _ in range(4)]
    return train(jnp.zeros(3), batches, 0.1)
