"""`print` of a string formatted from a traced value prints a tracer's text, once per trace: an f-string,
and one implicitly concatenated with plain text (one string, its fields the f-string's); formatting a
shape is what the author means."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML501:14", "PML501:15"],
}


@jax.jit
def loss(x):
    print(f"loss {jnp.sum(x ** 2)}")
    print("loss: " f"{jnp.sum(x ** 2):.3f}")
    print(f"shape {x.shape}", "of " f"{x.ndim}")  # static: fine
    return jnp.sum(x ** 2)
