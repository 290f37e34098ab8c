"""A tiny MLP regression (fit sin(3x) on [-1, 1]) trained with raw JAX.

Run:  python examples/jax_training.py

Anti-patterns phiml-rewrite should fix are marked `# PML3xx`; code marked `# keep` must not change.
"""
from functools import partial

import jax
import jax.numpy as jnp


def init_params(key, sizes=(1, 32, 1)):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)))
    return params


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def example_loss(params, x, y):
    """Squared error of one example (x: (1,), y: (1,))."""
    return jnp.sum((predict(params, x) - y) ** 2)


def loss(params, x, y):
    return jnp.mean(per_example_loss(params, x, y))


# PML301: vmap of jit - jit the vectorised function instead (one fused computation).
per_example_loss = jax.vmap(jax.jit(example_loss), in_axes=(None, 0, 0))


# PML301: @jax.vmap stacked over @jax.jit - put jit outermost.
@jax.vmap
@jax.jit
def standardize(x):
    return (x - x.mean()) / (x.std() + 1e-6)


@jax.jit
def sgd_step(params, x, y, lr):
    # PML303: jit inside a jitted body is redundant (it is inlined into the outer trace anyway).
    grads = jax.jit(jax.grad(loss))(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


# PML303: jit of an already-jitted function.
fast_sgd_step = jax.jit(sgd_step)


def train(params, x, y, epochs, lr):
    history = []
    for epoch in range(epochs):
        # PML302: a new jit(lambda) every epoch -> XLA compiles it every epoch.
        # It only captures x and y, which the loop never rebinds: build it once, before the loop.
        evaluate = jax.jit(lambda p: loss(p, x, y))
        params = fast_sgd_step(params, x, y, lr)
        if epoch % 10 == 0:
            history.append(float(evaluate(params)))
    return params, history


# keep: a factory that returns a jitted closure on purpose (params are baked in as constants).
def make_predictor(params):
    return jax.jit(lambda x: predict(params, x))


# keep: static control flow on a static argument; jit(vmap(...)) is already the right order.
@partial(jax.jit, static_argnames="n_steps")
def smooth(y, n_steps):
    for _ in range(n_steps):
        y = 0.5 * y + 0.25 * (jnp.roll(y, 1) + jnp.roll(y, -1))
    return y


batched_predict = jax.jit(jax.vmap(predict, in_axes=(None, 0)))


def lr_sweep(params, x, y):
    final = []
    for lr in (0.2, 0.05):
        # keep: the jitted lambda captures the loop variable `lr`; it cannot leave the loop.
        step = jax.jit(lambda p: sgd_step(p, x, y, lr))
        p = params
        for _ in range(20):
            p = step(p)
        final.append(round(float(loss(p, x, y)), 4))
    return final


def main():
    key = jax.random.PRNGKey(0)
    x = jnp.linspace(-1.0, 1.0, 128).reshape(-1, 1)
    y = jnp.sin(3.0 * x)
    params = init_params(key)

    params, history = train(params, x, y, epochs=60, lr=0.2)
    predictor = make_predictor(params)
    residual = predictor(x) - y
    z = standardize(jnp.stack([y[:, 0], 2.0 * y[:, 0] + 1.0]))
    print(f"loss history     : {[round(h, 4) for h in history]}")
    print(f"max |residual|   : {float(jnp.max(jnp.abs(residual))):.4f}")
    print(f"batched == single: {bool(jnp.allclose(batched_predict(params, x), predictor(x), atol=1e-5))}")
    print(f"standardized std : {[round(float(s), 4) for s in z.std(axis=1)]}")
    print(f"smoothed max     : {float(smooth(y[:, 0], n_steps=5).max()):.4f}")
    print(f"lr sweep losses  : {lr_sweep(init_params(key), x, y)}")


if __name__ == "__main__":
    main()
