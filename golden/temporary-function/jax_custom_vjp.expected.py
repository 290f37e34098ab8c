"""Raw jax: a custom_vjp function and its rules defined inside the function that uses them."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML101:15"],
    "framework": "jax",
    "backends": ["jax"],
}


# sin with a clipped gradient
@jax.custom_vjp
def _clipped_sin_grad_f(x):
    return jnp.sin(x)


def _clipped_sin_grad_f_fwd(x):
    return jnp.sin(x), jnp.cos(x)


def _clipped_sin_grad_f_bwd(cos_x, g):
    return (jnp.clip(cos_x * g, -0.5, 0.5),)


_clipped_sin_grad_f.defvjp(_clipped_sin_grad_f_fwd, _clipped_sin_grad_f_bwd)


def clipped_sin_grad(x):
    return jax.grad(lambda x: _clipped_sin_grad_f(x).sum())(x)


def golden_run():
    return [clipped_sin_grad(jnp.linspace(0., 3., 5) * i) for i in range(1, 4)]
