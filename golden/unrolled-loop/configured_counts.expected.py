"""Counts set where the object or the module is configured: `self.nt`, bound in `__init__` to what
the constructor calls pass (500, and the default 300), and `N_STEPS`, a module constant. The report says
how many iterations and where they are set; the loops become `fori_loop`s (`self` is static: its count
is a Python int while tracing). Not reported: a short configured count (`self.k`, 4), and a count another
method changes (`self.n`), whose value this module does not show (PML506 says why that is a hazard).
The fix of `run` is unsafe: nothing yet proves `x + self.dt * jnp.sin(x)` keeps `x`'s dtype."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML206:36", "PML506:43", "PML206:51"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "messages": {"PML206:36": "`self.nt` iterations (300 or 500 as configured)",
                 "PML206:51": "`N_STEPS` iterations (400 as configured)"},
}

N_STEPS = 400


class Sim:
    def __init__(self, nt=300, dt=0.01):
        self.nt = nt
        self.dt = dt
        self.k = 4
        self.n = 60

    def reset(self, n):
        self.n = n

    @partial(jax.jit, static_argnums=0)
    def run(self, x):
        def run_body(_, x):
            x = x + self.dt * jnp.sin(x)
            return x
        x = jax.lax.fori_loop(0, self.nt, run_body, x)
        return x

    @partial(jax.jit, static_argnums=0)
    def smooth(self, x):
        for _ in range(self.k):
            x = 0.5 * (x + jnp.roll(x, 1))
        for _ in range(self.n):
            x = x * 0.99
        return x


@jax.jit
def relax(x):
    def relax_body(_, x):
        x = 0.5 * (x + jnp.roll(x, 1))
        return x
    x = jax.lax.fori_loop(0, N_STEPS, relax_body, x)
    return x


def golden_run():
    x = jnp.array([0.1, 0.5, 1.0])
    sims = [Sim(500), Sim(dt=0.02)]
    return [s.run(x) for s in sims] + [sims[0].smooth(x), relax(x)]
