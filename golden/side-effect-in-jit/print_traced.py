"""`print` of a traced value prints once per trace, a tracer; printing a shape is what the author means."""
import jax
import jax.numpy as jnp
from phiml import math

GOLDEN = {
    "findings": ["PML501:13", "PML501:21"],
}


@jax.jit
def loss(x):
    print("loss", jnp.sum(x ** 2))
    print("shape", x.shape)  # static: fine
    return jnp.sum(x ** 2)


@math.jit_compile
def energy(u):
    e = math.sum(u ** 2)
    print(e)
    return e
