"""Factories that build a `jax.custom_vjp` around what they are given, in a method reading `self`
and in a module function: they cannot move, and each finding gives the module-level form, with
the factory's parameters the rules read (`self` too, where a rule reads it) as `nondiff_argnums`. Building per call costs ~0.1 ms and no extra trace (measured). Must not change."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML101:22", "PML101:37"],
    "messages": {"PML101:22": "`@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1, 2))` on `def _scaled_gradient_wrapped(self, f, gradient, *args)`",
                 "PML101:37": "nondiff_argnums=(0,))` on `def _straight_through_rounded(f, *args)`"},
    "framework": "jax",
    "backends": ["jax"],
}


class Backend:
    def __init__(self, scale):
        self.scale = scale

    def scaled_gradient(self, f, gradient):
        @jax.custom_vjp
        def wrapped(*args):
            return f(*args)

        def forward(*args):
            return f(*args), args

        def backward(args, dy):
            return tuple(self.scale * g for g in gradient(args, dy))

        wrapped.defvjp(forward, backward)
        return wrapped


def straight_through(f):
    @jax.custom_vjp
    def rounded(x):
        return f(x)

    def forward(x):
        return f(x), None

    def backward(_, dy):
        return (dy,)

    rounded.defvjp(forward, backward)
    return rounded


def golden_run():
    square = lambda x: x ** 2
    halved = lambda args, dy: (dy * args[0],)
    g = jax.grad(Backend(3.0).scaled_gradient(square, halved))
    r = jax.grad(lambda x: straight_through(jnp.round)(x) * 2.0)
    return [g(jnp.float32(3.0)), g(jnp.float32(-1.5)), r(jnp.float32(0.4)), straight_through(jnp.round)(jnp.float32(2.6))]
