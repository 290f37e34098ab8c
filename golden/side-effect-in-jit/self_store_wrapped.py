"""A simulator jit-compiles its own bound `step` in `__init__`; `step` and the method it calls store
results on `self`. The stores run once, while tracing: `self` keeps tracers, never a call's values."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML501:21", "PML501:25"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "UnexpectedTracerError"},
}


class Diffusion:
    def __init__(self, nu):
        self.nu = nu
        self.fast_step = jax.jit(self.step)

    def step(self, u):
        u = u + self.nu * self.laplace(u)
        self.last_energy = jnp.sum(u ** 2)
        return u

    def laplace(self, u):
        self.solve_info = {"max": jnp.max(jnp.abs(u))}
        return jnp.roll(u, 1) + jnp.roll(u, -1) - 2 * u


def golden_run():
    sim = Diffusion(0.1)
    u = jnp.array([0., 1., 4., 1., 0.])
    energies = []
    for _ in range(3):
        u = sim.fast_step(u)
        energies.append(sim.last_energy + 0)
    return u, energies, sim.solve_info["max"] + 0
