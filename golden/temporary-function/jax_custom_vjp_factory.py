"""A backend's `custom_gradient` that builds a `jax.custom_vjp` around the function it is given, in
both spellings (decorator and call): it is a factory, so it cannot move to module level; each
finding says to keep what it returns per wrapped function. Must not change."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML101:19", "PML101:33"],
    "messages": {"PML101:19": "`custom_gradient` returns `wrapped`, so it is a factory",
                 "PML101:33": "call `custom_gradient` once per function it wraps and keep the result"},
    "framework": "jax",
    "backends": ["jax"],
}


class Backend:
    def custom_gradient(self, f, gradient):
        @jax.custom_vjp
        def wrapped(*args):
            return f(*args)

        def forward(*args):
            return f(*args), args

        def backward(args, dy):
            return gradient(args, dy)

        wrapped.defvjp(forward, backward)
        return wrapped


def custom_gradient(f, gradient):
    jax_fun = jax.custom_vjp(f)
    jax_fun.defvjp(lambda *x: (f(*x), x), lambda x, dy: gradient(x, dy))
    return jax_fun


def golden_run():
    square = lambda x: x ** 2
    halved = lambda args, dy: (dy * args[0],)  # half the true gradient 2x
    out = []
    for build in (Backend().custom_gradient, custom_gradient):
        g = jax.grad(build(square, halved))
        out += [g(jnp.float32(3.0)), g(jnp.float32(-1.5))]
    return out
