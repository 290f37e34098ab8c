"""A solver class in the style of lattice-Boltzmann codes: methods jitted with `self` static. The
loop calls `self.relax(...)` with a relaxation time that changes every step as a static argument:
jax compiles every call. `self.stream(...)` gets the step counter as a traced argument and a
constant flag as a static one: compiled once per flag value, not reported."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML401:35"],
    "framework": "jax",
    "backends": ["jax"],
    "compiles": [6, 6],  # relax: one per tau (4); stream: one per flag (2)
    "messages": {"PML401:35": "its static argument `tau` is new each iteration"},
}


class Lattice:
    def __init__(self, omega):
        self.omega = omega

    @partial(jax.jit, static_argnums=(0, 2))
    def relax(self, f, tau):
        return f - (f - f.mean()) / tau

    @partial(jax.jit, static_argnums=(0, 3))
    def stream(self, f, timestep, keep_post=False):
        shifted = jnp.roll(f, 1) * self.omega + 0.01 * timestep
        return (shifted, f) if keep_post else shifted

    def run(self, f, steps):
        tau = 1.5
        for t in range(steps):
            f = self.relax(f, tau)
            f, _ = self.stream(f, t, keep_post=True)
            f = self.stream(f, t)
            tau += 0.25
        return f


def golden_run():
    return Lattice(0.9).run(jnp.linspace(0.0, 1.0, 5), 4)
